/**
 * @module The webhook queue's consumer (docs/reference/webhooks.md "What is sent", "Retries"): each message
 * is one POST of up to 100 events to the app's target URL, through the outbound guard (checked again here),
 * signed, with a 5 s timeout. A failure (connection error, timeout, blocked URL, any status outside 2xx) is
 * retried by sending the same events again with attempt + 1 after retryDelaySeconds, up to MAX_RETRIES; then
 * the delivery is recorded as exhausted, and its developer can re-send it. Every attempt is logged.
 *
 * Re-checked at delivery: the app still has settings (else the events are dropped, logged), and each event's
 * account still has the app installed (else that event is dropped). At most `maxConcurrentRequests` POSTs
 * of one app are in flight (throttle.ts); a message over the limit waits a second without using an attempt.
 *
 * Each delivery carries one account's events, and its log rows are written on the database that holds the
 * account's delivery log (its companion shard, else its shard: where.ts), read with the wave's targets. The
 * throttling leases, the app's settings and its hold stay in the control plane.
 */
import { sql } from "drizzle-orm";
import type { Db, StatementMeter } from "../../db/client";
import { CONTROL_SHARD, controlDb } from "../../db/shards";
import { forgetDirectory, isFenceError } from "../../db/directory";
import { checkOutboundUrl, guardedFetch, loopbackAllowed, OutboundError, outboundResolver, type Resolver } from "../../lib/outbound";
import { deliveryBody, webhookQueueMessage, type WebhookEvent, type WebhookQueueMessage } from "./message";
import { accountOf, attemptStatements, openDelivery, setDeliveryStatus, type AttemptOutcome } from "./log";
import { MAX_RETRIES, retryBaseSeconds, retryDelaySeconds } from "./retry";
import { FANOUT_CONCURRENCY, inPool } from "../../db/fanout";
import { coalesce } from "./coalesce";
import { removeSent, sendMessages } from "./drain";
import { webhookSignatureHeaders } from "./sign";
import { holdStatement, parkExistingStatement, parkNewStatement, unparkStatement } from "./hold";
import { logDatabaseSql, logDatabasesOf, logDb } from "./where";
import { releaseStatement, slotStatement } from "./throttle";
import { chunks, rawStatement, runRawBatch } from "../../db/d1-raw";

export const DELIVERY_TIMEOUT_MS = 5_000;
const MAX_RESPONSE_BYTES = 64 * 1024;
const THROTTLED_DELAY_S = 1;

interface AppTarget {
  targetUrl: string;
  clientSecret: string;
}

/**
 * The app's target and secret (null when it has no settings), the events' accounts that still have it
 * installed, and those that still exist, as JSON lists, in one statement; with them the app's hold and which
 * of the accounts are test accounts (hold.ts), the clocks of those whose clock was moved and the database of each
 * one's delivery log, at no extra round trip. An account being deleted counts as neither: its events are never
 * sent again, nor written to a delivery log.
 */
const targetStatement = (control: Db, appId: number, events: WebhookEvent[]) => {
  const portals = JSON.stringify([...new Set(events.map((e) => e.portalId))]);
  return rawStatement(control, sql`select w.target_url, a.client_secret,
      (select json_group_array(i.portal_id) from installs i join accounts ac on ac.portal_id = i.portal_id
        where i.app_id = ${appId} and ac.status <> 'deleting' and i.portal_id in (select value from json_each(${portals}))) as installed,
      (select json_group_array(ac.portal_id) from accounts ac
        where ac.status <> 'deleting' and ac.portal_id in (select value from json_each(${portals}))) as present,
      (select json_group_object(ac.portal_id, ac.data_reset_at) from accounts ac
        where ac.data_reset_at is not null and ac.portal_id in (select value from json_each(${portals}))) as reset,
      (select held_at from webhook_holds where app_id = ${appId}) as held_at,
      (select json_group_array(ac.portal_id) from accounts ac
        where ac.account_type in ('DEVELOPER_TEST', 'SANDBOX') and ac.portal_id in (select value from json_each(${portals}))) as tests,
      (select json_group_object(ac.portal_id, q.clock_offset_ms) from accounts ac join account_quirks q on q.portal_id = ac.portal_id
        where ac.account_type in ('DEVELOPER_TEST', 'SANDBOX') and q.clock_offset_ms <> 0 and ac.portal_id in (select value from json_each(${portals}))) as clocks,
      (select json_group_object(ac.portal_id, ${sql.raw(logDatabaseSql("ac"))}) from accounts ac
        where ac.status <> 'deleting' and ac.portal_id in (select value from json_each(${portals}))) as logs
    from (select 1) left join webhook_settings w on w.app_id = ${appId} left join apps a on a.app_id = w.app_id`);
};

