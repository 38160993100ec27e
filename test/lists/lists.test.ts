/**
 * Lists (docs/reference/lists.md): v3 lists of each processing type, memberships, a dynamic list following
 * a property change, the v1 face over the same lists, bad input writing nothing, and isolation.
 */
import { describe, expect, it } from "vitest";
import { makeDb } from "../../src/db/client";
import { listForPage, memberPage } from "../../src/services/lists/members";
import { call, tenant } from "../helpers/api";
import { countingD1 } from "../helpers/counting-d1";
import { accountD1 } from "../helpers/shards";
import { branch, L, memberIds, newContact, newList, stringIs } from "./helpers";

const rowsOf = async (portalId: number, table: string) =>
  (await (await accountD1(portalId)).prepare(`select count(*) as n from ${table} where portal_id = ?`).bind(portalId).first<number>("n"))!;

describe("v3 lists", () => {
  it("creates, reads by id, name and ids, searches, renames, archives and restores", async () => {
    const t = await tenant();
    const list = await newList(t, { name: "Customers A" });
    expect(list).toMatchObject({ name: "Customers A", processingType: "MANUAL", listVersion: 1 });
    const byId = await call("GET", `${L}/${list.listId}`, { token: t.pat });
    expect(byId.json.list).toMatchObject({ listId: list.listId, objectTypeId: "0-1", size: 0, processingStatus: "COMPLETE" });
    const byName = await call("GET", `${L}/object-type-id/0-1/name/customers%20a`, { token: t.pat });
    expect(byName.status, byName.text).toBe(200);
    expect(byName.json.list.listId).toBe(list.listId);
    const many = await call("GET", `${L}/?listIds=${list.listId}&listIds=999999`, { token: t.pat });
    expect(many.json.lists.map((l: { listId: string }) => l.listId)).toEqual([list.listId]);
    const found = await call("POST", `${L}/search`, { token: t.pat, body: { query: "tomers" } });
    expect(found.json).toMatchObject({ total: 1, hasMore: false });
    const renamed = await call("PUT", `${L}/${list.listId}/update-list-name?listName=Renamed`, { token: t.pat });
    expect(renamed.json.updatedList).toMatchObject({ name: "Renamed", listVersion: 2 });
    expect((await call("POST", L, { token: t.pat, body: { name: "renamed", objectTypeId: "0-1", processingType: "MANUAL" } })).status).toBe(409);
    expect((await call("DELETE", `${L}/${list.listId}`, { token: t.pat })).status).toBe(204);
    expect((await call("GET", `${L}/${list.listId}`, { token: t.pat })).status).toBe(404);
    expect((await call("PUT", `${L}/${list.listId}/restore`, { token: t.pat })).status).toBe(204);
    expect((await call("GET", `${L}/${list.listId}`, { token: t.pat })).status).toBe(200);
  });

  it("adds, removes, pages and empties a manual list's members; a deleted contact leaves it", async () => {
    const t = await tenant();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await newContact(t, { email: `m${i}@example.com` }));
    const list = await newList(t, {});
    const add = await call("PUT", `${L}/${list.listId}/memberships/add`, { token: t.pat, body: [...ids, "999999999"] });
    expect(add.json).toEqual({ recordsIdsAdded: ids, recordIdsRemoved: [], recordIdsMissing: ["999999999"] });
    const first = await call("GET", `${L}/${list.listId}/memberships?limit=2`, { token: t.pat });
    expect(first.json.results.map((r: { recordId: string }) => r.recordId)).toEqual(ids.slice(0, 2));
    expect(await memberIds(t, list.listId, `?after=${first.json.paging.next.after}`)).toEqual([ids[2]]);
    const both = await call("PUT", `${L}/${list.listId}/memberships/add-and-remove`, { token: t.pat, body: { recordIdsToAdd: [], recordIdsToRemove: [ids[0]] } });
    expect(both.json.recordIdsRemoved).toEqual([ids[0]]);
    const mine = await call("GET", `${L}/records/0-1/${ids[1]}/memberships`, { token: t.pat });
    expect(mine.json.results.map((r: { listId: string }) => r.listId)).toEqual([list.listId]);
    expect((await call("DELETE", `/crm/v3/objects/contacts/${ids[1]}`, { token: t.pat })).status).toBe(204);
    expect(await memberIds(t, list.listId)).toEqual([ids[2]]);
    expect((await call("DELETE", `${L}/${list.listId}/memberships`, { token: t.pat })).status).toBe(204);
    expect(await memberIds(t, list.listId)).toEqual([]);
    expect(await rowsOf(t.portalId, "list_memberships")).toBe(0);
  });

  it("a dynamic list follows a property change at once, refuses manual changes, and a record's memberships see it", async () => {
    const t = await tenant();
    const a = await newContact(t, { email: "a@example.com", lifecyclestage: "lead" });
    const b = await newContact(t, { email: "b@example.com", lifecyclestage: "customer" });
    const list = await newList(t, { processingType: "DYNAMIC", filterBranch: branch({ property: "lifecyclestage", operation: { operationType: "MULTISTRING", operator: "IS_ANY_OF", values: ["customer"] } }) });
    expect(await memberIds(t, list.listId)).toEqual([b]);
    await call("PATCH", `/crm/v3/objects/contacts/${a}`, { token: t.pat, body: { properties: { lifecyclestage: "customer" } } });
    expect(await memberIds(t, list.listId)).toEqual([a, b]);
    await call("PATCH", `/crm/v3/objects/contacts/${b}`, { token: t.pat, body: { properties: { lifecyclestage: "lead" } } });
    expect(await memberIds(t, list.listId)).toEqual([a]);
    const mine = await call("GET", `${L}/records/0-1/${a}/memberships`, { token: t.pat });
    expect(mine.json.results.map((r: { listId: string }) => r.listId)).toEqual([list.listId]);
    expect((await call("GET", `${L}/records/0-1/${b}/memberships`, { token: t.pat })).json.results).toEqual([]);
    const refused = await call("PUT", `${L}/${list.listId}/memberships/add`, { token: t.pat, body: [b] });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("DYNAMIC");
    const updated = await call("PUT", `${L}/${list.listId}/update-list-filters`, { token: t.pat, body: { filterBranch: branch(stringIs("email", "b@", "STARTS_WITH")) } });
    expect(updated.status, updated.text).toBe(200);
    expect(await memberIds(t, list.listId)).toEqual([b]);
  });

  it("a dynamic list's page follows a change of its filters and of a custom property's type at once", async () => {
    const t = await tenant();
    const name = `lp_score_${crypto.randomUUID().slice(0, 8)}`;
    const made = await call("POST", "/crm/v3/properties/contacts", { token: t.pat, body: { name, label: "Score", type: "string", fieldType: "text", groupName: "contactinformation" } });
    expect(made.status, made.text).toBe(201);
    const a = await newContact(t, { email: "s9@example.com", [name]: "9" });
    const b = await newContact(t, { email: "s10@example.com", [name]: "10" });
    const over = (v: number) => branch({ property: name, operation: { operationType: "NUMBER", operator: "IS_GREATER_THAN", value: v } });
    const list = await newList(t, { processingType: "DYNAMIC", filterBranch: over(8.5) });
    // As text, "10" sorts before "8.5"; as a number it is greater.
    expect(await memberIds(t, list.listId)).toEqual([a]);
    const retyped = await call("PATCH", `/crm/v3/properties/contacts/${name}`, { token: t.pat, body: { type: "number", fieldType: "number" } });
    expect(retyped.status, retyped.text).toBe(200);
    expect(await memberIds(t, list.listId)).toEqual([a, b]);
    const updated = await call("PUT", `${L}/${list.listId}/update-list-filters`, { token: t.pat, body: { filterBranch: over(9.5) } });
    expect(updated.status, updated.text).toBe(200);
    expect(await memberIds(t, list.listId)).toEqual([b]);
    // The same filters on another account's list match that account's records only.
    const other = await tenant();
    const c = await newContact(other, { email: "s11@example.com", lifecyclestage: "customer" });
    const customers = branch({ property: "lifecyclestage", operation: { operationType: "MULTISTRING", operator: "IS_ANY_OF", values: ["customer"] } });
    const d = await newContact(t, { email: "s12@example.com", lifecyclestage: "customer" });
    const mine = await newList(t, { processingType: "DYNAMIC", filterBranch: customers });
    const theirs = await newList(other, { processingType: "DYNAMIC", filterBranch: customers });
    expect(await memberIds(t, mine.listId)).toEqual([d]);
    expect(await memberIds(other, theirs.listId)).toEqual([c]);
  });

  it("a snapshot list is evaluated once at creation, then static and editable", async () => {
    const t = await tenant();
    const a = await newContact(t, { email: "s1@example.com", city: "Oslo" });
    const b = await newContact(t, { email: "s2@example.com", city: "Bergen" });
    const list = await newList(t, { processingType: "SNAPSHOT", filterBranch: branch(stringIs("city", "oslo")) });
    expect(await memberIds(t, list.listId)).toEqual([a]);
    await call("PATCH", `/crm/v3/objects/contacts/${b}`, { token: t.pat, body: { properties: { city: "Oslo" } } });
    expect(await memberIds(t, list.listId)).toEqual([a]);
    expect((await call("PUT", `${L}/${list.listId}/memberships/add`, { token: t.pat, body: [b] })).json.recordsIdsAdded).toEqual([b]);
  });

  it("a dynamic list's page reads at most 2 × members read + 1 rows when half the records match", async () => {
    const t = await tenant();
    const inputs = Array.from({ length: 40 }, (_, i) => ({ properties: { email: `r${i}@example.com`, city: i % 2 ? "Oslo" : "Bergen" } }));
    expect((await call("POST", "/crm/v3/objects/contacts/batch/create", { token: t.pat, body: { inputs } })).status).toBe(201);
    const list = await newList(t, { processingType: "DYNAMIC", filterBranch: branch(stringIs("city", "Oslo")) });
    const d1 = countingD1(await accountD1(t.portalId));
    const db = makeDb(d1);
    const row = await listForPage(db, t.portalId, Number(list.listId));
    const before = d1.counts.rowsRead;
    const page = await memberPage(db, row, { limit: 10 });
    expect(page.members).toHaveLength(10);
    // The statement reads limit + 1 members (the last only to know whether more follow) and, with every
    // other record a non-member, one non-member before each: 2 × 11 rows, and nothing else.
    const read = d1.counts.log.at(-1)!;
    expect(d1.counts.statements).toBe(2);
    expect(read.rowsReturned).toBe(11);
    expect(read.rowsRead, JSON.stringify(d1.counts.log)).toBeLessThanOrEqual(2 * read.rowsReturned + 1);
    expect(d1.counts.rowsRead - before).toBeLessThanOrEqual(2 * read.rowsReturned + 1);
  });
});

