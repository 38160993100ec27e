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
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { controlDb } from "../../db/shards";
import { checkOutboundUrl, guardedFetch, loopbackAllowed, OutboundError, outboundResolver, type Resolver } from "../../lib/outbound";
import { deliveryBody, WEBHOOK_MESSAGE_VERSION, webhookQueueMessage, type WebhookEvent, type WebhookQueueMessage } from "./message";
import { attemptStatements, openDelivery, openDeliveryStatement, setDeliveryStatus, type AttemptOutcome } from "./log";
import { MAX_RETRIES, retryBaseSeconds, retryDelaySeconds } from "./retry";
import { FANOUT_CONCURRENCY } from "../../db/fanout";
import { coalesce } from "./coalesce";
import { removeSent, sendMessages } from "./drain";
import { webhookSignatureHeaders } from "./sign";
import { parkExistingStatement, parkNewStatement } from "./hold";
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
 * of the accounts are test accounts (hold.ts) and the clocks of those whose clock was moved, at no extra round trip. An account being deleted counts
 * as neither: its events are never sent again, nor written to a delivery log that outlives it.
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
        where ac.account_type in ('DEVELOPER_TEST', 'SANDBOX') and q.clock_offset_ms <> 0 and ac.portal_id in (select value from json_each(${portals}))) as clocks
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
  control: Db;
  queue: Queue;
  allowLoopback: boolean;
  resolver?: Resolver;
  retryBase: number;
  now: () => number;
}

export type DeliveryOutcome = "delivered" | "retry" | "exhausted" | "dropped" | "throttled" | "held" | "stale";

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
   * The clock the delivery's retries are scheduled by: the smallest offset of its events' accounts (0, real
   * time, unless every one is a test account whose clock was moved). A first attempt holds one clock's events
   * only (splitByClock); a delivery opened before an account's clock moved may hold several.
   */
  offsetMs: number;
  /** A retry already made: its attempt was sent again when a test account's clock passed it, and ran. */
  stale: boolean;
}

/**
 * The wave's first round trip: each app's target with its installs (one statement per app, over the wave's
 * accounts of that app), then a throttling slot per delivery. The slots are taken in order inside one
 * transaction, so an app never gets more than its limit, however many of its deliveries the wave holds.
 */
async function prepare(wave: WebhookQueueMessage[], deps: DeliveryDeps): Promise<Prepared[]> {
  const { control } = deps;
  const now = deps.now();
  const byApp = new Map<number, WebhookEvent[]>();
  for (const m of wave) byApp.set(m.appId, (byApp.get(m.appId) ?? []).concat(m.events));
  const apps = [...byApp.keys()];
  const leases = wave.map(() => crypto.randomUUID());
  const retried = wave.filter((m) => m.deliveryId !== null);
  const results = await runRawBatch(control, [
    ...apps.map((appId) => targetStatement(control, appId, byApp.get(appId)!)),
    ...wave.map((m, i) => slotStatement(control, m.appId, leases[i]!, now)),
    ...retried.map((m) =>
      rawStatement(control, sql`select json_group_array(e.value->>'eventId') as ids, max(d.attempts) as attempts from webhook_deliveries d, json_each(d.events) e where d.id = ${m.deliveryId}`),
    ),
  ]);
  // A retry sends only the events its delivery's log row still holds: a GDPR delete removes from the log
  // the events that name the deleted contact (src/services/crm/purge.ts), and so from every later attempt.
  const logged = new Map(
    retried.map((m, k) => {
      const row = (results[apps.length + wave.length + k]?.results as { ids: string; attempts: number | null }[])[0];
      return [m, { ids: new Set(JSON.parse(row?.ids ?? "[]") as number[]), attempts: row?.attempts ?? 0 }] as const;
    }),
  );
  const targets = new Map(
    apps.map((appId, i) => {
      const row = (results[i]?.results as { target_url: string | null; client_secret: string | null; installed: string; present: string; reset: string; held_at: number | null; tests: string; clocks: string }[])[0]!;
      const target: AppTarget | null = row.target_url !== null && row.client_secret !== null ? { targetUrl: row.target_url, clientSecret: row.client_secret } : null;
      const reset = new Map(Object.entries(JSON.parse(row.reset) as Record<string, number>).map(([p, at]) => [Number(p), at]));
      const held = row.held_at !== null;
      const clocks = new Map(Object.entries(JSON.parse(row.clocks) as Record<string, number>).map(([p, ms]) => [Number(p), ms]));
      return [appId, { target, installed: new Set(JSON.parse(row.installed) as number[]), present: new Set(JSON.parse(row.present) as number[]), reset, held, tests: new Set(JSON.parse(row.tests) as number[]), clocks }] as const;
    }),
  );
  return wave.map((m, i) => {
    const { target, installed, present, reset, held, tests, clocks } = targets.get(m.appId)!;
    // A test account whose data was restored or reset since an event's change has no such change any more.
    const current = (e: WebhookEvent) => !(e.occurredAt < (reset.get(e.portalId) ?? -Infinity));
    const log = logged.get(m);
    const kept = log ? m.events.filter((e) => log.ids.has(e.eventId)) : m.events;
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
    };
  });
}

