/**
 * @module Associations v4 `/crm/v4/objects/{objectType}/{objectId}/associations/...` (docs/reference/crm.md
 * "Associations v4"): create, default, page and archive, over the associations v3 writes. Only the
 * HUBSPOT_DEFINED type ids of src/services/crm/association-types.ts exist; labels do not.
 */
import type { Db } from "../../db/client";
import type { AuthRule } from "../../http/auth";
import { portalOf, requireScopes } from "../../http/auth";
import { badRequest } from "../../lib/errors";
import { json, noContent } from "../../lib/http";
import type { Principal } from "../../lib/principal";
import { route } from "../../http/route";
import { associationTarget, defaultTypeId } from "../../services/crm/association-types";
import * as crm from "../../services/crm/records";
import { associateRecords, associationPage, dissociateRecords, type End } from "../../services/crm/associations";
import { typeIdOf } from "../../schemas/crm/associations-v4";
import * as s from "../../schemas/crm/associations-v4";

const account: AuthRule = { kinds: ["oauth", "private_app"] };
const tag = "CRM associations v4";
const base = "/crm/v4/objects/:objectType/:objectId/associations";

/** Writes need the from type's write scope and the to type's read scope, as the v3 PUT does. */
async function associate(db: Db, principal: Principal, from: End, to: End) {
  requireScopes(principal, [crm.scopeFor(from.type, "write"), crm.scopeFor(to.type, "read")]);
  await associateRecords(db, portalOf(principal), from, to);
}

const typeError = (message: string, at: string) =>
  badRequest(message, { errors: [{ message, in: "body", context: { propertyName: [at] } }] });

export const crmAssociationV4Routes = [
  route({
    method: "PUT",
    path: "/crm/v4/objects/:fromObjectType/:fromObjectId/associations/default/:toObjectType/:toObjectId",
    summary: "Associate two records with the pair's default (unlabeled) type",
    tag,
    auth: account,
    params: s.defaultParams,
    responses: { 200: { description: "Associated", schema: s.defaultResponse } },
    handler: async ({ db, principal, params, now }) => {
      const from = { type: params.fromObjectType, id: params.fromObjectId };
      const to = { type: params.toObjectType, id: params.toObjectId };
      const typeId = defaultTypeId(from.type, to.type);
      if (typeId === null) throw typeError(`No association type exists from ${from.type} to ${to.type}`, "toObjectType");
      await associate(db, principal, from, to);
      const at = new Date(now).toISOString();
      return json({
        status: "COMPLETE",
        results: [{ from: { id: String(from.id) }, to: { id: String(to.id) }, associationSpec: { associationCategory: "HUBSPOT_DEFINED", associationTypeId: typeId } }],
        startedAt: at,
        completedAt: new Date().toISOString(),
      });
    },
  }),
  route({
    method: "PUT",
    path: `${base}/:toObjectType/:toObjectId`,
    summary: "Associate two records with HUBSPOT_DEFINED association types",
    tag,
    auth: account,
    params: s.pairParams,
    body: s.specsBody,
    responses: { 201: { description: "Associated", schema: s.labelsResponse } },
    handler: async ({ db, principal, params, body }) => {
      const from = { type: params.objectType, id: params.objectId };
      const to = { type: params.toObjectType, id: params.toObjectId };
      body.forEach((spec, i) => {
        if (associationTarget(from.type, spec.associationTypeId) !== to.type) {
          throw typeError(`associationTypeId ${spec.associationTypeId} is not a HUBSPOT_DEFINED type from ${from.type} to ${to.type}`, `${i}.associationTypeId`);
        }
      });
      await associate(db, principal, from, to);
      return json({ fromObjectTypeId: typeIdOf(from.type), fromObjectId: from.id, toObjectTypeId: typeIdOf(to.type), toObjectId: to.id, labels: [] }, 201);
    },
  }),
  route({
    method: "GET",
    path: `${base}/:toObjectType`,
    summary: "A page of a record's associations to one type, in id order",
    tag,
    auth: account,
    params: s.pageParams,
    query: s.pageQuery,
    responses: { 200: { description: "A page of associated records", schema: s.pageResponse } },
    handler: async ({ db, principal, params, query, url }) => {
      requireScopes(principal, [crm.scopeFor(params.objectType, "read"), crm.scopeFor(params.toObjectType, "read")]);
      const portalId = portalOf(principal);
      await crm.getObject(db, portalId, params.objectType, params.objectId);
      const page = await associationPage(db, portalId, params.objectId, params.toObjectType, query.after ?? 0, query.limit);
      const typeId = defaultTypeId(params.objectType, params.toObjectType);
      const types = typeId === null ? [] : [{ category: "HUBSPOT_DEFINED" as const, typeId, label: null }];
      const body: Record<string, unknown> = { results: page.ids.map((id) => ({ toObjectId: id, associationTypes: types })) };
      const last = page.ids.at(-1);
      if (page.hasMore && last !== undefined) {
        const next = new URL(url);
        next.searchParams.set("after", String(last));
        body.paging = { next: { after: String(last), link: next.toString() } };
      }
      return json(body);
    },
  }),
  route({
    method: "DELETE",
    path: `${base}/:toObjectType/:toObjectId`,
    summary: "Remove the association between two records",
    tag,
    auth: account,
    params: s.pairParams,
    responses: { 204: { description: "Removed" } },
    handler: async ({ db, principal, params }) => {
      requireScopes(principal, [crm.scopeFor(params.objectType, "write")]);
      await dissociateRecords(db, portalOf(principal), { type: params.objectType, id: params.objectId }, { type: params.toObjectType, id: params.toObjectId });
      return noContent();
    },
  }),
];
