/**
 * @module `/crm/v3/properties/{objectType}/groups`: list, create, read, update and archive property groups
 * (docs/reference/crm.md "Property groups"). The built-in group of a type is listed and read, never changed.
 */
import type { AuthRule } from "../../http/auth";
import { portalOf, requireScopes } from "../../http/auth";
import { json, noContent } from "../../lib/http";
import { route } from "../../http/route";
import * as crm from "../../services/crm/records";
import * as groups from "../../services/crm/property-groups";
import { typeParams } from "../../schemas/crm/objects";
import * as s from "../../schemas/crm/properties";

const account: AuthRule = { kinds: ["oauth", "private_app"] };
const tag = "CRM properties";
const base = "/crm/v3/properties/:objectType/groups";

const present = (g: groups.PropertyGroupDef) => ({ name: g.name, label: g.label, displayOrder: g.displayOrder, archived: false });

export const crmPropertyGroupRoutes = [
  route({
    method: "GET",
    path: base,
    summary: "List a type's property groups: built-in, then custom",
    tag,
    auth: account,
    params: typeParams,
    responses: { 200: { description: "The groups", schema: s.groupListResponse } },
    handler: async ({ db, principal, params }) => {
      requireScopes(principal, [crm.scopeFor(params.objectType, "read")]);
      return json({ results: (await groups.listGroups(db, portalOf(principal), params.objectType)).map(present) });
    },
  }),
  route({
    method: "POST",
    path: base,
    summary: "Create a property group",
    tag,
    auth: account,
    params: typeParams,
    body: s.createGroupBody,
    responses: {
      201: { description: "Created", schema: s.groupResponse },
      409: { description: "A group of that name exists (CONFLICT)" },
    },
    handler: async ({ db, principal, params, body, now }) => {
      requireScopes(principal, [crm.scopeFor(params.objectType, "write")]);
      return json(present(await groups.createGroup(db, portalOf(principal), params.objectType, body, now)), 201);
    },
  }),
  route({
    method: "GET",
    path: `${base}/:groupName`,
    summary: "Read a property group",
    tag,
    auth: account,
    params: s.groupParams,
    responses: { 200: { description: "The group", schema: s.groupResponse } },
    handler: async ({ db, principal, params }) => {
      requireScopes(principal, [crm.scopeFor(params.objectType, "read")]);
      return json(present(await groups.getGroup(db, portalOf(principal), params.objectType, params.groupName)));
    },
  }),
  route({
    method: "PATCH",
    path: `${base}/:groupName`,
    summary: "Update a custom property group",
    tag,
    auth: account,
    params: s.groupParams,
    body: s.updateGroupBody,
    responses: { 200: { description: "The updated group", schema: s.groupResponse } },
    handler: async ({ db, principal, params, body, now }) => {
      requireScopes(principal, [crm.scopeFor(params.objectType, "write")]);
      return json(present(await groups.updateGroup(db, portalOf(principal), params.objectType, params.groupName, body, now)));
    },
  }),
  route({
    method: "DELETE",
    path: `${base}/:groupName`,
    summary: "Archive an empty custom property group",
    tag,
    auth: account,
    params: s.groupParams,
    responses: { 204: { description: "Archived" } },
    handler: async ({ db, principal, params }) => {
      requireScopes(principal, [crm.scopeFor(params.objectType, "write")]);
      await groups.archiveGroup(db, portalOf(principal), params.objectType, params.groupName);
      return noContent();
    },
  }),
];
