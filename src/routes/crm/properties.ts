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

export const crmPropertyRoutes = [
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
