/**
 * A failing shard and app-level reads across shards: a shard that fails gives its own
 * accounts a retryable 503, never a 500, while other shards' accounts and queue messages keep working; the
 * developer key's sync-error listing merges every shard's errors in one global order and pages through
 * them with a cursor.
 */
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { admin, call, expectError, tenant, type Tenant } from "../helpers/api";
import { armFaults, disarmFaults } from "../reliability/fault-injector";
import { bridgeTenantOn, deliver, qmsg } from "../ecomm/queue-helpers";

afterEach(() => disarmFaults());

const failShard = (name: string) =>
  armFaults((point, ids) => {
    if (point === "shard:open" && ids.includes(name)) throw new Error(`injected outage of ${name}`);
  });

describe("a failing shard", () => {
  it("answers its accounts 503 with Retry-After in the error envelope; other shards keep working", async () => {
    const down = await tenant({ shard: "SHARD_2" });
    const up = await tenant({ shard: "SHARD_1" });
    failShard("SHARD_2");
    const refused = expectError(await call("GET", "/crm/v3/objects/contacts", { token: down.pat }), 503, "SERVICE_UNAVAILABLE");
    expect(JSON.stringify(refused)).not.toMatch(/injected|SHARD_2/);
    const res = await call("POST", "/crm/v3/objects/contacts", { token: down.pat, body: { properties: { firstname: "x" } } });
    expect(res.status).toBe(503);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await call("POST", "/crm/v3/objects/contacts", { token: up.pat, body: { properties: { firstname: "y" } } })).status).toBe(201);
    expect((await call("GET", "/crm/v3/objects/contacts", { token: up.pat })).status).toBe(200);
    disarmFaults();
    expect((await call("GET", "/crm/v3/objects/contacts", { token: down.pat })).status).toBe(200);
  });

  it("retries only its own queue messages; the other shard's messages of the same batch are applied", async () => {
    const a = await bridgeTenantOn("SHARD_1");
    const b = await bridgeTenantOn("SHARD_2");
    failShard("SHARD_2");
    const res = await deliver([qmsg(a.origin, "PRODUCT", { externalObjectId: "pa", properties: { title: "A" } }), qmsg(b.origin, "PRODUCT", { externalObjectId: "pb", properties: { title: "B" } })], { report: true });
    expect(res.acked(0)).toBe(true);
    expect(res.retried(1)).toBe(true);
    disarmFaults();
  });
});

describe("GET /extensions/ecomm/v2/sync/errors/app/{appId} with the developer key (fan-out)", () => {
  async function seed(t: Tenant, d1: D1Database, appId: number, rows: { ext: string; at: number }[]) {
    await d1.batch(
      rows.map((r) =>
        d1
          .prepare(
            "insert into ecomm_sync_errors (portal_id, store_id, object_type, external_id, app_id, message_id, changed_at, errored_at, type, details, status) values (?, 'shop', 'PRODUCT', ?, ?, ?, ?, ?, 'INVALID_NUMBER', 'd', 'OPEN')",
          )
          .bind(t.portalId, r.ext, appId, `m-${r.ext}`, r.at - 1, r.at),
      ),
    );
  }

  it("merges every shard's errors newest first and pages through them with the cursor, each exactly once", async () => {
    const owner = await tenant({ shard: "SHARD_1" });
    const other = await tenant({ shard: "SHARD_2" });
    await admin("POST", `/admin/v1/accounts/${other.portalId}/installs`, { appId: owner.appId });
    // Interleaved times, and ties across shards (same erroredAt on both).
    await seed(owner, env.SHARD_1, owner.appId, [1, 3, 5, 7, 7].map((n, i) => ({ ext: `a${i}`, at: 1_000 + n })));
    await seed(other, env.SHARD_2, owner.appId, [2, 4, 6, 7, 8].map((n, i) => ({ ext: `b${i}`, at: 1_000 + n })));
    await seed(other, env.SHARD_2, other.appId, [{ ext: "not-this-app", at: 9_999 }]);
    const seen: { ext: string; at: number; portal: number }[] = [];
    let path = `/extensions/ecomm/v2/sync/errors/app/${owner.appId}?limit=3`;
    for (let pages = 0; pages < 10; pages++) {
      const res = await call("GET", path, { token: owner.developerKey });
      expect(res.status, res.text).toBe(200);
      expect(res.json.results.length).toBeLessThanOrEqual(3);
      for (const r of res.json.results) seen.push({ ext: r.externalObjectId, at: Number(r.erroredAt), portal: r.portalId });
      const link = res.json.paging?.next.link as string | undefined;
      if (!link) break;
      expect(link).toContain("after=");
      path = link.replace(/^https?:\/\/[^/]+/, "");
    }
    expect(seen).toHaveLength(10);
    expect(new Set(seen.map((s) => s.ext)).size).toBe(10);
    const order = [...seen].sort((x, y) => y.at - x.at || y.portal - x.portal || y.ext.localeCompare(x.ext));
    expect(seen).toEqual(order);
    // The OAuth token of one install still sees only its own account's errors.
    const mine = await call("GET", `/extensions/ecomm/v2/sync/errors/app/${owner.appId}?limit=100`, { token: owner.oauth });
    expect(mine.json.results.every((r: { portalId: number }) => r.portalId === owner.portalId)).toBe(true);
  });

  it.each(["after=not-a-cursor", "after=WzEsMl0"])("refuses %s with 400", async (q) => {
    const t = await tenant();
    expectError(await call("GET", `/extensions/ecomm/v2/sync/errors/app/${t.appId}?${q}`, { token: t.developerKey }), 400, "VALIDATION_ERROR");
  });
});

describe("GET /admin/v1/shards: what an operator balances by", () => {
  it("gives each shard's size in bytes (D1's size_after) and its share of D1's 10 GB; a failing shard is listed as unavailable", async () => {
    await tenant({ shard: "SHARD_1" });
    const ok = await call("GET", "/admin/v1/shards", { token: "test-admin-token" });
    expect(ok.status).toBe(200);
    const one = ok.json.results.find((r: { name: string }) => r.name === "SHARD_1");
    const raw = await env.SHARD_1.prepare("SELECT 1").run();
    expect(one.sizeBytes).toBeGreaterThan(0);
    expect(one.sizeBytes).toBe(raw.meta.size_after);
    expect(one.storageShare).toBeCloseTo(one.sizeBytes / (10 * 1024 ** 3), 12);
    expect(one.available).toBe(true);

    failShard("SHARD_2");
    const partial = await call("GET", "/admin/v1/shards", { token: "test-admin-token" });
    expect(partial.status).toBe(200);
    const two = partial.json.results.find((r: { name: string }) => r.name === "SHARD_2");
    expect(two).toMatchObject({ name: "SHARD_2", available: false, sizeBytes: null, storageShare: null, accounts: expect.any(Number) });
    expect(partial.json.results.find((r: { name: string }) => r.name === "SHARD_1").available).toBe(true);
  });
});
