/**
 * @module Folders of an account's lists (docs/reference/lists.md "Folders"), as the real service's
 * `/crm/v3/lists/folders` keeps them: a tree under the root folder (id 0, which has no row), each folder with
 * its child folders and the ids of the live lists in it. A folder is read with its whole subtree, from two
 * statements (the account's folders, and its live lists' folders), whatever its depth.
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { listFolders, lists } from "../../db/tables/lists";
import { badRequest, notFound } from "../../lib/errors";
import { LIST_LIMITS } from "../../schemas/lists";

type FolderRow = typeof listFolders.$inferSelect;

export interface FolderView {
  id: number;
  parentFolderId: number;
  name: string;
  childNodes: FolderView[];
  childLists: number[];
  createdAt?: string;
  updatedAt?: string;
}

const ROOT = 0;
const iso = (ms: number) => new Date(ms).toISOString();

async function accountFolders(db: Db, portalId: number): Promise<FolderRow[]> {
  return db.select().from(listFolders).where(eq(listFolders.portalId, portalId)).orderBy(listFolders.id).all();
}

async function folderOf(db: Db, portalId: number, id: number): Promise<FolderRow | null> {
  if (id === ROOT) return null;
  const row = await db.select().from(listFolders).where(and(eq(listFolders.portalId, portalId), eq(listFolders.id, id))).get();
  if (!row) throw notFound(`folder ${id} not found`);
  return row;
}

/** The folder `id` (0: the root) with its subtree and the live lists in each of its folders. */
export async function folderTree(db: Db, portalId: number, id: number): Promise<FolderView> {
  const [folders, placed] = await db.batch([
    db.select().from(listFolders).where(eq(listFolders.portalId, portalId)).orderBy(listFolders.id),
    db.select({ id: lists.id, folderId: lists.folderId }).from(lists).where(and(eq(lists.portalId, portalId), isNull(lists.deletedAt))).orderBy(lists.id),
  ]);
  const byId = new Map(folders.map((f) => [f.id, f]));
  if (id !== ROOT && !byId.has(id)) throw notFound(`folder ${id} not found`);
  const children = new Map<number, FolderRow[]>();
  for (const f of folders) children.set(f.parentId, [...(children.get(f.parentId) ?? []), f]);
  const listsIn = new Map<number, number[]>();
  for (const l of placed) listsIn.set(l.folderId, [...(listsIn.get(l.folderId) ?? []), l.id]);
  const view = (fid: number): FolderView => {
    const row = byId.get(fid);
    return {
      id: fid,
      parentFolderId: row?.parentId ?? ROOT,
      name: row?.name ?? "root",
      childNodes: (children.get(fid) ?? []).map((c) => view(c.id)),
      childLists: listsIn.get(fid) ?? [],
      ...(row ? { createdAt: iso(row.createdAt), updatedAt: iso(row.updatedAt) } : {}),
    };
  };
  return view(id);
}

export async function createFolder(db: Db, portalId: number, name: string, parentId: number, now: number): Promise<FolderView> {
  await folderOf(db, portalId, parentId);
  const folders = await accountFolders(db, portalId);
  if (folders.length >= LIST_LIMITS.folders) throw badRequest(`an account has at most ${LIST_LIMITS.folders} list folders`);
  // The account's own ids: the largest plus one, in the inserting statement (two creates at once cannot share one).
  const [row] = await db
    .insert(listFolders)
    .values({ portalId, id: sql`(select coalesce(max(id), 0) + 1 from list_folders where portal_id = ${portalId})` as unknown as number, parentId, name, createdAt: now, updatedAt: now })
    .returning();
  return folderTree(db, portalId, row!.id);
}

export async function renameFolder(db: Db, portalId: number, id: number, name: string, now: number): Promise<FolderView> {
  if (id === ROOT) throw badRequest("folderId: the root folder cannot be renamed");
  await folderOf(db, portalId, id);
  await db.update(listFolders).set({ name, updatedAt: now }).where(and(eq(listFolders.portalId, portalId), eq(listFolders.id, id)));
  return folderTree(db, portalId, id);
}

/** Moves a folder under another; never under itself or its own subtree (that would cut it off the tree). */
export async function moveFolder(db: Db, portalId: number, id: number, parentId: number, now: number): Promise<FolderView> {
  if (id === ROOT) throw badRequest("folderId: the root folder cannot be moved");
  const folders = await accountFolders(db, portalId);
  const byId = new Map(folders.map((f) => [f.id, f]));
  if (!byId.has(id)) throw notFound(`folder ${id} not found`);
  if (parentId !== ROOT && !byId.has(parentId)) throw notFound(`folder ${parentId} not found`);
  for (let at = parentId; at !== ROOT; at = byId.get(at)!.parentId) {
    if (at === id) throw badRequest(`newParentFolderId: folder ${parentId} is folder ${id} or inside it`);
  }
  await db.update(listFolders).set({ parentId, updatedAt: now }).where(and(eq(listFolders.portalId, portalId), eq(listFolders.id, id)));
  return folderTree(db, portalId, id);
}

/** Removes an empty folder: one that holds neither folders nor live lists. */
export async function removeFolder(db: Db, portalId: number, id: number): Promise<void> {
  if (id === ROOT) throw badRequest("folderId: the root folder cannot be deleted");
  const tree = await folderTree(db, portalId, id);
  if (tree.childNodes.length || tree.childLists.length) throw badRequest(`folder ${id} is not empty: move or delete its folders and lists first`);
  // Archived lists that were in it go back to the root, where a restore finds them.
  await db.batch([
    db.update(lists).set({ folderId: ROOT }).where(and(eq(lists.portalId, portalId), eq(lists.folderId, id))),
    db.delete(listFolders).where(and(eq(listFolders.portalId, portalId), eq(listFolders.id, id))),
  ]);
}

/** Puts a live list in a folder (0: the root). */
export async function moveList(db: Db, portalId: number, listId: number, folderId: number, now: number): Promise<void> {
  await folderOf(db, portalId, folderId);
  const moved = await db
    .update(lists)
    .set({ folderId, updatedAt: now })
    .where(and(eq(lists.portalId, portalId), eq(lists.id, listId), isNull(lists.deletedAt)))
    .returning({ id: lists.id });
  if (moved.length === 0) throw notFound(`list ${listId} not found`);
}
