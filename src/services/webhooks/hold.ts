/**
 * @module The operator's hold on an app's deliveries (docs/reference/testkit.md "Hold"), delivery side. While
 * the app has a `webhook_holds` row (control plane), a delivery of its test accounts' events is not POSTed: it
 * is parked in the account's delivery log as `held`, its events in full. A STANDARD account's events never
 * wait: the hold is a test kit control, and production deliveries of the same app go on as usual.
 *
 * Parked in D1, not in the queue: a queue keeps a message for days at most, a hold lasts as long as the
 * operator wants, and nothing prunes held rows. The hold and the held rows live in different databases, so
 * the consumer parks first and reads the hold after (deliver.ts `park`); the release lifts the hold before it
 * reads the held rows. Either the release finds a row, or its parker sees the hold gone and sends it itself.
 *
 * Release: on each database of the app's delivery log, the held deliveries no attempt was made for are packed
 * again, in the order their events were made (eventId), into deliveries of up to 100 events of one account, as
 * the outbox drain packs them; a held retry keeps its delivery and attempt number. Everything goes to the queue
 * in that order, then the held rows give way (a crash in between sends them again on the next release: a
 * duplicate, never a loss). A request releases up to RELEASE_DATABASES databases; the others are released by
 * maintenance messages, one per database (RELEASE_JOB).
 */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { chunks, MAX_BOUND, rawStatement } from "../../db/d1-raw";
import { FANOUT_CONCURRENCY, inPool } from "../../db/fanout";
import { newId } from "../../db/id-ranges";
import { webhookDeliveries } from "../../db/tables/webhooks";
import { MAINTENANCE_MESSAGE_VERSION, type MaintenanceMessage } from "../maintenance/message";
import { deliveryMessages, sendMessages } from "./drain";
import { accountOf } from "./log";
import { WEBHOOK_MESSAGE_VERSION, type WebhookEvent, type WebhookQueueMessage } from "./message";
import { appLogDatabases, logDb } from "./where";

/** Databases a request releases or counts itself: two D1 queries each, within 50 per invocation. */
export const RELEASE_DATABASES = 20;
export const RELEASE_JOB = "webhook-release-held";
/** Held deliveries released per database and run; a run that finds more sends its message again. */
export const RELEASE_BATCH = 500;

/** Parks a first attempt's events as a new `held` delivery of their account; its one result row is the id. */
export const parkNewStatement = (db: Db, appId: number, events: WebhookEvent[], now: number): D1PreparedStatement =>
  rawStatement(db, sql`insert into webhook_deliveries (id, app_id, portal_id, events, event_count, status, attempts, last_error, created_at, updated_at)
    values (${newId("webhook_deliveries")}, ${appId}, ${accountOf(events)}, ${JSON.stringify(events)}, ${events.length}, 'held', 0, null, ${now}, ${now}) returning id`);

/** Parks a delivery already in the log (a retry, a re-send, a throttled wait); `results` empty: not there. */
export const parkExistingStatement = (db: Db, appId: number, deliveryId: number, now: number): D1PreparedStatement =>
  rawStatement(db, sql`update webhook_deliveries set status = 'held', updated_at = ${now} where id = ${deliveryId} and app_id = ${appId} returning id`);

/** Whether the app is held, in the control plane: one row when it is. */
export const holdStatement = (control: Db, appId: number): D1PreparedStatement => rawStatement(control, sql`select 1 as held from webhook_holds where app_id = ${appId}`);

/**
 * Takes back a delivery parked after the hold was lifted, unless a release took it already (`results` empty):
 * a new one goes (its attempt opens it again), an existing one becomes `retrying` again.
 */
export const unparkStatement = (db: Db, id: number, fresh: boolean, now: number): D1PreparedStatement =>
  fresh
    ? rawStatement(db, sql`delete from webhook_deliveries where id = ${id} and status = 'held' returning id`)
    : rawStatement(db, sql`update webhook_deliveries set status = 'retrying', updated_at = ${now} where id = ${id} and status = 'held' returning id`);

/** The held deliveries of the app on up to RELEASE_DATABASES of its log's databases: how many, and their events. */
export async function heldCounts(env: Env, control: Db, appId: number): Promise<{ deliveries: number; events: number }> {
  const dbs = (await appLogDatabases(env, control, appId)).slice(0, RELEASE_DATABASES);
  const counts = await inPool(dbs, FANOUT_CONCURRENCY, (name) =>
    logDb(env, name)
      .select({ deliveries: sql<number>`count(*)`, events: sql<number>`coalesce(sum(${webhookDeliveries.eventCount}), 0)` })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.appId, appId), eq(webhookDeliveries.status, "held")))
      .get(),
  );
  return { deliveries: counts.reduce((n, c) => n + (c?.deliveries ?? 0), 0), events: counts.reduce((n, c) => n + (c?.events ?? 0), 0) };
}

