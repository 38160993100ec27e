/**
 * @module `/crm/v3/lists`: lists and their memberships (docs/reference/lists.md), as @hubspot/api-client's
 * ListsApi and MembershipsApi call them. Lists take `crm.lists.read`/`crm.lists.write`, the real service's
 * scopes (legacy `contacts` covers them).
 */
import { portalOf, type AuthRule } from "../../http/auth";
import { route } from "../../http/route";
import { json, jsonText, noContent } from "../../lib/http";
import { notFound } from "../../lib/errors";
import { TYPE_IDS } from "../../schemas/crm/associations-v4";
import type { ObjectType } from "../../db/tables/crm";
import { addAllFrom, changeMembers, listForPage, listSize, manyMemberships, memberPage, recordMemberships, removeAllMembers, type RecordMembership } from "../../services/lists/members";
import { memberPageText } from "../../services/lists/present";
import { joinOrderPage } from "../../services/lists/join-order";
import { searchIndexedUntil } from "../../services/testkit/quirks";
import { presentList } from "../../services/lists/present";
import { getList, legacyMapping, listByName, listsByIds, searchLists } from "../../services/lists/read";
import * as write from "../../services/lists/write";
import * as s from "../../schemas/lists";
import { completedAt } from "../../services/testkit/clock";

export const LISTS_READ: AuthRule = { kinds: ["oauth", "private_app"], scopes: ["crm.lists.read"] };
export const LISTS_WRITE: AuthRule = { kinds: ["oauth", "private_app"], scopes: ["crm.lists.write"] };
const tag = "Lists";
const base = "/crm/v3/lists";
const one = `${base}/:listId`;
const iso = (ms: number) => new Date(ms).toISOString();

const changed = (r: { added: number[]; removed: number[]; missing: number[] }) => ({
  recordIdsRemoved: r.removed.map(String),
  recordsIdsAdded: r.added.map(String),
  recordIdsMissing: r.missing.map(String),
});

const membership = (r: RecordMembership) => ({ listId: String(r.listId), listVersion: r.version, firstAddedTimestamp: iso(r.at), lastAddedTimestamp: iso(r.at) });

const DYNAMIC_400 = { description: "Invalid input, or the list is DYNAMIC (its filters alone decide its members)" };

