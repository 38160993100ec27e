/**
 * Companion shards (docs/explanation/scaling.md "Accounts larger than one database"): an account's timeline
 * events placed on a second database answer every timeline read (v1, v3, the record timeline and the web
 * app's record page) as before; new writes land there; the home shard refuses stale writers; another account's
 * events on the same database are never served; moves of the home and of the companion keep everything.
 * The moves over a third shard run through the mover's step function with the Worker's environment given
 * SHARD_3 (TEST_SHARD_3, as test/shards/moves-property.test.ts does). The webhook delivery log is a companion
 * table too: a delivery of the account's events is written where its log lives and moves with it.
 */
import { applyD1Migrations, createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { seedStatements } from "../../src/db/id-ranges";
import { moveStep, type Progress } from "../../src/durable-objects/account-mover/run";
import { ADMIN, BASE, call, send, tenant, type Tenant } from "../helpers/api";
import { waitForMove } from "../helpers/shards";
import { createProp, createRecord, createType, eventPath, expectStored } from "../timeline/helpers";
import { page, signIn, type Browser } from "../web/helpers";
import { armFaults, disarmFaults } from "../reliability/fault-injector";
import { hookUp, subscribe, waitForEvents } from "../webhooks/helpers";

const events = async (d1: D1Database, portalId: number) =>
  (await d1.prepare("select count(*) as n from timeline_events where portal_id = ?").bind(portalId).first<{ n: number }>())!.n;

interface Setup {
  t: Tenant;
  browser: Browser;
  typeId: number;
  contact: number;
  company: number;
}

/** An account on SHARD_1 with a contact and a company, events of v1 and v3 on both, and a pending (utk-only) event. */
async function account(): Promise<Setup> {
  const t = await tenant({ shard: "SHARD_1", rateLimit: 100_000 });
  const type = await createType(t, { name: "Webinar", headerTemplate: "Joined **{{title}}**", detailTemplate: "By {{extraData.host}}" });
  await createProp(t, type.id, { name: "title", label: "Title", propertyType: "String" });
  const company = await createType(t, { name: "Deal room", objectType: "COMPANY" });
  const contact = await createRecord(t, "contacts", { email: `c-${t.portalId}@example.com` });
  const companyId = await createRecord(t, "companies", { name: "Acme" });
  for (let i = 0; i < 5; i++) await expectStored(t, { id: `v1-${i}`, eventTypeId: type.id, objectId: contact, timestamp: 1_000 + i, title: `T${i}`, extraData: { host: "Ann" } });
  await expectStored(t, { id: "co", eventTypeId: company.id, objectId: companyId, timestamp: 5_000 });
  await expectStored(t, { id: "pending", eventTypeId: type.id, utk: `utk-${t.portalId}`, timestamp: 7_000, title: "Later" });
  const v3 = await call("POST", "/integrators/timeline/v3/events", {
    token: t.oauth,
    body: { eventTemplateId: String(type.id), objectId: String(contact), id: "v3-a", timestamp: "2024-01-01T00:00:00.000Z", tokens: { title: "Three" } },
  });
  expect(v3.status, v3.text).toBe(201);
  return { t, browser: await signIn(t), typeId: type.id, contact, company: companyId };
}

/** Every read of the account's events, as a client sees them. */
async function reads(s: Setup) {
  const { t } = s;
  const get = async (method: string, path: string, token = t.oauth) => {
    const res = await call(method, path, { token });
    return { status: res.status, body: res.text };
  };
  const record = await page(s.browser, `/app/contacts/${s.contact}`);
  return {
    timeline: await get("GET", `/crm/v3/objects/contacts/${s.contact}/timeline?limit=3`, t.pat),
    timeline2: await get("GET", `/crm/v3/objects/contacts/${s.contact}/timeline?limit=100`, t.pat),
    company: await get("GET", `/crm/v3/objects/companies/${s.company}/timeline`, t.pat),
    v1: await get("GET", `${eventPath(t.appId)}/${s.typeId}/v1-2`),
    v1Pending: await get("GET", `${eventPath(t.appId)}/${s.typeId}/pending`),
    v3: await get("GET", `/integrators/timeline/v3/events/${s.typeId}/v3-a`),
    v3Detail: await get("GET", `/integrators/timeline/v3/events/${s.typeId}/v1-1/detail`),
    v3Render: await get("GET", `/integrators/timeline/v3/events/${s.typeId}/v1-1/render`),
    recordPage: { status: record.status, body: record.text },
  };
}

afterEach(() => disarmFaults());

async function placeCompanion(portalId: number, shard: string) {
  const started = await call("POST", `/admin/v1/accounts/${portalId}/companion`, { token: ADMIN, body: { shard } });
  expect(started.status, started.text).toBe(202);
  expect(started.json.move).toMatchObject({ kind: "companion", to: shard });
  const done = await waitForMove(portalId);
  expect(done.move).toBeUndefined();
  return done;
}

describe("POST /admin/v1/accounts/{portalId}/companion", () => {
  it("places the events on a companion shard: every timeline read answers the same, new writes land there", { timeout: 60_000 }, async () => {
    const s = await account();
    const before = await reads(s);
    expect(before.timeline.status).toBe(200);
    expect(JSON.parse(before.timeline2.body).results).toHaveLength(6);
    expect(before.recordPage.body).toContain("Joined <strong>T4</strong>");

    const done = await placeCompanion(s.t.portalId, "SHARD_2");
    expect(done).toMatchObject({ shard: "SHARD_1", companion: "SHARD_2" });
    expect(await events(env.SHARD_1, s.t.portalId)).toBe(0);
    expect(await events(env.SHARD_2, s.t.portalId)).toBe(8);
    expect(await reads(s)).toEqual(before);

    // New writes: an event creating its contact by email (contact on the home shard, event on the companion),
    // a tie revealing the pending event, and a v3 batch.
    const email = `new-${s.t.portalId}@example.com`;
    await expectStored(s.t, { id: "by-email", eventTypeId: s.typeId, email, utk: `utk-${s.t.portalId}`, timestamp: 9_000, title: "Mail" });
    const found = await call("GET", `/crm/v3/objects/contacts/${email}?idProperty=email`, { token: s.t.pat });
    expect(found.status, found.text).toBe(200);
    const feed = await call("GET", `/crm/v3/objects/contacts/${found.json.id}/timeline`, { token: s.t.pat });
    expect(feed.json.results.map((r: { id: string }) => r.id)).toEqual(["by-email", "pending"]);
    const batch = await call("POST", "/integrators/timeline/v3/events/batch/create", {
      token: s.t.oauth,
      body: { inputs: [{ eventTemplateId: String(s.typeId), objectId: String(s.contact), id: "v3-b", tokens: { title: "B" } }, { eventTemplateId: String(s.typeId), objectId: String(s.contact), id: "v3-a", tokens: {} }] },
    });
    expect(batch.status, batch.text).toBe(207);
    expect(batch.json.numErrors).toBe(1);
    expect(await events(env.SHARD_1, s.t.portalId)).toBe(0);
    expect(await events(env.SHARD_2, s.t.portalId)).toBe(10);

    // Merging the new contact into the old one brings its events along.
    const merged = await call("POST", "/crm/v3/objects/contacts/merge", { token: s.t.pat, body: { primaryObjectId: String(s.contact), objectIdToMerge: String(found.json.id) } });
    expect(merged.status, merged.text).toBe(200);
    const after = await call("GET", `/crm/v3/objects/contacts/${s.contact}/timeline?limit=100`, { token: s.t.pat });
    expect(after.json.results.map((r: { id: string }) => r.id)).toEqual(expect.arrayContaining(["by-email", "pending", "v3-b"]));

    // The operator's usage and export read the events where they live.
    const usage = await call("GET", `/admin/v1/accounts/${s.t.portalId}/usage`, { token: ADMIN });
    expect(usage.json.timelineEvents).toBe(10);
    const exported = await send(new Request(`${BASE}/admin/v1/accounts/${s.t.portalId}/export`, { headers: { authorization: `Bearer ${ADMIN}` } }));
    expect(exported.status).toBe(200);
    expect((await exported.text()).split("\n").filter((l) => l.startsWith('{"table":"timeline_events"'))).toHaveLength(10);
    // The test kit's one-database operations say why they are refused.
    expect((await call("PATCH", `/admin/v1/accounts/${s.t.portalId}`, { token: ADMIN, body: { accountType: "DEVELOPER_TEST" } })).status).toBe(200);
    const snap = await call("POST", `/admin/v1/accounts/${s.t.portalId}/snapshots`, { token: ADMIN, body: { name: "s" } });
    expect(snap.status, snap.text).toBe(409);
    expect(snap.json.message).toMatch(/companion shard/);

    // The home shard refuses a stale writer of the account's events, in the database itself.
    await expect(
      env.SHARD_1.prepare("insert into timeline_events (portal_id, event_type_id, event_id, object_type, object_id, timestamp, properties, created_at, updated_at) values (?, ?, 'stale', 'CONTACT', ?, 0, '{}', 0, 0)")
        .bind(s.t.portalId, s.typeId, s.contact)
        .run(),
    ).rejects.toThrow(/ACCOUNT_FENCED/);
  });

  it("never serves another account's events from the same database", { timeout: 60_000 }, async () => {
    const a = await account();
    await placeCompanion(a.t.portalId, "SHARD_2");
    // b lives on SHARD_2, a's companion, with events of its own.
    const b = await tenant({ shard: "SHARD_2" });
    const bType = await createType(b, { name: "B's" });
    const bContact = await createRecord(b, "contacts", { email: `b-${b.portalId}@example.com` });
    await expectStored(b, { id: "v1-2", eventTypeId: bType.id, objectId: bContact, timestamp: 3 });
    expect((await call("GET", `/crm/v3/objects/contacts/${bContact}/timeline`, { token: a.t.pat })).status).toBe(404);
    expect((await call("GET", `${eventPath(a.t.appId)}/${bType.id}/v1-2`, { token: a.t.oauth })).status).toBe(404);
    expect((await call("GET", `/integrators/timeline/v3/events/${bType.id}/v1-2`, { token: a.t.oauth })).status).toBe(404);
    // a's own reads carry only a's events; b's reads only b's.
    const mine = await call("GET", `/crm/v3/objects/contacts/${a.contact}/timeline?limit=100`, { token: a.t.pat });
    expect(mine.json.results).toHaveLength(6);
    const theirs = await call("GET", `/crm/v3/objects/contacts/${bContact}/timeline`, { token: b.pat });
    expect(theirs.json.results.map((r: { id: string }) => r.id)).toEqual(["v1-2"]);

    // The companion down: a's event reads get a retryable 503, its records on the home shard still answer.
    armFaults((point, ids) => {
      if (point === "shard:open" && ids.includes("SHARD_2")) throw new Error("injected outage of SHARD_2");
    });
    const down = await call("GET", `/crm/v3/objects/contacts/${a.contact}/timeline`, { token: a.t.pat });
    expect(down.status).toBe(503);
    expect(down.headers.get("retry-after")).toBeTruthy();
    expect((await call("GET", `/crm/v3/objects/contacts/${a.contact}`, { token: a.t.pat })).status).toBe(200);
    disarmFaults();
    expect((await call("GET", `/crm/v3/objects/contacts/${a.contact}/timeline`, { token: a.t.pat })).status).toBe(200);
  });

  it("refuses the account's own shard, the shard it is already on, and a home move onto the companion", { timeout: 60_000 }, async () => {
    const s = await account();
    const home = await call("POST", `/admin/v1/accounts/${s.t.portalId}/companion`, { token: ADMIN, body: { shard: "SHARD_1" } });
    expect(home.status, home.text).toBe(409);
    const unknown = await call("POST", `/admin/v1/accounts/${s.t.portalId}/companion`, { token: ADMIN, body: { shard: "SHARD_99" } });
    expect(unknown.status).toBe(400);
    await placeCompanion(s.t.portalId, "SHARD_2");
    expect((await call("POST", `/admin/v1/accounts/${s.t.portalId}/companion`, { token: ADMIN, body: { shard: "SHARD_2" } })).status).toBe(409);
    expect((await call("POST", `/admin/v1/accounts/${s.t.portalId}/move`, { token: ADMIN, body: { shard: "SHARD_2" } })).status).toBe(409);
  });
});

/** The Worker's environment with a third shard and no credential cache (what the mover's drain waits for). */
const world = { ...env, SHARD_3: env.TEST_SHARD_3, CREDENTIAL_CACHE_SECONDS: "0" } as Env;

async function request(method: string, path: string, token: string) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${BASE}${path}`, { method, headers: { authorization: `Bearer ${token}` } }) as Request<unknown, IncomingRequestCfProperties>, world, ctx);
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: await res.text() };
}

async function runMove(p: Omit<Progress, "phase" | "table" | "after" | "copied">) {
  for (let step: Progress | undefined = { ...p, phase: "fencing", table: 0, after: 0, copied: {} }; step; ) step = await moveStep(world, step, async () => undefined);
}

describe("moves of an account with a companion shard", () => {
  beforeAll(async () => {
    await applyD1Migrations(env.TEST_SHARD_3, env.TEST_MIGRATIONS);
    await env.TEST_SHARD_3.batch(seedStatements("SHARD_3").map((q) => env.TEST_SHARD_3.prepare(q)));
  });

  it("keeps every event through a move of the home shard and then of the companion", { timeout: 90_000 }, async () => {
    const s = await account();
    await placeCompanion(s.t.portalId, "SHARD_2");
    const paths = [
      [s.t.pat, `/crm/v3/objects/contacts/${s.contact}/timeline?limit=100`],
      [s.t.pat, `/crm/v3/objects/companies/${s.company}/timeline`],
      [s.t.oauth, `${eventPath(s.t.appId)}/${s.typeId}/pending`],
      [s.t.oauth, `/integrators/timeline/v3/events/${s.typeId}/v3-a`],
    ] as const;
    const readAll = () => Promise.all(paths.map(([token, path]) => request("GET", path, token)));
    const before = await readAll();
    expect(before.map((r) => r.status)).toEqual([200, 200, 200, 200]);

    // The home moves SHARD_1 → SHARD_3; the events stay on SHARD_2.
    await runMove({ portalId: s.t.portalId, source: "SHARD_1", target: "SHARD_3", kind: "home", companion: "SHARD_2" });
    expect(await env.DB.prepare("select shard, companion from accounts where portal_id = ?").bind(s.t.portalId).first()).toEqual({ shard: "SHARD_3", companion: "SHARD_2" });
    expect(await events(env.SHARD_2, s.t.portalId)).toBe(8);
    expect(await events(env.TEST_SHARD_3, s.t.portalId)).toBe(0);
    const crm = (d1: D1Database) => d1.prepare("select count(*) as n from crm_objects where portal_id = ?").bind(s.t.portalId).first<{ n: number }>();
    expect((await crm(env.TEST_SHARD_3))!.n).toBe(2);
    expect((await crm(env.SHARD_1))!.n).toBe(0);
    expect(await readAll()).toEqual(before);

    // The companion moves SHARD_2 → SHARD_1.
    await runMove({ portalId: s.t.portalId, source: "SHARD_2", target: "SHARD_1", kind: "companion", home: "SHARD_3" });
    expect(await env.DB.prepare("select shard, companion from accounts where portal_id = ?").bind(s.t.portalId).first()).toEqual({ shard: "SHARD_3", companion: "SHARD_1" });
    expect(await events(env.SHARD_2, s.t.portalId)).toBe(0);
    expect(await events(env.SHARD_1, s.t.portalId)).toBe(8);
    expect(await readAll()).toEqual(before);
    // The new home refuses stale writes of the events too: its marker names the companion.
    expect(await env.TEST_SHARD_3.prepare("select shard from account_companions where portal_id = ?").bind(s.t.portalId).first()).toEqual({ shard: "SHARD_1" });
    // And a write through the API lands on the companion.
    const ctx = createExecutionContext();
    const put = await worker.fetch(
      new Request(`${BASE}${eventPath(s.t.appId)}`, {
        method: "PUT",
        headers: { authorization: `Bearer ${s.t.oauth}`, "content-type": "application/json" },
        body: JSON.stringify({ id: "after-moves", eventTypeId: s.typeId, objectId: s.contact, title: "x" }),
      }) as Request<unknown, IncomingRequestCfProperties>,
      world,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(put.status, await put.text()).toBe(204);
    expect(await events(env.SHARD_1, s.t.portalId)).toBe(9);
  });
});

const logRows = async (d1: D1Database, portalId: number) =>
  (await d1.prepare("select id from webhook_deliveries where portal_id = ? order by id").bind(portalId).all<{ id: number }>()).results.map((r) => r.id);

/** A developer-key read of the app's delivery log, as the Worker with `env` serves it. */
async function devGet(t: Tenant, path: string, env: Env = world) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${BASE}/webhooks/v3/${t.appId}/deliveries${path}?hapikey=${encodeURIComponent(t.developerKey)}`) as Request<unknown, IncomingRequestCfProperties>, env, ctx);
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: await res.text() };
}