/** One POST; never throws. */
export async function postEvents(target: AppTarget, events: WebhookEvent[], attempt: number, allowLoopback: boolean, resolver?: Resolver): Promise<Omit<AttemptOutcome, "attemptNumber">> {
  const startedAt = Date.now();
  const done = (statusCode: number | null, error: string | null) => ({ statusCode, error, durationMs: Date.now() - startedAt });
  try {
    const url = checkOutboundUrl(target.targetUrl, allowLoopback).toString();
    const body = deliveryBody(events, attempt);
    // Real time, never a test account's clock: the receiver checks the v3 timestamp (X-Service-Request-Timestamp) against its own
    // clock and refuses a signature more than 5 minutes old.
    const headers = { "content-type": "application/json", ...(await webhookSignatureHeaders(target.clientSecret, url, body, Date.now())) };
    const res = await guardedFetch({ method: "POST", url, headers, body }, { allowLoopback, resolver, timeoutMs: DELIVERY_TIMEOUT_MS, maxBytes: MAX_RESPONSE_BYTES, maxRedirects: 0 });
    return res.status >= 200 && res.status < 300 ? done(res.status, null) : done(res.status, `the target answered ${res.status}`);
  } catch (err) {
    if (err instanceof OutboundError) return done(null, `${err.kind}: ${err.message}`);
    return done(null, err instanceof Error ? err.message : String(err));
  }
}

export interface DeliveryDeps {
  env: Env;
  meter?: StatementMeter;
  control: Db;
  queue: Queue;
  allowLoopback: boolean;
  resolver?: Resolver;
  retryBase: number;
  now: () => number;
}

/**
 * `unrecorded`: POSTed, but its attempt could not be written to the account's delivery log (the account is
 * moving, or its database failed): the queue hands the message back and it is sent again (a duplicate for the
 * receiver, never a loss), as other writes of a moving account are retried.
 */
export type DeliveryOutcome = "delivered" | "retry" | "exhausted" | "dropped" | "throttled" | "held" | "stale" | "unrecorded";

/**
 * A delivery of a wave with what the control plane said of it: its target, the events still installed, the
 * events of accounts that still exist (what a dropped delivery may log), its slot.
 */
interface Prepared {
  m: WebhookQueueMessage;
  target: AppTarget | null;
  events: WebhookEvent[];
  present: WebhookEvent[];
  slot: string | null;
  /** The app is held (hold.ts); `tests` are the test accounts among the events' accounts. */
  held: boolean;
  tests: Set<number>;
  /** The offsets of the events' accounts whose clock was moved (src/services/testkit/clock.ts), by account. */
  clocks: Map<number, number>;
  /**
   * The clock the delivery's retries are scheduled by: its account's (one account per delivery, so its retries
   * follow one clock); for a delivery of the control plane's older log that mixes accounts, the smallest offset
   * of theirs (0, real time, unless every one is a test account whose clock was moved).
   */
  offsetMs: number;
  /** A retry already made: its attempt was sent again when a test account's clock passed it, and ran. */
  stale: boolean;
  /** The database holding the delivery's log rows; null when its account is gone or being deleted. */
  log: string | null;
}

/**
 * A message of the control plane's older log: a delivery opened before the log was stored with the accounts
 * (no `portalId`; its events may be of several accounts). Its attempts are recorded where its row is.
 */
const isLegacy = (m: WebhookQueueMessage) => m.portalId === undefined && m.deliveryId !== null;

/**
 * The wave's first round trip: each app's target with its installs (one statement per app, over the wave's
 * accounts of that app), then a throttling slot per delivery. The slots are taken in order inside one
 * transaction, so an app never gets more than its limit, however many of its deliveries the wave holds.
 * Retries then read their log rows, one round trip per database that holds them.
 */
