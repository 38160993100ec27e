/**
 * @module App webhooks (docs/reference/webhooks.md). Settings, subscriptions and throttling leases belong to an
 * app and live in the control plane; the outbox belongs to an account and lives on its shard, so a change and
 * its pending events are written in one D1 batch there (nothing lost between a change and its event). The
 * delivery log is the app's to read but is stored with the account whose events a delivery carries (one
 * account per delivery): on its shard, or on its companion shard (src/db/account-tables.ts).
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** One per app: where its events go and how many deliveries may be in flight at once. */
export const webhookSettings = sqliteTable("webhook_settings", {
  appId: integer("app_id").primaryKey(),
  targetUrl: text("target_url").notNull(),
  maxConcurrentRequests: integer("max_concurrent_requests").notNull(),
  period: text("period"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

export const webhookSubscriptions = sqliteTable(
  "webhook_subscriptions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    appId: integer("app_id").notNull(),
    /** e.g. `contact.propertyChange` (src/schemas/webhooks/event-types.ts). */
    eventType: text("event_type").notNull(),
    propertyName: text("property_name"),
    active: integer("active", { mode: "boolean" }).notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("webhook_subscriptions_app").on(t.appId, t.active)],
);

/**
 * Pending events of an account (the outbox), on the account's shard. `id` is the event's `eventId`
 * (from the shard's own id counter, src/db/id-ranges.ts, so unique across shards and kept by a move). A drain claims rows
 * (`claimed_at`) and sends them to the webhook queue, whose consumer deletes them; a claim older than five
 * minutes is taken again, so a crash between claim and send only delays the events.
 */
export const webhookOutbox = sqliteTable(
  "webhook_outbox",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    portalId: integer("portal_id").notNull(),
    appId: integer("app_id").notNull(),
    subscriptionId: integer("subscription_id").notNull(),
    subscriptionType: text("subscription_type").notNull(),
    objectId: integer("object_id").notNull(),
    occurredAt: integer("occurred_at").notNull(),
    changeSource: text("change_source").notNull(),
    /** JSON of the type's own fields: propertyName/propertyValue, or primaryObjectId/mergedObjectIds. */
    extra: text("extra"),
    claimedAt: integer("claimed_at"),
  },
  (t) => [index("webhook_outbox_claim").on(t.claimedAt, t.id)],
);

export const DELIVERY_STATUSES = ["pending", "delivered", "retrying", "exhausted", "dropped", "held"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * The delivery log: one row per POST batch (up to 100 events of one app and one account), with its attempts
 * below. An account table: `id` comes from the database's own id counter (src/db/id-ranges.ts), so it is
 * unique across databases and kept by a move. `portal_id` is null only on rows written in the control plane
 * before the log moved to the accounts' databases (deliveries then mixed accounts): they stay there, read as
 * part of the app's log.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    appId: integer("app_id").notNull(),
    portalId: integer("portal_id"),
    /**
     * The events without `attemptNumber` (JSON array), so a re-send carries the same eventIds. A delivery
     * delivered on its first attempt is never re-sent: it keeps `[{eventId, portalId}]` only.
     */
    events: text("events").notNull(),
    eventCount: integer("event_count").notNull(),
    status: text("status", { enum: DELIVERY_STATUSES }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /**
     * A retrying delivery of test accounts whose clock was moved: when its next attempt is due by their clock
     * (src/services/testkit/clock.ts), so moving it past sends the retry at once. Null otherwise.
     */
    retryAt: integer("retry_at"),
  },
  (t) => [
    index("webhook_deliveries_app").on(t.appId, t.id),
    // The app's log, newest first on each database (src/services/webhooks/reads.ts): ids of rows moved in from
    // other databases' ranges are not in creation order, so the listing orders by time.
    index("webhook_deliveries_app_created").on(t.appId, t.createdAt, t.id),
    index("webhook_deliveries_portal").on(t.portalId, t.id),
    index("webhook_deliveries_retry_at").on(t.retryAt).where(sql`retry_at is not null`),
  ],
);

export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    deliveryId: integer("delivery_id").notNull(),
    /** The delivery's account (null on the control plane's older rows, as their delivery's). */
    portalId: integer("portal_id"),
    attemptNumber: integer("attempt_number").notNull(),
    /** The receiver's HTTP status; null when none came (connection error, timeout, blocked URL). */
    statusCode: integer("status_code"),
    durationMs: integer("duration_ms").notNull(),
    error: text("error"),
    at: integer("at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.deliveryId, t.attemptNumber] }), index("webhook_attempts_portal").on(t.portalId)],
);

/** Deliveries in flight per app (throttling): a lease row per POST, expiring on its own after a crash. */
export const webhookInflight = sqliteTable(
  "webhook_inflight",
  {
    appId: integer("app_id").notNull(),
    leaseId: text("lease_id").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.appId, t.leaseId] })],
);
