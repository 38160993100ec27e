/** @module CRM objects API `/crm/v3/objects/{objectType}` (docs/reference/crm.md). */
import type { z } from "zod";
import type { Db } from "../../db/client";
import type { ObjectType } from "../../db/tables/crm";
import type { AuthRule } from "../../http/auth";
import { portalOf, requireScopes } from "../../http/auth";
import { badRequest, notFound } from "../../lib/errors";
import { json, jsonText, noContent } from "../../lib/http";
import { isoTime } from "../../lib/iso";
import type { Principal } from "../../lib/principal";
import { route } from "../../http/route";
import { associationTarget } from "../../services/crm/association-types";
import * as crm from "../../services/crm/records";
import { associateRecords, dissociateRecords } from "../../services/crm/associations";
import { recordsById, resolveIdProperty } from "../../services/crm/batch";
import { answeredProperties, systemPropertyValue } from "../../services/crm/properties";
import { checkValues } from "../../services/crm/values";
import { checkRequired } from "../../services/crm/object-types";
import { writeWithEvents } from "../../services/webhooks/write";
import { presentAssociations, recordText, splitAnswered } from "./record-text";
import * as s from "../../schemas/crm/objects";

const account: AuthRule = { kinds: ["oauth", "private_app"] };
const tag = "CRM objects";
const base = "/crm/v3/objects/:objectType";

/**
 * The named properties, null where the record has none. A loop of assignments: Object.fromEntries over the
 * names cost the v3 list of 100 about 0.01 of its floor (measured interleaved).
 */
function namedProperties(row: crm.CrmRow, names: string[], createdAt: string, updatedAt: string) {
  const out: Record<string, string | null> = {};
  for (const name of names) {
    const value = systemPropertyValue(name, row.id, createdAt, updatedAt) ?? (Object.hasOwn(row.properties, name) ? row.properties[name]! : null);
    // Assigning `__proto__` would set the object's prototype instead of answering the name.
    if (name === "__proto__") Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
    else out[name] = value;
  }
  return out;
}

/**
 * v3 shape: string id, ISO dates, and the properties. A read passes `names` (answeredProperties): each comes
 * back, null when the record has no value, as on the real service. Writes answer every stored property.
 */
export function present(row: crm.CrmRow, associations?: Partial<Record<ObjectType, number[]>>, names?: string[]) {
  const createdAt = isoTime(row.createdAt);
  const updatedAt = isoTime(row.updatedAt);
  const properties = names
    ? namedProperties(row, names, createdAt, updatedAt)
    : { ...row.properties, hs_object_id: String(row.id), createdate: createdAt, lastmodifieddate: updatedAt };
  const out: Record<string, unknown> = {
    id: String(row.id),
    properties,
    createdAt,
    updatedAt,
    archived: row.archived,
  };
  // Archiving sets updated_at, and an archived record takes no other write: that is when it was archived.
  if (row.archived) out.archivedAt = updatedAt;
  if (associations) out.associations = presentAssociations(row.objectType, associations);
  return out;
}

/**
 * The records a create's `associations` point to: each type id must be one of the created
 * type's HUBSPOT_DEFINED ids, and each target a live record of the id's type in this account; otherwise
 * 400 before anything is written. Reading the targets needs their read scope, as for the association PUT.
 */
export async function associationTargets(
  db: Db,
  principal: Principal,
  portalId: number,
  from: ObjectType,
  input: NonNullable<z.output<typeof s.createBody>["associations"]>,
  at = "",
): Promise<{ type: ObjectType; id: number }[]> {
  const wanted: { type: ObjectType; id: number; at: number }[] = [];
  input.forEach((a, i) => {
    for (const [j, t] of a.types.entries()) {
      const to = associationTarget(from, t.associationTypeId);
      if (!to) {
        throw badRequest(`associationTypeId ${t.associationTypeId} is not a HUBSPOT_DEFINED association type from ${from}`, {
          errors: [{ message: "unknown association type for this object type", in: "body", context: { propertyName: [`${at}associations.${i}.types.${j}.associationTypeId`] } }],
        });
      }
      wanted.push({ type: to, id: Number(a.to.id), at: i });
    }
  });
  if (wanted.length === 0) return [];
  requireScopes(principal, [...new Set(wanted.map((w) => crm.scopeFor(w.type, "read")))]);
  for (const type of new Set(wanted.map((w) => w.type))) {
    const ofType = wanted.filter((w) => w.type === type);
    const found = await crm.existingIds(db, portalId, type, ofType.map((w) => w.id));
    const missing = ofType.filter((w) => !found.has(w.id));
    if (missing.length) {
      throw badRequest(`No ${type} with id ${missing.map((m) => m.id).join(", ")} in this account to associate with`, {
        errors: missing.map((m) => ({ message: `${type} ${m.id} not found`, in: "body", context: { propertyName: [`${at}associations.${m.at}.to.id`] } })),
      });
    }
  }
  const unique = new Map(wanted.map((w) => [`${w.type}:${w.id}`, { type: w.type, id: w.id }]));
  return [...unique.values()];
}

