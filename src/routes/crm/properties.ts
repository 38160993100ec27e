/**
 * @module `/crm/v3/properties/{objectType}`: list, create, read, update and archive property definitions
 * (docs/reference/crm.md "Properties"). Built-in properties are listed and read, never changed.
 */
import type { z } from "zod";
import type { AuthRule } from "../../http/auth";
import { portalOf, requireScopes } from "../../http/auth";
import { json, noContent } from "../../lib/http";
import { route } from "../../http/route";
import * as crm from "../../services/crm/records";
import * as props from "../../services/crm/properties";
import { withLiveOptions } from "../../services/crm/values";
import { typeParams } from "../../schemas/crm/objects";
import * as s from "../../schemas/crm/properties";
import { completedAt } from "../../services/testkit/clock";

const account: AuthRule = { kinds: ["oauth", "private_app"] };
const tag = "CRM properties";
const base = "/crm/v3/properties/:objectType";

const iso = (t: number | undefined) => (t === undefined ? undefined : new Date(t).toISOString());

export function presentProperty(d: props.PropertyDef): z.input<typeof s.propertyResponse> {
  return {
    name: d.name,
    label: d.label,
    type: d.type,
    fieldType: d.fieldType,
    groupName: d.groupName,
    description: d.description,
    options: d.options,
    displayOrder: d.displayOrder,
    hidden: d.hidden,
    formField: d.formField,
    hasUniqueValue: d.hasUniqueValue,
    hubspotDefined: d.hubspotDefined,
    calculated: false,
    externalOptions: false,
    archived: false,
    modificationMetadata: { archivable: !d.hubspotDefined, readOnlyDefinition: d.hubspotDefined, readOnlyValue: ["hs_object_id", "createdate", "lastmodifieddate", "hs_lastmodifieddate"].includes(d.name) },
    createdAt: iso(d.createdAt),
    updatedAt: iso(d.updatedAt),
  };
}

/** The batch envelope of the properties API (BatchResponseProperty); with errors, the status is 207. */
function batchAnswer(startedAt: number, results: props.PropertyDef[], missing: string[], ok: number) {
  const body: Record<string, unknown> = { status: "COMPLETE", results: results.map(presentProperty), startedAt: new Date(startedAt).toISOString(), completedAt: completedAt(startedAt) };
  if (missing.length) {
    const error = { status: "error", category: "OBJECT_NOT_FOUND", message: "Some properties do not exist", context: { properties: missing }, errors: [], links: {} };
    Object.assign(body, { numErrors: missing.length, errors: [error] });
  }
  return json(body, missing.length ? 207 : ok);
}

