/**
 * The rest of the v3 lists face (docs/reference/lists.md): members in join order, copying a list's members
 * into another, several records' memberships at once, and the legacy list id mapping.
 */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant, type Tenant } from "../helpers/api";
import { branch, L, memberIds, newContact, newList } from "./helpers";

const add = async (t: Tenant, listId: string, ids: string[]) => {
  const res = await call("PUT", `${L}/${listId}/memberships/add`, { token: t.pat, body: ids });
  expect(res.status, res.text).toBe(200);
};
const joinPage = async (t: Tenant, listId: string, query = "") => {
  const res = await call("GET", `${L}/${listId}/memberships/join-order${query}`, { token: t.pat });
  expect(res.status, res.text).toBe(200);
  return res.json as { results: { recordId: string; membershipTimestamp: string }[]; paging?: { next?: { after: string }; prev?: { before: string } } };
};
const customers = branch({ property: "lifecyclestage", operation: { operationType: "MULTISTRING", operator: "IS_ANY_OF", values: ["customer"] } });

describe("members in join order", () => {
  it("answers the earliest joined first, ties by record id, and pages forward and back without skipping", async () => {
    const t = await tenant();
    const [a, b, c] = [await newContact(t, { firstname: "a" }), await newContact(t, { firstname: "b" }), await newContact(t, { firstname: "c" })];
    const list = await newList(t, {});
    // c joins first, then a and b together (one instant): join order is c, then a, b by id.
    await add(t, list.listId, [c]);
    await new Promise((r) => setTimeout(r, 5));
    await add(t, list.listId, [b, a]);
    const all = await joinPage(t, list.listId);
    expect(all.results.map((r) => r.recordId)).toEqual([c, a, b]);
    expect(all.paging).toBeUndefined();
    expect(Date.parse(all.results[0]!.membershipTimestamp)).toBeLessThan(Date.parse(all.results[1]!.membershipTimestamp));

    const first = await joinPage(t, list.listId, "?limit=2");
    expect(first.results.map((r) => r.recordId)).toEqual([c, a]);
    const second = await joinPage(t, list.listId, `?limit=2&after=${first.paging!.next!.after}`);
    expect(second.results.map((r) => r.recordId)).toEqual([b]);
    expect(second.paging?.next).toBeUndefined();
    const back = await joinPage(t, list.listId, `?limit=2&before=${second.paging!.prev!.before}`);
    expect(back.results.map((r) => r.recordId)).toEqual([c, a]);
  });

  it("a malformed cursor is a 400, another account's list a 404", async () => {
    const [t, other] = [await tenant(), await tenant()];
    const list = await newList(t, {});
    expectError(await call("GET", `${L}/${list.listId}/memberships/join-order?after=12`, { token: t.pat }), 400, "VALIDATION_ERROR");
    expectError(await call("GET", `${L}/${list.listId}/memberships/join-order`, { token: other.pat }), 404, "OBJECT_NOT_FOUND");
  });
});

