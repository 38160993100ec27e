/**
 * App-level reads and writes across shards stay within a bounded number of D1 queries per invocation,
 * whatever the number of shards (D1 allows 1,000): with the 500 databases vitest.config.ts declares handed to
 * the Worker as SHARD_1..SHARD_500, each request below is counted over every database and held to 50, and
 * paging visits every shard once.
 */
import { createExecutionContext, createMessageBatch, env, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { ADMIN, BASE, call, tenant, unique, type Tenant } from "../helpers/api";
import { createType, dev, putEvent } from "../timeline/helpers";
import { MAINTENANCE_MESSAGE_VERSION, type MaintenanceMessage } from "../../src/services/maintenance/message";
import { PURGE_JOB } from "../../src/services/timeline/types";
import { countingD1 } from "../helpers/counting-d1";

/** What a request may cost, counted on every database. */
const BUDGET = 50;
const raw = env as unknown as Record<string, D1Database>;
const many = Array.from({ length: 500 }, (_, i) => `SHARD_${i + 1}`);

/** env with SHARD_1..SHARD_500 on the declared databases and DB, each through a counting client. */
function countedEnv(extra: Record<string, unknown> = {}) {
  const counted: Record<string, ReturnType<typeof countingD1>> = { DB: countingD1(env.DB) };
  for (const name of many) counted[name] = countingD1(raw[`TEST_MANY_${name.slice("SHARD_".length)}`]!);
  const statements = () => Object.values(counted).reduce((n, d1) => n + d1.counts.statements, 0);
  const touched = () => Object.entries(counted).filter(([, d1]) => d1.counts.statements > 0).map(([n]) => n);
  const reset = () => Object.values(counted).forEach((d1) => Object.assign(d1.counts, { roundTrips: 0, statements: 0, rowsRead: 0, rowsWritten: 0, rowsReturned: 0, log: [] }));
  return { env: { ...env, ...counted, ...extra } as unknown as Env, statements, touched, reset };
}

async function get(e: Env, path: string, token: string, method = "GET") {
  const ctx = createExecutionContext();
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const res = await worker.fetch(new Request(`${BASE}${path}`, { method, headers }) as Request<unknown, IncomingRequestCfProperties>, e, ctx);
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  return { status: res.status, text, json: text ? JSON.parse(text) : undefined };
}

/** The DDL of `tables` as the real migrations made them, run on the declared databases `names`. */
async function createTables(names: string[], tables: string[]) {
  const rows = await env.SHARD_1.prepare(`select sql from sqlite_master where type = 'table' and name in (${tables.map(() => "?").join(", ")})`).bind(...tables).all<{ sql: string }>();
  const ddl = rows.results.map((r) => r.sql.replace(/^CREATE TABLE/i, "CREATE TABLE IF NOT EXISTS"));
  for (const name of names) {
    const d1 = raw[`TEST_MANY_${name.slice("SHARD_".length)}`]!;
    await d1.batch(ddl.map((q) => d1.prepare(q)));
  }
}

describe("GET /admin/v1/shards over 500 shards", () => {
  it("pages 40 databases at a time, each page within the budget, every shard once", async () => {
    const c = countedEnv();
    const seen: string[] = [];
    let after: string | undefined;
    let max = 0;
    for (let page = 0; page < 30; page++) {
      c.reset();
      const res = await get(c.env, `/admin/v1/shards${after ? `?after=${after}` : ""}`, ADMIN);
      expect(res.status, res.text).toBe(200);
      expect(c.statements(), `page ${page}`).toBeLessThanOrEqual(BUDGET);
      max = Math.max(max, c.statements());
      expect(res.json.results.length).toBeLessThanOrEqual(40);
      seen.push(...res.json.results.map((r: { name: string }) => r.name));
      after = res.json.paging?.next.after;
      if (!after) break;
    }
    expect(seen.filter((n) => n !== "DB")).toEqual(many);
    expect(new Set(seen).size).toBe(seen.length);
    console.info(`measured: GET /admin/v1/shards, at most ${max} D1 statements per page`);
  }, 120_000);

  it("?check=ids pages 5 databases at a time within the budget, every database once; one that cannot be read is null, the rest go on", async () => {
    const c = countedEnv();
    // Ten of the databases get the id tables (empty): their check reads; the others have none and report null.
    const idTables = ["id_sequences", "crm_objects", "blogs", "blog_authors", "blog_topics", "blog_posts", "smtp_tokens", "ecomm_links", "ecomm_imports", "timeline_events", "webhook_outbox", "sent_emails", "pipelines", "pipeline_stages", "pipeline_audits", "crm_schemas", "lists", "webhook_deliveries"];
    await createTables(many.slice(0, 10), idTables);
    const seen: { name: string; ids: unknown }[] = [];
    let after: string | undefined;
    let max = 0;
    for (let page = 0; page < 120; page++) {
      c.reset();
      const res = await get(c.env, `/admin/v1/shards?check=ids${after ? `&after=${after}` : ""}`, ADMIN);
      expect(res.status, res.text).toBe(200);
      max = Math.max(max, c.statements());
      seen.push(...res.json.results);
      after = res.json.paging?.next.after;
      if (!after) break;
    }
    expect(max).toBeLessThanOrEqual(BUDGET);
    console.info(`measured: GET /admin/v1/shards?check=ids, at most ${max} D1 statements per page`);
    expect(seen.map((r) => r.name)).toEqual([...many, "DB"]);
    for (const r of seen.slice(0, 10)) expect(r.ids, r.name).toMatchObject({ outsideRange: 0, heldTwice: 0 });
    expect(seen[10]!.ids).toBeNull();
    expect(seen.at(-1)!.ids).not.toBeNull();
  }, 120_000);

  it("refuses an `after` that names no database of the listing", async () => {
    const c = countedEnv();
    expect((await get(c.env, "/admin/v1/shards?after=SHARD_501", ADMIN)).status).toBe(400);
  });
});

describe("the developer key's sync errors over 500 shards", () => {
  let t: Tenant;
  const fake: number[] = [];
  /** The app is installed in an account on each of 100 shards; three of them hold errors of the app. */
  const installed = many.slice(0, 100);
  const holding = ["SHARD_3", "SHARD_41", "SHARD_97"];

  beforeAll(async () => {
    t = await tenant();
    await createTables(installed, ["ecomm_sync_errors", "account_fences"]);
    for (const shard of installed) {
      const row = await env.DB.prepare("insert into accounts (name, shard) values (?, ?) returning portal_id").bind(`fanout-${shard}`, shard).first<{ portal_id: number }>();
      fake.push(row!.portal_id);
      await env.DB.prepare("insert into installs (portal_id, app_id, scopes) values (?, ?, '[]')").bind(row!.portal_id, t.appId).run();
    }
    for (const [k, shard] of holding.entries()) {
      const d1 = raw[`TEST_MANY_${shard.slice("SHARD_".length)}`]!;
      const portalId = fake[installed.indexOf(shard)]!;
      await d1.batch(
        [0, 1, 2].map((i) =>
          d1
            .prepare("insert into ecomm_sync_errors (portal_id, store_id, object_type, external_id, app_id, message_id, changed_at, errored_at, type, details, status) values (?, 'shop', 'PRODUCT', ?, ?, ?, 0, ?, 'INVALID_NUMBER', 'd', 'OPEN')")
            .bind(portalId, `${shard}-${i}`, t.appId, `m-${shard}-${i}`, 1_000 + k * 10 + i),
        ),
      );
    }
  });

  afterAll(async () => {
    await env.DB.prepare(`delete from installs where portal_id in (select value from json_each(?))`).bind(JSON.stringify(fake)).run();
    await env.DB.prepare(`delete from accounts where portal_id in (select value from json_each(?))`).bind(JSON.stringify(fake)).run();
  });

  it("reads at most 40 shards per request, only those of the app's installs, and pages through every error once", async () => {
    const c = countedEnv();
    const seen: string[] = [];
    let path = `/extensions/ecomm/v2/sync/errors/app/${t.appId}?limit=2`;
    let requests = 0;
    let max = 0;
    for (; requests < 20; requests++) {
      c.reset();
      const res = await get(c.env, path, t.developerKey);
      expect(res.status, res.text).toBe(200);
      expect(c.statements()).toBeLessThanOrEqual(BUDGET);
      max = Math.max(max, c.statements());
      const shards = c.touched().filter((n) => n !== "DB");
      expect(shards.length).toBeLessThanOrEqual(40);
      expect(shards.every((n) => installed.includes(n))).toBe(true);
      seen.push(...res.json.results.map((r: { externalObjectId: string }) => r.externalObjectId));
      const link = res.json.paging?.next.link as string | undefined;
      if (!link) break;
      path = link.replace(/^https?:\/\/[^/]+/, "");
    }
    // Newest first within each window of 40 shards, windows in shard order.
    expect(seen).toEqual(["SHARD_3-2", "SHARD_3-1", "SHARD_3-0", "SHARD_97-2", "SHARD_97-1", "SHARD_97-0", "SHARD_41-2", "SHARD_41-1", "SHARD_41-0"].sort((a, b) => order(a) - order(b)));
    expect(requests).toBeGreaterThanOrEqual(3);
    console.info(`measured: GET /sync/errors/app/{appId} (developer key), at most ${max} D1 statements per page`);
    // Past the first window a `page` offset cannot be served within the budget: the cursor is the way.
    expect((await get(c.env, `/extensions/ecomm/v2/sync/errors/app/${t.appId}?page=3`, t.developerKey)).status).toBe(400);
  }, 60_000);

  it("names a failing shard and goes on", async () => {
    const c = countedEnv();
    const d1 = raw.TEST_MANY_3!;
    await d1.prepare("alter table ecomm_sync_errors rename to ecomm_sync_errors_away").run();
    try {
      const res = await get(c.env, `/extensions/ecomm/v2/sync/errors/app/${t.appId}?limit=100`, t.developerKey);
      expect(res.status, res.text).toBe(200);
      // SHARD_3 held the first window's only errors: the page is empty, names it, and the next window follows.
      expect(res.json.unavailableShards).toEqual(["SHARD_3"]);
      expect(res.json.results).toEqual([]);
      const next = await get(c.env, (res.json.paging.next.link as string).replace(/^https?:\/\/[^/]+/, ""), t.developerKey);
      expect(next.json.results.map((r: { externalObjectId: string }) => r.externalObjectId)).toEqual(["SHARD_41-2", "SHARD_41-1", "SHARD_41-0"]);
    } finally {
      await d1.prepare("alter table ecomm_sync_errors_away rename to ecomm_sync_errors").run();
    }
  });
});

/** Window of 40 shards (by install order here), then newest first: SHARD_3 and SHARD_41 share no window. */
function order(ext: string) {
  const shard = Number(/^SHARD_(\d+)/.exec(ext)![1]);
  const window = Math.floor((shard - 1) / 40);
  return window * 1_000 - Number(ext.slice(-1));
}

describe("the developer key's webhook delivery log over 500 shards", () => {
  let t: Tenant;
  const fake: number[] = [];
  /** The app is installed in an account on each of 100 shards; three of them hold deliveries of the app. */
  const installed = many.slice(0, 100);
  const holding = ["SHARD_3", "SHARD_41", "SHARD_97"];
  /** A delivery's id in its database's range (src/db/id-ranges.ts), as the log hands them out. */
  const idOf = (shard: string, i: number) => Number(shard.slice("SHARD_".length)) * 100_000_000_000 + 1 + i;

  beforeAll(async () => {
    t = await tenant();
    await createTables(installed, ["webhook_deliveries", "webhook_attempts", "account_fences", "account_companions"]);
    for (const shard of installed) {
      const row = await env.DB.prepare("insert into accounts (name, shard) values (?, ?) returning portal_id").bind(`hooks-${shard}`, shard).first<{ portal_id: number }>();
      fake.push(row!.portal_id);
      await env.DB.prepare("insert into installs (portal_id, app_id, scopes) values (?, ?, '[]')").bind(row!.portal_id, t.appId).run();
    }
    for (const [k, shard] of holding.entries()) {
      const d1 = raw[`TEST_MANY_${shard.slice("SHARD_".length)}`]!;
      const portalId = fake[installed.indexOf(shard)]!;
      await d1.batch(
        [0, 1, 2].flatMap((i) => [
          d1
            .prepare("insert into webhook_deliveries (id, app_id, portal_id, events, event_count, status, attempts, created_at, updated_at) values (?, ?, ?, ?, 1, 'delivered', 1, ?, ?)")
            .bind(idOf(shard, i), t.appId, portalId, JSON.stringify([{ eventId: idOf(shard, i), portalId }]), 1_000 + k * 10 + i, 1_000 + k * 10 + i),
          d1.prepare("insert into webhook_attempts (delivery_id, portal_id, attempt_number, status_code, duration_ms, at) values (?, ?, 0, 200, 1, 0)").bind(idOf(shard, i), portalId),
        ]),
      );
    }
  });

  afterAll(async () => {
    await env.DB.prepare(`delete from installs where portal_id in (select value from json_each(?))`).bind(JSON.stringify(fake)).run();
    await env.DB.prepare(`delete from accounts where portal_id in (select value from json_each(?))`).bind(JSON.stringify(fake)).run();
  });

  it("reads at most 20 databases per request, only those of the app's installs, and pages through every delivery once", async () => {
    const c = countedEnv();
    const seen: number[] = [];
    let before: string | undefined;
    let requests = 0;
    let max = 0;
    for (; requests < 20; requests++) {
      c.reset();
      const res = await get(c.env, `/webhooks/v3/${t.appId}/deliveries?limit=2&hapikey=${t.developerKey}${before ? `&before=${before}` : ""}`, "");
      expect(res.status, res.text).toBe(200);
      expect(c.statements()).toBeLessThanOrEqual(BUDGET);
      max = Math.max(max, c.statements());
      const shards = c.touched().filter((n) => n !== "DB");
      expect(shards.length).toBeLessThanOrEqual(20);
      expect(shards.every((n) => installed.includes(n))).toBe(true);
      for (const d of res.json.results as { id: string; attempts: unknown[] }[]) {
        seen.push(Number(d.id));
        expect(d.attempts).toHaveLength(1);
      }
      before = res.json.paging?.next.before;
      if (!before) break;
    }
    // Newest first within each window of 20 databases (the control plane first), windows in database order.
    expect(seen).toEqual(holding.flatMap((shard) => [2, 1, 0].map((i) => idOf(shard, i))));
    expect(requests).toBeGreaterThanOrEqual(3);
    console.info(`measured: GET /webhooks/v3/{appId}/deliveries (developer key), at most ${max} D1 statements per page`);
  }, 60_000);

  it("finds one delivery by id within the budget, first on the database whose range holds it", async () => {
    const c = countedEnv();
    const id = idOf("SHARD_97", 1);
    const res = await get(c.env, `/webhooks/v3/${t.appId}/deliveries/${id}?hapikey=${t.developerKey}`, "");
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ id: String(id), status: "delivered", eventIds: [id] });
    expect(c.touched().filter((n) => n !== "DB")).toEqual(["SHARD_97"]);
    expect(c.statements()).toBeLessThanOrEqual(BUDGET);
    c.reset();
    // An id no database of the app holds: at most 20 databases read, then a 404.
    const missing = await get(c.env, `/webhooks/v3/${t.appId}/deliveries/${idOf("SHARD_300", 0)}?hapikey=${t.developerKey}`, "");
    expect(missing.status).toBe(404);
    expect(c.statements()).toBeLessThanOrEqual(BUDGET);
    expect(c.touched().filter((n) => n !== "DB").length).toBeLessThanOrEqual(20);
  });
});

