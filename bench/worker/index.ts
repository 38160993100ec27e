/**
 * @module The bench-only Worker (never deployed): runs in the same Miniflare as the production bundle,
 * on the same D1 database, queue and Durable Objects, and serves what the benchmark compares against or
 * needs to look inside:
 *   POST /__bench/baseline/upsert   raw D1 baseline: `db.batch` of single-row LWW upserts, 100 per batch
 *   PUT  /__bench/baseline/enqueue  raw Queues baseline: parse a sync body, `sendBatch` 100 at a time
 *   ANY  /__bench/counted/<path>    the real app's fetch handler with a counting D1 (see counting-d1.ts)
 *   POST /__bench/counted-cron      the real app's scheduled handler, then its maintenance batch, with a counting D1
 *   GET  /__bench/profile           the cost of each platform primitive a request uses, timed in the isolate
 *   POST /__bench/profile-request   one route's time with and without its Durable Object and D1 round trips
 *   GET  /__bench/profile-consumer  the sync consumer's steps timed one by one on batches of 100 messages
 *   GET  /__bench/noop              this Worker's own no-op (204): what the floors are measured from
 *   GET  /__bench/floor/d1-row      platform floor: one D1 primary-key read answered as JSON
 *   GET  /__bench/floor/d1-page     the contact list's D1 query (101 rows, every column) answered as raw JSON: no
 *                                   credential, rate limit, validation or presentation. The v3 list's own
 *                                   statement picks only the asked properties; it is held to this plainer one
 *   GET  /__bench/floor/d1-v1page   the v1 contact list's page and its merges, every column (V1_PAGE), rows as arrays, as raw JSON
 *   POST /__bench/floor/d1-search   the v3 search's own D1 query (filter, count of the matches, 100 rows) as raw JSON,
 *                                   its filter value taken from the search body it is sent
 *   GET  /__bench/floor/replay      figure 10: a route's own D1 statements (recorded from the route), replayed with
 *                                   the route's round-trip shape, as raw JSON (replay-floor.ts)
 *   POST /__bench/floor/restore     figure 14: a snapshot's rows copied back with one raw `db.batch` (restore-floor.ts)
 *   POST /__bench/concurrency       what grows with concurrency: one route at c=1 and c=10 under set-ups
 *                                   that each take one per-request cost away (concurrency.ts)
 *   GET  /__bench/probe/*           probes of the sharded configuration (probes.ts)
 * Requests reach this Worker by its route, which Miniflare sends straight to it, past the static-assets
 * front the production Worker's requests go through; figure 3 therefore measures each floor's own cost
 * against /__bench/noop and adds it to the production Worker's /healthz (bench/suites/reads.mjs).
 */
import app from "../../src/index";
import { makeDb } from "../../src/db/client";
import { messageId, SYNC_MESSAGE_VERSION, type SyncQueueMessage } from "../../src/services/ecomm/sync-message";
import { commitAndAck, decideOrder, decodeBatch, planDeliveries, Settler } from "../../src/services/ecomm/consumer";
import { realTime } from "../../src/services/ecomm/batch-time";
import { readPlanContext } from "../../src/services/ecomm/plan";
import { MERGE } from "../../src/services/contacts-v1/contacts";
import { crmColumns } from "../../src/services/crm/records";
import { CountingD1 } from "./counting-d1";
import { fenceCost, parallelD1 } from "./probes";
import { concurrencyProbe } from "./concurrency";
import { instantLimiter, requestMaker, type RouteSpec } from "./app-requests";
import { replayFloor } from "./replay-floor";
import { restoreFloor } from "./restore-floor";

interface BenchEnv extends Env {
  /** A queue only the baseline sends to; this Worker consumes it by acking everything. */
  BENCH_SINK: Queue;
}

/**
 * D1's wire protocol for the counting client (counting-d1.ts). workerd's D1 binding keeps its service
 * private; a session of it sends through `_wrappedFetch`, which posts to that service (adding only the
 * session's bookmark header). Bench only: this leans on workerd's d1-api module, not on a public API.
 */
function d1Wire(env: BenchEnv): Fetcher {
  const session = env.DB.withSession("first-primary") as unknown as { _wrappedFetch?: (input: RequestInfo, init?: RequestInit) => Promise<Response> };
  const send = session._wrappedFetch;
  if (typeof send !== "function") throw new Error("this workerd's D1 session has no _wrappedFetch: the counting client cannot reach D1's wire protocol");
  return { fetch: (input: RequestInfo, init?: RequestInit) => send.call(session, input, init) } as unknown as Fetcher;
}

