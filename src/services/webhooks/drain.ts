/**
 * @module The outbox drain (docs/explanation/storage.md, "Nothing lost between a change and its event"): moves an account database's pending events to
 * the webhook queue, one message per app and account, up to 100 events. It runs right after a write that emitted
 * events (ctx.waitUntil) and on every cron tick, so an event whose drain crashed is sent by a later one.
 *   1. claim: one UPDATE … RETURNING marks the oldest pending rows (or rows whose claim is older than
 *      CLAIM_MS: their drain died) with this drain's time; concurrent drains never claim the same rows;
 *   2. send: the queue messages, in sendBatch calls within the queue's limits;
 *   3. delete the sent rows: the webhook consumer does it when it takes the messages (removeSent), one
 *      statement per database and consumer batch instead of one round trip per send. Until then the rows
 *      stay claimed; if the consumer has not taken them within CLAIM_MS, a drain sends them again: a
 *      duplicate, never a loss.
 * Rows of an account being moved (fenced) stay until the move ends; the move carries them.
 */
import { inArray, sql } from "drizzle-orm";
import { webhookOutbox } from "../../db/tables/webhooks";
import { chunks, MAX_BOUND } from "../../db/d1-raw";
import type { Db } from "../../db/client";
import { shardDb } from "../../db/shards";
import { directoryTtlMs, shardsOfAccounts } from "../../db/directory";
import { faultPoint } from "../../lib/fault-seam";
import { jsonBytes, MAX_SEND_BATCH_BYTES, MAX_SEND_BATCH_MESSAGES, MAX_QUEUE_MESSAGE_BYTES, QUEUE_METADATA_BYTES } from "../../lib/queue-limits";
import { MAX_EVENTS_PER_DELIVERY, WEBHOOK_MESSAGE_VERSION, type WebhookEvent, type WebhookQueueMessage } from "./message";

/** Long enough for the webhook queue to hand a sent message to its consumer, backlog included. */
export const CLAIM_MS = 5 * 60_000;
export const DRAIN_LIMIT = 1000;

/** An outbox row as the drain reads it (and as a sync commit returns the rows it wrote claimed). */
export interface OutboxRow {
  id: number;
  portal_id: number;
  app_id: number;
  subscription_id: number;
  subscription_type: string;
  object_id: number;
  occurred_at: number;
  change_source: string;
  extra: string | null;
}

/**
 * A property value is cut to this many characters in its event (at most 80 KB in UTF-8), so every event fits
 * a queue message (128 KB): one huge value must not block the outbox it sits in.
 */
export const MAX_PROPERTY_VALUE_CHARS = 20_000;

function eventOf(r: OutboxRow): WebhookEvent {
  const extra = r.extra ? (JSON.parse(r.extra) as Partial<WebhookEvent>) : {};
  if (extra.propertyValue !== undefined && extra.propertyValue.length > MAX_PROPERTY_VALUE_CHARS) extra.propertyValue = extra.propertyValue.slice(0, MAX_PROPERTY_VALUE_CHARS);
  return {
    eventId: r.id,
    subscriptionId: r.subscription_id,
    portalId: r.portal_id,
    appId: r.app_id,
    occurredAt: r.occurred_at,
    subscriptionType: r.subscription_type,
    objectId: r.object_id,
    changeSource: r.change_source,
    ...extra,
  };
}

/** Room left in a queue message for events, after the envelope and the per-attempt attemptNumber fields. */
export const EVENT_BYTES_BUDGET = MAX_QUEUE_MESSAGE_BYTES - QUEUE_METADATA_BYTES - 1_000;

/**
 * Messages of up to 100 events of one app and one account each, within the queue's message size. One account
 * per delivery: its log row is stored with the account (on its shard or companion, docs/reference/webhooks.md
 * "The delivery log"), and the real service's batch is an array of events that each name their portalId, so a
 * batch of one account's events is a batch as valid as a mixed one.
 */