describe("add from another list", () => {
  it("copies a dynamic list's members into a manual list, keeping the members it had, once each", async () => {
    const t = await tenant();
    const kept = await newContact(t, { firstname: "kept" });
    const [x, y] = [await newContact(t, { lifecyclestage: "customer" }), await newContact(t, { lifecyclestage: "customer" })];
    await newContact(t, { lifecyclestage: "lead" });
    const source = await newList(t, { processingType: "DYNAMIC", filterBranch: customers });
    const target = await newList(t, {});
    await add(t, target.listId, [kept, x]);
    const res = await call("PUT", `${L}/${target.listId}/memberships/add-from/${source.listId}`, { token: t.pat });
    expect(res.status, res.text).toBe(204);
    expect(await memberIds(t, target.listId)).toEqual([kept, x, y].sort((p, q) => Number(p) - Number(q)));
  });

  it("refuses a DYNAMIC target, lists of different object types, and another account's source", async () => {
    const [t, other] = [await tenant(), await tenant()];
    const contact = await newContact(t, { lifecyclestage: "customer" });
    const dynamic = await newList(t, { processingType: "DYNAMIC", filterBranch: customers });
    const manual = await newList(t, {});
    await add(t, manual.listId, [contact]);
    const companies = await newList(t, { objectTypeId: "0-2" });
    const theirs = await newList(other, {});
    const intoDynamic = await call("PUT", `${L}/${dynamic.listId}/memberships/add-from/${manual.listId}`, { token: t.pat });
    expectError(intoDynamic, 400, "VALIDATION_ERROR");
    expect(intoDynamic.text).toContain("DYNAMIC");
    const mixed = await call("PUT", `${L}/${companies.listId}/memberships/add-from/${manual.listId}`, { token: t.pat });
    expectError(mixed, 400, "VALIDATION_ERROR");
    expect(mixed.text).toContain("one object type");
    expectError(await call("PUT", `${L}/${theirs.listId}/memberships/add-from/${manual.listId}`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("PUT", `${L}/${manual.listId}/memberships/add-from/${theirs.listId}`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
    expect(await memberIds(other, theirs.listId)).toEqual([]);
    expect(await memberIds(t, companies.listId)).toEqual([]);
  });
});

describe("memberships of several records", () => {
  it("answers each record once with its manual and dynamic lists; a record of another account has none", async () => {
    const [t, other] = [await tenant(), await tenant()];
    const customer = await newContact(t, { lifecyclestage: "customer" });
    const lead = await newContact(t, { lifecyclestage: "lead" });
    const dynamic = await newList(t, { processingType: "DYNAMIC", filterBranch: customers });
    const manual = await newList(t, {});
    await add(t, manual.listId, [lead, customer]);
    const theirs = await newContact(other, { lifecyclestage: "customer" });
    const res = await call("POST", `${L}/records/memberships/batch/read`, {
      token: t.pat,
      body: { inputs: [customer, lead, customer, theirs].map((recordId) => ({ objectTypeId: "0-1", recordId })) },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.status).toBe("COMPLETE");
    const lists = Object.fromEntries(res.json.results.map((r: { recordId: string; recordListMemberships: { listId: string }[] }) => [r.recordId, r.recordListMemberships.map((m) => m.listId)]));
    expect(res.json.results).toHaveLength(3);
    expect(lists).toEqual({ [customer]: [dynamic.listId, manual.listId].sort((p, q) => Number(p) - Number(q)), [lead]: [manual.listId], [theirs]: [] });
  });

  it("an empty or unknown-type input is a 400", async () => {
    const t = await tenant();
    expectError(await call("POST", `${L}/records/memberships/batch/read`, { token: t.pat, body: { inputs: [] } }), 400, "VALIDATION_ERROR");
    const bad = await call("POST", `${L}/records/memberships/batch/read`, { token: t.pat, body: { inputs: [{ objectTypeId: "0-99", recordId: "1" }] } });
    expectError(bad, 400, "VALIDATION_ERROR");
    expect(bad.text).toContain("objectTypeId");
  });
});

describe("legacy list ids", () => {
  it("a live contact list's legacy id is its own id; other ids are missing", async () => {
    const [t, other] = [await tenant(), await tenant()];
    const list = await newList(t, {});
    const companies = await newList(t, { objectTypeId: "0-2" });
    const theirs = await newList(other, {});
    const one = await call("GET", `${L}/idmapping?legacyListId=${list.listId}`, { token: t.pat });
    expect(one.status, one.text).toBe(200);
    expect(one.json).toEqual({ legacyListId: list.listId, listId: list.listId });
    expectError(await call("GET", `${L}/idmapping?legacyListId=${theirs.listId}`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("GET", `${L}/idmapping`, { token: t.pat }), 400, "VALIDATION_ERROR");
    const many = await call("POST", `${L}/idmapping`, { token: t.pat, body: [list.listId, companies.listId, theirs.listId] });
    expect(many.status, many.text).toBe(200);
    expect(many.json).toEqual({ legacyListIdsToIdsMapping: [{ legacyListId: list.listId, listId: list.listId }], missingLegacyListIds: [companies.listId, theirs.listId] });
    expectError(await call("POST", `${L}/idmapping`, { token: t.pat, body: ["x"] }), 400, "VALIDATION_ERROR");
  });
});
