/** List folders (docs/reference/lists.md "Folders"): the tree, create, rename, move, move a list, delete, bad input, isolation. */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant, type Tenant } from "../helpers/api";
import { accountD1 } from "../helpers/shards";
import { L, newList } from "./helpers";

const F = `${L}/folders`;

async function folder(t: Tenant, name: string, parentFolderId?: number) {
  const res = await call("POST", F, { token: t.pat, body: { name, ...(parentFolderId === undefined ? {} : { parentFolderId: String(parentFolderId) }) } });
  expect(res.status, res.text).toBe(200);
  return res.json.folder as { id: number; parentFolderId: number; name: string };
}
const tree = async (t: Tenant, query = "") => {
  const res = await call("GET", `${F}${query}`, { token: t.pat });
  expect(res.status, res.text).toBe(200);
  return res.json.folder;
};
const shape = (f: { id: number; name: string; childLists: number[]; childNodes: unknown[] }): unknown => ({
  name: f.name,
  lists: f.childLists,
  folders: (f.childNodes as (typeof f)[]).map(shape),
});

describe("list folders", () => {
  it("build a tree under the root: create, move a list in, rename, move a folder, read any subtree", async () => {
    const t = await tenant();
    const list = await newList(t, {});
    const other = await newList(t, {});
    const sales = await folder(t, "Sales");
    const q4 = await folder(t, "Q4", sales.id);
    expect(q4).toMatchObject({ parentFolderId: sales.id, name: "Q4" });
    expect((await call("PUT", `${F}/move-list`, { token: t.pat, body: { listId: list.listId, newFolderId: String(q4.id) } })).status).toBe(204);
    expect(shape(await tree(t))).toEqual({ name: "root", lists: [Number(other.listId)], folders: [{ name: "Sales", lists: [], folders: [{ name: "Q4", lists: [Number(list.listId)], folders: [] }] }] });

    const renamed = await call("PUT", `${F}/${q4.id}/rename?newFolderName=Q1`, { token: t.pat });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.json.folder).toMatchObject({ id: q4.id, name: "Q1", childLists: [Number(list.listId)] });
    const moved = await call("PUT", `${F}/${q4.id}/move/0`, { token: t.pat });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.json.folder.parentFolderId).toBe(0);
    expect(shape(await tree(t, `?folderId=${sales.id}`))).toEqual({ name: "Sales", lists: [], folders: [] });
    // An archived list leaves the tree; restored, it is back in its folder.
    expect((await call("DELETE", `${L}/${list.listId}`, { token: t.pat })).status).toBe(204);
    expect((await tree(t, `?folderId=${q4.id}`)).childLists).toEqual([]);
    expect((await call("PUT", `${L}/${list.listId}/restore`, { token: t.pat })).status).toBe(204);
    expect((await tree(t, `?folderId=${q4.id}`)).childLists).toEqual([Number(list.listId)]);
  });

  it("delete only empty folders; never move a folder into itself; bad ids are 400s and unknown ones 404s", async () => {
    const t = await tenant();
    const list = await newList(t, {});
    const a = await folder(t, "A");
    const b = await folder(t, "B", a.id);
    expectError(await call("PUT", `${F}/${a.id}/move/${b.id}`, { token: t.pat }), 400, "VALIDATION_ERROR");
    expectError(await call("PUT", `${F}/${a.id}/move/${a.id}`, { token: t.pat }), 400, "VALIDATION_ERROR");
    const full = await call("DELETE", `${F}/${a.id}`, { token: t.pat });
    expectError(full, 400, "VALIDATION_ERROR");
    expect(full.json.message).toContain("not empty");
    await call("PUT", `${F}/move-list`, { token: t.pat, body: { listId: list.listId, newFolderId: String(b.id) } });
    expectError(await call("DELETE", `${F}/${b.id}`, { token: t.pat }), 400, "VALIDATION_ERROR");
    await call("PUT", `${F}/move-list`, { token: t.pat, body: { listId: list.listId, newFolderId: "0" } });
    expect((await call("DELETE", `${F}/${b.id}`, { token: t.pat })).status).toBe(204);
    expect((await call("DELETE", `${F}/${a.id}`, { token: t.pat })).status).toBe(204);
    expect((await tree(t)).childNodes).toEqual([]);

    expectError(await call("DELETE", `${F}/0`, { token: t.pat }), 400, "VALIDATION_ERROR");
    expectError(await call("GET", `${F}?folderId=x`, { token: t.pat }), 400, "VALIDATION_ERROR");
    expectError(await call("POST", F, { token: t.pat, body: { name: "" } }), 400, "VALIDATION_ERROR");
    expectError(await call("PUT", `${F}/${a.id}/rename`, { token: t.pat }), 400, "VALIDATION_ERROR");
    expectError(await call("GET", `${F}?folderId=999`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("POST", F, { token: t.pat, body: { name: "C", parentFolderId: "999" } }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("PUT", `${F}/move-list`, { token: t.pat, body: { listId: "999999", newFolderId: "0" } }), 404, "OBJECT_NOT_FOUND");
  });

  it("another account's folders and lists are unknown, and nothing of theirs changes", async () => {
    const [t, other] = [await tenant(), await tenant()];
    const mine = await folder(t, "Mine");
    const list = await newList(t, {});
    await call("PUT", `${F}/move-list`, { token: t.pat, body: { listId: list.listId, newFolderId: String(mine.id) } });
    // Folder ids are the account's own: the other account's first folder has the same id, and is its own.
    const theirs = await folder(other, "Theirs");
    expect(theirs.id).toBe(mine.id);
    expectError(await call("PUT", `${F}/move-list`, { token: other.pat, body: { listId: list.listId, newFolderId: "0" } }), 404, "OBJECT_NOT_FOUND");
    expect((await call("PUT", `${F}/${theirs.id}/rename?newFolderName=Renamed`, { token: other.pat })).status).toBe(200);
    expect(shape(await tree(t))).toEqual({ name: "root", lists: [], folders: [{ name: "Mine", lists: [Number(list.listId)], folders: [] }] });
    expect(shape(await tree(other))).toEqual({ name: "root", lists: [], folders: [{ name: "Renamed", lists: [], folders: [] }] });
    const rows = await (await accountD1(t.portalId)).prepare("select count(*) as n from list_folders where portal_id = ?").bind(t.portalId).first<number>("n");
    expect(rows).toBe(1);
  });
});
