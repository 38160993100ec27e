/**
 * @module The legacy engagements v1 API (`/engagements/v1/engagements`, docs/reference/engagements.md):
 * create, read, update (PATCH) and delete one engagement, associate it with a record, and the three pages
 * (all, recently modified, associated with a record). An engagement is the v3 activity of its type, the same
 * row and id, so both faces see every write of the other. Activities take the contacts scopes, as on the
 * real service (src/services/crm/records.ts scopeFor).
 */
import { portalOf, requireScopes, type AuthRule } from "../../http/auth";
import { route } from "../../http/route";
import { json, noContent } from "../../lib/http";
import { scopeFor } from "../../services/crm/records";
import * as svc from "../../services/engagements/engagements";
import { writeWithEvents } from "../../services/webhooks/write";
import { presentEngagement, presentPage } from "./present";
import * as s from "../../schemas/engagements";

const tag = "Engagements v1";
const BASE = "/engagements/v1/engagements";
// Every activity type has the same scopes; a note's stand for all of them.
const READ: AuthRule = { kinds: ["oauth", "private_app"], scopes: [scopeFor("notes", "read")] };
const WRITE: AuthRule = { kinds: ["oauth", "private_app"], scopes: [scopeFor("notes", "write")] };
const notFoundDoc = { description: "No engagement with that id in this account (OBJECT_NOT_FOUND, X-Service-NotFound: true)" };

export const engagementRoutes = [
  route({
    method: "POST",
    path: BASE,
    summary: "Create an engagement (the v3 note, task, call, meeting or email of its type) with its associations",
    tag,
    auth: WRITE,
    body: s.createBody,
    responses: { 200: { description: "The new engagement", schema: s.engagementResponse } },
    handler: async (ctx) => {
      const { principal, body } = ctx;
      const portalId = portalOf(principal);
      const associations: svc.Associations = {
        contacts: body.associations?.contactIds,
        companies: body.associations?.companyIds,
        deals: body.associations?.dealIds,
        tickets: body.associations?.ticketIds,
      };
      // Associating reads the records, which takes their read scopes, as the v3 create's associations do.
      requireScopes(principal, [...new Set(svc.ASSOCIATED_TYPES.filter((t) => associations[t]?.length).map((t) => scopeFor(t, "read")))]);
      const write = { ...body.engagement, metadata: body.metadata ?? {}, attachments: body.attachments };
      const made = await writeWithEvents(ctx, portalId, (outbox) => svc.createEngagement(ctx, portalId, write, associations, outbox));
      return json(presentEngagement(made));
    },
  }),
  route({
    method: "GET",
    path: `${BASE}/paged`,
    summary: "Every engagement of the account in id order, a page at a time (offset and hasMore)",
    tag,
    auth: READ,
    query: s.pagedQuery,
    responses: { 200: { description: "A page of engagements", schema: s.pageResponse } },
    handler: async ({ db, principal, query }) => json(presentPage(await svc.engagementPage(db, portalOf(principal), query.offset ?? 0, query.limit))),
  }),
  route({
    method: "GET",
    path: `${BASE}/recent/modified`,
    summary: "Engagements most recently modified first, a page at a time (offset, hasMore and total)",
    tag,
    auth: READ,
    query: s.recentQuery,
    responses: { 200: { description: "A page of engagements, newest change first", schema: s.recentResponse } },
    handler: async ({ db, principal, query }) => {
      const page = await svc.recentPage(db, portalOf(principal), query.offset ?? 0, query.count, query.since);
      return json(presentPage(page, { total: page.total }));
    },
  }),
  route({
    method: "GET",
    path: `${BASE}/associated/:objectType/:objectId/paged`,
    summary: "The engagements associated with a contact, company, deal or ticket, in id order",
    tag,
    auth: READ,
    params: s.associatedParams,
    query: s.associatedQuery,
    responses: {
      200: { description: "A page of engagements", schema: s.pageResponse },
      404: { description: "No record of that type and id in this account (OBJECT_NOT_FOUND)" },
    },
    handler: async ({ db, principal, params, query }) => {
      requireScopes(principal, [scopeFor(params.objectType, "read")]);
      return json(presentPage(await svc.associatedPage(db, portalOf(principal), params.objectType, params.objectId, query.offset ?? 0, query.limit)));
    },
  }),
  route({
    method: "GET",
    path: `${BASE}/:engagementId`,
    summary: "Read an engagement",
    tag,
    auth: READ,
    params: s.engagementParams,
    responses: { 200: { description: "The engagement", schema: s.engagementResponse }, 404: notFoundDoc },
    handler: async ({ db, principal, params }) => json(presentEngagement(await svc.getEngagement(db, portalOf(principal), params.engagementId))),
  }),
  route({
    method: "PATCH",
    path: `${BASE}/:engagementId`,
    summary: "Update the given fields of an engagement (associations are left as they are)",
    tag,
    auth: WRITE,
    params: s.engagementParams,
    body: s.updateBody,
    responses: { 200: { description: "The updated engagement", schema: s.engagementResponse }, 404: notFoundDoc },
    handler: async (ctx) => {
      const { db, principal, params, body } = ctx;
      const portalId = portalOf(principal);
      const write = { ...body.engagement, metadata: body.metadata ?? {}, attachments: body.attachments };
      await writeWithEvents(ctx, portalId, (outbox) => svc.updateEngagement(ctx, portalId, params.engagementId, write, outbox));
      return json(presentEngagement(await svc.getEngagement(db, portalId, params.engagementId)));
    },
  }),
  route({
    method: "DELETE",
    path: `${BASE}/:engagementId`,
    summary: "Delete an engagement (archives the activity: it leaves the v1 and v3 reads)",
    tag,
    auth: WRITE,
    params: s.engagementParams,
    responses: { 204: { description: "Deleted" }, 404: notFoundDoc },
    handler: async (ctx) => {
      const portalId = portalOf(ctx.principal);
      await writeWithEvents(ctx, portalId, (outbox) => svc.deleteEngagement(ctx, portalId, ctx.params.engagementId, outbox));
      return noContent();
    },
  }),
  route({
    method: "PUT",
    path: `${BASE}/:engagementId/associations/:objectType/:objectId`,
    summary: "Associate an engagement with a contact, company, deal or ticket",
    tag,
    auth: WRITE,
    params: s.associationParams,
    responses: { 204: { description: "Associated (also when it already was)" }, 404: { description: "No such engagement or record in this account (OBJECT_NOT_FOUND)" } },
    handler: async (ctx) => {
      const { db, principal, params } = ctx;
      requireScopes(principal, [scopeFor(params.objectType, "read")]);
      const portalId = portalOf(principal);
      await writeWithEvents(ctx, portalId, (outbox) => svc.associateEngagement(db, portalId, params.engagementId, params.objectType, params.objectId, outbox));
      return noContent();
    },
  }),
  route({
    method: "DELETE",
    path: `${BASE}/:engagementId/associations/:objectType/:objectId`,
    summary: "Remove an engagement's association with a record",
    tag,
    auth: WRITE,
    params: s.associationParams,
    responses: { 204: { description: "Removed (also when there was none)" }, 404: { description: "No such engagement or record in this account (OBJECT_NOT_FOUND)" } },
    handler: async (ctx) => {
      const { db, principal, params } = ctx;
      const portalId = portalOf(principal);
      await writeWithEvents(ctx, portalId, (outbox) => svc.dissociateEngagement(db, portalId, params.engagementId, params.objectType, params.objectId, outbox));
      return noContent();
    },
  }),
];
