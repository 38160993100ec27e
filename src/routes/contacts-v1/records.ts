/**
 * @module The legacy v1 single-contact routes: read one or several contacts by vid, email or
 * utk, create, update, create-or-update (one or a batch of up to 1,000), delete and merge. They work on the
 * same `crm_objects` rows as CRM v3, the v1 list, timeline events and `/tracking/v1/identify`. Shapes and
 * errors are the real service's recorded ones (the legacy error body plus its extra fields, such as
 * `identityProfile` on a 409); both, and the decisions, are in docs/reference/contacts-v1.md.
 */
import { portalOf, type AuthRule } from "../../http/auth";
import { json, jsonText, noContent } from "../../lib/http";
import { route } from "../../http/route";
import type { CrmRow } from "../../services/crm/records";
import { mergeContacts } from "../../services/contacts-v1/merge";
import { checkContactValues } from "../../services/contacts-v1/values";
import { writeWithEvents } from "../../services/webhooks/write";
import {
  batchCreateOrUpdate,
  createContact,
  createOrUpdateByEmail,
  deleteContact,
  findContacts,
  findOne,
  findOneWithMerges,
  mergesOf,
  updateContact,
  type Keys,
} from "../../services/contacts-v1/contacts";
import type { Db } from "../../db/client";
import { presentProfile, type ProfileOptions } from "./present";
import * as s from "../../schemas/contacts-v1";

const tag = "Contacts v1";
const READ: AuthRule = { kinds: ["oauth", "private_app"], scopes: ["crm.objects.contacts.read"] };
const WRITE: AuthRule = { kinds: ["oauth", "private_app"], scopes: ["crm.objects.contacts.write"] };
const notFoundDoc = { description: "contact does not exist (X-Service-NotFound: true)" };

const options = (q: { property?: string[]; propertyMode: string; showListMemberships: boolean }): ProfileOptions => ({
  properties: q.property,
  history: q.propertyMode === "value_and_history",
  listMemberships: q.showListMemberships,
});

/** One contact's profile: one statement (the contact joined to its merges). */
async function profile(db: Db, portalId: number, keys: Keys, origin: string, opts: ProfileOptions) {
  const { row, merges } = await findOneWithMerges(db, portalId, keys);
  return json(presentProfile(row, merges, origin, opts));
}

/** Several contacts keyed by vid (unknown ones left out): two statements whatever the count. */
async function batch(db: Db, portalId: number, keys: Keys, origin: string, opts: ProfileOptions) {
  const found = await findContacts(db, portalId, keys);
  const rows = new Map<number, CrmRow>(found.map((f) => [f.row.id, f.row]));
  const merges = await mergesOf(db, portalId, [...rows.keys()]);
  const out: Record<string, unknown> = {};
  for (const [id, row] of rows) out[String(id)] = presentProfile(row, merges.get(id) ?? [], origin, opts);
  return json(out);
}

