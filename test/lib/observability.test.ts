/**
 * Logs and usage metrics for operators: one JSON log line per request, queue batch and cron
 * run with the fields an operator filters on, and one Analytics Engine data point per request and per
 * synced message, indexed by portalId. The data points are read from the real `USAGE` binding's
 * `writeDataPoint` (miniflare's local dataset keeps nothing, so the test watches the calls).
 */
import { env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { makeDb } from "../../src/db/client";
import { accounts } from "../../src/db/tables/tenancy";
import { rawStatement, runRawBatch } from "../../src/db/d1-raw";
import { sql } from "drizzle-orm";
import { call, tenant } from "../helpers/api";
import { bridgeTenant, deliver, qmsg } from "../ecomm/queue-helpers";
import { tick } from "../helpers/maintenance";

type Line = Record<string, unknown>;
let logs: string[];
let points: MockInstance<AnalyticsEngineDataset["writeDataPoint"]>;

beforeEach(() => {
  logs = [];
  vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
    logs.push(args.map(String).join(" "));
  });
  points = vi.spyOn(env.USAGE, "writeDataPoint");
});
afterEach(() => {
  vi.restoreAllMocks();
});

const lines = (type: string): Line[] =>
  logs.flatMap((l) => {
    try {
      const parsed = JSON.parse(l) as Line;
      return parsed.type === type ? [parsed] : [];
    } catch {
      return [];
    }
  });
const lineOf = (correlationId: string | null) => {
  const found = lines("request").filter((l) => l.correlationId === correlationId);
  expect(found, `one line for ${correlationId}`).toHaveLength(1);
  return found[0]!;
};
const writes = () => points.mock.calls.map(([p]) => p!);

describe("request log lines", () => {
  it("name the account, app, credential kind, route template, status, duration, D1 statements and rate-limit decision", async () => {
    const t = await tenant();
    const res = await call("GET", "/crm/v3/objects/contacts?limit=1", { token: t.oauth });
    expect(res.status).toBe(200);
    const line = lineOf(res.headers.get("x-service-correlation-id"));
    expect(line).toMatchObject({
      type: "request",
      portalId: t.portalId,
      appId: t.appId,
      credential: "oauth",
      route: "/crm/v3/objects/:objectType",
      method: "GET",
      status: 200,
      rateLimit: { decision: "allowed", max: 110 },
    });
    expect(line.durationMs).toEqual(expect.any(Number));
    expect(line.d1Statements).toBeGreaterThanOrEqual(1); // the list (the credential may come from the isolate's cache)
    expect(Object.keys(line).sort()).toEqual(
      ["type", "correlationId", "portalId", "appId", "credential", "route", "method", "status", "durationMs", "d1Statements", "rateLimit"].sort(),
    );

    const pat = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { firstname: "Ada" } } });
    expect(pat.status).toBe(201);
    expect(lineOf(pat.headers.get("x-service-correlation-id"))).toMatchObject({ portalId: t.portalId, appId: null, credential: "private_app", method: "POST", status: 201 });
  });

  it("name refusals too: no credential, an unknown route, a 429, the operator", async () => {
    const anon = await call("GET", "/crm/v3/objects/contacts");
    expect(lineOf(anon.headers.get("x-service-correlation-id"))).toMatchObject({
      portalId: null,
      credential: "none",
      route: "/crm/v3/objects/:objectType",
      status: 401,
      rateLimit: { decision: "not_counted" },
    });
    const lost = await call("GET", "/no/such/route");
    expect(lineOf(lost.headers.get("x-service-correlation-id"))).toMatchObject({ route: null, status: 404, d1Statements: 0 });

    const small = await tenant({ rateLimit: 1 });
    await call("GET", "/crm/v3/objects/contacts", { token: small.pat });
    const limited = await call("GET", "/crm/v3/objects/contacts", { token: small.pat });
    expect(limited.status).toBe(429);
    expect(lineOf(limited.headers.get("x-service-correlation-id"))).toMatchObject({ portalId: small.portalId, status: 429, rateLimit: { decision: "limited" } });

    const op = await call("POST", "/admin/v1/accounts", { token: "test-admin-token", body: { name: "logged" } });
    expect(lineOf(op.headers.get("x-service-correlation-id"))).toMatchObject({ credential: "admin", status: 201, rateLimit: { decision: "not_limited" } });
  });

  it("count the D1 statements of the request", async () => {
    const t = await tenant();
    // Warm the isolate's credential cache so only the route's own statements are counted.
    await call("GET", "/crm/v3/objects/contacts/1", { token: t.pat });
    const res = await call("GET", "/crm/v3/objects/contacts/999999999", { token: t.pat });
    expect(res.status).toBe(404);
    expect(lineOf(res.headers.get("x-service-correlation-id")).d1Statements).toBe(1);
  });
});

describe("the statement meter", () => {
  it("counts each statement a metered handle issues, alone or in a batch, drizzle or raw, and only its own", async () => {
    const meter = { statements: 0 };
    const other = { statements: 0 };
    const db = makeDb(env.DB, meter);
    makeDb(env.DB, other);
    await db.select().from(accounts).limit(1);
    expect(meter.statements).toBe(1);
    await db.batch([db.select().from(accounts).limit(1), db.select().from(accounts).limit(2), db.select({ n: accounts.portalId }).from(accounts).limit(3)]);
    expect(meter.statements).toBe(4);
    await runRawBatch(db, [rawStatement(db, sql`select 1`), rawStatement(db, sql`select 2`)]);
    expect(meter.statements).toBe(6);
    expect(other.statements).toBe(0);
    await makeDb(env.DB).select().from(accounts).limit(1); // the shared, unmetered handle
    expect(meter.statements).toBe(6);
  });
});