describe("timeline event types whose events are on 100 shards", () => {
  it("an install token's delete is refused after one holder probe; the developer key's delete sends one purge message per holder shard within the budget", async () => {
    const t = await tenant();
    const type = await createType(t, { name: "Everywhere" });
    const accounts: number[] = [];
    const shards = many.slice(100, 200);
    for (const shard of shards) {
      const row = await env.DB.prepare("insert into accounts (name, shard) values (?, ?) returning portal_id").bind(`holder-${shard}`, shard).first<{ portal_id: number }>();
      accounts.push(row!.portal_id);
      await env.DB.prepare("insert into timeline_event_holders (event_type_id, portal_id) values (?, ?)").bind(type.id, row!.portal_id).run();
    }
    try {
      const sent: MaintenanceMessage[] = [];
      const queue = { sendBatch: async (list: Iterable<MessageSendRequest<MaintenanceMessage>>) => void sent.push(...[...list].map((m) => m.body)) } as unknown as Queue;
      const c = countedEnv({ MAINTENANCE_QUEUE: queue });
      const path = `/integrations/v1/${t.appId}/timeline/event-types/${type.id}`;
      const refused = await get(c.env, path, t.oauth, "DELETE");
      expect(refused.status, refused.text).toBe(403);
      expect(c.statements()).toBeLessThanOrEqual(5);
      console.info(`measured: DELETE event type with an install token (refused), ${c.statements()} D1 statements`);
      c.reset();
      const res = await get(c.env, `${path}?hapikey=${t.developerKey}`, "", "DELETE");
      expect(res.status, res.text).toBe(204);
      expect(c.statements()).toBeLessThanOrEqual(BUDGET);
      expect(c.touched()).toEqual(["DB"]);
      console.info(`measured: DELETE event type (developer key, 100 holder shards), ${c.statements()} D1 statements`);
      expect(sent.map((m) => m.shard).sort()).toEqual([...shards].sort());
      expect(sent.every((m) => m.job === PURGE_JOB && m.subject === type.id)).toBe(true);
      expect((await dev(t, "GET", path)).status).toBe(404);
      expect(await env.DB.prepare("select count(*) as n from timeline_event_holders where event_type_id = ?").bind(type.id).first("n")).toBe(0);
    } finally {
      await env.DB.prepare(`delete from accounts where portal_id in (select value from json_each(?))`).bind(JSON.stringify(accounts)).run();
    }
  }, 60_000);

  it("the purge message deletes the shard's events of the deleted type, and only those", async () => {
    const t = await tenant({ shard: "SHARD_2" });
    const gone = await createType(t, { name: "Gone" });
    const kept = await createType(t, { name: "Kept" });
    const contact = Number((await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { email: `${unique()}@example.com` } } })).json.id);
    for (const [i, typeId] of [gone.id, gone.id, kept.id].entries()) expect((await putEvent(t, { id: `e${i}`, eventTypeId: typeId, objectId: contact })).status).toBe(204);
    const holders = await env.DB.prepare("select event_type_id as t from timeline_event_holders where portal_id = ? order by 1").bind(t.portalId).all<{ t: number }>();
    expect(holders.results.map((r) => r.t)).toEqual([gone.id, kept.id]);
    const batch = createMessageBatch("crm-edge-maintenance", [{ id: "p1", timestamp: new Date(), attempts: 1, body: { v: MAINTENANCE_MESSAGE_VERSION, job: PURGE_JOB, shard: "SHARD_2", scheduledTime: Date.now(), subject: gone.id } }]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["p1"]);
    const left = await env.SHARD_2.prepare("select event_type_id as t from timeline_events where portal_id = ?").bind(t.portalId).all<{ t: number }>();
    expect(left.results.map((r) => r.t)).toEqual([kept.id]);
  });
});
