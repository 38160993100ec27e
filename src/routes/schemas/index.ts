/**
 * @module Custom object schemas `/crm-object-schemas/v3/schemas`, the path @hubspot/api-client calls, and the
 * same at `/crm/v3/schemas` (docs/reference/schemas.md).
 */
import type { AuthRule } from "../../http/auth";
import { portalOf, requireScopes } from "../../http/auth";
import { json, noContent } from "../../lib/http";
import { isoTime } from "../../lib/iso";
import { route, type RouteDef } from "../../http/route";
import type { SchemaAssociation } from "../../db/tables/schemas";
import * as schemas from "../../services/schemas/schemas";
import { customTypeKey } from "../../services/crm/object-types";
import * as s from "../../schemas/schemas";
import { presentProperty } from "../crm/properties";
import { completedAt } from "../../services/testkit/clock";

const account: AuthRule = { kinds: ["oauth", "private_app"] };
const tag = "CRM object schemas";
const READ = "crm.schemas.custom.read" as const;
const WRITE = "crm.schemas.custom.write" as const;

const presentAssociation = (from: string, a: SchemaAssociation) => ({
  id: String(a.id),
  fromObjectTypeId: from,
  toObjectTypeId: a.toObjectTypeId,
  ...(a.name === null ? {} : { name: a.name }),
  createdAt: isoTime(a.createdAt),
  updatedAt: isoTime(a.updatedAt),
});

/** ObjectTypeDefinition: the schema without its properties and associations (the PATCH answer). */
function presentDefinition(row: schemas.SchemaRow) {
  return {
    id: String(row.id),
    objectTypeId: customTypeKey(row.id),
    fullyQualifiedName: `p${row.portalId}_${row.name}`,
    name: row.name,
    labels: { singular: row.singular, plural: row.plural },
    ...(row.description === null ? {} : { description: row.description }),
    ...(row.primaryDisplayProperty === null ? {} : { primaryDisplayProperty: row.primaryDisplayProperty }),
    secondaryDisplayProperties: row.secondaryDisplayProperties,
    requiredProperties: row.requiredProperties,
    searchableProperties: row.searchableProperties,
    archived: row.archivedAt !== null,
    createdAt: isoTime(row.createdAt),
    updatedAt: isoTime(row.updatedAt),
  };
}

function presentSchema({ row, properties }: schemas.Schema) {
  const from = customTypeKey(row.id);
  return { ...presentDefinition(row), properties: properties.map(presentProperty), associations: row.associations.map((a) => presentAssociation(from, a)) };
}

function routesAt(base: string): RouteDef[] {
  return [
    route({
      method: "GET",
      path: base,
      summary: "List the account's custom object schemas (archived ones with archived=true)",
      tag,
      auth: account,
      query: s.archivedQuery,
      responses: { 200: { description: "The schemas", schema: s.schemaListResponse } },
      handler: async ({ db, principal, query }) => {
        requireScopes(principal, [READ]);
        const list = await schemas.listSchemas(db, portalOf(principal), query.archived);
        return json({ results: list.map(presentSchema) });
      },
    }),
    route({
      method: "POST",
      path: base,
      summary: "Create a custom object schema with its properties and association definitions",
      tag,
      auth: account,
      body: s.createSchemaBody,
      responses: { 201: { description: "Created", schema: s.schemaResponse } },
      handler: async ({ db, principal, body, now }) => {
        requireScopes(principal, [WRITE]);
        return json(presentSchema(await schemas.createSchema(db, portalOf(principal), body, now)), 201);
      },
    }),
    route({
      method: "POST",
      path: `${base}/batch/read`,
      summary: "Read several schemas by object type id, fully qualified name or name",
      tag,
      auth: account,
      body: s.batchReadBody,
      responses: { 200: { description: "The schemas found", schema: s.batchResponse } },
      handler: async ({ db, principal, body, now }) => {
        requireScopes(principal, [READ]);
        const found = await schemas.batchReadSchemas(db, portalOf(principal), body.inputs);
        return json({ status: "COMPLETE", results: found.map(presentSchema), startedAt: new Date(now).toISOString(), completedAt: completedAt(now) });
      },
    }),
    route({
      method: "GET",
      path: `${base}/:objectType`,
      summary: "Read a schema",
      tag,
      auth: account,
      params: s.schemaParams,
      responses: { 200: { description: "The schema", schema: s.schemaResponse } },
      handler: async ({ db, principal, params }) => {
        requireScopes(principal, [READ]);
        return json(presentSchema(await schemas.getSchema(db, portalOf(principal), params.objectType)));
      },
    }),
    route({
      method: "PATCH",
      path: `${base}/:objectType`,
      summary: "Update a schema's labels, description and display, required and searchable properties",
      tag,
      auth: account,
      params: s.schemaParams,
      body: s.updateSchemaBody,
      responses: { 200: { description: "The updated definition", schema: s.definitionResponse } },
      handler: async ({ db, principal, params, body, now }) => {
        requireScopes(principal, [WRITE]);
        const row = await schemas.updateSchema(db, portalOf(principal), params.objectType, body, now);
        return json({ ...presentDefinition(row), portalId: row.portalId });
      },
    }),
    route({
      method: "DELETE",
      path: `${base}/:objectType`,
      summary: "Archive a schema (its records stop answering until it is purged)",
      tag,
      auth: account,
      params: s.schemaParams,
      query: s.archivedQuery,
      responses: { 204: { description: "Archived" } },
      handler: async ({ db, principal, params, now }) => {
        requireScopes(principal, [WRITE]);
        await schemas.archiveSchema(db, portalOf(principal), params.objectType, now);
        return noContent();
      },
    }),
    route({
      method: "DELETE",
      path: `${base}/:objectType/purge`,
      summary: "Delete an archived schema that has no records",
      tag,
      auth: account,
      params: s.schemaParams,
      responses: { 204: { description: "Purged" } },
      handler: async ({ db, principal, params }) => {
        requireScopes(principal, [WRITE]);
        await schemas.purgeSchema(db, portalOf(principal), params.objectType);
        return noContent();
      },
    }),
    route({
      method: "POST",
      path: `${base}/:objectType/associations`,
      summary: "Add an association definition to a schema",
      tag,
      auth: account,
      params: s.schemaParams,
      body: s.associationBody,
      responses: { 201: { description: "Created", schema: s.associationResponse } },
      handler: async ({ db, principal, params, body, now }) => {
        requireScopes(principal, [WRITE]);
        const { from, association } = await schemas.createAssociation(db, portalOf(principal), params.objectType, body, now);
        return json(presentAssociation(from, association), 201);
      },
    }),
    route({
      method: "DELETE",
      path: `${base}/:objectType/associations/:associationIdentifier`,
      summary: "Remove an association definition from a schema",
      tag,
      auth: account,
      params: s.associationParams,
      responses: { 204: { description: "Removed" } },
      handler: async ({ db, principal, params, now }) => {
        requireScopes(principal, [WRITE]);
        await schemas.deleteAssociation(db, portalOf(principal), params.objectType, Number(params.associationIdentifier), now);
        return noContent();
      },
    }),
  ];
}

export const schemaRoutes = [...routesAt("/crm-object-schemas/v3/schemas"), ...routesAt("/crm/v3/schemas")];