async function prepare(wave: WebhookQueueMessage[], deps: DeliveryDeps): Promise<Prepared[]> {
  const { control } = deps;
  const now = deps.now();
  const byApp = new Map<number, WebhookEvent[]>();
  for (const m of wave) byApp.set(m.appId, (byApp.get(m.appId) ?? []).concat(m.events));
  const apps = [...byApp.keys()];
  const leases = wave.map(() => crypto.randomUUID());
  const results = await runRawBatch(control, [...apps.map((appId) => targetStatement(control, appId, byApp.get(appId)!)), ...wave.map((m, i) => slotStatement(control, m.appId, leases[i]!, now))]);
  const targets = new Map(
    apps.map((appId, i) => {
      const row = (results[i]?.results as { target_url: string | null; client_secret: string | null; installed: string; present: string; reset: string; held_at: number | null; tests: string; clocks: string; logs: string }[])[0]!;
      const target: AppTarget | null = row.target_url !== null && row.client_secret !== null ? { targetUrl: row.target_url, clientSecret: row.client_secret } : null;
      const reset = new Map(Object.entries(JSON.parse(row.reset) as Record<string, number>).map(([p, at]) => [Number(p), at]));
      const held = row.held_at !== null;
      const clocks = new Map(Object.entries(JSON.parse(row.clocks) as Record<string, number>).map(([p, ms]) => [Number(p), ms]));
      const logs = new Map(Object.entries(JSON.parse(row.logs) as Record<string, string>).map(([p, db]) => [Number(p), db]));
      return [appId, { target, installed: new Set(JSON.parse(row.installed) as number[]), present: new Set(JSON.parse(row.present) as number[]), reset, held, tests: new Set(JSON.parse(row.tests) as number[]), clocks, logs }] as const;
    }),
  );
  const logOf = (m: WebhookQueueMessage) => (isLegacy(m) ? CONTROL_SHARD : (targets.get(m.appId)!.logs.get(m.portalId ?? accountOf(m.events)) ?? null));
  // A retry sends only the events its delivery's log row still holds: a GDPR delete removes from the log
  // the events that name the deleted contact (src/services/crm/purge.ts), and so from every later attempt.
  const byLog = new Map<string, WebhookQueueMessage[]>();
  for (const m of wave) {
    const db = logOf(m);
    if (m.deliveryId !== null && db !== null) byLog.set(db, [...(byLog.get(db) ?? []), m]);
  }
  const logged = new Map<WebhookQueueMessage, { ids: Set<number>; attempts: number }>();
  await inPool([...byLog], FANOUT_CONCURRENCY, async ([name, retried]) => {
    const db = logDb(deps.env, name, deps.meter);
    const rows = await runRawBatch(
      db,
      retried.map((m) => rawStatement(db, sql`select json_group_array(e.value->>'eventId') as ids, max(d.attempts) as attempts from webhook_deliveries d, json_each(d.events) e where d.id = ${m.deliveryId}`)),
    );
    retried.forEach((m, k) => {
      const row = (rows[k]?.results as { ids: string; attempts: number | null }[])[0];
      logged.set(m, { ids: new Set(JSON.parse(row?.ids ?? "[]") as number[]), attempts: row?.attempts ?? 0 });
    });
  });
  return wave.map((m, i) => {
    const { target, installed, present, reset, held, tests, clocks } = targets.get(m.appId)!;
    // A test account whose data was restored or reset since an event's change has no such change any more.
    const current = (e: WebhookEvent) => !(e.occurredAt < (reset.get(e.portalId) ?? -Infinity));
    const log = logged.get(m);
    // A retry of an account that is gone has no log row to read: nothing of it is sent.
    const kept = m.deliveryId === null ? m.events : log ? m.events.filter((e) => log.ids.has(e.eventId)) : [];
    return {
      m,
      target,
      events: kept.filter((e) => installed.has(e.portalId) && current(e)),
      present: kept.filter((e) => present.has(e.portalId)),
      slot: results[apps.length + i]?.meta.changes ? leases[i]! : null,
      held,
      tests,
      clocks,
      offsetMs: offsetOf(m.events, clocks),
      // The attempt this message carries was made already (the log counts it): a duplicate, dropped.
      stale: log !== undefined && log.attempts > m.attempt,
      log: logOf(m),
    };
  });
}

const offsetOf = (events: WebhookEvent[], clocks: Map<number, number>) => (events.length ? Math.min(...events.map((e) => clocks.get(e.portalId) ?? 0)) : 0);