/**
 * The key a path names: an id, a contact's email (`?idProperty=email`), or the value of a property with
 * `hasUniqueValue` (the real service's rule: idProperty names a unique property; any other is a 400). A unique
 * value is looked up here (live records, or archived ones for an archived read); none holding it is the 404.
 */
async function recordKey(db: Db, portalId: number, type: ObjectType, key: string, idProperty: string | undefined, archived = false): Promise<crm.RecordKey> {
  const name = await resolveIdProperty(db, portalId, type, idProperty, "idProperty");
  if (name === "email") return { email: key };
  if (name !== "hs_object_id") {
    const row = (await recordsById(db, portalId, type, name, [key], archived)).get(key);
    if (!row) throw notFound(`No ${type} has ${name} ${JSON.stringify(key)}`);
    return { id: row.id };
  }
  if (!/^\d{1,15}$/.test(key)) {
    throw badRequest("objectId: must be a numeric id (or set idProperty)", { errors: [{ message: "objectId: must be a numeric id", in: "path", context: { propertyName: ["objectId"] } }] });
  }
  return { id: Number(key) };
}

const recordNotFound = (type: ObjectType, key: crm.RecordKey) => notFound("id" in key ? `${type} ${key.id} not found` : "No contact has that email");

/** The record a path names; 404 when none is live. */
async function recordOf(db: Db, portalId: number, type: ObjectType, key: string, idProperty: string | undefined): Promise<crm.CrmRow> {
  const k = await recordKey(db, portalId, type, key, idProperty);
  const found = await crm.recordWithAssociations(db, portalId, type, k, undefined);
  if (!found) throw recordNotFound(type, k);
  return found.row;
}