export function deliveryMessages(events: WebhookEvent[]): WebhookQueueMessage[] {
  const groups = new Map<string, WebhookEvent[]>();
  for (const e of events) {
    const key = `${e.appId}:${e.portalId}`;
    const list = groups.get(key);
    if (list) list.push(e);
    else groups.set(key, [e]);
  }
  const out: WebhookQueueMessage[] = [];
  for (const list of groups.values()) {
    const { appId, portalId } = list[0]!;
    let current: WebhookEvent[] = [];
    let bytes = 0;
    for (const e of list) {
      const size = jsonBytes(e) + 20;
      if (current.length && (current.length >= MAX_EVENTS_PER_DELIVERY || bytes + size > EVENT_BYTES_BUDGET)) {
        out.push({ v: WEBHOOK_MESSAGE_VERSION, appId, portalId, deliveryId: null, attempt: 0, events: current });
        current = [];
        bytes = 0;
      }
      current.push(e);
      bytes += size;
    }
    if (current.length) out.push({ v: WEBHOOK_MESSAGE_VERSION, appId, portalId, deliveryId: null, attempt: 0, events: current });
  }
  return out;
}

/** sendBatch calls within the count and size limits. */
export async function sendMessages(queue: Queue, msgs: WebhookQueueMessage[], delaySeconds = 0): Promise<void> {
  let chunk: MessageSendRequest[] = [];
  let bytes = 0;
  const flush = async () => {
    if (chunk.length) await queue.sendBatch(chunk);
    chunk = [];
    bytes = 0;
  };
  for (const body of msgs) {
    const size = jsonBytes(body) + QUEUE_METADATA_BYTES;
    if (chunk.length >= MAX_SEND_BATCH_MESSAGES || bytes + size > MAX_SEND_BATCH_BYTES) await flush();
    chunk.push({ body, contentType: "json", ...(delaySeconds ? { delaySeconds } : {}) });
    bytes += size;
  }
  await flush();
}

export const OUTBOX_COLUMNS = "id, portal_id, app_id, subscription_id, subscription_type, object_id, occurred_at, change_source, extra";

/** Step 2 for rows this caller holds the claim of (step 3 is the consumer's: removeSent). */
export async function sendClaimed(queue: Queue, claimed: OutboxRow[]): Promise<void> {
  if (!claimed.length) return;
  claimed.sort((a, b) => a.id - b.id);
  faultPoint("webhook:send", claimed.map((r) => String(r.id)));
  await sendMessages(queue, deliveryMessages(claimed.map(eventOf)));
}

/**
 * Step 3: the outbox rows of events the webhook queue has handed to its consumer (an event's id is its
 * row's), deleted in each account's database, one round trip per database. A failure only leaves them for
 * a drain to send again after CLAIM_MS; it is logged, never thrown.
 */
export async function removeSent(env: Env, control: Db, events: WebhookEvent[]): Promise<void> {
  if (!events.length) return;
  try {
    const shards = await shardsOfAccounts(control, events.map((e) => e.portalId), directoryTtlMs(env));
    const byShard = new Map<string | null, number[]>();
    for (const e of events) {
      const shard = shards.get(e.portalId);
      // An account gone or being deleted: its outbox goes with its data.
      if (shard === undefined) continue;
      const ids = byShard.get(shard);
      if (ids) ids.push(e.eventId);
      else byShard.set(shard, [e.eventId]);
    }
    await Promise.all(
      [...byShard].map(async ([shard, ids]) => {
        const db = shardDb(env, shard);
        // Bound id lists (a JSON list would cost D1 a row read per id), in one round trip.
        const [first, ...more] = chunks(ids, MAX_BOUND).map((part) => db.delete(webhookOutbox).where(inArray(webhookOutbox.id, part)));
        if (first) await db.batch([first, ...more]);
      }),
    );
  } catch (err) {
    console.error(`removing ${events.length} sent webhook event(s) from the outbox failed (a drain sends them again): ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Moves up to `limit` pending events of this database to the queue; returns how many. */
export async function drainOutbox(db: Db, queue: Queue, now: number, limit = DRAIN_LIMIT): Promise<number> {
  const claimed = await db.all<OutboxRow>(sql`
    update webhook_outbox set claimed_at = ${now}
    where id in (
      select id from webhook_outbox
      where (claimed_at is null or claimed_at <= ${now - CLAIM_MS})
        and portal_id not in (select portal_id from account_fences where unlocked = 0)
      order by id limit ${limit})
    returning ${sql.raw(OUTBOX_COLUMNS)}`);
  await sendClaimed(queue, claimed);
  return claimed.length;
}

/** After a write that emitted events: drain its database once the response is on its way. */
export function drainSoon(exec: ExecutionContext, db: Db, env: Env): void {
  exec.waitUntil(
    drainOutbox(db, env.WEBHOOK_QUEUE, Date.now()).catch((err: unknown) => {
      console.error(`webhook outbox drain failed (the cron tick retries it): ${err instanceof Error ? err.message : String(err)}`);
    }),
  );
}
