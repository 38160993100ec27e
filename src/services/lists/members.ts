/**
 * @module A list's members (docs/reference/lists.md "Memberships"). A MANUAL or SNAPSHOT list's members are
 * rows of list_memberships, which a record's archiving or purge deletes in the same write (triggers of
 * the lists migration), so they are always live records. A DYNAMIC list's members are the live records
 * of its type that match its filter branch now, read as the CRM search reads: one statement walking the
 * crm_objects_list index in id order, up to the page's LIMIT, so a page costs the records it passes over.
 * Pages are in record id order; `after`/`before` are record ids.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rawRows, rawStatement, runRawBatch, type BoundQuery } from "../../db/d1-raw";
import type { ObjectType } from "../../db/tables/crm";
import { badRequest, notFound } from "../../lib/errors";
import { LIST_LIMITS, type FilterBranch } from "../../schemas/lists";
import { existingIds } from "../crm/records";
import { compileBranch, compileBranches, renderedBranch } from "./filters";
import type { ListRow } from "./read";

const type = (list: ListRow) => list.objectType as ObjectType;

/** The SELECT of a list's members as (id, timestamp) over `c` or `m`, with `extra` conditions. */
export async function membersQuery(db: Db, list: ListRow, extra: SQL[], indexedUntil?: number): Promise<{ from: SQL; where: SQL; id: SQL; at: SQL }> {
  if (list.processingType === "DYNAMIC") {
    const cond = await compileBranch(db, list.portalId, type(list), list.filterBranch as FilterBranch);
    // A test account's search lag (src/services/testkit/quirks.ts): a dynamic list is evaluated by the
    // search index, so a record written since is not a member yet.
    if (indexedUntil !== undefined) extra = [...extra, sql`c.updated_at <= ${indexedUntil}`];
    // A dynamic member's timestamp: when it last changed or the filters did, whichever is later (when it
    // could last have joined; the real service records the join itself).
    return {
      from: sql`crm_objects c`,
      where: sql.join([sql`c.portal_id = ${list.portalId} and c.object_type = ${list.objectType} and c.archived = 0`, cond, ...extra], sql` and `),
      id: sql`c.id`,
      at: sql`max(c.updated_at, ${list.filtersUpdatedAt})`,
    };
  }
  return {
    from: sql`list_memberships c`,
    where: sql.join([sql`c.portal_id = ${list.portalId} and c.list_id = ${list.id}`, ...extra], sql` and `),
    id: sql`c.record_id`,
    at: sql`c.added_at`,
  };
}

export interface MemberPage {
  members: { id: number; at: number }[];
  next?: number;
  prev?: number;
}

/** What a page of members needs of its list; `branchText` is the filter branch as stored (JSON text). */
export interface PagedList {
  id: number;
  portalId: number;
  objectType: string;
  processingType: string;
  branchText: string | null;
  filtersUpdatedAt: number;
}

export const pagedList = (l: ListRow): PagedList => ({
  id: l.id,
  portalId: l.portalId,
  objectType: l.objectType,
  processingType: l.processingType,
  branchText: l.filterBranch === null || l.filterBranch === undefined ? null : JSON.stringify(l.filterBranch),
  filtersUpdatedAt: l.filtersUpdatedAt,
});

// The page's statements are text written once, with bound values: drizzle's builders and `sql` fragments,
// rendered on every request, cost the page more Worker CPU than D1 spends running them.
const PAGED_LIST = "select processing_type, object_type, filter_branch, filters_updated_at from lists where portal_id = ? and id = ? and deleted_at is null";

/** The account's live list `id`, as a page of its members needs it; 404 otherwise (as getList). */
export async function listForPage(db: Db, portalId: number, id: number): Promise<PagedList> {
  const [row] = await rawRows<[string, string, string | null, number]>(db, { sql: PAGED_LIST, params: [portalId, id] });
  if (!row) throw notFound(`list ${id} not found`);
  return { id, portalId, processingType: row[0], objectType: row[1], branchText: row[2], filtersUpdatedAt: row[3] };
}

/**
 * A page of `limit` members after (or before) a record id; limit + 1 are read to know if more follow. The same
 * statement as membersQuery's, in record id order (the crm_objects_list index for a DYNAMIC list).
 */
