/**
 * @module `POST /crm/v3/objects/{objectType}/batch/{create,read,update,upsert,archive}` (docs/reference/crm.md
 * "Batch"): at most 100 inputs; bad input anywhere is a 400 before anything is written; inputs naming no
 * record are a 207 with `errors` and `numErrors` beside the results.
 */
import type { ObjectType } from "../../db/tables/crm";
import type { AuthRule } from "../../http/auth";
import { portalOf, requireScopes } from "../../http/auth";
import { badRequest } from "../../lib/errors";
import { json, noContent } from "../../lib/http";
import { route } from "../../http/route";
import * as crm from "../../services/crm/records";
import * as batch from "../../services/crm/batch";
import { answeredProperties } from "../../services/crm/properties";
import { checkValues } from "../../services/crm/values";
import { checkRequired } from "../../services/crm/object-types";
import { writeWithEvents } from "../../services/webhooks/write";
import { associationTargets, present } from "./objects";
import * as s from "../../schemas/crm/batch";
import { typeParams } from "../../schemas/crm/objects";

const account: AuthRule = { kinds: ["oauth", "private_app"] };
const tag = "CRM objects";
const base = "/crm/v3/objects/:objectType/batch";

/** The batch envelope; with errors, the status the route answers is 207. */
function answer<T>(startedAt: number, results: T[], errors: batch.BatchError[], ok: number) {
  const body: Record<string, unknown> = { status: "COMPLETE", results, startedAt: new Date(startedAt).toISOString(), completedAt: new Date().toISOString() };
  if (errors.length) Object.assign(body, { numErrors: errors.reduce((n, e) => n + (e.context.ids?.length ?? 1), 0), errors });
  return json(body, errors.length ? 207 : ok);
}

const partial = { 207: { description: "Some inputs named no record: the others' results, and errors with numErrors", schema: s.batchObjectsResponse } };

export const crmBatchRoutes = [
  route({
    method: "POST",
    path: `${base}/create`,
    summary: "Create up to 100 records (all or none)",
    tag,
    auth: account,
    params: typeParams,
    body: s.batchCreateBody,
    responses: {
      201: { description: "Created", schema: s.batchObjectsResponse },
      409: { description: "A contact with one of the emails exists: `Contact already exists. Existing ID: <id>` (CONFLICT); nothing is created" },
    },
    handler: async (ctx) => {
      const { db, principal, params, body, now } = ctx;
      const type: ObjectType = params.objectType;
      requireScopes(principal, [crm.scopeFor(type, "write")]);
      const portalId = portalOf(principal);
      body.inputs.forEach((input, i) => checkRequired(type, input.properties, `inputs.${i}.`));
      await checkValues(ctx, portalId, type, body.inputs.map((input, i) => ({ properties: input.properties, at: `inputs.${i}.` })));
      const inputs: batch.CreateInput[] = [];
      for (const [i, input] of body.inputs.entries()) {
        const targets = await associationTargets(db, principal, portalId, type, input.associations ?? [], `inputs.${i}.`);
        inputs.push({ properties: input.properties, associations: targets });
      }
      const rows = await writeWithEvents(ctx, portalId, (outbox) => batch.batchCreate(db, portalId, type, inputs, now, outbox));
      return answer(now, rows.map((r) => present(r)), [], 201);
    },
  }),
  route({
    method: "POST",
    path: `${base}/read`,
    summary: "Read up to 100 records by id, or (contacts) by email with idProperty",
    tag,
    auth: account,
    params: typeParams,
    query: s.batchReadQuery,
    body: s.batchReadBody,
    responses: { 200: { description: "The records", schema: s.batchObjectsResponse }, ...partial },
    handler: async ({ db, principal, params, query, body, now }) => {
      requireScopes(principal, [crm.scopeFor(params.objectType, "read")]);
      const idProperty = batch.idPropertyOf(params.objectType, body.idProperty, "idProperty");
      const out = await batch.batchRead(db, portalOf(principal), params.objectType, idProperty, body.inputs.map((i) => i.id), query.archived);
      const names = answeredProperties(params.objectType, body.properties);
      return answer(now, out.results.map((r) => present(r, undefined, names)), out.errors, 200);
    },
  }),
  route({
    method: "POST",
    path: `${base}/update`,
    summary: "Update up to 100 records' properties (an empty string clears one)",
    tag,
    auth: account,
    params: typeParams,
    body: s.batchUpdateBody,
    responses: {
      200: { description: "The updated records", schema: s.batchObjectsResponse },
      ...partial,
      409: { description: "An email another contact holds (CONFLICT); nothing is updated" },
    },
    handler: async (ctx) => {
      const { db, principal, params, body, now } = ctx;
      const type: ObjectType = params.objectType;
      requireScopes(principal, [crm.scopeFor(type, "write")]);
      const inputs = body.inputs.map((inp, i) => ({ ...inp, idProperty: batch.idPropertyOf(type, inp.idProperty, `inputs.${i}.idProperty`) }));
      const portalId = portalOf(principal);
      // An id given by another idProperty is checked without the record's current values.
      await checkValues(ctx, portalId, type, inputs.map((input, i) => ({ properties: input.properties, at: `inputs.${i}.`, id: input.idProperty === "hs_object_id" && /^\d{1,15}$/.test(input.id) ? Number(input.id) : undefined })));
      const out = await writeWithEvents(ctx, portalId, (outbox) => batch.batchUpdate(db, portalId, type, inputs, now, outbox));
      return answer(now, out.results.map((r) => present(r)), out.errors, 200);
    },
  }),
  route({
    method: "POST",
    path: `${base}/upsert`,
    summary: "Create or update up to 100 contacts by email (idProperty email); existing ones keep their ids",
    tag,
    auth: account,
    params: typeParams,
    body: s.batchUpsertBody,
    responses: { 200: { description: "The records; `new` says which were created", schema: s.batchUpsertResponse } },
    handler: async (ctx) => {
      const { db, principal, params, body, now } = ctx;
      const type: ObjectType = params.objectType;
      requireScopes(principal, [crm.scopeFor(type, "write")]);
      if (type !== "contacts") {
        throw badRequest(`Batch upsert needs a unique idProperty; ${type} has none here (contacts upsert by email)`, {
          errors: [{ message: "no unique property to upsert by", in: "body", context: { propertyName: ["inputs.0.idProperty"] } }],
        });
      }
      const portalId = portalOf(principal);
      await checkValues(ctx, portalId, type, body.inputs.map((input, i) => ({ properties: input.properties, at: `inputs.${i}.` })));
      const rows = await writeWithEvents(ctx, portalId, (outbox) => batch.batchUpsert(db, portalId, type, body.inputs, now, outbox));
      return answer(now, rows.map((r) => ({ ...present(r.row), new: r.created })), [], 200);
    },
  }),
  route({
    method: "POST",
    path: `${base}/archive`,
    summary: "Archive up to 100 records (ids of no record are ignored)",
    tag,
    auth: account,
    params: typeParams,
    body: s.batchArchiveBody,
    responses: { 204: { description: "Archived" } },
    handler: async (ctx) => {
      const { db, principal, params, body, now } = ctx;
      requireScopes(principal, [crm.scopeFor(params.objectType, "write")]);
      const portalId = portalOf(principal);
      await writeWithEvents(ctx, portalId, (outbox) => batch.batchArchive(db, portalId, params.objectType, body.inputs.map((i) => i.id), now, outbox));
      return noContent();
    },
  }),
];