export const crmObjectRoutes = [
  route({
    method: "POST",
    path: base,
    summary: "Create a record",
    tag,
    auth: account,
    params: s.typeParams,
    body: s.createBody,
    responses: {
      201: { description: "Created", schema: s.objectResponse },
      409: { description: "A contact with the email exists: `Contact already exists. Existing ID: <id>` (CONFLICT)" },
    },
    handler: async (ctx) => {
      const { db, principal, params, body, now } = ctx;
      requireScopes(principal, [crm.scopeFor(params.objectType, "write")]);
      const portalId = portalOf(principal);
      checkRequired(params.objectType, body.properties);
      await checkValues(ctx, portalId, params.objectType, [{ properties: body.properties, at: "", create: true }]);
      const targets = await associationTargets(db, principal, portalId, params.objectType, body.associations ?? []);
      const row = await writeWithEvents(ctx, portalId, (outbox) => crm.createObject(db, portalId, params.objectType, body.properties, now, targets, outbox));
      return json(present(row), 201);
    },
  }),
  route({
    method: "GET",
    path: base,
    summary: "List records (or, with archived=true, archived ones), oldest first, with an `after` cursor",
    tag,
    auth: account,
    params: s.typeParams,
    query: s.listQuery,
    responses: { 200: { description: "A page of records", schema: s.listResponse } },
    handler: async ({ db, principal, params, query, url }) => {
      const type = params.objectType;
      requireScopes(principal, [crm.scopeFor(type, "read")]);
      const { system, stored } = splitAnswered(answeredProperties(type, query.properties));
      // One round trip: the page, with only the asked properties, and its associations
      // (services/crm/records.ts).
      const page = await crm.listObjectsWithAssociations(db, portalOf(principal), type, query.limit, query.after ?? 0, stored, query.associations, query.archived);
      const results = page.rows.map((r) => {
        const ids = page.associations?.get(r.id);
        return recordText(r, system, ids && { from: type, ids });
      });
      const last = page.rows.at(-1);
      let paging = "";
      if (page.hasMore && last) {
        const next = new URL(url);
        next.searchParams.set("after", String(last.id));
        paging = `,"paging":${JSON.stringify({ next: { after: String(last.id), link: next.toString() } })}`;
      }
      return jsonText(`{"results":[${results.join(",")}]${paging}}`);
    },
  }),
  route({
    method: "GET",
    path: `${base}/:objectId`,
    summary: "Read a record (an archived one only with archived=true), optionally with its associations",
    tag,
    auth: account,
    params: s.recordParams,
    query: s.getQuery,
    responses: { 200: { description: "The record", schema: s.objectResponse } },
    handler: async ({ db, principal, params, query }) => {
      const type = params.objectType;
      requireScopes(principal, [crm.scopeFor(type, "read")]);
      const { system, stored } = splitAnswered(answeredProperties(type, query.properties));
      // One round trip: the record, with only the asked properties, and its associations
      // (services/crm/records.ts).
      const portalId = portalOf(principal);
      const key = await recordKey(db, portalId, type, params.objectId, query.idProperty, query.archived);
      const found = await crm.projectedRecord(db, portalId, type, key, stored, query.associations, query.archived);
      if (!found) throw recordNotFound(type, key);
      return jsonText(recordText(found.row, system, found.associations && { from: type, ids: found.associations }));
    },
  }),
  route({
    method: "PATCH",
    path: `${base}/:objectId`,
    summary: "Update a record's properties (an empty string clears one)",
    tag,
    auth: account,
    params: s.recordParams,
    query: s.idPropertyQuery,
    body: s.updateBody,
    responses: {
      200: { description: "The updated record", schema: s.objectResponse },
      409: { description: "Another contact holds the email: `Contact already exists. Existing ID: <id>` (CONFLICT)" },
    },
    handler: async (ctx) => {
      const { db, principal, params, query, body, now } = ctx;
      requireScopes(principal, [crm.scopeFor(params.objectType, "write")]);
      const portalId = portalOf(principal);
      const { id } = await recordOf(db, portalId, params.objectType, params.objectId, query.idProperty);
      await checkValues(ctx, portalId, params.objectType, [{ properties: body.properties, at: "", id }]);
      const row = await writeWithEvents(ctx, portalId, (outbox) => crm.updateObject(db, portalId, params.objectType, id, body.properties, now, outbox));
      return json(present(row));
    },
  }),
  route({
    method: "DELETE",
    path: `${base}/:objectId`,
    summary: "Archive a record",
    tag,
    auth: account,
    params: s.recordParams,
    query: s.idPropertyQuery,
    responses: { 204: { description: "Archived" } },
    handler: async (ctx) => {
      const { db, principal, params, query, now } = ctx;
      requireScopes(principal, [crm.scopeFor(params.objectType, "write")]);
      const portalId = portalOf(principal);
      const { id } = await recordOf(db, portalId, params.objectType, params.objectId, query.idProperty);
      await writeWithEvents(ctx, portalId, (outbox) => crm.archiveObject(db, portalId, params.objectType, id, now, outbox));
      return noContent();
    },
  }),
  route({
    method: "PUT",
    path: `${base}/:objectId/associations/:toObjectType/:toObjectId`,
    summary: "Associate two records",
    tag,
    auth: account,
    params: s.associationParams,
    responses: { 204: { description: "Associated" } },
    handler: async (ctx) => {
      const { db, principal, params } = ctx;
      requireScopes(principal, [crm.scopeFor(params.objectType, "write"), crm.scopeFor(params.toObjectType, "read")]);
      const portalId = portalOf(principal);
      await writeWithEvents(ctx, portalId, (outbox) => associateRecords(db, portalId, { type: params.objectType, id: params.objectId }, { type: params.toObjectType, id: params.toObjectId }, outbox));
      return noContent();
    },
  }),
  route({
    method: "DELETE",
    path: `${base}/:objectId/associations/:toObjectType/:toObjectId`,
    summary: "Remove an association",
    tag,
    auth: account,
    params: s.associationParams,
    responses: { 204: { description: "Removed" } },
    handler: async (ctx) => {
      const { db, principal, params } = ctx;
      requireScopes(principal, [crm.scopeFor(params.objectType, "write")]);
      const portalId = portalOf(principal);
      // Both ends must be this account's, as for PUT: another account's id is a 404, never a silent 204.
      await writeWithEvents(ctx, portalId, (outbox) => dissociateRecords(db, portalId, { type: params.objectType, id: params.objectId }, { type: params.toObjectType, id: params.toObjectId }, outbox));
      return noContent();
    },
  }),
];