export const listRoutes = [
  route({
    method: "POST",
    path: `${base}/search`,
    summary: "Search lists by name, id and processing type",
    tag,
    auth: LISTS_READ,
    body: s.searchBody,
    responses: { 200: { description: "A page of lists, oldest first", schema: s.searchResponse } },
    handler: async ({ db, principal, body }) => {
      const { rows, total } = await searchLists(db, portalOf(principal), body);
      return json({ lists: rows.map((r) => ({ ...presentList(r), additionalProperties: {} })), offset: body.offset + rows.length, hasMore: body.offset + rows.length < total, total });
    },
  }),
  route({
    method: "GET",
    path: `${base}/records/:objectTypeId/:recordId/memberships`,
    summary: "The lists a record is a member of (its manual and snapshot lists, and the dynamic lists it matches now)",
    tag,
    auth: LISTS_READ,
    params: s.recordParams,
    responses: { 200: { description: "The record's lists", schema: s.recordMemberships } },
    neverAnswers: [404],
    handler: async ({ db, principal, params }) => {
      const rows = await recordMemberships(db, portalOf(principal), params.objectTypeId as ObjectType, params.recordId);
      return json({ results: rows.map(membership), total: rows.length });
    },
  }),
  route({
    method: "POST",
    path: `${base}/records/memberships/batch/read`,
    summary: "The lists each of several records is a member of",
    tag,
    auth: LISTS_READ,
    body: s.membershipsBatchBody,
    responses: { 200: { description: "Each record's lists (none for an unknown record)", schema: s.membershipsBatch } },
    handler: async ({ db, principal, body, now }) => {
      const portalId = portalOf(principal);
      const byType = new Map<ObjectType, number[]>();
      for (const i of body.inputs) byType.set(i.objectTypeId, [...(byType.get(i.objectTypeId) ?? []), i.recordId]);
      const found = new Map<ObjectType, Map<number, RecordMembership[]>>();
      for (const [type, ids] of byType) found.set(type, await manyMemberships(db, portalId, type, ids));
      const seen = new Set<string>();
      const results = body.inputs
        .filter((i) => !seen.has(`${i.objectTypeId}/${i.recordId}`) && seen.add(`${i.objectTypeId}/${i.recordId}`))
        .map((i) => ({ objectTypeId: TYPE_IDS[i.objectTypeId], recordId: String(i.recordId), recordListMemberships: (found.get(i.objectTypeId)?.get(i.recordId) ?? []).map(membership) }));
      return json({ status: "COMPLETE", results, startedAt: iso(now), completedAt: completedAt(now) });
    },
  }),
  route({
    method: "GET",
    path: `${base}/idmapping`,
    summary: "The list id of a legacy (v1) list id",
    tag,
    auth: LISTS_READ,
    query: s.legacyQuery,
    responses: { 200: { description: "The mapping", schema: s.legacyOne } },
    handler: async ({ db, principal, query }) => {
      const live = await legacyMapping(db, portalOf(principal), [query.legacyListId]);
      if (!live.has(query.legacyListId)) throw notFound(`no live contact list has legacy id ${query.legacyListId}`);
      return json({ legacyListId: String(query.legacyListId), listId: String(query.legacyListId) });
    },
  }),
  route({
    method: "POST",
    path: `${base}/idmapping`,
    summary: "The list ids of several legacy (v1) list ids",
    tag,
    auth: LISTS_READ,
    body: s.legacyBody,
    responses: { 200: { description: "The mappings, and the ids that name no live contact list", schema: s.legacyMany } },
    handler: async ({ db, principal, body }) => {
      const ids = [...new Set(body)];
      const live = await legacyMapping(db, portalOf(principal), ids.map(Number));
      return json({
        legacyListIdsToIdsMapping: ids.filter((id) => live.has(Number(id))).map((id) => ({ legacyListId: id, listId: String(Number(id)) })),
        missingLegacyListIds: ids.filter((id) => !live.has(Number(id))),
      });
    },
  }),
  route({
    method: "GET",
    path: `${base}/object-type-id/:objectTypeId/name/:listName`,
    summary: "Read a list by its object type and name (ignoring case)",
    tag,
    auth: LISTS_READ,
    params: s.nameParams,
    query: s.includeQuery,
    responses: { 200: { description: "The list", schema: s.listResponse } },
    handler: async ({ db, principal, params, query }) =>
      json({ list: presentList(await listByName(db, portalOf(principal), params.objectTypeId, params.listName), { includeFilters: query.includeFilters }) }),
  }),
  route({
    method: "POST",
    path: base,
    summary: "Create a MANUAL, DYNAMIC or SNAPSHOT list",
    tag,
    auth: LISTS_WRITE,
    body: s.createBody,
    responses: { 200: { description: "The created list", schema: s.listResponse }, 409: { description: "A live list has that name (CONFLICT)" } },
    handler: async ({ db, principal, body, now }) => {
      const row = await write.createList(db, portalOf(principal), { name: body.name, type: body.objectTypeId, processingType: body.processingType, filterBranch: body.filterBranch }, now);
      return json({ list: presentList(row, { includeFilters: true }) });
    },
  }),
  route({
    method: "GET",
    path: base,
    summary: "Read several lists by id (unknown and archived ids are left out)",
    tag,
    auth: LISTS_READ,
    query: s.getAllQuery,
    responses: { 200: { description: "The lists", schema: s.listsResponse } },
    handler: async ({ db, principal, query }) =>
      json({ lists: (await listsByIds(db, portalOf(principal), query.listIds ?? [])).map((r) => presentList(r, { includeFilters: query.includeFilters })) }),
  }),
  route({
    method: "GET",
    path: one,
    summary: "Read a list, with its size",
    tag,
    auth: LISTS_READ,
    params: s.listParams,
    query: s.includeQuery,
    responses: { 200: { description: "The list", schema: s.listResponse } },
    handler: async ({ db, principal, params, query }) => {
      const list = await getList(db, portalOf(principal), params.listId);
      return json({ list: presentList(list, { includeFilters: query.includeFilters, size: await listSize(db, list, searchIndexedUntil(principal)) }) });
    },
  }),
  route({
    method: "DELETE",
    path: one,
    summary: "Archive a list (restorable)",
    tag,
    auth: LISTS_WRITE,
    params: s.listParams,
    responses: { 204: { description: "Archived" } },
    handler: async ({ db, principal, params, now }) => {
      await write.archiveList(db, portalOf(principal), params.listId, now);
      return noContent();
    },
  }),
  route({
    method: "PUT",
    path: `${one}/restore`,
    summary: "Restore an archived list",
    tag,
    auth: LISTS_WRITE,
    params: s.listParams,
    responses: { 204: { description: "Restored" }, 409: { description: "A live list has its name now (CONFLICT)" } },
    handler: async ({ db, principal, params, now }) => {
      await write.restoreList(db, portalOf(principal), params.listId, now);
      return noContent();
    },
  }),
  route({
    method: "PUT",
    path: `${one}/update-list-name`,
    summary: "Rename a list",
    tag,
    auth: LISTS_WRITE,
    params: s.listParams,
    query: s.renameQuery,
    responses: { 200: { description: "The list", schema: s.updateResponse }, 409: { description: "A live list has that name (CONFLICT)" } },
    handler: async ({ db, principal, params, query, now }) => {
      const list = await getList(db, portalOf(principal), params.listId);
      return json({ updatedList: presentList(await write.renameList(db, list, query.listName, now), { includeFilters: query.includeFilters }) });
    },
  }),
  route({
    method: "PUT",
    path: `${one}/update-list-filters`,
    summary: "Replace a DYNAMIC list's filter branch",
    tag,
    auth: LISTS_WRITE,
    params: s.listParams,
    query: s.filtersQuery,
    body: s.filtersBody,
    responses: { 200: { description: "The list", schema: s.updateResponse } },
    handler: async ({ db, principal, params, body, now }) => {
      const list = await getList(db, portalOf(principal), params.listId);
      return json({ updatedList: presentList(await write.updateFilters(db, list, body.filterBranch, now), { includeFilters: true }) });
    },
  }),
  route({
    method: "GET",
    path: `${one}/memberships`,
    summary: "A page of the list's members in record id order",
    tag,
    auth: LISTS_READ,
    params: s.listParams,
    query: s.pageQuery,
    responses: { 200: { description: "A page of members", schema: s.memberPage } },
    handler: async ({ db, principal, params, query }) => {
      const list = await listForPage(db, portalOf(principal), params.listId);
      const page = await memberPage(db, list, { ...query, indexedUntil: searchIndexedUntil(principal) });
      return jsonText(memberPageText(page));
    },
  }),
  route({
    method: "GET",
    path: `${one}/memberships/join-order`,
    summary: "A page of the list's members in the order they joined",
    tag,
    auth: LISTS_READ,
    params: s.listParams,
    query: s.joinQuery,
    responses: { 200: { description: "A page of members, earliest joined first", schema: s.joinPage } },
    handler: async ({ db, principal, params, query }) => {
      const page = await joinOrderPage(db, await getList(db, portalOf(principal), params.listId), { ...query, indexedUntil: searchIndexedUntil(principal) });
      const paging = { ...(page.next ? { next: { after: page.next } } : {}), ...(page.prev ? { prev: { before: page.prev } } : {}) };
      return json({ results: page.members.map((m) => ({ recordId: String(m.id), membershipTimestamp: iso(m.at) })), ...(Object.keys(paging).length ? { paging } : {}) });
    },
  }),
  route({
    method: "PUT",
    path: `${one}/memberships/add-from/:sourceListId`,
    summary: "Add every member of another list of the same object type to a MANUAL or SNAPSHOT list",
    tag,
    auth: LISTS_WRITE,
    params: s.addFromParams,
    responses: { 204: { description: "Added" }, 400: { description: "Invalid input, the list is DYNAMIC, or the lists hold different object types" } },
    handler: async ({ db, principal, params, now }) => {
      const portalId = portalOf(principal);
      const [list, source] = [await getList(db, portalId, params.listId), await getList(db, portalId, params.sourceListId)];
      await addAllFrom(db, list, source, now);
      return noContent();
    },
  }),
  route({
    method: "PUT",
    path: `${one}/memberships/add`,
    summary: "Add records to a MANUAL or SNAPSHOT list",
    tag,
    auth: LISTS_WRITE,
    params: s.listParams,
    body: s.memberIds,
    responses: { 200: { description: "What changed", schema: s.membershipsUpdate }, 400: DYNAMIC_400 },
    handler: async ({ db, principal, params, body, now }) => json(changed(await changeMembers(db, await getList(db, portalOf(principal), params.listId), body, [], now))),
  }),
  route({
    method: "PUT",
    path: `${one}/memberships/remove`,
    summary: "Remove records from a MANUAL or SNAPSHOT list",
    tag,
    auth: LISTS_WRITE,
    params: s.listParams,
    body: s.memberIds,
    responses: { 200: { description: "What changed", schema: s.membershipsUpdate }, 400: DYNAMIC_400 },
    handler: async ({ db, principal, params, body, now }) => json(changed(await changeMembers(db, await getList(db, portalOf(principal), params.listId), [], body, now))),
  }),
  route({
    method: "PUT",
    path: `${one}/memberships/add-and-remove`,
    summary: "Add and remove records of a MANUAL or SNAPSHOT list in one write",
    tag,
    auth: LISTS_WRITE,
    params: s.listParams,
    body: s.addAndRemoveBody,
    responses: { 200: { description: "What changed", schema: s.membershipsUpdate }, 400: DYNAMIC_400 },
    handler: async ({ db, principal, params, body, now }) =>
      json(changed(await changeMembers(db, await getList(db, portalOf(principal), params.listId), body.recordIdsToAdd, body.recordIdsToRemove, now))),
  }),
  route({
    method: "DELETE",
    path: `${one}/memberships`,
    summary: "Remove every member of a MANUAL or SNAPSHOT list",
    tag,
    auth: LISTS_WRITE,
    params: s.listParams,
    responses: { 204: { description: "Emptied" }, 400: DYNAMIC_400 },
    handler: async ({ db, principal, params, now }) => {
      await removeAllMembers(db, await getList(db, portalOf(principal), params.listId), now);
      return noContent();
    },
  }),
];
