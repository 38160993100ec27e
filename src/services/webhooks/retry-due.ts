/**
 * @module Webhook retries that come due when a test account's clock moves (docs/reference/testkit.md "Clock").
 * A retry is scheduled by the queue's delay, in real time; a delivery of an account on a moved clock also
 * records when its retry is due by that clock (`retry_at`, deliver.ts). Moving the clock past it sends the
 * retry now: the same delivery and attempt number as the delayed message, so whichever of the two arrives
 * second finds the attempt made and is dropped (deliver.ts, `stale`).
 *
 * A delivery carries one account's events and is stored with the account, so the account's due retries are
 * on one database (its delivery log's): one bounded statement there per clock move, never a sweep of every
 * database. Up to DUE_BATCH a move; more would wait for the queue's own delay.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { sendMessages } from "./drain";
import { WEBHOOK_MESSAGE_VERSION, type WebhookEvent, type WebhookQueueMessage } from "./message";

export const DUE_BATCH = 500;

/** Sends the account's retrying deliveries due by `accountNow` (its clock), from its delivery log's database; returns how many. */
export async function retryDueDeliveries(db: Db, queue: Queue, portalId: number, accountNow: number): Promise<number> {
  // Claimed in the statement that finds them (retry_at cleared): a second move does not send them again.
  const due = await db.all<{ id: number; app_id: number; attempts: number; events: string }>(sql`
    update webhook_deliveries set retry_at = null
    where id in (select d.id from webhook_deliveries d where d.retry_at is not null and d.retry_at <= ${accountNow} and d.status = 'retrying'
      and d.portal_id = ${portalId} limit ${DUE_BATCH})
    returning id, app_id, attempts, events`);
  const messages = due.map((d): WebhookQueueMessage => ({ v: WEBHOOK_MESSAGE_VERSION, appId: d.app_id, portalId, deliveryId: d.id, attempt: d.attempts, events: JSON.parse(d.events) as WebhookEvent[] }));
  await sendMessages(queue, messages);
  return messages.length;
}