const BASELINE_TABLE = "bench_baseline";
const UPSERT = `INSERT INTO ${BASELINE_TABLE} (external_id, changed_at, properties) VALUES (?1, ?2, ?3)
  ON CONFLICT (external_id) DO UPDATE SET changed_at = excluded.changed_at, properties = excluded.properties
  WHERE excluded.changed_at > ${BASELINE_TABLE}.changed_at`;

interface SyncBody {
  storeId: string;
  objectType: string;
  messages: { externalObjectId: string; changedAt: number; properties?: Record<string, unknown> }[];
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** `?counted=1` runs the same statements through the counting client and answers its counts. */
async function baselineUpsert(req: Request, env: BenchEnv, url: URL): Promise<Response> {
  const body = (await req.json()) as SyncBody;
  const counting = url.searchParams.get("counted") ? new CountingD1(d1Wire(env)) : null;
  const db = (counting ?? env.DB) as D1Database;
  for (const part of chunks(body.messages, 100)) {
    await db.batch(part.map((m) => db.prepare(UPSERT).bind(m.externalObjectId, m.changedAt, JSON.stringify(m.properties ?? {}))));
  }
  return counting ? Response.json(counting.counts) : new Response(null, { status: 204 });
}

async function baselineEnqueue(req: Request, env: BenchEnv): Promise<Response> {
  const body = (await req.json()) as SyncBody;
  // One queue message per 100 sync messages, as the service packs them (src/services/ecomm/sync-message.ts).
  const packs = chunks(body.messages, 100).map((messages) => ({ body: { storeId: body.storeId, objectType: body.objectType, messages }, contentType: "json" as const }));
  await env.BENCH_SINK.sendBatch(packs);
  return new Response(null, { status: 204 });
}

const countingEnv = (env: BenchEnv, d1: CountingD1): Env => ({ ...env, DB: d1 as unknown as D1Database });

async function counted(req: Request, env: BenchEnv, ctx: ExecutionContext, url: URL): Promise<Response> {
  const d1 = new CountingD1(d1Wire(env));
  const target = new URL(url.pathname.slice("/__bench/counted".length) + url.search, url.origin);
  const res = await app.fetch(new Request(target, req) as Parameters<typeof app.fetch>[0], countingEnv(env, d1), ctx);
  const body = await res.text();
  return Response.json({ status: res.status, body, d1: d1.counts });
}

/**
 * One cron tick and the work it enqueues, both through the counting D1: the tick (the real scheduled
 * handler) sends its maintenance messages to a queue that keeps them, then the real queue handler runs
 * them as one maintenance batch, as the maintenance queue would deliver it. `tick` is the tick's own
 * share; `d1` the whole (tick and jobs).
 */
async function countedCron(env: BenchEnv, ctx: ExecutionContext, url: URL): Promise<Response> {
  const d1 = new CountingD1(d1Wire(env));
  const scheduledTime = Number(url.searchParams.get("scheduledTime") ?? Date.now());
  const controller = { scheduledTime, cron: "* * * * *", noRetry() {} } satisfies ScheduledController;
  const sent: unknown[] = [];
  const keep = {
    send: (body: unknown) => Promise.resolve(void sent.push(body)),
    sendBatch: (messages: Iterable<MessageSendRequest>) => Promise.resolve(void sent.push(...[...messages].map((m) => m.body))),
  } as unknown as Queue;
  const counted = { ...countingEnv(env, d1), MAINTENANCE_QUEUE: keep };
  const started = performance.now();
  await app.scheduled(controller, counted, ctx);
  const tick = { ms: performance.now() - started, statements: d1.counts.statements, messages: sent.length };
  const messages = sent.map((body, i) => ({ id: `bench-${i}`, timestamp: new Date(), attempts: 1, body, ack() {}, retry() {} }));
  const batch = { queue: "crm-edge-maintenance", messages, ackAll() {}, retryAll() {} } as unknown as MessageBatch;
  await app.queue(batch, counted, ctx);
  return Response.json({ ms: performance.now() - started, tick, d1: d1.counts });
}

/** Mean time of `fn` over `n` sequential calls (ms). */
async function timeIt(n: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  return (performance.now() - started) / n;
}

/**
 * Where a request's time goes, primitive by primitive, measured inside workerd (where Date/performance
 * advance across I/O). One sequential loop per primitive.
 */
async function profile(env: BenchEnv, url: URL): Promise<Response> {
  const n = Number(url.searchParams.get("n") ?? 200);
  const token = url.searchParams.get("tokenHash") ?? "";
  const limiter = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`bench-profile-${crypto.randomUUID()}`));
  const order = env.SYNC_ORDER.get(env.SYNC_ORDER.idFromName(`bench-profile-${crypto.randomUUID()}`));
  const entries = Array.from({ length: 100 }, (_, i) => ({ externalObjectId: `p-${i}`, id: `m-${i}`, changedAt: 0 }));
  const out = {
    d1Select1: await timeIt(n, () => env.DB.prepare("select 1").first()),
    d1CredentialLookup: await timeIt(n, () => env.DB.prepare("select * from credentials where token_hash = ?").bind(token).first()),
    d1Batch2Selects: await timeIt(n, () => env.DB.batch([env.DB.prepare("select 1"), env.DB.prepare("select 2")])),
    rateLimiterHit: await timeIt(n, () => limiter.hit(1_000_000, 10_000, Date.now())),
    syncOrderDecide100: await timeIt(Math.ceil(n / 10), (i) => order.decide(entries.map((e) => ({ ...e, changedAt: i + 1 })))),
    sha256: await timeIt(n, () => crypto.subtle.digest("SHA-256", new TextEncoder().encode(`token-${Math.random()}`))),
    queueSendBatch100: await timeIt(Math.ceil(n / 10), () => env.BENCH_SINK.sendBatch(entries.map((e) => ({ body: e, contentType: "json" as const })))),
  };
  return Response.json(out);
}