export const contactRecordRoutes = [
  route({
    method: "GET",
    path: "/contacts/v1/contact/vid/:vid/profile",
    summary: "A contact's profile by vid (a merged-away vid answers the survivor)",
    tag,
    auth: READ,
    params: s.vidParams,
    query: s.profileQuery,
    responses: { 200: { description: "The contact profile", schema: s.profileResponse }, 404: notFoundDoc },
    handler: ({ db, principal, params, query, url }) => profile(db, portalOf(principal), { vids: [params.vid] }, url.origin, options(query)),
  }),
  route({
    method: "GET",
    path: "/contacts/v1/contact/email/:email/profile",
    summary: "A contact's profile by email (primary or merged-in secondary)",
    tag,
    auth: READ,
    params: s.emailParams,
    query: s.profileQuery,
    responses: { 200: { description: "The contact profile", schema: s.profileResponse }, 404: notFoundDoc },
    handler: ({ db, principal, params, query, url }) => profile(db, portalOf(principal), { emails: [params.email] }, url.origin, options(query)),
  }),
  route({
    method: "GET",
    path: "/contacts/v1/contact/utk/:utk/profile",
    summary: "A contact's profile by visitor token (tied by timeline events or /tracking/v1/identify)",
    tag,
    auth: READ,
    params: s.utkParams,
    query: s.profileQuery,
    responses: { 200: { description: "The contact profile", schema: s.profileResponse }, 404: notFoundDoc },
    handler: ({ db, principal, params, query, url }) => profile(db, portalOf(principal), { utks: [params.utk] }, url.origin, options(query)),
  }),
  route({
    method: "GET",
    path: "/contacts/v1/contact/vids/batch",
    summary: "Up to 100 contacts by vid, keyed by vid; unknown vids are left out",
    tag,
    auth: READ,
    query: s.vidsBatchQuery,
    responses: { 200: { description: "Profiles keyed by vid", schema: s.batchResponse } },
    handler: ({ db, principal, query, url }) => batch(db, portalOf(principal), { vids: query.vid }, url.origin, options(query)),
  }),
  route({
    method: "GET",
    path: "/contacts/v1/contact/emails/batch",
    summary: "Up to 100 contacts by email, keyed by vid; unknown emails are left out",
    tag,
    auth: READ,
    query: s.emailsBatchQuery,
    responses: { 200: { description: "Profiles keyed by vid", schema: s.batchResponse } },
    handler: ({ db, principal, query, url }) => batch(db, portalOf(principal), { emails: query.email }, url.origin, options(query)),
  }),
  route({
    method: "POST",
    path: "/contacts/v1/contact",
    summary: "Create a contact; an existing email is the 409 CONTACT_EXISTS",
    tag,
    auth: WRITE,
    body: s.propertiesBody,
    responses: {
      200: { description: "The new contact's profile", schema: s.profileResponse },
      400: { description: "INVALID_EMAIL with validationResults" },
      409: { description: "CONTACT_EXISTS with identityProfile" },
    },
    handler: async (ctx) => {
      const { db, principal, body, url, now } = ctx;
      const portalId = portalOf(principal);
      await checkContactValues(ctx, portalId, [body.properties]);
      const row = await writeWithEvents(ctx, portalId, (outbox) => createContact(db, portalId, body.properties, now, outbox));
      return json(presentProfile(row, [], url.origin, { history: true, listMemberships: true }));
    },
  }),
  route({
    method: "POST",
    path: "/contacts/v1/contact/vid/:vid/profile",
    summary: "Update a contact by vid",
    tag,
    auth: WRITE,
    params: s.vidParams,
    body: s.propertiesBody,
    responses: { 204: { description: "Updated" }, 404: notFoundDoc },
    handler: async (ctx) => {
      const { db, principal, params, body, now } = ctx;
      const portalId = portalOf(principal);
      await checkContactValues(ctx, portalId, [body.properties]);
      await writeWithEvents(ctx, portalId, async (outbox) => updateContact(db, portalId, await findOne(db, portalId, { vids: [params.vid] }), body.properties, now, outbox));
      return noContent();
    },
  }),
  route({
    method: "POST",
    path: "/contacts/v1/contact/email/:email/profile",
    summary: "Update a contact by email",
    tag,
    auth: WRITE,
    params: s.emailParams,
    body: s.propertiesBody,
    responses: { 204: { description: "Updated" }, 404: notFoundDoc },
    handler: async (ctx) => {
      const { db, principal, params, body, now } = ctx;
      const portalId = portalOf(principal);
      await checkContactValues(ctx, portalId, [body.properties]);
      await writeWithEvents(ctx, portalId, async (outbox) => updateContact(db, portalId, await findOne(db, portalId, { emails: [params.email] }), body.properties, now, outbox));
      return noContent();
    },
  }),
  route({
    method: "POST",
    path: "/contacts/v1/contact/createOrUpdate/email/:email",
    neverAnswers: [404],
    summary: "Update the contact with this email, or create it",
    tag,
    auth: WRITE,
    params: s.emailParams,
    body: s.propertiesBody,
    responses: { 200: { description: "The contact's vid and whether it is new", schema: s.createOrUpdateResponse }, 400: { description: "INVALID_EMAIL" } },
    handler: async (ctx) => {
      const { db, principal, params, body, now } = ctx;
      const portalId = portalOf(principal);
      await checkContactValues(ctx, portalId, [body.properties]);
      return json(await writeWithEvents(ctx, portalId, (outbox) => createOrUpdateByEmail(db, portalId, params.email, body.properties, now, outbox)));
    },
  }),
  route({
    method: "POST",
    path: "/contacts/v1/contact/batch",
    summary: "Create or update up to 1,000 contacts keyed by vid or email, as one atomic write",
    tag,
    auth: WRITE,
    body: s.batchBody,
    maxBodyBytes: 4 * 1024 * 1024,
    responses: { 202: { description: "Accepted (every contact written)" }, 400: { description: "A bad contact, named; nothing written" } },
    handler: async (ctx) => {
      const { db, principal, body, now } = ctx;
      const portalId = portalOf(principal);
      await checkContactValues(ctx, portalId, body.map((e) => e.properties), true);
      await writeWithEvents(ctx, portalId, (outbox) => batchCreateOrUpdate(db, portalId, body, now, outbox));
      return new Response(null, { status: 202 });
    },
  }),
  route({
    method: "DELETE",
    path: "/contacts/v1/contact/vid/:vid",
    summary: "Delete (archive) a contact",
    tag,
    auth: WRITE,
    params: s.vidParams,
    responses: { 200: { description: "Deleted", schema: s.deleteResponse }, 404: notFoundDoc },
    handler: async (ctx) => {
      const { db, principal, params, now } = ctx;
      const portalId = portalOf(principal);
      await writeWithEvents(ctx, portalId, (outbox) => deleteContact(db, portalId, params.vid, now, outbox));
      return json({ vid: params.vid, deleted: true, reason: "OK" });
    },
  }),
  route({
    method: "POST",
    path: "/contacts/v1/contact/merge-vids/:vid",
    neverAnswers: [404],
    summary: "Merge the contact vidToMerge into this one",
    tag,
    auth: WRITE,
    params: s.vidParams,
    body: s.mergeBody,
    responses: { 200: { description: "SUCCESS (plain text under a JSON content type, as recorded)", rawBody: "SUCCESS" }, 400: { description: "Not a valid contact, already merged, or the same contact" } },
    handler: async (ctx) => {
      const { db, principal, params, body, now } = ctx;
      const portalId = portalOf(principal);
      await writeWithEvents(ctx, portalId, (outbox) => mergeContacts(db, portalId, params.vid, body.vidToMerge, now, outbox, ctx.companion));
      return jsonText("SUCCESS");
    },
  }),
];