export const crmPropertyRoutes = [
  // The batch paths are literal: registered before `/:propertyName` (whose methods they do not share anyway).
  route({
    method: "POST",
    path: `${base}/batch/create`,
    summary: "Create up to 100 custom properties (all or none)",
    tag,
    auth: account,
    params: typeParams,
    body: s.batchCreatePropertiesBody,
    responses: {
      201: { description: "Created", schema: s.batchPropertiesResponse },
      409: { description: "A property of one of the names exists (CONFLICT); nothing is created" },
    },
    handler: async ({ db, principal, params, body, now }) => {
      requireScopes(principal, [crm.scopeFor(params.objectType, "write")]);
      const created = await props.createProperties(db, portalOf(principal), params.objectType, body.inputs, now);
      return batchAnswer(now, created, [], 201);
    },
  }),
  route({
    method: "POST",
    path: `${base}/batch/read`,
    summary: "Read up to 100 properties by name (names of no property are a 207's errors)",
    tag,
    auth: account,
    params: typeParams,
    body: s.batchReadPropertiesBody,
    responses: {
      200: { description: "The properties", schema: s.batchPropertiesResponse },
      207: { description: "Some names are of no property: the others, and errors with numErrors", schema: s.batchPropertiesResponse },
    },
    handler: async (ctx) => {
      const { db, principal, params, body, now } = ctx;
      requireScopes(principal, [crm.scopeFor(params.objectType, "read")]);
      const portalId = portalOf(principal);
      const names = [...new Set(body.inputs.map((i) => i.name))];
      // An archived property's definition is deleted (DELETE above), so `archived: true` finds none.
      const found = body.archived ? new Map<string, props.PropertyDef>() : await props.definitionsOf(db, portalId, params.objectType, names);
      const defs = await withLiveOptions(ctx, portalId, params.objectType, names.flatMap((n) => (found.has(n) ? [found.get(n)!] : [])));
      return batchAnswer(now, defs, names.filter((n) => !found.has(n)), 200);
    },
  }),
  route({
    method: "POST",
    path: `${base}/batch/archive`,
    summary: "Archive up to 100 custom properties (names of no property are ignored)",
    tag,
    auth: account,
    params: typeParams,
    body: s.batchArchivePropertiesBody,
    responses: { 204: { description: "Archived" } },
    handler: async ({ db, principal, params, body }) => {
      requireScopes(principal, [crm.scopeFor(params.objectType, "write")]);
      await props.archiveProperties(db, portalOf(principal), params.objectType, body.inputs.map((i) => i.name));
      return noContent();
    },
  }),
  route({
    method: "GET",
    path: base,
    summary: "List a type's properties: built-in, then custom",
    tag,
    auth: account,
    params: typeParams,
    responses: { 200: { description: "The properties", schema: s.propertyListResponse } },
    handler: async (ctx) => {
      const { db, principal, params } = ctx;
      requireScopes(principal, [crm.scopeFor(params.objectType, "read")]);
      const portalId = portalOf(principal);
      const all = await withLiveOptions(ctx, portalId, params.objectType, await props.listProperties(db, portalId, params.objectType));
      return json({ results: all.map(presentProperty) });
    },
  }),
  route({
    method: "POST",
    path: base,
    summary: "Create a custom property",
    tag,
    auth: account,
    params: typeParams,
    body: s.createPropertyBody,
    responses: {
      201: { description: "Created", schema: s.propertyResponse },
      409: { description: "A property of that name exists (CONFLICT)" },
    },
    handler: async ({ db, principal, params, body, now }) => {
      requireScopes(principal, [crm.scopeFor(params.objectType, "write")]);
      const created = await props.createProperty(db, portalOf(principal), params.objectType, body, now);
      return json(presentProperty(created), 201);
    },
  }),
  route({
    method: "GET",
    path: `${base}/:propertyName`,
    summary: "Read a property",
    tag,
    auth: account,
    params: s.propertyParams,
    responses: { 200: { description: "The property", schema: s.propertyResponse } },
    handler: async (ctx) => {
      const { db, principal, params } = ctx;
      requireScopes(principal, [crm.scopeFor(params.objectType, "read")]);
      const portalId = portalOf(principal);
      const [def] = await withLiveOptions(ctx, portalId, params.objectType, [await props.getProperty(db, portalId, params.objectType, params.propertyName)]);
      return json(presentProperty(def!));
    },
  }),
  route({
    method: "PATCH",
    path: `${base}/:propertyName`,
    summary: "Update a custom property",
    tag,
    auth: account,
    params: s.propertyParams,
    body: s.updatePropertyBody,
    responses: { 200: { description: "The updated property", schema: s.propertyResponse } },
    handler: async ({ db, principal, params, body, now }) => {
      requireScopes(principal, [crm.scopeFor(params.objectType, "write")]);
      const updated = await props.updateProperty(db, portalOf(principal), params.objectType, params.propertyName, body, now);
      return json(presentProperty(updated));
    },
  }),
  route({
    method: "DELETE",
    path: `${base}/:propertyName`,
    summary: "Archive a custom property (records keep their values)",
    tag,
    auth: account,
    params: s.propertyParams,
    responses: { 204: { description: "Archived" } },
    handler: async ({ db, principal, params }) => {
      requireScopes(principal, [crm.scopeFor(params.objectType, "write")]);
      await props.archiveProperty(db, portalOf(principal), params.objectType, params.propertyName);
      return noContent();
    },
  }),
];