describe("usage data points", () => {
  it("one per routed request, indexed by portalId, with route, method, credential, shard, status, duration and statements", async () => {
    const t = await tenant({ shard: "SHARD_2" });
    points.mockClear();
    const res = await call("GET", "/crm/v3/objects/contacts?limit=1", { token: t.pat });
    const line = lineOf(res.headers.get("x-service-correlation-id"));
    expect(writes()).toEqual([
      { indexes: [String(t.portalId)], blobs: ["request", "/crm/v3/objects/:objectType", "GET", "private_app", t.shard], doubles: [200, line.durationMs, line.d1Statements] },
    ]);
    points.mockClear();
    await call("GET", "/no/such/route");
    expect(writes()).toEqual([]); // nothing routed, nothing to count against an account
    await call("GET", "/healthz");
    expect(writes()).toEqual([{ indexes: ["none"], blobs: ["request", "/healthz", "GET", "none", "DB"], doubles: [204, expect.any(Number), 0] }]);
  });

  it("a failing dataset never fails the request", async () => {
    points.mockImplementation(() => {
      throw new Error("dataset unavailable");
    });
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const res = await call("GET", "/healthz");
    expect(res.status).toBe(204);
    expect(errors.mock.calls.map(String).join("\n")).toContain("usage metrics: data point dropped: dataset unavailable");
  });
});

describe("queue batch and cron lines", () => {
  it("a sync batch: one line with outcomes (applied, error, stale), duration and statements; one data point per message with store, type, outcome and lag", async () => {
    const { t, origin } = await bridgeTenant();
    expect(t.shard).toMatch(/^SHARD_/); // so a control-plane label could not pass for it
    const stale = qmsg(origin, "CONTACT", { externalObjectId: "c-1", changedAt: 1 });
    // A property the settings do not map: recorded as a sync error of the object.
    const unmapped = qmsg(origin, "CONTACT", { externalObjectId: "c-1", changedAt: 2, properties: { email: "a@example.com" } });
    const other = qmsg(origin, "PRODUCT", { externalObjectId: "p-1", properties: { name: "Mug" } });
    points.mockClear();
    await deliver([unmapped, other]);
    await deliver([stale]);
    const [first, second] = lines("queue_batch");
    expect(first).toMatchObject({ queue: "crm-edge-sync", messages: 2, outcomes: { error: 1, applied: 1 } });
    expect(first!.d1Statements).toBeGreaterThanOrEqual(2); // the plan's read and the commit
    expect(second).toMatchObject({ queue: "crm-edge-sync", messages: 1, outcomes: { stale: 1 } });
    const sync = writes().filter((p) => p.blobs?.[0] === "sync");
    expect(sync).toEqual([
      { indexes: [String(t.portalId)], blobs: ["sync", "shop", "CONTACT", "error", t.shard], doubles: [expect.any(Number)] },
      { indexes: [String(t.portalId)], blobs: ["sync", "shop", "PRODUCT", "applied", t.shard], doubles: [expect.any(Number)] },
      { indexes: [String(t.portalId)], blobs: ["sync", "shop", "CONTACT", "stale", t.shard], doubles: [expect.any(Number)] },
    ]);
    for (const p of sync) expect(p.doubles![0]).toBeGreaterThanOrEqual(0);
  });

  it("a dead-letter batch: recorded and dropped letters", async () => {
    const { origin } = await bridgeTenant();
    await deliver([qmsg(origin, "CONTACT", { externalObjectId: "lost" }), { not: "a message" }], { queue: "crm-edge-sync-dlq" });
    expect(lines("queue_batch")).toEqual([
      expect.objectContaining({ queue: "crm-edge-sync-dlq", messages: 2, outcomes: { recorded: 1, dropped: 1 }, d1Statements: expect.any(Number) }),
    ]);
  });

  it("a cron tick: one line with the messages it enqueued; the maintenance queue's batch lines carry each job's run", async () => {
    const at = Date.now() + Math.floor(Math.random() * 1_000);
    const runs = await tick(at);
    const [line] = lines("cron").filter((l) => l.scheduledTime === at);
    expect(line).toEqual({
      type: "cron",
      cron: "* * * * *",
      scheduledTime: at,
      durationMs: expect.any(Number),
      ok: true,
      jobs: ["publish-scheduled-posts", "abandonCheckouts", "webhook-outbox"],
      databases: 3,
      messages: 9,
      sendBatches: 1,
      failedBatches: 0,
    });
    // Every job ran on the control plane and on each shard, each with its own outcome and result.
    for (const db of ["DB", "SHARD_1", "SHARD_2"]) {
      const of = (job: string) => runs.filter((r) => r.shard === db && r.job === job);
      const run = { shard: db, scheduledTime: at, outcome: "ok", durationMs: expect.any(Number), d1Statements: expect.any(Number) };
      expect(of("publish-scheduled-posts")).toEqual([{ ...run, job: "publish-scheduled-posts", result: expect.any(Number) }]);
      expect(of("abandonCheckouts")).toEqual([{ ...run, job: "abandonCheckouts", result: { moved: expect.any(Number) } }]);
      expect(of("webhook-outbox")).toEqual([{ ...run, job: "webhook-outbox", result: expect.any(Number) }]);
    }
    const batches = lines("queue_batch").filter((l) => l.queue === "crm-edge-maintenance" && (l.runs as { scheduledTime: number }[]).some((r) => r.scheduledTime === at));
    expect(batches.length).toBeGreaterThanOrEqual(1);
    for (const b of batches) expect(b).toMatchObject({ messages: expect.any(Number), outcomes: { ok: expect.any(Number) }, d1Statements: expect.any(Number) });
  });
});
