/**
 * Control-plane reads on read replicas (src/db/replica.ts; docs/explanation/scaling.md "Read replicas").
 * Local D1 has no replicas, but it runs D1's sessions and bookmarks: the Worker is given the real `DB`
 * binding behind a recorder that notes, for every statement, whether it ran on the binding itself (the
 * primary), in a `first-primary` or `first-unconstrained` session, or in a session started from a bookmark.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:test";
import { forgetCredentials } from "../../src/lib/credential-cache";
import { directoryTtlMs, forgetDirectory, shardOfAccount } from "../../src/db/directory";
import { controlDb } from "../../src/db/shards";
import { expectError, tenant } from "../helpers/api";
import { credentialReads, recordedWorker, recorder } from "../helpers/session-recorder";
import { createMessageBatch } from "cloudflare:test";
import { consumeSyncBatch } from "../../src/services/ecomm/consumer";
import { bridgeTenantOn, qmsg } from "../ecomm/queue-helpers";

const LIST = "/crm/v3/objects/contacts?limit=1";

describe("control-plane reads in D1 sessions", () => {
  const { seen, ask } = recordedWorker();
  const rec = { seen };

  beforeEach(() => {
    forgetCredentials();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date());
    rec.seen.length = 0;
  });
  afterEach(() => vi.useRealTimers());

  it("a credential read takes the primary once, then replicas from its bookmark; a warm request reads nothing", async () => {
    const [a, b] = [await tenant(), await tenant()];
    rec.seen.length = 0;
    expect((await ask("GET", LIST, a.pat)).status).toBe(200);
    expect(credentialReads(rec.seen)).toEqual(["first-primary"]); // no floor yet: the primary, whose bookmark is kept
    rec.seen.length = 0;
    vi.advanceTimersByTime(4_000);
    expect((await ask("GET", LIST, b.pat)).status).toBe(200);
    expect(credentialReads(rec.seen)).toEqual(["bookmark"]); // a replica caught up to the floor may answer
    expect(rec.seen.filter((s) => s.via === "primary")).toEqual([]); // nothing else reads DB outside a session
    rec.seen.length = 0;
    expect((await ask("GET", LIST, a.pat)).status).toBe(200);
    expect(rec.seen).toEqual([]); // warm: the cached principal carries the shard, no control-plane statement
  });

  it("the floor is renewed on the primary once it is half a TTL old, and an entry's age counts from the floor", async () => {
    const [a, b] = [await tenant(), await tenant()];
    expect((await ask("GET", LIST, a.pat)).status).toBe(200); // floor taken now (t0)
    vi.advanceTimersByTime(4_900);
    rec.seen.length = 0;
    expect((await ask("GET", LIST, b.pat)).status).toBe(200); // read from the t0 floor: b's entry lasts until t0 + 10 s
    expect(credentialReads(rec.seen)).toEqual(["bookmark"]);
    // Revoked on the primary by another isolate at t0 + 4.9 s: b is still served from its entry until t0 + 10 s, not after.
    await env.DB.prepare("update credentials set revoked_at = ? where private_app_id = ?").bind(Date.now(), b.privateAppId).run();
    vi.advanceTimersByTime(5_000);
    expect((await ask("GET", LIST, b.pat)).status).toBe(200);
    vi.advanceTimersByTime(101);
    rec.seen.length = 0;
    expectError(await ask("GET", LIST, b.pat), 401, "INVALID_AUTHENTICATION");
    expect(credentialReads(rec.seen)).toEqual(["first-primary"]); // the floor is 10 s old: the primary answers
  });

  it("after the clock steps back, neither a floor nor an entry taken in its future is trusted", async () => {
    const [a, b] = [await tenant(), await tenant()];
    const real = Date.now();
    vi.setSystemTime(real + 15 * 60_000);
    expect((await ask("GET", LIST, a.pat)).status).toBe(200); // the floor and a's entry, taken 15 minutes ahead
    vi.setSystemTime(real);
    rec.seen.length = 0;
    expect((await ask("GET", LIST, b.pat)).status).toBe(200);
    expect(credentialReads(rec.seen)).toEqual(["first-primary"]); // counted from that floor, b's entry would last 15 minutes
    rec.seen.length = 0;
    expect((await ask("GET", LIST, a.pat)).status).toBe(200);
    expect(credentialReads(rec.seen)).toEqual(["bookmark"]); // a's entry is read again, from the floor just taken
    // The directory keeps the same rule: a placement read in the clock's future is read again.
    await shardOfAccount(controlDb(env), a.portalId, directoryTtlMs(env), real + 15 * 60_000);
    const placed = await env.DB.prepare("select shard from accounts where portal_id = ?").bind(a.portalId).first<string | null>("shard");
    await env.DB.prepare("update accounts set shard = 'SHARD_X' where portal_id = ?").bind(a.portalId).run();
    try {
      expect(await shardOfAccount(controlDb(env), a.portalId, directoryTtlMs(env), real)).toBe("SHARD_X");
    } finally {
      await env.DB.prepare("update accounts set shard = ? where portal_id = ?").bind(placed, a.portalId).run();
      forgetDirectory();
    }
  });

  it("a revocation in this isolate is read on the primary by the next request: the revoked token is refused", async () => {
    const a = await tenant();
    expect((await ask("GET", LIST, a.pat)).status).toBe(200);
    rec.seen.length = 0;
    const rotated = await ask("POST", `/admin/v1/accounts/${a.portalId}/private-apps/${a.privateAppId}/rotate`, "test-admin-token");
    expect(rotated.status).toBe(200);
    // The operator's write and its reads ran on the primary, outside any session.
    expect(rec.seen.length).toBeGreaterThan(0);
    expect(new Set(rec.seen.map((s) => s.via))).toEqual(new Set(["primary"]));
    rec.seen.length = 0;
    expectError(await ask("GET", LIST, a.pat), 401, "INVALID_AUTHENTICATION");
    expect(credentialReads(rec.seen)).toEqual(["first-primary"]);
    rec.seen.length = 0;
    expect((await ask("GET", LIST, rotated.json.token)).status).toBe(200);
    expect(credentialReads(rec.seen)).toEqual(["bookmark"]); // from the floor the refusal's primary read left
  });

  it("an operator's change is read back by its next call on the primary", async () => {
    const a = await tenant();
    rec.seen.length = 0;
    const patched = await ask("PATCH", `/admin/v1/accounts/${a.portalId}`, "test-admin-token", { timeZone: "Europe/Paris" });
    expect(patched.json.timeZone).toBe("Europe/Paris");
    const read = await ask("GET", `/admin/v1/accounts/${a.portalId}`, "test-admin-token");
    expect(read.json.timeZone).toBe("Europe/Paris");
    expect(new Set(rec.seen.map((s) => s.via))).toEqual(new Set(["primary"]));
  });

  it("a suspension is read on the primary by the next request of this isolate", async () => {
    const a = await tenant();
    expect((await ask("GET", LIST, a.pat)).status).toBe(200);
    expect((await ask("PATCH", `/admin/v1/accounts/${a.portalId}`, "test-admin-token", { status: "suspended" })).status).toBeLessThan(300);
    rec.seen.length = 0;
    expect((await ask("GET", LIST, a.pat)).status).toBe(403);
    expect(credentialReads(rec.seen)).toEqual(["first-primary"]);
  });

  it("a sync batch reads its app's settings in an unconstrained session, its directory from the floor", async () => {
    const { t, origin } = await bridgeTenantOn("SHARD_1");
    const rec = recorder(env.DB);
    const batch = createMessageBatch("crm-edge-sync", [{ id: "replica-1", timestamp: new Date(), attempts: 1, body: qmsg(origin, "CONTACT", { externalObjectId: "r1", properties: { firstname: "Ada" } }) }]);
    const report = await consumeSyncBatch(batch, { ...env, DB: rec.binding, D1_READ_REPLICATION: "auto" } as Env);
    expect(report.map((r) => r.action)).toEqual(["ack"]);
    const settings = rec.seen.filter((x) => x.sql.includes('from "ecomm_settings"'));
    expect(settings.map((x) => x.via)).toEqual(["first-unconstrained"]);
    const directory = rec.seen.filter((x) => x.sql.includes('from "accounts"'));
    expect(directory.length).toBeLessThanOrEqual(1); // the isolate may know the account already
    for (const d of directory) expect(["first-primary", "bookmark"]).toContain(d.via);
    expect(t.portalId).toBe(origin.portalId);
  });
});

describe("without D1 read replication (D1_READ_REPLICATION other than \"auto\")", () => {
  const { seen, ask } = recordedWorker("disabled");

  beforeEach(() => {
    forgetCredentials();
    seen.length = 0;
  });

  it("is the configuration's default", () => {
    expect(env.D1_READ_REPLICATION).toBe("disabled");
  });

  it("reads credentials on the primary without a session, and keeps no floor", async () => {
    const [a, b] = [await tenant(), await tenant()];
    seen.length = 0;
    expect((await ask("GET", LIST, a.pat)).status).toBe(200);
    expect((await ask("GET", LIST, b.pat)).status).toBe(200); // with replication, this one would start from a's bookmark
    expect(credentialReads(seen)).toEqual(["primary", "primary"]);
    expect(seen.filter((s) => s.via !== "primary")).toEqual([]);
  });

  it("reads a sync batch's app settings and directory on the primary", async () => {
    const { origin } = await bridgeTenantOn("SHARD_1");
    forgetDirectory();
    const rec = recorder(env.DB);
    const batch = createMessageBatch("crm-edge-sync", [{ id: "replica-2", timestamp: new Date(), attempts: 1, body: qmsg(origin, "CONTACT", { externalObjectId: "r2", properties: { firstname: "Ada" } }) }]);
    const report = await consumeSyncBatch(batch, { ...env, DB: rec.binding, D1_READ_REPLICATION: "disabled" } as Env);
    expect(report.map((r) => r.action)).toEqual(["ack"]);
    expect(rec.seen.filter((x) => x.sql.includes('from "ecomm_settings"')).map((x) => x.via)).toEqual(["primary"]);
    expect(rec.seen.filter((x) => x.sql.includes('from "accounts"')).map((x) => x.via)).toEqual(["primary"]);
    expect(rec.seen.filter((x) => x.via !== "primary")).toEqual([]);
  });
});