export async function memberPage(db: Db, list: PagedList, page: { after?: number; before?: number; limit: number; indexedUntil?: number }): Promise<MemberPage> {
  const backwards = page.before !== undefined && page.after === undefined;
  const cursor = backwards ? page.before : page.after;
  let q: BoundQuery;
  if (list.processingType === "DYNAMIC") {
    const cond = await renderedBranch(db, list.portalId, list.objectType as ObjectType, list.branchText ?? "null");
    // A dynamic member's timestamp and the test account's search lag: as membersQuery.
    const params: unknown[] = [list.filtersUpdatedAt, list.portalId, list.objectType, ...cond.params];
    let where = `c.portal_id = ? and c.object_type = ? and c.archived = 0 and ${cond.sql}`;
    if (cursor !== undefined) {
      where += backwards ? " and c.id < ?" : " and c.id > ?";
      params.push(cursor);
    }
    if (page.indexedUntil !== undefined) {
      where += " and c.updated_at <= ?";
      params.push(page.indexedUntil);
    }
    params.push(page.limit + 1);
    q = { sql: `select c.id, max(c.updated_at, ?) from crm_objects c where ${where} order by c.id ${backwards ? "desc" : "asc"} limit ?`, params };
  } else {
    const params: unknown[] = [list.portalId, list.id];
    let where = "c.portal_id = ? and c.list_id = ?";
    if (cursor !== undefined) {
      where += backwards ? " and c.record_id < ?" : " and c.record_id > ?";
      params.push(cursor);
    }
    params.push(page.limit + 1);
    q = { sql: `select c.record_id, c.added_at from list_memberships c where ${where} order by c.record_id ${backwards ? "desc" : "asc"} limit ?`, params };
  }
  const rows = await rawRows<[number, number]>(db, q);
  const more = rows.length > page.limit;
  const members = rows.slice(0, page.limit).map(([id, at]) => ({ id, at }));
  if (backwards) members.reverse();
  const first = members[0]?.id;
  const last = members.at(-1)?.id;
  return {
    members,
    next: backwards ? (last !== undefined ? last : undefined) : more ? last : undefined,
    prev: backwards ? (more ? first : undefined) : page.after !== undefined && first !== undefined ? first : undefined,
  };
}

/** How many members the list has now (one count statement). */
export async function listSize(db: Db, list: ListRow, indexedUntil?: number): Promise<number> {
  const q = await membersQuery(db, list, [], indexedUntil);
  const [row] = await rawRows<[number]>(db, sql`select count(*) from ${q.from} where ${q.where}`);
  return row?.[0] ?? 0;
}

const manualOnly = (list: ListRow) => {
  // The real service refuses manual changes of a DYNAMIC list: its filters alone decide its members.
  if (list.processingType === "DYNAMIC") throw badRequest(`list ${list.id} is DYNAMIC: its members follow its filters and cannot be added or removed by hand`);
};

const json = (ids: number[]) => JSON.stringify(ids);

/**
 * Adds and removes records of the list's type in one batch. Ids that are not live records of the type are
 * `missing`; `added` are the ones that were not members, `removed` the ones that were.
 */
export async function changeMembers(db: Db, list: ListRow, add: number[], remove: number[], now: number) {
  manualOnly(list);
  const asked = [...new Set([...add, ...remove])];
  const [live, current] = await Promise.all([
    existingIds(db, list.portalId, type(list), asked),
    rawRows<[number]>(db, sql`select record_id from list_memberships where portal_id = ${list.portalId} and list_id = ${list.id} and record_id in (select value from json_each(${json(asked)}))`),
  ]);
  const members = new Set(current.map(([id]) => id));
  const removed = [...new Set(remove)].filter((id) => members.has(id));
  const added = [...new Set(add)].filter((id) => live.has(id) && (!members.has(id) || removed.includes(id)));
  const statements = [];
  if (removed.length) statements.push(rawStatement(db, sql`delete from list_memberships where portal_id = ${list.portalId} and list_id = ${list.id} and record_id in (select value from json_each(${json(removed)}))`));
  if (added.length) {
    statements.push(
      rawStatement(db, sql`insert into list_memberships (portal_id, list_id, record_id, added_at) select ${list.portalId}, ${list.id}, value, ${now} from json_each(${json(added)}) where true on conflict do nothing`),
    );
  }
  if (statements.length) {
    statements.push(rawStatement(db, sql`update lists set updated_at = ${now} where portal_id = ${list.portalId} and id = ${list.id}`));
    await runRawBatch(db, statements);
  }
  return { added, removed, missing: asked.filter((id) => !live.has(id)) };
}

/**
 * Adds every member of `source` (any processing type, the same object type) to a MANUAL or SNAPSHOT list:
 * one INSERT … SELECT over the source's member query, so the copy costs the source's members and never
 * passes their ids through bound parameters.
 */
