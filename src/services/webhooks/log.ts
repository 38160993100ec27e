/**
 * @module The delivery log (docs/reference/webhooks.md "The delivery log"): one row per delivery (up to 100
 * events of one app) and one per attempt, in the control plane, read by the app's developer and re-sent when
 * exhausted.
 */
import { and, desc, eq, inArray, lt, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rawStatement } from "../../db/d1-raw";
import { webhookAttempts, webhookDeliveries, type DeliveryStatus } from "../../db/tables/webhooks";
import { conflict, notFound } from "../../lib/errors";
import type { WebhookEvent } from "./message";

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;

/** openDelivery as a statement for the caller's batch; its one result row is the delivery's id. */
export const openDeliveryStatement = (db: Db, appId: number, events: WebhookEvent[], now: number): D1PreparedStatement =>
  rawStatement(db, sql`insert into webhook_deliveries (app_id, events, event_count, status, attempts, created_at, updated_at)
    values (${appId}, ${JSON.stringify(events)}, ${events.length}, 'pending', 0, ${now}, ${now}) returning id`);

export async function openDelivery(db: Db, appId: number, events: WebhookEvent[], now: number): Promise<number> {
  const row = await db
    .insert(webhookDeliveries)
    .values({ appId, events: JSON.stringify(events), eventCount: events.length, status: "pending", createdAt: now, updatedAt: now })
    .returning({ id: webhookDeliveries.id })
    .get();
  return row.id;
}

export interface AttemptOutcome {
  attemptNumber: number;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}


/**
 * An attempt's record as statements for the caller's batch. The first attempt (`deliveryId` null) opens the
 * delivery with it (the insert returns its id), already in its status; a later one updates the delivery.
 */
export function attemptStatements(db: Db, appId: number, deliveryId: number | null, events: WebhookEvent[], a: AttemptOutcome, status: DeliveryStatus, now: number, retryAt: number | null = null): D1PreparedStatement[] {
  const attempt = (delivery: SQL) =>
    rawStatement(db, sql`insert into webhook_attempts (delivery_id, attempt_number, status_code, duration_ms, error, at)
      values (${delivery}, ${a.attemptNumber}, ${a.statusCode}, ${a.durationMs}, ${a.error}, ${now})
      on conflict (delivery_id, attempt_number) do update set status_code = excluded.status_code, duration_ms = excluded.duration_ms, error = excluded.error, at = excluded.at`);
  if (deliveryId === null) {
    // Only an exhausted delivery is ever re-sent: one delivered at once keeps its events' ids (what the log
    // shows) and accounts (what an account's deletion finds them by), a fraction of the bytes.
    const kept = status === "delivered" ? events.map((e) => ({ eventId: e.eventId, portalId: e.portalId })) : events;
    return [
      rawStatement(db, sql`insert into webhook_deliveries (app_id, events, event_count, status, attempts, last_error, created_at, updated_at, retry_at)
        values (${appId}, ${JSON.stringify(kept)}, ${events.length}, ${status}, 1, ${a.error}, ${now}, ${now}, ${retryAt}) returning id`),
      // Right after the delivery's insert: its id is the connection's last inserted row.
      attempt(sql`last_insert_rowid()`),
    ];
  }
  return [
    attempt(sql`${deliveryId}`),
    rawStatement(db, sql`update webhook_deliveries set status = ${status}, last_error = ${a.error}, updated_at = ${now}, retry_at = ${retryAt},
      attempts = (select count(*) from webhook_attempts where delivery_id = ${deliveryId}) where id = ${deliveryId}`),
  ];
}

export async function setDeliveryStatus(db: Db, deliveryId: number, status: DeliveryStatus, error: string | null, now: number): Promise<void> {
  await db.update(webhookDeliveries).set({ status, lastError: error, updatedAt: now }).where(eq(webhookDeliveries.id, deliveryId));
}

/** A page of the app's deliveries, newest first, each with its attempts. */
export async function listDeliveries(db: Db, appId: number, limit: number, before?: number, status?: DeliveryStatus) {
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.appId, appId), before !== undefined ? lt(webhookDeliveries.id, before) : undefined, status ? eq(webhookDeliveries.status, status) : undefined))
    .orderBy(desc(webhookDeliveries.id))
    .limit(limit + 1)
    .all();
  const page = rows.slice(0, limit);
  const attempts = page.length
    ? await db.select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, page.map((r) => r.id))).orderBy(webhookAttempts.attemptNumber).all()
    : [];
  return { rows: page, attempts, hasMore: rows.length > limit };
}

export async function getDelivery(db: Db, appId: number, id: number): Promise<{ row: DeliveryRow; attempts: AttemptRow[] }> {
  const row = await db.select().from(webhookDeliveries).where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.appId, appId))).get();
  if (!row) throw notFound(`Delivery ${id} not found`);
  const attempts = await db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, id)).orderBy(webhookAttempts.attemptNumber).all();
  return { row, attempts };
}

/** Marks an exhausted delivery pending again; anything else is a 409 (it is still being delivered, or done). */
export async function reopenExhausted(db: Db, appId: number, id: number, now: number): Promise<DeliveryRow> {
  const { row } = await getDelivery(db, appId, id);
  if (row.status !== "exhausted") throw conflict(`Delivery ${id} is ${row.status}; only an exhausted delivery can be re-sent`);
  const updated = await db
    .update(webhookDeliveries)
    .set({ status: "pending", updatedAt: now })
    .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.status, "exhausted")))
    .returning()
    .get();
  if (!updated) throw conflict(`Delivery ${id} is being re-sent already`);
  return updated;
}

export function presentDelivery(row: DeliveryRow, attempts: AttemptRow[]) {
  return {
    id: String(row.id),
    status: row.status,
    eventCount: row.eventCount,
    eventIds: (JSON.parse(row.events) as WebhookEvent[]).map((e) => e.eventId),
    attempts: attempts.map((a) => ({
      attemptNumber: a.attemptNumber,
      statusCode: a.statusCode,
      durationMs: a.durationMs,
      error: a.error,
      at: new Date(a.at).toISOString(),
    })),
    lastError: row.lastError,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}