/**
 * A D1 stand-in that replays the answers of a recording run: the same statements get the same results
 * with no round trip, so what remains is the Worker's own CPU (router, zod, drizzle, presentation, JSON).
 */
function replayD1(recorded: Map<string, unknown>, real: CountingD1): D1Database {
  // A bound time near now (a session's expiry check, a lease's deadline) changes on every request: it is
  // keyed as "now", so the statement replays instead of going to D1 on every run.
  const key = (sql: string, params: unknown[]) => `${sql}\u0000${JSON.stringify(params.map((p) => (typeof p === "number" && Math.abs(p - Date.now()) < 86_400_000 ? "now" : p)))}`;
  const wrap = (sql: string, params: unknown[]) => {
    const k = key(sql, params);
    const memo = async (kind: string, run: () => Promise<unknown>) => {
      const mk = `${kind}:${k}`;
      if (!recorded.has(mk)) recorded.set(mk, await run());
      return recorded.get(mk);
    };
    const stmt = real.prepare(sql).bind(...params);
    return {
      sql,
      params,
      bind: (...v: unknown[]) => wrap(sql, v),
      all: () => memo("all", () => stmt.all()),
      run: () => memo("run", () => stmt.run()),
      first: (c?: string) => memo(`first${c ?? ""}`, () => stmt.first(c)),
      raw: (o?: { columnNames?: boolean }) => memo(`raw${o?.columnNames ? "c" : ""}`, () => stmt.raw(o)),
    };
  };
  const batch = async (statements: { sql: string; params: unknown[] }[]) => {
    const k = `batch:${statements.map((st) => key(st.sql, st.params)).join("\u0001")}`;
    if (!recorded.has(k)) recorded.set(k, await real.batch(statements.map((st) => real.prepare(st.sql).bind(...st.params))));
    return recorded.get(k);
  };
  // A session (the control plane's replica reads) replays like the binding: locally there is one database.
  const withSession = () => ({ prepare: (sql: string) => wrap(sql, []), batch, getBookmark: () => "replay" });
  return { prepare: (sql: string) => wrap(sql, []), batch, withSession } as unknown as D1Database;
}

/**
 * Mean ms per request of one route (POST {method, path, body?, n?} with the caller's Authorization) under
 * three set-ups: as deployed, without the rate-limiter call, and with neither it nor D1 round trips
 * (answers replayed). Sync requests go to the bench's sink queue in every set-up, so the sync consumer
 * does not run meanwhile; the last set-up replaces the queue by a no-op too.
 */
