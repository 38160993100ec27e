/** Operator API for shards and accounts: placement, listing, detail, move refusals. */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { admin, ADMIN, call, expectError, tenant, unique } from "../helpers/api";
import { accountD1 } from "../helpers/shards";

describe("GET /admin/v1/shards", () => {
  it("lists every configured shard with its account count and share", async () => {
    await admin("POST", "/admin/v1/accounts", { name: unique(), shard: "SHARD_2" });
    // Other files of the shared runtime create and delete accounts meanwhile: the listing's total lies
    // between the counts taken before and after it, of the accounts on the listed shards (one file moves an
    // account to a database it hands the Worker itself, which the listing does not know).
    const res = await call("GET", "/admin/v1/shards", { token: ADMIN });
    expect(res.status).toBe(200);
    const names = res.json.results.map((r: { name: string }) => r.name);
    const count = async () =>
      (await env.DB.prepare("select count(*) as n from accounts where coalesce(shard, 'DB') in (select value from json_each(?))").bind(JSON.stringify(names)).first<{ n: number }>())!.n;
    const before = await count();
    const listed = await call("GET", "/admin/v1/shards", { token: ADMIN });
    const after = await count();
    expect(names.slice(0, 2)).toEqual(["SHARD_1", "SHARD_2"]);
    const total = listed.json.results.reduce((n: number, r: { accounts: number }) => n + r.accounts, 0);
    expect(total).toBeGreaterThanOrEqual(Math.min(before, after));
    expect(total).toBeLessThanOrEqual(Math.max(before, after));
    for (const r of res.json.results) expect(r).toMatchObject({ accounts: expect.any(Number), share: expect.any(Number), open: expect.any(Boolean), placement: expect.any(Boolean) });
  });
});

describe("POST /admin/v1/accounts with shard", () => {
  it("places the account on the named shard; its data is written there and only there", async () => {
    for (const shard of ["SHARD_1", "SHARD_2"]) {
      const t = await tenant({ shard });
      expect(t.shard).toBe(shard);
      const made = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { firstname: "placed" } } });
      expect(made.status).toBe(201);
      const other = shard === "SHARD_1" ? env.SHARD_2 : env.SHARD_1;
      const here = await (await accountD1(t.portalId)).prepare("select count(*) as n from crm_objects where portal_id = ?").bind(t.portalId).first<{ n: number }>();
      const there = await other.prepare("select count(*) as n from crm_objects where portal_id = ?").bind(t.portalId).first<{ n: number }>();
      const control = await env.DB.prepare("select count(*) as n from crm_objects where portal_id = ?").bind(t.portalId).first<{ n: number }>();
      expect([here!.n, there!.n, control!.n]).toEqual([1, 0, 0]);
      // Ids come from the shard's own range (src/db/id-ranges.ts).
      const n = Number(shard.slice(6));
      expect(Number(made.json.id)).toBeGreaterThan(n * 100_000_000_000);
      expect(Number(made.json.id)).toBeLessThan((n + 1) * 100_000_000_000);
    }
  });

  it("without shard, the placement policy picks an open shard (test/shards/placement.test.ts covers the policy)", async () => {
    const made = await admin("POST", "/admin/v1/accounts", { name: unique() });
    expect(["SHARD_1", "SHARD_2"]).toContain(made.shard);
  });

  it.each([
    [{ name: "x", shard: "SHARD_9" }, 400, "VALIDATION_ERROR"],
    [{ name: "x", shard: "DB" }, 400, "VALIDATION_ERROR"],
    [{ name: "x", shard: "" }, 400, "VALIDATION_ERROR"],
    [{ name: "x", shard: 1 }, 400, "VALIDATION_ERROR"],
  ])("refuses %j with %i", async (body, status, category) => {
    expectError(await call("POST", "/admin/v1/accounts", { token: ADMIN, body }), status, category);
  });
});

describe("GET /admin/v1/accounts and /admin/v1/accounts/{portalId}", () => {
  it("shows one account with its shard, and 404 for an unknown one", async () => {
    const made = await admin("POST", "/admin/v1/accounts", { name: unique(), shard: "SHARD_1", addons: ["transactional-email"] });
    const res = await call("GET", `/admin/v1/accounts/${made.portalId}`, { token: ADMIN });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ portalId: made.portalId, name: made.name, addons: ["transactional-email"], shard: "SHARD_1" });
    expect(res.json.move).toBeUndefined();
    expectError(await call("GET", "/admin/v1/accounts/999999999", { token: ADMIN }), 404, "OBJECT_NOT_FOUND");
  });

  it("pages through every account with its shard, optionally one shard's", async () => {
    for (let i = 0; i < 3; i++) await admin("POST", "/admin/v1/accounts", { name: unique(), shard: i % 2 ? "SHARD_2" : "SHARD_1" });
    const seen: number[] = [];
    let after: string | undefined;
    do {
      const res = await call("GET", `/admin/v1/accounts?limit=2${after ? `&after=${after}` : ""}`, { token: ADMIN });
      expect(res.status).toBe(200);
      expect(res.json.results.length).toBeLessThanOrEqual(2);
      for (const a of res.json.results) {
        expect(a.shard).toMatch(/^(SHARD_\d+|DB)$/);
        seen.push(a.portalId);
      }
      after = res.json.paging?.next.after;
    } while (after);
    const all = (await env.DB.prepare("select portal_id from accounts order by portal_id").all<{ portal_id: number }>()).results.map((r) => r.portal_id);
    expect(seen).toEqual(all);
    const only2 = await call("GET", "/admin/v1/accounts?limit=500&shard=SHARD_2", { token: ADMIN });
    expect(only2.json.results.every((a: { shard: string }) => a.shard === "SHARD_2")).toBe(true);
  });

  it.each(["limit=0", "limit=501", "after=-1", "limit=x"])("GET /admin/v1/accounts?%s → 400", async (q) => {
    expectError(await call("GET", `/admin/v1/accounts?${q}`, { token: ADMIN }), 400, "VALIDATION_ERROR");
  });
});

describe("POST /admin/v1/accounts/{portalId}/move refusals", () => {
  it.each([
    ["an unknown shard", { shard: "SHARD_7" }, 400, "VALIDATION_ERROR"],
    ["no shard", {}, 400, "VALIDATION_ERROR"],
    ["the shard it is on", { shard: "SHARD_1" }, 409, "CONFLICT"],
  ])("%s", async (_what, body, status, category) => {
    const made = await admin("POST", "/admin/v1/accounts", { name: unique(), shard: "SHARD_1" });
    expectError(await call("POST", `/admin/v1/accounts/${made.portalId}/move`, { token: ADMIN, body }), status, category);
  });

  it("an unknown account is a 404", async () => {
    expectError(await call("POST", "/admin/v1/accounts/999999999/move", { token: ADMIN, body: { shard: "SHARD_2" } }), 404, "OBJECT_NOT_FOUND");
  });
});
