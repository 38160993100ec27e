/**
 * @module Creating and changing lists (docs/reference/lists.md). Names are unique, ignoring case, among an
 * account's live lists (the real service's rule; a partial unique index holds it when two writes race).
 * A list takes its id from the database's id range. A SNAPSHOT list's members are written with it, in
 * the same batch, and never follow changes after; a DYNAMIC list's are read from its filters.
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { newId } from "../../db/id-ranges";
import { builderStatement, rawStatement, runRawBatch } from "../../db/d1-raw";
import type { ObjectType } from "../../db/tables/crm";
import { lists } from "../../db/tables/lists";
import { badRequest, conflict } from "../../lib/errors";
import { LIST_LIMITS, type FilterBranch } from "../../schemas/lists";
import { isUniqueViolation } from "../blog/blogs";
import { compileBranch } from "./filters";
import { snapshotStatement } from "./members";
import { getList, type ListRow } from "./read";

const nameTaken = (name: string) => conflict(`a list named ${JSON.stringify(name)} already exists`);

async function checkNameFree(db: Db, portalId: number, name: string, except?: number) {
  const row = await db
    .select({ id: lists.id })
    .from(lists)
    .where(and(eq(lists.portalId, portalId), isNull(lists.deletedAt), eq(lists.nameKey, name.toLowerCase())))
    .get();
  if (row && row.id !== except) throw nameTaken(name);
}

async function checkDynamicRoom(db: Db, portalId: number, type: string) {
  const [row] = await db.all<{ n: number }>(
    sql`select count(*) as n from lists where portal_id = ${portalId} and object_type = ${type} and processing_type = 'DYNAMIC' and deleted_at is null`,
  );
  if ((row?.n ?? 0) >= LIST_LIMITS.dynamic) throw badRequest(`an account has at most ${LIST_LIMITS.dynamic} live DYNAMIC lists of a type`);
}

/** Runs a write whose race on the name index is a 409. */
async function guarded<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken(name);
    throw err;
  }
}

export interface NewList {
  name: string;
  type: ObjectType;
  processingType: "MANUAL" | "DYNAMIC" | "SNAPSHOT";
  filterBranch?: FilterBranch;
}

export async function createList(db: Db, portalId: number, input: NewList, now: number): Promise<ListRow> {
  await checkNameFree(db, portalId, input.name);
  if (input.processingType === "DYNAMIC") await checkDynamicRoom(db, portalId, input.type);
  const cond = input.filterBranch ? await compileBranch(db, portalId, input.type, input.filterBranch) : null;
  const insert = db.insert(lists).values({
    id: sql`${newId("lists")}` as unknown as number,
    portalId,
    objectType: input.type,
    name: input.name,
    nameKey: input.name.toLowerCase(),
    processingType: input.processingType,
    filterBranch: input.filterBranch ?? null,
    version: 1,
    createdAt: now,
    updatedAt: now,
    filtersUpdatedAt: now,
  });
  const statements = [builderStatement(db, insert)];
  if (input.processingType === "SNAPSHOT" && cond) statements.push(snapshotStatement(db, portalId, input.type, cond, now));
  statements.push(rawStatement(db, sql`select seq as id from id_sequences where name = 'lists'`));
  const results = await guarded(input.name, () => runRawBatch(db, statements));
  const id = (results.at(-1)!.results as { id: number }[])[0]!.id;
  return getList(db, portalId, id);
}

export async function renameList(db: Db, list: ListRow, name: string, now: number): Promise<ListRow> {
  await checkNameFree(db, list.portalId, name, list.id);
  await guarded(name, () =>
    db.update(lists).set({ name, nameKey: name.toLowerCase(), version: list.version + 1, updatedAt: now }).where(and(eq(lists.portalId, list.portalId), eq(lists.id, list.id))).run(),
  );
  return getList(db, list.portalId, list.id);
}

export async function updateFilters(db: Db, list: ListRow, branch: FilterBranch, now: number): Promise<ListRow> {
  // Only a DYNAMIC list's filters decide its members; a SNAPSHOT list was evaluated once, at creation.
  if (list.processingType !== "DYNAMIC") throw badRequest(`list ${list.id} is ${list.processingType}: only a DYNAMIC list's filters can be updated`);
  await compileBranch(db, list.portalId, list.objectType as ObjectType, branch);
  await db
    .update(lists)
    .set({ filterBranch: branch, version: list.version + 1, updatedAt: now, filtersUpdatedAt: now })
    .where(and(eq(lists.portalId, list.portalId), eq(lists.id, list.id)))
    .run();
  return getList(db, list.portalId, list.id);
}

/** Archives a live list; its membership rows stay, for a restore. */
export async function archiveList(db: Db, portalId: number, id: number, now: number) {
  const res = await db.update(lists).set({ deletedAt: now, updatedAt: now }).where(and(eq(lists.portalId, portalId), eq(lists.id, id), isNull(lists.deletedAt))).run();
  if (!res.meta.changes) await getList(db, portalId, id);
}

export async function restoreList(db: Db, portalId: number, id: number, now: number) {
  const list = await getList(db, portalId, id, { archived: true });
  if (list.deletedAt === null) throw badRequest(`list ${id} is not archived`);
  await checkNameFree(db, portalId, list.name);
  if (list.processingType === "DYNAMIC") await checkDynamicRoom(db, portalId, list.objectType);
  await guarded(list.name, () => db.update(lists).set({ deletedAt: null, updatedAt: now }).where(and(eq(lists.portalId, portalId), eq(lists.id, id))).run());
}
