/**
 * `archived=true` on the v3 get, list and batch read: only archived records, each with `archivedAt`, as the
 * real API's "only results that have been archived"; without it only live ones. A contact merged into
 * another is neither; the search never answers archived records.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, call, expectError, send, tenant, type Tenant } from "../helpers/api";
import { ids, make, search, watched } from "./helpers";

const archive = async (t: Tenant, type: string, id: string) => expect((await call("DELETE", `/crm/v3/objects/${type}/${id}`, { token: t.pat })).status).toBe(204);
const get = (t: Tenant, path: string) => call("GET", path, { token: t.pat });

describe("archived=true reads archived records", () => {
  it("the get answers an archived record with archived=true only, with archivedAt, and a live one only without it", async () => {
    const t = await tenant();
    const gone = await make(t, "contacts", { email: "gone@example.com", firstname: "Gone" });
    const live = await make(t, "contacts", { email: "live@example.com" });
    const before = await get(t, `/crm/v3/objects/contacts/${gone}`);
    await archive(t, "contacts", gone);

    expectError(await get(t, `/crm/v3/objects/contacts/${gone}`), 404, "OBJECT_NOT_FOUND");
    const read = await get(t, `/crm/v3/objects/contacts/${gone}?archived=true&properties=firstname`);
    expect(read.status, read.text).toBe(200);
    expect(read.json).toMatchObject({ id: gone, archived: true, createdAt: before.json.createdAt, properties: { firstname: "Gone", hs_object_id: gone } });
    expect(read.json.archivedAt).toBe(read.json.updatedAt);
    expect(Date.parse(read.json.archivedAt)).toBeGreaterThanOrEqual(Date.parse(before.json.updatedAt));
    // The real API's spelling of the flag and Python's both read as true; false is the default.
    expect((await get(t, `/crm/v3/objects/contacts/${gone}?archived=True`)).status).toBe(200);
    expectError(await get(t, `/crm/v3/objects/contacts/${gone}?archived=false`), 404, "OBJECT_NOT_FOUND");

    expectError(await get(t, `/crm/v3/objects/contacts/${live}?archived=true`), 404, "OBJECT_NOT_FOUND");
    const liveRead = await get(t, `/crm/v3/objects/contacts/${live}?archived=false`);
    expect(liveRead.json.archived).toBe(false);
    expect(liveRead.json).not.toHaveProperty("archivedAt");
  });

  it("archived is true or false; anything else is a 400 naming it", async () => {
    const t = await tenant();
    const id = await make(t, "companies", { name: "Orbit" });
    for (const path of [`/crm/v3/objects/companies/${id}?archived=yes`, "/crm/v3/objects/companies?archived=1", "/crm/v3/objects/companies?archived=true&archived=false"]) {
      const res = expectError(await get(t, path), 400, "VALIDATION_ERROR");
      expect(res.message, path).toContain("archived");
    }
    const batch = await call("POST", "/crm/v3/objects/companies/batch/read?archived=maybe", { token: t.pat, body: { inputs: [{ id }] } });
    expectError(batch, 400, "VALIDATION_ERROR");
  });

  it("the list pages through the archived records of the type only, oldest first", async () => {
    const t = await tenant();
    const deals = [];
    for (let i = 0; i < 5; i++) deals.push(await make(t, "deals", { dealname: `Deal ${i}` }));
    for (const id of [deals[0]!, deals[2]!, deals[3]!]) await archive(t, "deals", id);
    await archive(t, "companies", await make(t, "companies", { name: "Another type" }));

    const first = await get(t, "/crm/v3/objects/deals?archived=true&limit=2&properties=dealname");
    expect(first.status, first.text).toBe(200);
    expect(ids(first)).toEqual([deals[0], deals[2]]);
    expect(first.json.results.map((r: { properties: { dealname: string } }) => r.properties.dealname)).toEqual(["Deal 0", "Deal 2"]);
    for (const r of first.json.results) expect(r).toMatchObject({ archived: true, archivedAt: r.updatedAt });
    expect(first.json.paging.next.link).toContain("archived=true");
    const second = await get(t, `/crm/v3/objects/deals?archived=true&limit=2&after=${first.json.paging.next.after}`);
    expect(ids(second)).toEqual([deals[3]]);
    expect(second.json.paging).toBeUndefined();

    expect(ids(await get(t, "/crm/v3/objects/deals?limit=10"))).toEqual([deals[1], deals[4]]);
    expect(ids(await get(t, "/crm/v3/objects/deals?limit=10&archived=false"))).toEqual([deals[1], deals[4]]);
  });

  it("an archived record keeps its associations to live records", async () => {
    const t = await tenant();
    const contact = await make(t, "contacts", { email: "kept@example.com" });
    const company = await make(t, "companies", { name: "Still here" });
    const gone = await make(t, "companies", { name: "Archived too" });
    for (const c of [company, gone]) expect((await call("PUT", `/crm/v3/objects/contacts/${contact}/associations/companies/${c}`, { token: t.pat })).status).toBe(204);
    await archive(t, "contacts", contact);
    await archive(t, "companies", gone);

    const read = await get(t, `/crm/v3/objects/contacts/${contact}?archived=true&associations=companies`);
    expect(read.status, read.text).toBe(200);
    expect(read.json.associations).toEqual({ companies: { results: [{ id: company, type: "contacts_to_companies" }] } });
    const page = await get(t, "/crm/v3/objects/contacts?archived=true&associations=companies");
    expect(page.json.results).toHaveLength(1);
    expect(page.json.results[0].associations).toEqual(read.json.associations);
  });

  it("by email, the contact archived last answers, with its own associations", async () => {
    const t = await tenant();
    const first = await make(t, "contacts", { email: "Twice@Example.com", firstname: "First" });
    const company = await make(t, "companies", { name: "First's" });
    expect((await call("PUT", `/crm/v3/objects/contacts/${first}/associations/companies/${company}`, { token: t.pat })).status).toBe(204);
    await archive(t, "contacts", first);
    const path = "/crm/v3/objects/contacts/twice@example.com?idProperty=email&archived=true&properties=firstname&associations=companies";
    const one = await get(t, path);
    expect(one.status, one.text).toBe(200);
    expect(one.json).toMatchObject({ id: first, archived: true, properties: { firstname: "First" } });
    expect(one.json.associations.companies.results.map((r: { id: string }) => r.id)).toEqual([company]);

    // The email is free once its contact is archived: a second contact takes it, and is archived in turn.
    const second = await make(t, "contacts", { email: "twice@example.com", firstname: "Second" });
    expect((await get(t, "/crm/v3/objects/contacts/twice@example.com?idProperty=email")).json.id).toBe(second);
    await archive(t, "contacts", second);
    const latest = await get(t, path);
    expect(latest.json).toMatchObject({ id: second, properties: { firstname: "Second" } });
    expect(latest.json.associations?.companies).toBeUndefined();

    const batch = await call("POST", "/crm/v3/objects/contacts/batch/read?archived=true", {
      token: t.pat,
      body: { idProperty: "email", inputs: [{ id: "TWICE@example.com" }], properties: ["firstname"] },
    });
    expect(batch.status, batch.text).toBe(200);
    expect(batch.json.results.map((r: { id: string }) => r.id)).toEqual([second]);
  });

  it("the batch read answers the archived records it names, and the others as errors (207)", async () => {
    const t = await tenant();
    const gone = await make(t, "products", { name: "Retired", price: "3" });
    const live = await make(t, "products", { name: "On sale" });
    await archive(t, "products", gone);

    const archived = await call("POST", "/crm/v3/objects/products/batch/read?archived=true", { token: t.pat, body: { inputs: [{ id: gone }, { id: live }], properties: ["name"] } });
    expect(archived.status, archived.text).toBe(207);
    expect(archived.json.results).toHaveLength(1);
    expect(archived.json.results[0]).toMatchObject({ id: gone, archived: true, properties: { name: "Retired" } });
    expect(archived.json.results[0].archivedAt).toBe(archived.json.results[0].updatedAt);
    expect(archived.json.errors[0]).toMatchObject({ category: "OBJECT_NOT_FOUND", context: { ids: [live] } });

    const current = await call("POST", "/crm/v3/objects/products/batch/read", { token: t.pat, body: { inputs: [{ id: gone }, { id: live }] } });
    expect(current.status).toBe(207);
    expect(current.json.results.map((r: { id: string; archived: boolean }) => [r.id, r.archived])).toEqual([[live, false]]);
    expect(current.json.errors[0].context.ids).toEqual([gone]);
  });

  it("a contact merged into another is not archived: archived=true never answers it", async () => {
    const t = await tenant();
    const survivor = await make(t, "contacts", { email: "keep@example.com" });
    const merged = await make(t, "contacts", { email: "fold@example.com" });
    const res = await send(
      new Request(`${BASE}/contacts/v1/contact/merge-vids/${survivor}`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.pat}`, "content-type": "application/json" },
        body: JSON.stringify({ vidToMerge: Number(merged) }),
      }),
    );
    expect(res.status).toBe(200); // its body is the recorded bare `SUCCESS`

    expectError(await get(t, `/crm/v3/objects/contacts/${merged}?archived=true`), 404, "OBJECT_NOT_FOUND");
    expectError(await get(t, "/crm/v3/objects/contacts/fold@example.com?idProperty=email&archived=true"), 404, "OBJECT_NOT_FOUND");
    expect(ids(await get(t, "/crm/v3/objects/contacts?archived=true"))).toEqual([]);
    const batch = await call("POST", "/crm/v3/objects/contacts/batch/read?archived=true", { token: t.pat, body: { inputs: [{ id: merged }] } });
    expect(batch.json.results).toEqual([]);
  });

  it("another account's archived records are never answered, and the search skips archived ones", async () => {
    const t = await tenant();
    const other = await tenant();
    const gone = await make(t, "contacts", { email: "mine@example.com", company: "Quiet Co" });
    await make(t, "contacts", { email: "stays@example.com", company: "Quiet Co" });
    await archive(t, "contacts", gone);

    expectError(await get(other, `/crm/v3/objects/contacts/${gone}?archived=true`), 404, "OBJECT_NOT_FOUND");
    expectError(await get(other, "/crm/v3/objects/contacts/mine@example.com?idProperty=email&archived=true"), 404, "OBJECT_NOT_FOUND");
    expect(ids(await get(other, "/crm/v3/objects/contacts?archived=true"))).toEqual([]);
    const batch = await call("POST", "/crm/v3/objects/contacts/batch/read?archived=true", { token: other.pat, body: { inputs: [{ id: gone }] } });
    expect(batch.json.results).toEqual([]);
    expect(ids(await get(t, "/crm/v3/objects/contacts?archived=true"))).toEqual([gone]);

    const found = await search(t, "contacts", { filterGroups: [{ filters: [{ propertyName: "company", operator: "EQ", value: "Quiet Co" }] }] });
    expect(found.json.total).toBe(1);
    expect(ids(found)).not.toContain(gone);
  });

  it("an archived contact by email is one lookup in crm_objects_archived_email, on the get and the batch read", async () => {
    const t = await tenant({ shard: "SHARD_1" });
    await archive(t, "contacts", await make(t, "contacts", { email: "plan@example.com" }));
    const plans = async (method: "GET" | "POST", path: string, body?: unknown) => {
      const seen = await watched(path, body, t.pat, method);
      const reads = seen.statements.filter((s) => /from crm_objects\b/.test(s.sql));
      expect(reads.length).toBeGreaterThan(0);
      return Promise.all(
        reads.map(async (r) => (await env.SHARD_1.prepare(`explain query plan ${r.sql}`).bind(...r.params).all<{ detail: string }>()).results.map((x) => x.detail).join(" | ")),
      );
    };
    const get = await plans("GET", "/crm/v3/objects/contacts/plan@example.com?idProperty=email&archived=true&associations=companies");
    expect(get).toHaveLength(2); // the record, and its associations through the same lookup
    for (const plan of get) expect(plan).toMatch(/USING INDEX crm_objects_archived_email/);
    const batch = await plans("POST", "/crm/v3/objects/contacts/batch/read?archived=true", { idProperty: "email", inputs: [{ id: "plan@example.com" }] });
    expect(batch).toHaveLength(1);
    expect(batch[0]).toMatch(/USING INDEX crm_objects_archived_email/);
  });
});