const offsetOf = (events: WebhookEvent[], clocks: Map<number, number>) => (events.length ? Math.min(...events.map((e) => clocks.get(e.portalId) ?? 0)) : 0);

/**
 * A test-kit rule (docs/reference/testkit.md "Clock"): the events of an account whose clock was moved are never
 * delivered with other accounts' events, so that every delivery's retries follow one clock. A first attempt
 * that mixes them keeps the events on real time (or, without any, those of its first event's account) and
 * each other account's events become a delivery of their own: opened in the log as pending and sent to the
 * queue, which hands it back alone (a delivery in the log is never packed with others, coalesce.ts). One
 * statement for the wave, and only when a delivery mixes clocks: the clocks come with the wave's first read,
 * so a STANDARD account's deliveries pay nothing.
 */
async function splitByClock(prepared: Prepared[], deps: DeliveryDeps): Promise<void> {
  const parts: { appId: number; events: WebhookEvent[] }[] = [];
  for (const p of prepared) {
    if (p.m.deliveryId !== null || !p.clocks.size || !p.events.length) continue;
    const groups = new Map<number, WebhookEvent[]>(); // by account, 0 for every account on real time
    for (const e of p.events) {
      const key = p.clocks.has(e.portalId) ? e.portalId : 0;
      const group = groups.get(key);
      if (group) group.push(e);
      else groups.set(key, [e]);
    }
    if (groups.size < 2) continue;
    const kept = groups.get(0) ?? [...groups.values()][0]!;
    const moved = new Set<number>();
    for (const events of groups.values()) {
      if (events === kept) continue;
      parts.push({ appId: p.m.appId, events });
      for (const e of events) moved.add(e.eventId);
    }
    p.events = kept;
    p.present = p.present.filter((e) => !moved.has(e.eventId));
    p.offsetMs = offsetOf(kept, p.clocks);
  }
  if (!parts.length) return;
  const now = deps.now();
  const opened = await runRawBatch(deps.control, parts.map((x) => openDeliveryStatement(deps.control, x.appId, x.events, now)));
  await sendMessages(
    deps.queue,
    parts.map((x, i): WebhookQueueMessage => ({ v: WEBHOOK_MESSAGE_VERSION, appId: x.appId, deliveryId: (opened[i]!.results as { id: number }[])[0]!.id, attempt: 0, events: x.events })),
  );
}

/** A delivery that will not be POSTed: dropped (no settings, or no account still has the app) or throttled. */
async function settleUnsent(p: Prepared, deps: DeliveryDeps): Promise<DeliveryOutcome> {
  const { control } = deps;
  const { m } = p;
  const why = !p.target ? "the app has no webhook settings" : !p.events.length ? "the app is no longer installed in the events' accounts, or their test accounts' data was restored or reset since" : null;
  if (why) {
    console.warn(`webhook delivery of ${m.events.length} event(s) for app ${m.appId} dropped: ${why}`);
    if (p.slot) await releaseStatement(control, m.appId, p.slot, deps.now()).run();
    // The log keeps what it may: a delivery made only of deleted accounts' events leaves no row.
    if (m.deliveryId === null && !p.present.length) return "dropped";
    const id = m.deliveryId ?? (await openDelivery(control, m.appId, p.present, deps.now()));
    await setDeliveryStatus(control, id, "dropped", why, deps.now());
    return "dropped";
  }
  // Waiting for a slot is not an attempt; the delivery shows in the log as pending meanwhile.
  const deliveryId = m.deliveryId ?? (await openDelivery(control, m.appId, p.events, deps.now()));
  await sendMessages(deps.queue, [{ ...m, deliveryId, events: p.events }], THROTTLED_DELAY_S);
  return "throttled";
}

/**
 * A delivery of a held app (hold.ts): its test accounts' events wait in the delivery log as `held`. A first
 * attempt parks them as a new delivery and goes on with the other accounts' events, if any (`p.events`
 * becomes those); a delivery already in the log waits whole when all its events are test accounts'. True
 * when nothing of it is left to POST now (its slot is given back). False when the hold was lifted meanwhile.
 */