export async function addAllFrom(db: Db, list: ListRow, source: ListRow, now: number) {
  manualOnly(list);
  if (source.objectType !== list.objectType) throw badRequest(`list ${source.id} holds ${source.objectType}, list ${list.id} holds ${list.objectType}: members can only be copied between lists of one object type`);
  const q = await membersQuery(db, source, []);
  await runRawBatch(db, [
    rawStatement(db, sql`insert into list_memberships (portal_id, list_id, record_id, added_at) select ${list.portalId}, ${list.id}, ${q.id}, ${now} from ${q.from} where ${q.where} on conflict do nothing`),
    rawStatement(db, sql`update lists set updated_at = ${now} where portal_id = ${list.portalId} and id = ${list.id}`),
  ]);
}

export async function removeAllMembers(db: Db, list: ListRow, now: number) {
  manualOnly(list);
  await runRawBatch(db, [
    rawStatement(db, sql`delete from list_memberships where portal_id = ${list.portalId} and list_id = ${list.id}`),
    rawStatement(db, sql`update lists set updated_at = ${now} where portal_id = ${list.portalId} and id = ${list.id}`),
  ]);
}

/** The SNAPSHOT list's members at creation: one INSERT … SELECT of the matches, in the creating batch. */
export function snapshotStatement(db: Db, portalId: number, listType: ObjectType, cond: SQL, now: number) {
  return rawStatement(
    db,
    sql`insert into list_memberships (portal_id, list_id, record_id, added_at)
      select ${portalId}, (select seq from id_sequences where name = 'lists'), c.id, ${now}
      from crm_objects c where c.portal_id = ${portalId} and c.object_type = ${listType} and c.archived = 0 and ${cond}`,
  );
}

export interface RecordMembership {
  listId: number;
  version: number;
  at: number;
}

/**
 * The live lists of the record's type that hold it: its membership rows, and each DYNAMIC list of the
 * type (at most LIST_LIMITS.dynamic, which creation enforces) evaluated against this one record.
 */
export async function recordMemberships(db: Db, portalId: number, recordType: ObjectType, recordId: number): Promise<RecordMembership[]> {
  return (await manyMemberships(db, portalId, recordType, [recordId])).get(recordId) ?? [];
}

/**
 * The memberships of several records of one type, by record: one statement for their membership rows, one
 * for the type's DYNAMIC lists, then one batch evaluating each DYNAMIC list against all the records at once
 * (primary-key lookups), so the cost does not grow with a statement per record.
 */
export async function manyMemberships(db: Db, portalId: number, recordType: ObjectType, recordIds: number[]): Promise<Map<number, RecordMembership[]>> {
  const ids = json([...new Set(recordIds)]);
  const [manual, dynamic] = await Promise.all([
    rawRows<[number, number, number, number]>(
      db,
      sql`select m.record_id, l.id, l.version, m.added_at from list_memberships m join lists l on l.portal_id = m.portal_id and l.id = m.list_id
        where m.portal_id = ${portalId} and m.record_id in (select value from json_each(${ids})) and l.deleted_at is null and l.object_type = ${recordType} order by l.id`,
    ),
    rawRows<[number, number, string, number]>(
      db,
      sql`select id, version, filter_branch, filters_updated_at from lists where portal_id = ${portalId} and object_type = ${recordType} and processing_type = 'DYNAMIC' and deleted_at is null
        order by id limit ${LIST_LIMITS.dynamic}`,
    ),
  ]);
  const out = new Map<number, RecordMembership[]>();
  const push = (recordId: number, m: RecordMembership) => out.set(recordId, [...(out.get(recordId) ?? []), m]);
  for (const [recordId, listId, version, at] of manual) push(recordId, { listId, version, at });
  const conds = await compileBranches(db, portalId, recordType, dynamic.map(([, , branch]) => JSON.parse(branch) as FilterBranch));
  const checks = dynamic.flatMap(([listId, version, , filtersAt], i) => {
    const cond = conds[i];
    if (!cond) return [];
    return [
      {
        listId,
        version,
        statement: rawStatement(
          db,
          sql`select c.id as id, max(c.updated_at, ${filtersAt}) as at from crm_objects c where c.id in (select value from json_each(${ids})) and c.portal_id = ${portalId} and c.object_type = ${recordType} and c.archived = 0 and ${cond}`,
        ),
      },
    ];
  });
  if (checks.length) {
    const results = await runRawBatch(db, checks.map((c) => c.statement));
    results.forEach((r, i) => {
      for (const row of r.results as { id: number; at: number }[]) push(row.id, { listId: checks[i]!.listId, version: checks[i]!.version, at: row.at });
    });
  }
  for (const list of out.values()) list.sort((a, b) => a.listId - b.listId);
  return out;
}
