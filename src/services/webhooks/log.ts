/**
 * @module The delivery log (docs/reference/webhooks.md "The delivery log"): one row per delivery (up to 100
 * events of one app and one account) and one per attempt, stored with the account (where.ts), read by the
 * app's developer (reads.ts) and re-sent when exhausted. The statements here run on the delivery's database.
 */
import { and, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rawStatement } from "../../db/d1-raw";
import { newId } from "../../db/id-ranges";
import { webhookDeliveries, type DeliveryStatus, type webhookAttempts } from "../../db/tables/webhooks";
import type { WebhookEvent } from "./message";

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;

/** The account of a delivery's events (one per delivery). */
export const accountOf = (events: WebhookEvent[]) => events[0]!.portalId;

/** openDelivery as a statement for the caller's batch; its one result row is the delivery's id. */
export const openDeliveryStatement = (db: Db, appId: number, events: WebhookEvent[], now: number, status: DeliveryStatus = "pending"): D1PreparedStatement =>
  rawStatement(db, sql`insert into webhook_deliveries (id, app_id, portal_id, events, event_count, status, attempts, created_at, updated_at)
    values (${newId("webhook_deliveries")}, ${appId}, ${accountOf(events)}, ${JSON.stringify(events)}, ${events.length}, ${status}, 0, ${now}, ${now}) returning id`);

export async function openDelivery(db: Db, appId: number, events: WebhookEvent[], now: number): Promise<number> {
  const { results } = await openDeliveryStatement(db, appId, events, now).all<{ id: number }>();
  return results[0]!.id;
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
export function attemptStatements(db: Db, appId: number, deliveryId: number | null, events: WebhookEvent[], a: AttemptOutcome, status: DeliveryStatus, now: number, retryAt: number | null = null, portalId: number | null = accountOf(events)): D1PreparedStatement[] {
  const attempt = (delivery: SQL) =>
    rawStatement(db, sql`insert into webhook_attempts (delivery_id, portal_id, attempt_number, status_code, duration_ms, error, at)
      values (${delivery}, ${portalId}, ${a.attemptNumber}, ${a.statusCode}, ${a.durationMs}, ${a.error}, ${now})
      on conflict (delivery_id, attempt_number) do update set status_code = excluded.status_code, duration_ms = excluded.duration_ms, error = excluded.error, at = excluded.at`);
  if (deliveryId === null) {
    // Only an exhausted delivery is ever re-sent: one delivered at once keeps its events' ids (what the log
    // shows) and account, a fraction of the bytes.
    const kept = status === "delivered" ? events.map((e) => ({ eventId: e.eventId, portalId: e.portalId })) : events;
    return [
      rawStatement(db, sql`insert into webhook_deliveries (id, app_id, portal_id, events, event_count, status, attempts, last_error, created_at, updated_at, retry_at)
        values (${newId("webhook_deliveries")}, ${appId}, ${portalId}, ${JSON.stringify(kept)}, ${events.length}, ${status}, 1, ${a.error}, ${now}, ${now}, ${retryAt}) returning id`),
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

/** Marks an exhausted delivery pending again, on its database; null when it is not exhausted any more. */
export const reopenStatement = (db: Db, appId: number, id: number, now: number) =>
  db
    .update(webhookDeliveries)
    .set({ status: "pending", updatedAt: now })
    .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.appId, appId), eq(webhookDeliveries.status, "exhausted")))
    .returning();

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
