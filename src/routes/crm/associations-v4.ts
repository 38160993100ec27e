/**
 * @module Associations v4 `/crm/v4/objects/{objectType}/{objectId}/associations/...` (docs/reference/crm.md
 * "Associations v4"): create, default, page and archive, over the associations v3 writes, with the pair's
 * HUBSPOT_DEFINED types (src/services/crm/association-types.ts), a custom type's USER_DEFINED default from its
 * schema's association definitions, and the account's USER_DEFINED labels.
 */
import type { AuthRule } from "../../http/auth";
import { portalOf, requireScopes } from "../../http/auth";
import { badRequest, notFound } from "../../lib/errors";
import { json, noContent } from "../../lib/http";
import type { Principal } from "../../lib/principal";
import { route } from "../../http/route";
import { pairDefault } from "../../services/crm/association-types";
import * as crm from "../../services/crm/records";
import { associateRecords, dissociateRecords, readAssociations, requireRecords, resolveTypes, writeAssociations, type End } from "../../services/crm/associations";
import { typeIdOf } from "../../schemas/crm/associations-v4";
import * as s from "../../schemas/crm/associations-v4";
import { completedAt } from "../../services/testkit/clock";
import { writeWithEvents, type WriteContext } from "../../services/webhooks/write";

const account: AuthRule = { kinds: ["oauth", "private_app"] };
const tag = "CRM associations v4";
const base = "/crm/v4/objects/:objectType/:objectId/associations";

/** Writes need the from type's write scope and the to type's read scope, as the v3 PUT does. */
async function associate(ctx: WriteContext, principal: Principal, from: End, to: End) {
  requireScopes(principal, [crm.scopeFor(from.type, "write"), crm.scopeFor(to.type, "read")]);
  const portalId = portalOf(principal);
  await writeWithEvents(ctx, portalId, (outbox) => associateRecords(ctx.db, portalId, from, to, outbox));
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
    handler: async (ctx) => {
      const { principal, params, now } = ctx;
      const from = { type: params.fromObjectType, id: params.fromObjectId };
      const to = { type: params.toObjectType, id: params.toObjectId };
      const type = pairDefault(from.type, to.type);
      if (type === null) throw typeError(`No association type exists from ${from.type} to ${to.type}`, "toObjectType");
      await associate(ctx, principal, from, to);
      const at = new Date(now).toISOString();
      return json({
        status: "COMPLETE",
        results: [{ from: { id: String(from.id) }, to: { id: String(to.id) }, associationSpec: { associationCategory: type.category, associationTypeId: type.typeId } }],
        startedAt: at,
        completedAt: completedAt(now),
      });
    },
  }),
  route({
    method: "PUT",
    path: `${base}/:toObjectType/:toObjectId`,
    summary: "Associate two records with association types (built-in or the account's labels)",
    tag,
    auth: account,
    params: s.pairParams,
    body: s.specsBody,
    responses: { 201: { description: "Associated", schema: s.labelsResponse } },
    handler: async (ctx) => {
      const { db, principal, params, body } = ctx;
      const from = { type: params.objectType, id: params.objectId };
      const to = { type: params.toObjectType, id: params.toObjectId };
      requireScopes(principal, [crm.scopeFor(from.type, "write"), crm.scopeFor(to.type, "read")]);
      const portalId = portalOf(principal);
      const types = await resolveTypes(db, portalId, from.type, to.type, body.map((spec, i) => ({ category: spec.associationCategory, typeId: spec.associationTypeId, at: `${i}.associationTypeId` })));
      const pair = { fromId: from.id, toId: to.id };
      await requireRecords(db, portalId, from.type, to.type, [pair]);
      await writeWithEvents(ctx, portalId, (outbox) => writeAssociations(db, portalId, from.type, to.type, [{ ...pair, types }], outbox));
      const labels = types.flatMap((t) => (t.label === null ? [] : [t.label]));
      return json({ fromObjectTypeId: typeIdOf(from.type), fromObjectId: from.id, toObjectTypeId: typeIdOf(to.type), toObjectId: to.id, labels }, 201);
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
      const [page] = await readAssociations(db, portalId, params.objectType, params.toObjectType, [{ id: params.objectId, after: query.after ?? 0 }], query.limit);
      if (!page?.found) throw notFound(`${params.objectType} ${params.objectId} not found`);
      const body: Record<string, unknown> = { results: page.to };
      const last = page.next;
      if (last !== undefined) {
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
    handler: async (ctx) => {
      const { db, principal, params } = ctx;
      requireScopes(principal, [crm.scopeFor(params.objectType, "write")]);
      const portalId = portalOf(principal);
      await writeWithEvents(ctx, portalId, (outbox) => dissociateRecords(db, portalId, { type: params.objectType, id: params.objectId }, { type: params.toObjectType, id: params.toObjectId }, outbox));
      return noContent();
    },
  }),
];
