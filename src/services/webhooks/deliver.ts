/**
 * @module The webhook queue's consumer (docs/reference/webhooks.md "Delivery"): each message is one POST of up to 100
 * events to the app's target URL, through the outbound guard (checked again here), signed, with a 5 s
 * timeout. A failure (connection error, timeout, blocked URL, any status outside 2xx) is retried by sending
 * the same events again with attempt + 1 after retryDelaySeconds, up to MAX_RETRIES; then the delivery is
 * recorded as exhausted, and its developer can re-send it. Every attempt is logged.
 *
 * Re-checked at delivery: the app still has settings (else the events are dropped, logged), and each event's
 * account still has the app installed (else that event is dropped). At most `maxConcurrentRequests` POSTs
 * of one app are in flight (throttle.ts); a message over the limit waits a second without using an attempt.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { controlDb } from "../../db/shards";
import { checkOutboundUrl, guardedFetch, loopbackAllowed, OutboundError } from "../../lib/outbound";
import { deliveryBody, webhookQueueMessage, type WebhookEvent, type WebhookQueueMessage } from "./message";
import { attemptStatements, openDelivery, setDeliveryStatus, type AttemptOutcome } from "./log";
import { MAX_RETRIES, retryBaseSeconds, retryDelaySeconds } from "./retry";
import { FANOUT_CONCURRENCY, inPool } from "../../lib/fanout";
import { coalesce } from "./coalesce";
import { removeSent, sendMessages } from "./drain";
import { webhookSignatureHeaders } from "./sign";
import { releaseStatement, slotStatement } from "./throttle";
import { rawStatement, runRawBatch } from "../../lib/d1-raw";

export const DELIVERY_TIMEOUT_MS = 5_000;
const MAX_RESPONSE_BYTES = 64 * 1024;
const THROTTLED_DELAY_S = 1;

interface AppTarget {
  targetUrl: string;
  clientSecret: string;
}

/**
 * The app's target and secret, with the events' accounts that still have it installed (a JSON list), in one
 * statement; no row when the app has no settings.
 */
const targetStatement = (control: Db, appId: number, events: WebhookEvent[]) =>
  rawStatement(control, sql`select w.target_url, a.client_secret,
      (select json_group_array(i.portal_id) from installs i where i.app_id = w.app_id
        and i.portal_id in (select value from json_each(${JSON.stringify([...new Set(events.map((e) => e.portalId))])}))) as installed
    from webhook_settings w join apps a on a.app_id = w.app_id where w.app_id = ${appId}`);