/** The maintenance message that releases the app's held deliveries on one database. */
export const releaseMessage = (shard: string, appId: number, now: number): MaintenanceMessage => ({ v: MAINTENANCE_MESSAGE_VERSION, job: RELEASE_JOB, shard, scheduledTime: now, subject: appId });

/** Sends the app's held deliveries of one database to the queue, in order (module comment); returns how many events, and whether more are left. */
export async function releaseHeldOn(db: Db, queue: Queue, appId: number, now: number): Promise<{ events: number; more: boolean }> {
  const rows = await db
    .select({ id: webhookDeliveries.id, events: webhookDeliveries.events, attempts: webhookDeliveries.attempts, portalId: webhookDeliveries.portalId })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.appId, appId), eq(webhookDeliveries.status, "held")))
    .orderBy(asc(webhookDeliveries.id))
    .limit(RELEASE_BATCH)
    .all();
  if (!rows.length) return { events: 0, more: false };
  const fresh = rows.filter((r) => r.attempts === 0);
  const retries = rows.filter((r) => r.attempts > 0);
  const freshEvents = fresh.flatMap((r) => JSON.parse(r.events) as WebhookEvent[]).sort((a, b) => a.eventId - b.eventId);
  const messages: WebhookQueueMessage[] = [
    ...deliveryMessages(freshEvents),
    ...retries.map((r): WebhookQueueMessage => ({ v: WEBHOOK_MESSAGE_VERSION, appId, ...(r.portalId !== null ? { portalId: r.portalId } : {}), deliveryId: r.id, attempt: r.attempts, events: JSON.parse(r.events) as WebhookEvent[] })),
  ];
  const first = (m: WebhookQueueMessage) => Math.min(...m.events.map((e) => e.eventId));
  messages.sort((a, b) => first(a) - first(b));
  await sendMessages(queue, messages);
  // The fresh rows' events now travel in new deliveries (opened at their first attempt); a retry's row goes on.
  const statements = [
    ...chunks(fresh.map((r) => r.id), MAX_BOUND).map((ids) => db.delete(webhookDeliveries).where(and(inArray(webhookDeliveries.id, ids), eq(webhookDeliveries.status, "held")))),
    ...chunks(retries.map((r) => r.id), MAX_BOUND).map((ids) =>
      db.update(webhookDeliveries).set({ status: "retrying", updatedAt: now }).where(and(inArray(webhookDeliveries.id, ids), eq(webhookDeliveries.status, "held"))),
    ),
  ];
  const [head, ...tail] = statements;
  if (head) await db.batch([head, ...tail]);
  return { events: freshEvents.length + retries.reduce((n, r) => n + (JSON.parse(r.events) as unknown[]).length, 0), more: rows.length === RELEASE_BATCH };
}

/**
 * Releases the app's held deliveries: up to RELEASE_DATABASES databases in the request (one pass each), the
 * others and whatever a pass left by maintenance messages (the maintenance consumer runs releaseHeldJob).
 */
export async function releaseHeld(env: Env, control: Db, queue: Queue, appId: number, now: number): Promise<number> {
  const dbs = await appLogDatabases(env, control, appId);
  const here = dbs.slice(0, RELEASE_DATABASES);
  const done = await inPool(here, FANOUT_CONCURRENCY, (name) => releaseHeldOn(logDb(env, name), queue, appId, now));
  const later = [...dbs.slice(RELEASE_DATABASES), ...here.filter((_, i) => done[i]!.more)];
  for (const batch of chunks(later.map((name) => ({ body: releaseMessage(name, appId, now), contentType: "json" as const })), 100)) await env.MAINTENANCE_QUEUE.sendBatch(batch);
  return done.reduce((n, d) => n + d.events, 0);
}

/** The maintenance job: one pass on one database, and its message again while held rows are left. */
export async function releaseHeldJob(db: Db, env: Env, shard: string, appId: number, now: number) {
  const { events, more } = await releaseHeldOn(db, env.WEBHOOK_QUEUE, appId, now);
  if (more) await env.MAINTENANCE_QUEUE.send(releaseMessage(shard, appId, now), { contentType: "json" });
  return { events };
}