/** A delivery that will not be POSTed: dropped (no settings, or no account still has the app) or throttled. */
async function settleUnsent(p: Prepared, deps: DeliveryDeps): Promise<DeliveryOutcome> {
  const { control } = deps;
  const { m } = p;
  const why = !p.target ? "the app has no webhook settings" : !p.events.length ? "the app is no longer installed in the events' account, or its test account's data was restored or reset since" : null;
  if (why) {
    console.warn(`webhook delivery of ${m.events.length} event(s) for app ${m.appId} dropped: ${why}`);
    if (p.slot) await releaseStatement(control, m.appId, p.slot, deps.now()).run();
    // The log keeps what it may: a delivery of a deleted account's events leaves no row.
    if (p.log === null || (m.deliveryId === null && !p.present.length)) return "dropped";
    const db = logDb(deps.env, p.log, deps.meter);
    const id = m.deliveryId ?? (await openDelivery(db, m.appId, p.present, deps.now()));
    await setDeliveryStatus(db, id, "dropped", why, deps.now());
    return "dropped";
  }
  // Waiting for a slot is not an attempt; the delivery shows in the log as pending meanwhile.
  const deliveryId = m.deliveryId ?? (await openDelivery(logDb(deps.env, p.log!, deps.meter), m.appId, p.events, deps.now()));
  await sendMessages(deps.queue, [{ ...m, deliveryId, events: p.events }], THROTTLED_DELAY_S);
  return "throttled";
}

/**
 * A delivery of a held app (hold.ts): a test account's delivery waits in its delivery log as `held`. A first
 * attempt is parked as a new delivery; one already in the log (a retry, a re-send, a throttled wait) is marked
 * held. True when nothing of it is left to POST now (its slot is given back).
 *
 * The hold lives in the control plane and the row on the account's database, so parking cannot be
 * conditional on the hold in one statement: the row is parked first, then the hold read again (with the slot's
 * release). A release deletes the hold before it reads the held rows, so either it finds this row, or this
 * reads the hold gone and takes the row back (unparkStatement) to send it now: never stranded, at worst sent
 * by both (a duplicate, never a loss).
 */
async function park(p: Prepared, deps: DeliveryDeps): Promise<boolean> {
  const { m } = p;
  const now = deps.now();
  // One account per delivery (a delivery of the control plane's older log may mix them: it waits only when all are test accounts').
  if (!p.log || !p.events.every((e) => p.tests.has(e.portalId))) return false;
  const db = logDb(deps.env, p.log, deps.meter);
  const [parked] = await runRawBatch(db, [m.deliveryId === null ? parkNewStatement(db, m.appId, p.events, now) : parkExistingStatement(db, m.appId, m.deliveryId, now)]);
  const id = (parked?.results as { id: number }[] | undefined)?.[0]?.id;
  if (id === undefined) return false;
  const [hold] = await runRawBatch(deps.control, [holdStatement(deps.control, m.appId), ...(p.slot ? [releaseStatement(deps.control, m.appId, p.slot, now)] : [])]);
  if (hold?.results.length) return true;
  // The hold was lifted meanwhile: the delivery goes as usual, unless the release took it already. Its slot was given back.
  p.slot = null;
  const [taken] = await runRawBatch(db, [unparkStatement(db, id, m.deliveryId === null, now)]);
  if (!taken?.results.length) return true;
  return false;
}

/**
 * Handles a wave of deliveries to the end (the caller acks their messages); throws only when D1 or the
 * queue fail. Two control-plane round trips for the whole wave around its POSTs, which run at once: the
 * targets and slots (prepare), then every attempt's record (opening the delivery on its first attempt) with
 * the slots' release, rather than two round trips per delivery: the consumer's D1 work is most of what
 * webhooks add to the cost of a sync.
 */