describe("the v1 face", () => {
  it("shows the same members as v3, adds and removes by vid and email, and deletes", async () => {
    const t = await tenant();
    const a = await newContact(t, { email: "v1a@example.com", firstname: "Ann" });
    const b = await newContact(t, { email: "v1b@example.com" });
    const created = await call("POST", "/contacts/v1/lists", { token: t.pat, body: { name: "Legacy" } });
    expect(created.status, created.text).toBe(200);
    const id = created.json.listId as number;
    const add = await call("POST", `/contacts/v1/lists/${id}/add`, { token: t.pat, body: { vids: [Number(a), 999999999], emails: ["v1b@example.com", "nobody@example.com"] } });
    expect(add.json).toEqual({ updated: [Number(a), Number(b)], discarded: [], invalidVids: [999999999], invalidEmails: ["nobody@example.com"] });
    expect(await memberIds(t, String(id))).toEqual([a, b]);
    const page = await call("GET", `/contacts/v1/lists/${id}/contacts/all?count=1`, { token: t.pat });
    expect(page.json).toMatchObject({ "has-more": true, "vid-offset": Number(a) });
    expect(page.json.contacts[0].properties.firstname.value).toBe("Ann");
    const rest = await call("GET", `/contacts/v1/lists/${id}/contacts/all?count=1&vidOffset=${a}`, { token: t.pat });
    expect(rest.json).toMatchObject({ "has-more": false, "vid-offset": Number(b) });
    expect((await call("GET", `/contacts/v1/lists/${id}`, { token: t.pat })).json).toMatchObject({ listId: id, name: "Legacy", dynamic: false, metaData: { size: 2 } });
    const all = await call("GET", "/contacts/v1/lists?count=10", { token: t.pat });
    expect(all.json.lists.map((l: { listId: number }) => l.listId)).toEqual([id]);
    const removed = await call("POST", `/contacts/v1/lists/${id}/remove`, { token: t.pat, body: { vids: [Number(a)] } });
    expect(removed.json.updated).toEqual([Number(a)]);
    expect((await call("GET", "/contacts/v1/lists/all/contacts/all", { token: t.pat })).json.contacts).toHaveLength(2);
    expect((await call("DELETE", `/contacts/v1/lists/${id}`, { token: t.pat })).status).toBe(204);
    expect((await call("GET", `${L}/${id}`, { token: t.pat })).status).toBe(404);
  });
});

