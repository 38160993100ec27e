/**
 * @module Webhook settings and subscriptions of an app (docs/reference/webhooks.md), in the control plane. The target
 * URL passes the outbound guard when it is stored (and again at each delivery).
 */
import { and, asc, count, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { webhookSettings, webhookSubscriptions } from "../../db/tables/webhooks";
import { badRequest, conflict, notFound } from "../../lib/errors";
import { checkOutboundUrl, checkResolved, OutboundError, type Resolver } from "../../lib/outbound";
import { GENERIC_TYPE_IDS, parseSubscriptionKey, subscriptionKey } from "../../schemas/webhooks/event-types";

export type SettingsRow = typeof webhookSettings.$inferSelect;
export type SubscriptionRow = typeof webhookSubscriptions.$inferSelect;

export const MAX_SUBSCRIPTIONS_PER_APP = 1000;

/** The target passes the outbound guard: as written, and by where it resolves when a resolver is configured. */
export async function checkTargetUrl(url: string, allowLoopback: boolean, resolver?: Resolver): Promise<void> {
  try {
    await checkResolved(checkOutboundUrl(url, allowLoopback), allowLoopback, resolver);
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    throw badRequest(`Invalid body: targetUrl: ${err.message}`, {
      errors: [{ message: `targetUrl: ${err.message}`, code: "INVALID_URI", in: "body", context: { propertyName: ["targetUrl"] } }],
    });
  }
}

export async function getSettings(db: Db, appId: number): Promise<SettingsRow> {
  const row = await db.select().from(webhookSettings).where(eq(webhookSettings.appId, appId)).get();
  if (!row) throw notFound(`App ${appId} has no webhook settings`);
  return row;
}

export async function putSettings(db: Db, appId: number, input: { targetUrl: string; maxConcurrentRequests: number; period?: string }, now: number): Promise<SettingsRow> {
  const values = { targetUrl: input.targetUrl, maxConcurrentRequests: input.maxConcurrentRequests, period: input.period ?? null, updatedAt: now };
  return db
    .insert(webhookSettings)
    .values({ appId, ...values, createdAt: now })
    .onConflictDoUpdate({ target: webhookSettings.appId, set: values })
    .returning()
    .get();
}

export async function deleteSettings(db: Db, appId: number): Promise<void> {
  const res = await db.delete(webhookSettings).where(eq(webhookSettings.appId, appId)).run();
  if (!res.meta.changes) throw notFound(`App ${appId} has no webhook settings`);
}

export function presentSettings(row: SettingsRow) {
  return {
    targetUrl: row.targetUrl,
    throttling: { maxConcurrentRequests: row.maxConcurrentRequests, ...(row.period ? { period: row.period } : {}) },
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}

export const listSubscriptions = (db: Db, appId: number) =>
  db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.appId, appId)).orderBy(asc(webhookSubscriptions.id)).all();

export async function getSubscription(db: Db, appId: number, id: number): Promise<SubscriptionRow> {
  const row = await db.select().from(webhookSubscriptions).where(and(eq(webhookSubscriptions.id, id), eq(webhookSubscriptions.appId, appId))).get();
  if (!row) throw notFound(`Subscription ${id} not found`);
  return row;
}

export async function createSubscription(db: Db, appId: number, input: { eventType: string; objectTypeId?: string; propertyName?: string; active?: boolean }, now: number): Promise<SubscriptionRow> {
  const existing = await db.select({ n: count() }).from(webhookSubscriptions).where(eq(webhookSubscriptions.appId, appId)).get();
  if ((existing?.n ?? 0) >= MAX_SUBSCRIPTIONS_PER_APP) {
    throw badRequest(`Couldn't create another subscription. You've reached the maximum number allowed per application (${MAX_SUBSCRIPTIONS_PER_APP}).`);
  }
  // One subscription per event type and property: a second would deliver every change twice. The insert
  // is conditional, so two identical requests at once still make one.
  const propertyName = input.propertyName ?? null;
  // A generic type is stored with its object type id (`object.creation/0-46`; event-types.ts says why).
  const key = subscriptionKey(input.eventType, input.objectTypeId);
  const inserted = await db.get<{ id: number } | undefined>(sql`insert into webhook_subscriptions (app_id, event_type, property_name, active, created_at, updated_at)
    select ${appId}, ${key}, ${propertyName}, ${input.active ?? true ? 1 : 0}, ${now}, ${now}
    where not exists (select 1 from webhook_subscriptions where app_id = ${appId} and event_type = ${key} and property_name is ${propertyName})
    returning id`);
  if (!inserted) {
    const same = await db
      .select({ id: webhookSubscriptions.id })
      .from(webhookSubscriptions)
      .where(and(eq(webhookSubscriptions.appId, appId), eq(webhookSubscriptions.eventType, key), propertyName === null ? isNull(webhookSubscriptions.propertyName) : eq(webhookSubscriptions.propertyName, propertyName)))
      .get();
    const generic = input.objectTypeId ? `${input.eventType} of ${input.objectTypeId} (${GENERIC_TYPE_IDS.get(input.objectTypeId) ?? "a custom object type"})` : null;
    const what = generic ? `${generic}${propertyName === null ? "" : ` and property ${propertyName}`}` : propertyName === null ? input.eventType : `${input.eventType} of ${propertyName}`;
    throw conflict(`A subscription to ${what} already exists (id ${same?.id ?? "unknown"}): each event type and property can be subscribed to once.`);
  }
  return (await db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, inserted.id)).get())!;
}

export async function setActive(db: Db, appId: number, id: number, active: boolean, now: number): Promise<SubscriptionRow> {
  const row = await db
    .update(webhookSubscriptions)
    .set({ active, updatedAt: now })
    .where(and(eq(webhookSubscriptions.id, id), eq(webhookSubscriptions.appId, appId)))
    .returning()
    .get();
  if (!row) throw notFound(`Subscription ${id} not found`);
  return row;
}

export async function deleteSubscription(db: Db, appId: number, id: number): Promise<void> {
  const res = await db.delete(webhookSubscriptions).where(and(eq(webhookSubscriptions.id, id), eq(webhookSubscriptions.appId, appId))).run();
  if (!res.meta.changes) throw notFound(`Subscription ${id} not found`);
}

export function presentSubscription(row: SubscriptionRow) {
  const { eventType, objectTypeId } = parseSubscriptionKey(row.eventType);
  return {
    id: String(row.id),
    eventType,
    ...(objectTypeId ? { objectTypeId } : {}),
    ...(row.propertyName !== null ? { propertyName: row.propertyName } : {}),
    active: row.active,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}