async function profileRequest(req: Request, env: BenchEnv, ctx: ExecutionContext): Promise<Response> {
  const spec = (await req.json()) as RouteSpec & { n?: number };
  const n = spec.n ?? 200;
  const make = requestMaker(req, spec);
  const recorded = new Map<string, unknown>();
  const replay = replayD1(recorded, new CountingD1(d1Wire(env)));
  const noQueue = { send: async () => {}, sendBatch: async () => {} } as unknown as Queue;
  const sink = env.BENCH_SINK;
  await app.fetch(make(), { ...env, SYNC_QUEUE: noQueue, RATE_LIMITER: instantLimiter, DB: replay }, ctx); // records the answers
  const variants: Record<string, Env> = {
    deployed: { ...env, SYNC_QUEUE: sink },
    noRateLimiterCall: { ...env, SYNC_QUEUE: sink, RATE_LIMITER: instantLimiter },
    noIo: { ...env, SYNC_QUEUE: noQueue, RATE_LIMITER: instantLimiter, DB: replay },
  };
  const out: Record<string, number> = {};
  for (const [name, e] of Object.entries(variants)) {
    out[name] = await timeIt(n, async () => {
      const res = await app.fetch(make(), e, ctx);
      await res.arrayBuffer();
      if (res.status >= 300) throw new Error(`${spec.path} -> ${res.status}`);
    });
  }
  return Response.json(out);
}

/**
 * The consumer's steps (src/services/ecomm/consumer.ts) timed one by one, on batches of 100 PRODUCT messages
 * of a real store: `fresh` creates 100 new objects per batch, `update` rewrites existing ones. The steps
 * run in sequence here (the consumer overlaps decide and read), so their sum is an upper bound.
 * `?counting=1` runs D1 through the counting client instead and answers statements and rows per batch.
 */
async function profileConsumer(env: BenchEnv, url: URL): Promise<Response> {
  const portalId = Number(url.searchParams.get("portalId"));
  const storeId = url.searchParams.get("storeId") ?? "";
  const batches = Number(url.searchParams.get("batches") ?? 10);
  const store = await env.DB.prepare("select app_id, generation from ecomm_stores where portal_id = ? and store_id = ?").bind(portalId, storeId).first<{ app_id: number; generation: string }>();
  if (!store) return new Response("no such store", { status: 404 });
  const counting = Boolean(url.searchParams.get("counting"));
  const counts: Record<string, { statements: number; rowsRead: number; rowsWritten: number }> = {};
  const steps = { decode: 0, decide: 0, read: 0, plan: 0, commit: 0, total: 0 };
  const out: Record<string, typeof steps> = {};
  const run = crypto.randomUUID().slice(0, 8);
  for (const mode of ["fresh", "update"] as const) {
    const d1 = new CountingD1(d1Wire(env));
    const db = makeDb(counting ? (d1 as unknown as D1Database) : env.DB);
    const t = { ...steps };
    for (let b = 0; b < batches; b++) {
      const now = Date.now();
      const messages = Array.from({ length: 100 }, (_, i) => {
        const body: SyncQueueMessage = {
          v: SYNC_MESSAGE_VERSION,
          id: messageId(now, `${run}${mode}${b}`, i),
          portalId,
          appId: store.app_id,
          storeId,
          storeGen: store.generation,
          objectType: "PRODUCT",
          receivedAt: now,
          message: { externalObjectId: `prof-${run}-${mode === "fresh" ? b : 0}-${i}`, action: "UPSERT", changedAt: now + b, properties: { title: `t${b}`, price: String(b) } },
        };
        return { id: body.id, body, attempts: 1, timestamp: new Date(now), ack() {}, retry() {} } as unknown as Message<unknown>;
      });
      const s = new Settler();
      let at = performance.now();
      const lap = (k: keyof typeof steps) => {
        const now2 = performance.now();
        t[k] += now2 - at;
        t.total += now2 - at;
        at = now2;
      };
      const deliveries = decodeBatch(messages, s);
      lap("decode");
      const winners = await decideOrder(env, deliveries, s);
      lap("decide");
      const ctx = await readPlanContext(db, winners.map((d) => d.body));
      lap("read");
      const planned = await planDeliveries(db, winners, s, ctx);
      lap("plan");
      await commitAndAck(db, planned, realTime(now), s);
      lap("commit");
    }
    out[mode] = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, v / batches])) as typeof steps;
    counts[mode] = { statements: d1.counts.statements / batches, rowsRead: d1.counts.rowsRead / batches, rowsWritten: d1.counts.rowsWritten / batches };
  }
  return Response.json(counting ? { ...out, d1PerBatch: counts } : out);
}

/** Floors for figure 3: what a route that does nothing but its D1 read costs in this Miniflare. */
/**
 * The v1 list's floor: its page and the merges of its contacts, every column of each contact. The route's
 * own statement (allContactsStatement) picks the asked properties out of each record's JSON instead,
 * which costs SQLite more on records of a few properties (0.1–0.15 ms a page of 100 here) and saves the
 * Worker parsing whole records; the list is held to this plainer statement, so that picking can only
 * lower its ratio, as the v3 list is held to its plain query.
 */