async function park(p: Prepared, deps: DeliveryDeps): Promise<boolean> {
  const { m } = p;
  const now = deps.now();
  const waiting = p.events.filter((e) => p.tests.has(e.portalId));
  if (!waiting.length) return false;
  const whole = waiting.length === p.events.length;
  if (m.deliveryId !== null && !whole) return false;
  const park = m.deliveryId === null ? parkNewStatement(deps.control, m.appId, waiting, now) : parkExistingStatement(deps.control, m.appId, m.deliveryId, now);
  const [parked] = await runRawBatch(deps.control, [park, ...(whole && p.slot ? [releaseStatement(deps.control, m.appId, p.slot, now)] : [])]);
  if (!parked?.results.length) {
    // The hold was lifted between the wave's read and now: the delivery goes as usual (its slot is gone when it was given back).
    if (whole && p.slot) p.slot = null;
    return false;
  }
  if (whole) return true;
  p.events = p.events.filter((e) => !p.tests.has(e.portalId));
  p.present = p.present.filter((e) => !p.tests.has(e.portalId));
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
  const prepared = await prepare(wave, deps);
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
  await splitByClock(going.filter(({ p }) => p.target).map(({ p }) => p), deps);
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
  // Each delivery's statements start with the one that opens it on a first attempt (log.ts attemptStatements).
  const records = posting.map(({ p }, k) => [
    ...attemptStatements(deps.control, p.m.appId, p.m.deliveryId, p.events, { attemptNumber: p.m.attempt, ...results[k]! }, statuses[k]!, now, retryAt(k)),
    releaseStatement(deps.control, p.m.appId, p.slot, now),
  ]);
  const recorded = await runRawBatch(deps.control, records.flat());
  const retries: Promise<void>[] = [];
  let first = 0;
  for (const [k, { i, p }] of posting.entries()) {
    const opened = recorded[first];
    first += records[k]!.length;
    const status = statuses[k]!;
    outcomes[i] = status === "retrying" ? "retry" : status;
    if (status === "delivered") continue;
    const { m, events } = p;
    const deliveryId = m.deliveryId ?? (opened?.results as { id: number }[])[0]!.id;
    if (status === "exhausted") console.warn(`webhook delivery ${deliveryId} for app ${m.appId} exhausted after attempt ${m.attempt}: ${results[k]!.error}`);
    else retries.push(sendMessages(deps.queue, [{ ...m, deliveryId, events, attempt: m.attempt + 1 }], delays[k]!));
  }
  await Promise.all(retries);
  return outcomes;
}

/**
 * Every delivery of a batch, in waves of up to FANOUT_CONCURRENCY: first attempts of one app packed
 * together (coalesce.ts); a wave whose handling failed is retried by the queue, with every message it carries.
 */
export async function consumeWebhookBatch(batch: MessageBatch<unknown>, env: Env, meter?: { statements: number }): Promise<Record<string, number>> {
  const deps: DeliveryDeps = {
    control: controlDb(env, meter),
    queue: env.WEBHOOK_QUEUE,
    allowLoopback: loopbackAllowed(env),
    resolver: outboundResolver(env),
    retryBase: retryBaseSeconds(env),
    // The delivery log and throttling slots are the app's, in real time (a delivery may carry several accounts' events).
    now: () => Date.now(),
  };
  const outcomes: Record<string, number> = {};
  const count = (k: string) => (outcomes[k] = (outcomes[k] ?? 0) + 1);
  const parsed: { source: Message<unknown>; message: WebhookQueueMessage }[] = [];
  for (const msg of batch.messages) {
    const p = webhookQueueMessage.safeParse(msg.body);
    if (p.success) parsed.push({ source: msg, message: p.data });
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
  for (const wave of chunks(coalesce(parsed), FANOUT_CONCURRENCY)) {
    try {
      const done = await deliverWave(wave.map((w) => w.delivery), deps);
      done.forEach(count);
      for (const { sources } of wave) for (const msg of sources) msg.ack();
    } catch (err) {
      console.error(`a wave of ${wave.length} webhook deliveries failed to run: ${err instanceof Error ? err.message : String(err)}`);
      for (const { sources } of wave) for (const msg of sources) msg.retry({ delaySeconds: 5 });
      wave.forEach(() => count("crashed"));
    }
  }
  return outcomes;
}

/** The events whose account exists and is not being deleted: only those may be written to the delivery log. */
async function ofLiveAccounts(control: Db, events: WebhookEvent[]): Promise<WebhookEvent[]> {
  const portals = JSON.stringify([...new Set(events.map((e) => e.portalId))]);
  const { results } = await rawStatement(control, sql`select portal_id from accounts where status <> 'deleting' and portal_id in (select value from json_each(${portals}))`).all<{ portal_id: number }>();
  const live = new Set(results.map((r) => r.portal_id));
  return events.filter((e) => live.has(e.portalId));
}

/**
 * The webhook dead-letter queue: a message whose handling crashed on every queue retry. Its delivery is
 * recorded as exhausted (so the developer sees it and can re-send it), as the sync DLQ records its errors.
 */
export async function consumeWebhookDeadLetters(batch: MessageBatch<unknown>, env: Env, meter?: { statements: number }): Promise<Record<string, number>> {
  const control = controlDb(env, meter);
  let recorded = 0;
  for (const msg of batch.messages) {
    const parsed = webhookQueueMessage.safeParse(msg.body);
    if (parsed.success) {
      const m = parsed.data;
      const now = Date.now();
      const kept = m.deliveryId === null ? await ofLiveAccounts(control, m.events) : [];
      if (m.deliveryId === null && !kept.length) {
        msg.ack();
        continue;
      }
      const id = m.deliveryId ?? (await openDelivery(control, m.appId, kept, now));
      await setDeliveryStatus(control, id, "exhausted", "the delivery could not be processed after the queue's retries", now);
      console.warn(`dead letter: webhook delivery ${id} for app ${m.appId} recorded as exhausted`);
      recorded++;
    }
    msg.ack();
  }
  return { recorded };
}
