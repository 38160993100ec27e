/**
 * @module The legacy `/contacts/v1/lists` face over the same lists (docs/reference/lists.md "Legacy v1"), as
 * node-hubspot's `lists.*` calls it: contact lists only, ids as numbers, static lists are the MANUAL and
 * SNAPSHOT ones. The "all contacts" pseudo-list and the recent lists stay in routes/contacts-v1/lists.ts,
 * which the route table places first.
 */
import { portalOf } from "../../http/auth";
import { route } from "../../http/route";
import { json, jsonText, noContent } from "../../lib/http";
import { notFound } from "../../lib/errors";
import { listQueryBase } from "../../schemas/contacts-v1";
import { LIST_DEFAULT_PROPERTIES, contactEntriesByIds } from "../../services/contacts-v1/list";
import { findContacts } from "../../services/contacts-v1/contacts";
import { changeMembers, listSize, memberPage, pagedList } from "../../services/lists/members";
import { searchIndexedUntil } from "../../services/testkit/quirks";
import { presentV1List } from "../../services/lists/present";
import { getList, searchLists, type ListRow } from "../../services/lists/read";
import * as write from "../../services/lists/write";
import type { Db } from "../../db/client";
import { entryPage, listEntriesText } from "../contacts-v1/present";
import * as s from "../../schemas/lists";
import { LISTS_READ, LISTS_WRITE } from "./index";

const tag = "Contacts v1 lists";
const base = "/contacts/v1/lists";
const one = `${base}/:listId`;

/** The account's live contact list `id` (a list of another type is not one here: 404). */
async function contactList(db: Db, portalId: number, id: number): Promise<ListRow> {
  const list = await getList(db, portalId, id);
  if (list.objectType !== "contacts") throw notFound(`list ${id} not found`);
  return list;
}

/** `{vids, emails}` as record ids: the emails resolved to live contacts, the unknown ones invalid. */
async function idsOf(db: Db, portalId: number, body: { vids: number[]; emails: string[] }) {
  const found = body.emails.length ? await findContacts(db, portalId, { emails: body.emails }) : [];
  const byEmail = new Map(found.map((f) => [f.row.email ?? "", f.row.id]));
  const invalidEmails = body.emails.filter((e) => !byEmail.has(e.trim().toLowerCase()));
  return { ids: [...body.vids, ...body.emails.flatMap((e) => byEmail.get(e.trim().toLowerCase()) ?? [])], invalidEmails };
}

function membersRoute(action: "add" | "remove") {
  return route({
    method: "POST",
    path: `${one}/${action}`,
    summary: `${action === "add" ? "Add contacts to" : "Remove contacts from"} a static list by vid or email (legacy v1)`,
    tag,
    auth: LISTS_WRITE,
    params: s.v1ListParams,
    body: s.v1MembersBody,
    responses: { 200: { description: "Which vids changed, which were already so, and which were not contacts", schema: s.v1MembersResponse }, 400: { description: "Invalid input, or the list is dynamic" } },
    handler: async ({ db, principal, params, body, now }) => {
      const portalId = portalOf(principal);
      const list = await contactList(db, portalId, params.listId);
      const { ids, invalidEmails } = await idsOf(db, portalId, body);
      const r = action === "add" ? await changeMembers(db, list, ids, [], now) : await changeMembers(db, list, [], ids, now);
      const changed = action === "add" ? r.added : r.removed;
      const missing = new Set(r.missing);
      const discarded = [...new Set(ids)].filter((id) => !missing.has(id) && !changed.includes(id));
      return json({ updated: changed, discarded, invalidVids: r.missing, invalidEmails });
    },
  });
}

export const listV1Routes = [
  route({
    method: "GET",
    path: base,
    summary: "The account's contact lists, paged by offset (legacy v1)",
    tag,
    auth: LISTS_READ,
    query: s.v1ListsQuery,
    responses: { 200: { description: "A page of lists, oldest first", schema: s.v1ListsResponse } },
    handler: async ({ db, principal, query }) => {
      const { rows, total } = await searchLists(db, portalOf(principal), { types: ["contacts"], offset: query.offset, count: query.count });
      const next = query.offset + rows.length;
      return json({ lists: rows.map((r) => presentV1List(r)), offset: next, "has-more": next < total });
    },
  }),
  route({
    method: "POST",
    path: base,
    summary: "Create a static contact list (legacy v1)",
    tag,
    auth: LISTS_WRITE,
    body: s.v1CreateBody,
    responses: { 200: { description: "The list", schema: s.v1List }, 409: { description: "A live list has that name (CONFLICT)" } },
    handler: async ({ db, principal, body, now }) => json(presentV1List(await write.createList(db, portalOf(principal), { name: body.name, type: "contacts", processingType: "MANUAL" }, now), 0)),
  }),
  route({
    method: "GET",
    path: one,
    summary: "Read a contact list with its size (legacy v1)",
    tag,
    auth: LISTS_READ,
    params: s.v1ListParams,
    responses: { 200: { description: "The list", schema: s.v1List } },
    handler: async ({ db, principal, params }) => {
      const list = await contactList(db, portalOf(principal), params.listId);
      return json(presentV1List(list, await listSize(db, list, searchIndexedUntil(principal))));
    },
  }),
  route({
    method: "DELETE",
    path: one,
    summary: "Delete (archive) a contact list (legacy v1)",
    tag,
    auth: LISTS_WRITE,
    params: s.v1ListParams,
    responses: { 204: { description: "Deleted" } },
    handler: async ({ db, principal, params, now }) => {
      const portalId = portalOf(principal);
      await contactList(db, portalId, params.listId);
      await write.archiveList(db, portalId, params.listId, now);
      return noContent();
    },
  }),
  route({
    method: "GET",
    path: `${one}/contacts/all`,
    summary: "A list's contacts, paged by vidOffset (legacy v1)",
    tag,
    auth: LISTS_READ,
    params: s.v1ListParams,
    query: listQueryBase,
    responses: { 200: { description: "A page of contacts in vid order", schema: s.v1ContactsResponse } },
    handler: async ({ db, principal, params, query, url }) => {
      const portalId = portalOf(principal);
      const list = await contactList(db, portalId, params.listId);
      const page = await memberPage(db, pagedList(list), { after: query.vidOffset, limit: query.count, indexedUntil: searchIndexedUntil(principal) });
      const entries = entryPage(query.property ?? LIST_DEFAULT_PROPERTIES, portalId, url.origin, query.showListMemberships);
      const { entries: rows, merges } = await contactEntriesByIds(db, portalId, page.members.map((m) => m.id), entries.wanted.picked);
      const last = page.members.at(-1)?.id;
      const contacts = listEntriesText(rows, merges, entries, "created");
      return jsonText(`{"contacts":[${contacts}],"has-more":${page.next !== undefined},"vid-offset":${last ?? query.vidOffset ?? 0}}`);
    },
  }),
  membersRoute("add"),
  membersRoute("remove"),
];