async function appLog(t: Tenant, env: Env = world) {
  const res = await devGet(t, "", env);
  expect(res.status, res.body).toBe(200);
  return (JSON.parse(res.body) as { results: { id: string; eventIds: number[]; status: string }[] }).results;
}

/** Polls the app's log until the account's delivery is recorded (the consumer records it after the POST). */
async function logged(t: Tenant, n: number) {
  for (let i = 0; i < 100; i++) {
    const rows = await appLog(t, env);
    if (rows.length >= n) return rows;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("the delivery was not logged");
}

describe("the webhook delivery log of an account with a companion shard", () => {
  beforeAll(async () => {
    // The third shard of `world` (migrated once per run; a second migration finds nothing to apply).
    await applyD1Migrations(env.TEST_SHARD_3, env.TEST_MIGRATIONS);
    await env.TEST_SHARD_3.batch(seedStatements("SHARD_3").map((q) => env.TEST_SHARD_3.prepare(q)));
  });

  it("is written on the companion, listed by the app, carried by a companion move and left by a home move; the home refuses stale writes", { timeout: 90_000 }, async () => {
    const t = await tenant({ shard: "SHARD_1", rateLimit: 100_000 });
    const path = await hookUp(t);
    await subscribe(t, "contact.creation");
    await placeCompanion(t.portalId, "SHARD_2");
    const created = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { email: `hook-${t.portalId}@example.com` } } });
    expect(created.status, created.text).toBe(201);
    const [event] = await waitForEvents(path, 1);
    expect(event).toMatchObject({ portalId: t.portalId, objectId: Number(created.json.id) });
    const [listed] = await logged(t, 1);
    expect(listed).toMatchObject({ status: "delivered", eventIds: [event!.eventId] });
    // Stored on the companion, none on the home shard.
    expect(await logRows(env.SHARD_2, t.portalId)).toEqual([Number(listed!.id)]);
    expect(await logRows(env.SHARD_1, t.portalId)).toEqual([]);
    // The operator's usage counts it where it is.
    expect((await call("GET", `/admin/v1/accounts/${t.portalId}/usage`, { token: ADMIN })).json.webhookDeliveries).toBe(1);
    // The home shard refuses a stale writer of the account's deliveries, in the database itself.
    await expect(
      env.SHARD_1.prepare("insert into webhook_deliveries (app_id, portal_id, events, event_count, status, attempts, created_at, updated_at) values (?, ?, '[]', 0, 'pending', 0, 0, 0)")
        .bind(t.appId, t.portalId)
        .run(),
    ).rejects.toThrow(/ACCOUNT_FENCED/);
    await expect(env.SHARD_1.prepare("insert into webhook_attempts (delivery_id, portal_id, attempt_number, duration_ms, at) values (?, ?, 0, 1, 0)").bind(Number(listed!.id), t.portalId).run()).rejects.toThrow(/ACCOUNT_FENCED/);

    // The companion moves SHARD_2 → SHARD_3: the delivery and its attempt go with it; the log still lists it, and finds it by id.
    await runMove({ portalId: t.portalId, source: "SHARD_2", target: "SHARD_3", kind: "companion", home: "SHARD_1" });
    expect(await logRows(env.TEST_SHARD_3, t.portalId)).toEqual([Number(listed!.id)]);
    expect(await logRows(env.SHARD_2, t.portalId)).toEqual([]);
    const attempts = (d1: D1Database) => d1.prepare("select count(*) as n from webhook_attempts where portal_id = ?").bind(t.portalId).first<number>("n");
    expect(await attempts(env.TEST_SHARD_3)).toBe(1);
    expect(await appLog(t)).toEqual([listed]);
    const one = await devGet(t, `/${listed!.id}`);
    expect(one.status, one.body).toBe(200);
    expect(JSON.parse(one.body)).toEqual(listed);

    // The home moves SHARD_1 → SHARD_2: the log stays on the companion, and is still listed.
    await runMove({ portalId: t.portalId, source: "SHARD_1", target: "SHARD_2", kind: "home", companion: "SHARD_3" });
    expect(await env.DB.prepare("select shard, companion from accounts where portal_id = ?").bind(t.portalId).first()).toEqual({ shard: "SHARD_2", companion: "SHARD_3" });
    expect(await logRows(env.TEST_SHARD_3, t.portalId)).toEqual([Number(listed!.id)]);
    expect(await logRows(env.SHARD_2, t.portalId)).toEqual([]);
    expect(await appLog(t)).toEqual([listed]);
    // The new home refuses stale writes of the deliveries too.
    await expect(
      env.SHARD_2.prepare("insert into webhook_deliveries (app_id, portal_id, events, event_count, status, attempts, created_at, updated_at) values (?, ?, '[]', 0, 'pending', 0, 0, 0)")
        .bind(t.appId, t.portalId)
        .run(),
    ).rejects.toThrow(/ACCOUNT_FENCED/);
  });

  it("a home move of an account without a companion carries its delivery log; placing a companion then carries it there", { timeout: 90_000 }, async () => {
    const t = await tenant({ shard: "SHARD_1", rateLimit: 100_000 });
    const path = await hookUp(t);
    await subscribe(t, "contact.creation");
    const created = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { email: `home-${t.portalId}@example.com` } } });
    expect(created.status, created.text).toBe(201);
    await waitForEvents(path, 1);
    const [listed] = await logged(t, 1);
    expect(await logRows(env.SHARD_1, t.portalId)).toEqual([Number(listed!.id)]);
    const moved = await call("POST", `/admin/v1/accounts/${t.portalId}/move`, { token: ADMIN, body: { shard: "SHARD_2" } });
    expect(moved.status, moved.text).toBe(202);
    await waitForMove(t.portalId);
    expect(await logRows(env.SHARD_2, t.portalId)).toEqual([Number(listed!.id)]);
    expect(await logRows(env.SHARD_1, t.portalId)).toEqual([]);
    expect(await appLog(t, env)).toEqual([listed]);
    await placeCompanion(t.portalId, "SHARD_1");
    expect(await logRows(env.SHARD_1, t.portalId)).toEqual([Number(listed!.id)]);
    expect(await logRows(env.SHARD_2, t.portalId)).toEqual([]);
    expect(await appLog(t, env)).toEqual([listed]);
    // A later change's delivery is written on the companion.
    const again = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { email: `later-${t.portalId}@example.com` } } });
    expect(again.status, again.text).toBe(201);
    await waitForEvents(path, 2);
    const rows = await logged(t, 2);
    expect(await logRows(env.SHARD_1, t.portalId)).toEqual(rows.map((r) => Number(r.id)).sort((a, b) => a - b));
  });
});