const V1_PAGE = `with page as (
    select ${crmColumns()} from crm_objects
    where portal_id = ?1 and object_type = 'contacts' and archived = 0 and id > ?2 order by id limit ?3)
  select ${crmColumns("p")}, ${MERGE}
  from page p left join contact_merges m on exists (select 1 from contact_merges where portal_id = ?1) and m.portal_id = p.portal_id and m.canonical_vid = p.id`;

async function floor(env: BenchEnv, req: Request, url: URL): Promise<Response> {
  const portal = Number(url.searchParams.get("portal"));
  if (url.pathname.endsWith("/d1-search")) {
    // The search is a POST: like the route, this floor receives the reads suite's body and reads its filter
    // value from it, so the floor pays for the request the route cannot avoid receiving.
    const body = (await req.json()) as { filterGroups: { filters: { value: string }[] }[] };
    const company = body.filterGroups[0]!.filters[0]!.value;
    // What POST /crm/v3/objects/contacts/search compiles that body to (src/services/crm/search.ts).
    const { results, meta } = await env.DB.prepare(
      `WITH m AS NOT MATERIALIZED (SELECT c.* FROM crm_objects c WHERE c.portal_id = ? AND c.object_type = 'contacts' AND c.archived = 0
        AND (lower(json_extract(c.properties, '$."company"')) = ?))
        SELECT c.id, c.created_at, c.updated_at, c.archived,
          json_object('email', json_extract(c.properties, '$."email"'), 'firstname', json_extract(c.properties, '$."firstname"'),
            'lastname', json_extract(c.properties, '$."lastname"')) AS properties,
          (SELECT count(*) FROM m) AS total
        FROM m c ORDER BY c.id ASC LIMIT 100 OFFSET 0`,
    )
      .bind(portal, company.toLowerCase())
      .all();
    // The rows this query reads: the search's own floor in rows too (figure 3's D1 check).
    return Response.json(results, { headers: { "x-d1-rows-read": String(meta.rows_read) } });
  }
  if (url.pathname.endsWith("/d1-v1page")) {
    const rows = await env.DB.prepare(V1_PAGE).bind(portal, 0, 101).raw();
    return Response.json(rows);
  }
  if (url.pathname.endsWith("/d1-row")) {
    const row = await env.DB.prepare("SELECT * FROM crm_objects WHERE id = ?").bind(Number(url.searchParams.get("id"))).first();
    return Response.json(row);
  }
  const { results } = await env.DB.prepare(
    "SELECT * FROM crm_objects WHERE portal_id = ? AND object_type = 'contacts' AND archived = 0 AND id > 0 ORDER BY id LIMIT 101",
  )
    .bind(portal)
    .all();
  return Response.json(results);
}

export default {
  async fetch(req, env, ctx) {
    const url = new URL(req.url);
    if (url.pathname === "/__bench/noop") return new Response(null, { status: 204 });
    if (url.pathname === "/__bench/floor/replay") return replayFloor(req, env, ctx, url);
    if (url.pathname === "/__bench/floor/restore" && req.method === "POST") return restoreFloor(env, url);
    if (url.pathname.startsWith("/__bench/floor/")) return floor(env, req, url);
    if (url.pathname === "/__bench/probe/parallel-d1") return parallelD1(env, url);
    if (url.pathname === "/__bench/probe/fence") return fenceCost(env, url);
    if (url.pathname === "/__bench/baseline/upsert" && req.method === "POST") return baselineUpsert(req, env, url);
    if (url.pathname === "/__bench/baseline/enqueue" && req.method === "PUT") return baselineEnqueue(req, env);
    if (url.pathname === "/__bench/counted-cron" && req.method === "POST") return countedCron(env, ctx, url);
    if (url.pathname === "/__bench/profile") return profile(env, url);
    if (url.pathname === "/__bench/profile-consumer") return profileConsumer(env, url);
    if (url.pathname === "/__bench/profile-request" && req.method === "POST") return profileRequest(req, env, ctx);
    if (url.pathname === "/__bench/concurrency" && req.method === "POST") return concurrencyProbe(req, env, ctx);
    if (url.pathname.startsWith("/__bench/counted/")) return counted(req, env, ctx, url);
    return new Response("not a bench route", { status: 404 });
  },
  async queue(batch) {
    batch.ackAll();
  },
} satisfies ExportedHandler<BenchEnv>;