describe("bad input writes nothing", () => {
  const cases: [string, string, string, unknown][] = [
    ["unknown processingType", "POST", L, { name: "x", objectTypeId: "0-1", processingType: "WEIRD" }],
    ["unknown objectTypeId", "POST", L, { name: "x", objectTypeId: "9-9", processingType: "MANUAL" }],
    ["missing name", "POST", L, { objectTypeId: "0-1", processingType: "MANUAL" }],
    ["dynamic without filters", "POST", L, { name: "x", objectTypeId: "0-1", processingType: "DYNAMIC" }],
    ["filter on an unknown property", "POST", L, { name: "x", objectTypeId: "0-1", processingType: "DYNAMIC", filterBranch: branch(stringIs("no_such_prop", "v")) }],
    ["unknown operator", "POST", L, { name: "x", objectTypeId: "0-1", processingType: "DYNAMIC", filterBranch: branch(stringIs("email", "v", "IS_WEIRD")) }],
    ["non-property filter", "POST", L, { name: "x", objectTypeId: "0-1", processingType: "DYNAMIC", filterBranch: branch({ filterType: "ASSOCIATION" }) }],
    ["v1 dynamic list", "POST", "/contacts/v1/lists", { name: "x", dynamic: true }],
  ];
  it.each(cases)("%s is a 400", async (_name, method, path, body) => {
    const t = await tenant();
    const res = await call(method, path, { token: t.pat, body });
    expect(res.status, res.text).toBe(400);
    expect(await rowsOf(t.portalId, "lists")).toBe(0);
  });

  it("an unknown property is named in the 400", async () => {
    const t = await tenant();
    const res = await call("POST", L, { token: t.pat, body: { name: "x", objectTypeId: "0-1", processingType: "DYNAMIC", filterBranch: branch(stringIs("no_such_prop", "v")) } });
    expect(res.text).toContain("no_such_prop");
  });

  it("non-id members are a 400 that changes nothing", async () => {
    const t = await tenant();
    const list = await newList(t, {});
    expect((await call("PUT", `${L}/${list.listId}/memberships/add`, { token: t.pat, body: ["abc"] })).status).toBe(400);
    expect(await rowsOf(t.portalId, "list_memberships")).toBe(0);
  });
});

describe("isolation", () => {
  it("another account's list is a 404 and its records are never added", async () => {
    const a = await tenant();
    const b = await tenant();
    const list = await newList(a, {});
    const bContact = await newContact(b, { email: "iso@example.com" });
    expect((await call("GET", `${L}/${list.listId}`, { token: b.pat })).status).toBe(404);
    expect((await call("PUT", `${L}/${list.listId}/memberships/add`, { token: b.pat, body: [bContact] })).status).toBe(404);
    const add = await call("PUT", `${L}/${list.listId}/memberships/add`, { token: a.pat, body: [bContact] });
    expect(add.json.recordIdsMissing).toEqual([bContact]);
    expect((await call("GET", `/contacts/v1/lists/${list.listId}`, { token: b.pat })).status).toBe(404);
  });
});
