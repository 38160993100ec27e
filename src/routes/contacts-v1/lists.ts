/**
 * @module The legacy v1 contact lists (docs/reference/contacts-v1.md): all contacts by vid, the recently
 * updated and recently created contacts, and search. Each page is a bounded number of D1 statements
 * whatever the count (docs/explanation/contacts-v1-queries.md "Statement counts"); the single-contact
 * routes are in routes/contacts-v1/records.ts.
 */
import { json, jsonText } from "../../lib/http";
import { portalOf, type AuthRule } from "../../http/auth";
import { route } from "../../http/route";
import { mergesOf, recentContacts, type RecentKind } from "../../services/contacts-v1/contacts";
import { allContactsPage, LIST_DEFAULT_PROPERTIES } from "../../services/contacts-v1/list";
import { searchContacts } from "../../services/crm/contact-search";
import { searchIndexedUntil } from "../../services/testkit/quirks";
import { contactRecordRoutes } from "./records";
import { entryPage, entryRow, listEntriesText, presentProfile } from "./present";
import * as s from "../../schemas/contacts-v1";

const READ: AuthRule = { kinds: ["oauth", "private_app"], scopes: ["crm.objects.contacts.read"] };
const tag = "Contacts v1";

const listQuery = s.listQueryBase;

/** The recent lists: `lastmodifieddate` always, as recorded, plus the asked (or default) ones. */
function recentRoute(path: string, kind: RecentKind, summary: string) {
  return route({
    method: "GET",
    path,
    summary,
    tag,
    auth: READ,
    query: s.recentQuery,
    responses: { 200: { description: "A page of contacts, newest first", schema: s.recentResponse } },
    handler: async ({ db, principal, query, url }) => {
      const portalId = portalOf(principal);
      const cursor = query.timeOffset !== undefined && query.vidOffset !== undefined ? { time: query.timeOffset, vid: query.vidOffset } : undefined;
      const page = await recentContacts(db, portalId, kind, query.count, cursor);
      const merges = await mergesOf(db, portalId, page.rows.map((r) => r.id));
      const asked = ["lastmodifieddate", ...(query.property ?? LIST_DEFAULT_PROPERTIES).filter((p: string) => p !== "lastmodifieddate")];
      const entries = entryPage(asked, portalId, url.origin, query.showListMemberships);
      const clock = (r: { updatedAt: number; createdAt: number }) => (kind === "updated" ? r.updatedAt : r.createdAt);
      const last = page.rows.at(-1);
      const contacts = listEntriesText(page.rows.map((r) => entryRow(r, entries.wanted)), merges, entries, kind);
      return jsonText(`{"contacts":[${contacts}],"has-more":${page.hasMore},"time-offset":${last ? clock(last) : 0},"vid-offset":${last ? last.id : 0}}`);
    },
  });
}

export const contactsV1Routes = [
  route({
    method: "GET",
    path: "/contacts/v1/lists/all/contacts/all",
    summary: "List all contacts (legacy v1), paged by vidOffset",
    tag,
    auth: READ,
    query: listQuery,
    responses: { 200: { description: "A page of contacts", schema: s.listResponse } },
    handler: async ({ db, principal, query, url }) => {
      const portalId = portalOf(principal);
      const entries = entryPage(query.property ?? LIST_DEFAULT_PROPERTIES, portalId, url.origin, query.showListMemberships);
      const page = await allContactsPage(db, portalId, query.count, query.vidOffset ?? 0, entries.wanted.picked);
      const last = page.entries.at(-1);
      // There are no contact lists here, so a contact is a member of none: `list-memberships`, when asked,
      // is `[]`.
      const contacts = listEntriesText(page.entries, page.merges, entries, "created");
      return jsonText(`{"contacts":[${contacts}],"has-more":${page.hasMore},"vid-offset":${last ? last[0] : (query.vidOffset ?? 0)}}`);
    },
  }),
  recentRoute("/contacts/v1/lists/recently_updated/contacts/recent", "updated", "Recently updated contacts (legacy v1), newest first"),
  recentRoute("/contacts/v1/lists/all/contacts/recent", "created", "Recently created contacts (legacy v1), newest first"),
  route({
    method: "GET",
    path: "/contacts/v1/search/query",
    summary: "Search contacts by email, name, phone and company (legacy v1)",
    tag,
    auth: READ,
    query: s.searchQuery,
    responses: { 200: { description: "A page of matching contacts in vid order", schema: s.searchResponse } },
    handler: async ({ db, principal, query, url }) => {
      const portalId = portalOf(principal);
      const { rows, total } = await searchContacts(db, portalId, query.q, query.count, query.offset, searchIndexedUntil(principal));
      const merges = await mergesOf(db, portalId, rows.map((r) => r.id));
      const next = query.offset + rows.length;
      return json({
        query: query.q,
        offset: next,
        "has-more": next < total,
        total,
        contacts: rows.map((r) => presentProfile(r, merges.get(r.id) ?? [], url.origin, { properties: query.property, history: false, listMemberships: false })),
      });
    },
  }),
  ...contactRecordRoutes,
];