export async function deliverWave(wave: WebhookQueueMessage[], deps: DeliveryDeps): Promise<DeliveryOutcome[]> {
  // A first attempt names its account (one per delivery, perAccount), so its retries find the account's log.
  const named = wave.map((m) => (m.deliveryId === null && m.portalId === undefined ? { ...m, portalId: accountOf(m.events) } : m));
  const prepared = await prepare(named, deps);
  const outcomes: DeliveryOutcome[] = [];
  const posting: { i: number; p: Prepared & { target: AppTarget; slot: string } }[] = [];
  const going: { i: number; p: Prepared }[] = [];
  for (const [i, p] of prepared.entries()) {
    if (p.stale) {
      if (p.slot) await releaseStatement(deps.control, p.m.appId, p.slot, deps.now()).run();
      outcomes[i] = "stale";
      continue;
    }
    if (p.held && p.target && p.events.length && (await park(p, deps))) {
      outcomes[i] = "held";
      continue;
    }
    going.push({ i, p });
  }
  for (const { i, p } of going) {
    if (p.target && p.events.length && p.slot) posting.push({ i, p: { ...p, target: p.target, slot: p.slot } });
    else outcomes[i] = await settleUnsent(p, deps);
  }
  if (!posting.length) return outcomes;
  const results = await Promise.all(posting.map(({ p }) => postEvents(p.target, p.events, p.m.attempt, deps.allowLoopback, deps.resolver)));
  const now = deps.now();
  const statuses = posting.map(({ p }, k) => (results[k]!.error === null ? "delivered" : p.m.attempt >= MAX_RETRIES ? "exhausted" : "retrying"));
  const delays = posting.map(({ p }, k) => (statuses[k] === "retrying" ? retryDelaySeconds(deps.retryBase, p.m.attempt + 1) : 0));
  // A retry of moved clocks is also due by them: moving them past it sends it at once (retry-due.ts).
  const retryAt = (k: number) => (statuses[k] === "retrying" && posting[k]!.p.offsetMs ? now + posting[k]!.p.offsetMs + delays[k]! * 1000 : null);
  // Each delivery's statements start with the one that opens it on a first attempt (log.ts attemptStatements),
  // in one batch per database holding the wave's logs; the slots' release is one control-plane batch beside them.
  const byLog = new Map<string, number[]>();
  for (const [k, { p }] of posting.entries()) byLog.set(p.log!, [...(byLog.get(p.log!) ?? []), k]);
  const opened = new Map<number, number>();
  const failed = new Set<number>();
  // A release that fails only leaves the leases to expire by themselves (LEASE_MS): the attempts are made and
  // recorded, so it must not send the wave round again.
  const release = runRawBatch(deps.control, posting.map(({ p }) => releaseStatement(deps.control, p.m.appId, p.slot, now))).catch((err: unknown) => {
    console.error(`releasing ${posting.length} webhook throttling slot(s) failed; they expire by themselves: ${err instanceof Error ? err.message : String(err)}`);
  });
  await inPool([...byLog], FANOUT_CONCURRENCY, async ([name, ks]) => {
    try {
      const db = logDb(deps.env, name, deps.meter);
      const records = ks.map((k) => {
        const { p } = posting[k]!;
        return attemptStatements(db, p.m.appId, p.m.deliveryId, p.events, { attemptNumber: p.m.attempt, ...results[k]! }, statuses[k]!, now, retryAt(k), isLegacy(p.m) ? null : (p.m.portalId ?? accountOf(p.events)));
      });
      const recorded = await runRawBatch(db, records.flat());
      let first = 0;
      ks.forEach((k, j) => {
        const id = (recorded[first]?.results as { id: number }[] | undefined)?.[0]?.id;
        if (posting[k]!.p.m.deliveryId === null && id !== undefined) opened.set(k, id);
        first += records[j]!.length;
      });
    } catch (err) {
      // The account is moving (its fence refused the write) or its database failed: these go back to the queue.
      if (isFenceError(err)) forgetDirectory();
      console.error(`recording ${ks.length} webhook attempt(s) on ${name} failed; the queue sends them again: ${err instanceof Error ? err.message : String(err)}`);
      for (const k of ks) failed.add(k);
    }
  });
  await release;
  const retries: Promise<void>[] = [];
  for (const [k, { i, p }] of posting.entries()) {
    if (failed.has(k)) {
      outcomes[i] = "unrecorded";
      continue;
    }
    const status = statuses[k]!;
    outcomes[i] = status === "retrying" ? "retry" : status;
    if (status === "delivered") continue;
    const { m, events } = p;
    const deliveryId = m.deliveryId ?? opened.get(k)!;
    if (status === "exhausted") console.warn(`webhook delivery ${deliveryId} for app ${m.appId} exhausted after attempt ${m.attempt}: ${results[k]!.error}`);
    else retries.push(sendMessages(deps.queue, [{ ...m, deliveryId, events, attempt: m.attempt + 1 }], delays[k]!));
  }
  await Promise.all(retries);
  return outcomes;
}

/**
 * A first attempt as deliveries of one account each. The drain sends them so; a message queued before it
 * did (events of several accounts) is split here, and each part carries the same queue message.
 */
function perAccount(m: WebhookQueueMessage): WebhookQueueMessage[] {
  if (m.deliveryId !== null) return [m];
  const groups = new Map<number, WebhookEvent[]>();
  for (const e of m.events) groups.set(e.portalId, [...(groups.get(e.portalId) ?? []), e]);
  return [...groups].map(([portalId, events]) => ({ ...m, portalId, events }));
}