/** One POST; never throws. */
export async function postEvents(target: AppTarget, events: WebhookEvent[], attempt: number, allowLoopback: boolean): Promise<Omit<AttemptOutcome, "attemptNumber">> {
  const startedAt = Date.now();
  const done = (statusCode: number | null, error: string | null) => ({ statusCode, error, durationMs: Date.now() - startedAt });
  try {
    const url = checkOutboundUrl(target.targetUrl, allowLoopback).toString();
    const body = deliveryBody(events, attempt);
    const headers = { "content-type": "application/json", ...(await webhookSignatureHeaders(target.clientSecret, url, body, Date.now())) };
    const res = await guardedFetch({ method: "POST", url, headers, body }, { allowLoopback, timeoutMs: DELIVERY_TIMEOUT_MS, maxBytes: MAX_RESPONSE_BYTES, maxRedirects: 0 });
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
  retryBase: number;
  now: () => number;
}

export type DeliveryOutcome = "delivered" | "retry" | "exhausted" | "dropped" | "throttled";

/**
 * Handles one queue message to the end (the caller acks it); throws only when D1 or the queue fail. Two
 * control-plane round trips around the POST: the app's target with the installs, and a throttling slot, in
 * one batch; the slot's release and the attempt's record (opening the delivery on its first attempt) in another.
 */
export async function deliver(m: WebhookQueueMessage, deps: DeliveryDeps): Promise<DeliveryOutcome> {
  const { control } = deps;
  const leaseId = crypto.randomUUID();
  const [targets, lease] = await runRawBatch(control, [targetStatement(control, m.appId, m.events), slotStatement(control, m.appId, leaseId, deps.now())]);
  const row = (targets?.results as { target_url: string; client_secret: string; installed: string }[])[0];
  const target: AppTarget | null = row ? { targetUrl: row.target_url, clientSecret: row.client_secret } : null;
  const installed = new Set(row ? (JSON.parse(row.installed) as number[]) : []);
  const events = m.events.filter((e) => installed.has(e.portalId));
  const slot = lease?.meta.changes ? leaseId : null;
  const why = !target ? "the app has no webhook settings" : !events.length ? "the app is no longer installed in the events' accounts" : null;
  if (why || !target) {
    console.warn(`webhook delivery of ${m.events.length} event(s) for app ${m.appId} dropped: ${why}`);
    if (slot) await releaseStatement(control, m.appId, slot, deps.now()).run();
    const id = m.deliveryId ?? (await openDelivery(control, m.appId, m.events, deps.now()));
    await setDeliveryStatus(control, id, "dropped", why, deps.now());
    return "dropped";
  }
  if (!slot) {
    // Waiting for a slot is not an attempt; the delivery shows in the log as pending meanwhile.
    const deliveryId = m.deliveryId ?? (await openDelivery(control, m.appId, events, deps.now()));
    await sendMessages(deps.queue, [{ ...m, deliveryId, events }], THROTTLED_DELAY_S);
    return "throttled";
  }
  const result = await postEvents(target, events, m.attempt, deps.allowLoopback);
  const attempt = { attemptNumber: m.attempt, ...result };
  const status = result.error === null ? "delivered" : m.attempt >= MAX_RETRIES ? "exhausted" : "retrying";
  const [opened] = await runRawBatch(control, [
    ...attemptStatements(control, m.appId, m.deliveryId, events, attempt, status, deps.now()),
    releaseStatement(control, m.appId, slot, deps.now()),
  ]);
  if (status === "delivered") return "delivered";
  const deliveryId = m.deliveryId ?? (opened?.results as { id: number }[])[0]!.id;
  if (status === "exhausted") {
    console.warn(`webhook delivery ${deliveryId} for app ${m.appId} exhausted after attempt ${m.attempt}: ${result.error}`);
    return "exhausted";
  }
  const delay = retryDelaySeconds(deps.retryBase, m.attempt + 1);
  await sendMessages(deps.queue, [{ ...m, deliveryId, events, attempt: m.attempt + 1 }], delay);
  return "retry";
}

/**
 * Every delivery of a batch, concurrently: first attempts of one app packed together (coalesce.ts); a
 * delivery whose handling failed is retried by the queue, with every message it carries.
 */
export async function consumeWebhookBatch(batch: MessageBatch<unknown>, env: Env, meter?: { statements: number }): Promise<Record<string, number>> {
  const deps: DeliveryDeps = {
    control: controlDb(env, meter),
    queue: env.WEBHOOK_QUEUE,
    allowLoopback: loopbackAllowed(env),
    retryBase: retryBaseSeconds(env),
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
  await inPool(coalesce(parsed), FANOUT_CONCURRENCY, async ({ delivery, sources }) => {
    try {
      count(await deliver(delivery, deps));
      for (const msg of sources) msg.ack();
    } catch (err) {
      console.error(`webhook delivery for app ${delivery.appId} failed to run: ${err instanceof Error ? err.message : String(err)}`);
      for (const msg of sources) msg.retry({ delaySeconds: 5 });
      count("crashed");
    }
  });
  return outcomes;
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
      const id = m.deliveryId ?? (await openDelivery(control, m.appId, m.events, now));
      await setDeliveryStatus(control, id, "exhausted", "the delivery could not be processed after the queue's retries", now);
      console.warn(`dead letter: webhook delivery ${id} for app ${m.appId} recorded as exhausted`);
      recorded++;
    }
    msg.ack();
  }
  return { recorded };
}
