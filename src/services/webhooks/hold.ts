/**
 * @module The operator's hold on an app's deliveries (docs/reference/testkit.md "Hold"), delivery side. While
 * the app has a `webhook_holds` row, a delivery of its test accounts' events is not POSTed: it is parked in
 * the delivery log as `held`, its events in full. A STANDARD account's events never wait: the hold is a test
 * kit control, and production deliveries of the same app go on as usual.
 *
 * Parked in D1, not in the queue: a queue keeps a message for days at most, a hold lasts as long as the
 * operator wants, and nothing prunes held rows. Parking is conditional on the hold still standing, in the
 * statement that parks; so a delivery that read the hold just before the release is sent, never stranded.
 *
 * Release: the held deliveries no attempt was made for are packed again, in the order their events were
 * made (eventId), into deliveries of up to 100 events, as the outbox drain packs them; a held retry keeps its
 * delivery and attempt number. Everything goes to the queue in that order, then the held rows give way
 * (a crash in between sends them again on the next release: a duplicate, never a loss).
 */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { chunks, MAX_BOUND, rawStatement } from "../../db/d1-raw";
import { webhookDeliveries } from "../../db/tables/webhooks";
import { deliveryMessages, sendMessages } from "./drain";
import { WEBHOOK_MESSAGE_VERSION, type WebhookEvent, type WebhookQueueMessage } from "./message";

const holdStands = (appId: number) => sql`exists (select 1 from webhook_holds where app_id = ${appId})`;

/** Parks a first attempt's events as a new `held` delivery; `results` is empty when the hold was lifted meanwhile. */
export const parkNewStatement = (db: Db, appId: number, events: WebhookEvent[], now: number): D1PreparedStatement =>
  rawStatement(db, sql`insert into webhook_deliveries (app_id, events, event_count, status, attempts, last_error, created_at, updated_at)
    select ${appId}, ${JSON.stringify(events)}, ${events.length}, 'held', 0, null, ${now}, ${now} where ${holdStands(appId)} returning id`);

/** Parks a delivery already in the log (a retry, a re-send, a throttled wait); `results` empty: not held. */
export const parkExistingStatement = (db: Db, appId: number, deliveryId: number, now: number): D1PreparedStatement =>
  rawStatement(db, sql`update webhook_deliveries set status = 'held', updated_at = ${now} where id = ${deliveryId} and app_id = ${appId} and ${holdStands(appId)} returning id`);

/** The held deliveries of the app: how many, and their events. */
export async function heldCounts(control: Db, appId: number): Promise<{ deliveries: number; events: number }> {
  const row = await control
    .select({ deliveries: sql<number>`count(*)`, events: sql<number>`coalesce(sum(${webhookDeliveries.eventCount}), 0)` })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.appId, appId), eq(webhookDeliveries.status, "held")))
    .get();
  return { deliveries: row?.deliveries ?? 0, events: row?.events ?? 0 };
}

/** Sends the app's held deliveries to the queue, in order (module comment); returns how many events. */
export async function releaseHeld(control: Db, queue: Queue, appId: number, now: number): Promise<number> {
  const rows = await control
    .select({ id: webhookDeliveries.id, events: webhookDeliveries.events, attempts: webhookDeliveries.attempts })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.appId, appId), eq(webhookDeliveries.status, "held")))
    .orderBy(asc(webhookDeliveries.id))
    .all();
  if (!rows.length) return 0;
  const fresh = rows.filter((r) => r.attempts === 0);
  const retries = rows.filter((r) => r.attempts > 0);
  const freshEvents = fresh.flatMap((r) => JSON.parse(r.events) as WebhookEvent[]).sort((a, b) => a.eventId - b.eventId);
  const messages: WebhookQueueMessage[] = [
    ...deliveryMessages(freshEvents),
    ...retries.map((r): WebhookQueueMessage => ({ v: WEBHOOK_MESSAGE_VERSION, appId, deliveryId: r.id, attempt: r.attempts, events: JSON.parse(r.events) as WebhookEvent[] })),
  ];
  const first = (m: WebhookQueueMessage) => Math.min(...m.events.map((e) => e.eventId));
  messages.sort((a, b) => first(a) - first(b));
  await sendMessages(queue, messages);
  // The fresh rows' events now travel in new deliveries (opened at their first attempt); a retry's row goes on.
  const statements = [
    ...chunks(fresh.map((r) => r.id), MAX_BOUND).map((ids) => control.delete(webhookDeliveries).where(and(inArray(webhookDeliveries.id, ids), eq(webhookDeliveries.status, "held")))),
    ...chunks(retries.map((r) => r.id), MAX_BOUND).map((ids) =>
      control.update(webhookDeliveries).set({ status: "retrying", updatedAt: now }).where(and(inArray(webhookDeliveries.id, ids), eq(webhookDeliveries.status, "held"))),
    ),
  ];
  const [head, ...tail] = statements;
  if (head) await control.batch([head, ...tail]);
  return freshEvents.length + retries.reduce((n, r) => n + (JSON.parse(r.events) as unknown[]).length, 0);
}