/**
 * Every delivery of a batch, in waves of up to FANOUT_CONCURRENCY: first attempts of one app and account
 * packed together (coalesce.ts); a wave whose handling failed is retried by the queue, with every message it
 * carries, and so is a delivery whose attempt could not be recorded.
 */
export async function consumeWebhookBatch(batch: MessageBatch<unknown>, env: Env, meter?: { statements: number }): Promise<Record<string, number>> {
  const deps: DeliveryDeps = {
    env,
    meter,
    control: controlDb(env, meter),
    queue: env.WEBHOOK_QUEUE,
    allowLoopback: loopbackAllowed(env),
    resolver: outboundResolver(env),
    retryBase: retryBaseSeconds(env),
    // The delivery log's times and the throttling slots are in real time: the app's developer reads the log, whatever its accounts' clocks.
    now: () => Date.now(),
  };
  const outcomes: Record<string, number> = {};
  const count = (k: string) => (outcomes[k] = (outcomes[k] ?? 0) + 1);
  const parsed: { source: Message<unknown>; message: WebhookQueueMessage }[] = [];
  for (const msg of batch.messages) {
    const p = webhookQueueMessage.safeParse(msg.body);
    if (p.success) for (const message of perAccount(p.data)) parsed.push({ source: msg, message });
    else {
      console.error(`webhook queue message ${msg.id} is not a v1 delivery; dropped`);
      msg.ack();
      count("malformed");
    }
  }
  // The queue holds these events now: their outbox rows go before any POST (first attempts only; later ones have none).
  await removeSent(env, deps.control, parsed.filter(({ message: m }) => m.deliveryId === null && m.attempt === 0).flatMap(({ message }) => message.events));
  // At most as many POSTs at once as an invocation has connections: one waiting for a connection would
  // spend its 5 s timeout waiting.
  // Each queue message is settled once, at the end: retried when any delivery carrying its events must go
  // again (a message queued with several accounts' events is split into several, perAccount), else acked.
  const again = new Set<Message<unknown>>();
  for (const wave of chunks(coalesce(parsed), FANOUT_CONCURRENCY)) {
    try {
      const done = await deliverWave(wave.map((w) => w.delivery), deps);
      done.forEach(count);
      wave.forEach(({ sources }, i) => {
        if (done[i] === "unrecorded") for (const msg of sources) again.add(msg);
      });
    } catch (err) {
      console.error(`a wave of ${wave.length} webhook deliveries failed to run: ${err instanceof Error ? err.message : String(err)}`);
      for (const { sources } of wave) for (const msg of sources) again.add(msg);
      wave.forEach(() => count("crashed"));
    }
  }
  for (const msg of new Set(parsed.map((x) => x.source))) {
    if (again.has(msg)) msg.retry({ delaySeconds: 5 });
    else msg.ack();
  }
  return outcomes;
}

/**
 * The webhook dead-letter queue: a message whose handling crashed on every queue retry. Its delivery is
 * recorded as exhausted in its account's delivery log (so the developer sees it and can re-send it), as the
 * sync DLQ records its errors. The events of an account that is gone or being deleted are not logged.
 */
export async function consumeWebhookDeadLetters(batch: MessageBatch<unknown>, env: Env, meter?: { statements: number }): Promise<Record<string, number>> {
  const control = controlDb(env, meter);
  const messages = batch.messages.flatMap((msg) => {
    const parsed = webhookQueueMessage.safeParse(msg.body);
    if (!parsed.success) {
      msg.ack();
      return [];
    }
    return perAccount(parsed.data).map((m) => ({ msg, m }));
  });
  const logs = await logDatabasesOf(control, messages.filter(({ m }) => !isLegacy(m)).map(({ m }) => m.portalId ?? accountOf(m.events)));
  let recorded = 0;
  for (const { msg, m } of messages) {
    const name = isLegacy(m) ? CONTROL_SHARD : logs.get(m.portalId ?? accountOf(m.events));
    if (name !== undefined) {
      const db = logDb(env, name, meter);
      const now = Date.now();
      const id = m.deliveryId ?? (await openDelivery(db, m.appId, m.events, now));
      await setDeliveryStatus(db, id, "exhausted", "the delivery could not be processed after the queue's retries", now);
      console.warn(`dead letter: webhook delivery ${id} for app ${m.appId} recorded as exhausted`);
      recorded++;
    }
    msg.ack();
  }
  return { recorded };
}
