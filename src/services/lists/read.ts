/** @module Reading lists (docs/reference/lists.md): one list, several, by name, and the search. */
import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { lists } from "../../db/tables/lists";
import { notFound } from "../../lib/errors";

export type ListRow = typeof lists.$inferSelect;

const mine = (portalId: number) => eq(lists.portalId, portalId);

/** The account's list `id`; archived ones only when `archived` is set (restore). 404 otherwise. */
export async function getList(db: Db, portalId: number, id: number, opts: { archived?: boolean } = {}): Promise<ListRow> {
  const row = await db.select().from(lists).where(and(mine(portalId), eq(lists.id, id))).get();
  if (!row || (row.deletedAt !== null && !opts.archived)) throw notFound(`list ${id} not found`);
  return row;
}

/** The live lists among `ids` (unknown and archived ones are left out, as the real service's getAll does). */
export async function listsByIds(db: Db, portalId: number, ids: number[]): Promise<ListRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(lists)
    .where(and(mine(portalId), isNull(lists.deletedAt), sql`${lists.id} in (select value from json_each(${JSON.stringify(ids)}))`))
    .orderBy(lists.id)
    .all();
}

/** The live list of the type with that name, ignoring case. */
export async function listByName(db: Db, portalId: number, type: string, name: string): Promise<ListRow> {
  const row = await db
    .select()
    .from(lists)
    .where(and(mine(portalId), isNull(lists.deletedAt), eq(lists.nameKey, name.trim().toLowerCase()), eq(lists.objectType, type)))
    .get();
  // The name is not echoed: it may be another account's, and an answer never repeats what it did not find.
  if (!row) throw notFound("no live list of that object type has that name");
  return row;
}

export interface ListSearch {
  query?: string;
  listIds?: number[];
  processingTypes?: string[];
  types?: string[];
  offset: number;
  count: number;
}

/** A page of live lists, oldest first, whose name contains `query` (ignoring case), and their total. */
export async function searchLists(db: Db, portalId: number, s: ListSearch): Promise<{ rows: ListRow[]; total: number }> {
  const conds: SQL[] = [sql`portal_id = ${portalId}`, sql`deleted_at is null`];
  if (s.query) conds.push(sql`instr(name_key, ${s.query.trim().toLowerCase()}) > 0`);
  if (s.listIds?.length) conds.push(sql`id in (select value from json_each(${JSON.stringify(s.listIds)}))`);
  if (s.processingTypes?.length) conds.push(sql`processing_type in (select value from json_each(${JSON.stringify(s.processingTypes)}))`);
  if (s.types?.length) conds.push(sql`object_type in (select value from json_each(${JSON.stringify(s.types)}))`);
  const where = sql.join(conds, sql` and `);
  const [rows, counted] = await db.batch([
    db.select().from(lists).where(where).orderBy(lists.id).limit(s.count).offset(s.offset),
    db.select({ n: sql<number>`count(*)` }).from(lists).where(where),
  ]);
  return { rows, total: counted[0]?.n ?? 0 };
}

/**
 * The v3 ids of legacy (v1) list ids. The legacy face and v3 are the same rows here, so a legacy id maps to
 * itself when it names a live contact list of the account (the only lists v1 had); any other id is missing.
 */
export async function legacyMapping(db: Db, portalId: number, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: lists.id })
    .from(lists)
    .where(and(mine(portalId), isNull(lists.deletedAt), eq(lists.objectType, "contacts"), sql`${lists.id} in (select value from json_each(${JSON.stringify(ids)}))`))
    .all();
  return new Set(rows.map((r) => r.id));
}
