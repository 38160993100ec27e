/**
 * @module Ecommerce bridge tables (docs/reference/ecomm.md). Settings, stores, the per-account ecommerce
 * pipeline, the link of each synced external object to its CRM record (with the last-write-wins watermark
 * the D1 writes are guarded by), the latest sync error per object, and import-webhook outcomes.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const ECOMM_OBJECT_TYPES = ["CONTACT", "PRODUCT", "DEAL", "LINE_ITEM"] as const;
export type EcommObjectType = (typeof ECOMM_OBJECT_TYPES)[number];

export const DATA_TYPES = ["STRING", "NUMBER", "DATETIME", "AVATAR_IMAGE"] as const;
export type DataType = (typeof DATA_TYPES)[number];

export interface PropertyMapping {
  externalPropertyName: string;
  servicePropertyName: string;
  dataType: DataType;
}
export type Mappings = Partial<Record<EcommObjectType, { properties: PropertyMapping[] }>>;

/**
 * Settings of one owner: an app (`owner_kind = 'app'`, set with the developer key) or one account
 * (`owner_kind = 'portal'`, set with the account's token).
 */
export const ecommSettings = sqliteTable(
  "ecomm_settings",
  {
    ownerKind: text("owner_kind", { enum: ["app", "portal"] }).notNull(),
    ownerId: integer("owner_id").notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull(),
    webhookUri: text("webhook_uri"),
    mappings: text("mappings", { mode: "json" }).$type<Mappings>().notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.ownerKind, t.ownerId] })],
);

/**
 * A store of an account. `generation` changes when a store id is deleted and defined again, so old ordering
 * state is never reused.
 */
export const ecommStores = sqliteTable(
  "ecomm_stores",
  {
    portalId: integer("portal_id").notNull(),
    storeId: text("store_id").notNull(),
    label: text("label").notNull(),
    adminUri: text("admin_uri"),
    /** The OAuth app that created the store (uninstalling the app deletes the store); null for a private app. */
    appId: integer("app_id"),
    generation: text("generation").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.portalId, t.storeId] }), index("ecomm_stores_app").on(t.appId, t.portalId)],
);

/** The ecommerce deal pipeline with its six stages, created with the account's first store. */
export const ecommPipelines = sqliteTable("ecomm_pipelines", {
  portalId: integer("portal_id").primaryKey(),
  pipelineId: text("pipeline_id").notNull(),
  label: text("label").notNull(),
  createdAt: integer("created_at").notNull(),
});

export const ecommPipelineStages = sqliteTable(
  "ecomm_pipeline_stages",
  {
    portalId: integer("portal_id").notNull(),
    stageId: text("stage_id").notNull(),
    label: text("label").notNull(),
    displayOrder: integer("display_order").notNull(),
  },
  (t) => [primaryKey({ columns: [t.portalId, t.stageId] })],
);

/**
 * One row per synced external object (each externalObjectId stays linked to one CRM record): that record
 * and the (changed_at, message_id) of the last message that won last-write-wins. Every sync write is
 * guarded by that pair, so a late commit of an older decision can never overwrite a newer one.
 * `stage` / `stage_entered_at` track deals for the checkout-abandonment sweep (checkout_pending for 24 h).
 */
export const ecommLinks = sqliteTable(
  "ecomm_links",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    portalId: integer("portal_id").notNull(),
    storeId: text("store_id").notNull(),
    objectType: text("object_type", { enum: ECOMM_OBJECT_TYPES }).notNull(),
    externalId: text("external_id").notNull(),
    serviceId: integer("service_id"),
    changedAt: integer("changed_at").notNull(),
    messageId: text("message_id").notNull(),
    /** The last winning message was a DELETE: syncing stopped; the CRM record is kept (a DELETE never removes it). */
    deleted: integer("deleted", { mode: "boolean" }).notNull().default(false),
    /** When the last successful message was applied; null until one is (the status's `lastProcessedAt`). */
    processedAt: integer("processed_at"),
    stage: text("stage"),
    stageEnteredAt: integer("stage_entered_at"),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("ecomm_links_key").on(t.portalId, t.storeId, t.objectType, t.externalId),
    index("ecomm_links_stage").on(t.stage, t.stageEnteredAt).where(sql`${t.stage} is not null`),
  ],
);

export const SYNC_ERROR_STATUSES = ["OPEN", "RESOLVED"] as const;

/** The latest sync error of each object (only the latest is kept); a later success marks it RESOLVED. */
export const ecommSyncErrors = sqliteTable(
  "ecomm_sync_errors",
  {
    portalId: integer("portal_id").notNull(),
    storeId: text("store_id").notNull(),
    objectType: text("object_type", { enum: ECOMM_OBJECT_TYPES }).notNull(),
    externalId: text("external_id").notNull(),
    /** The app whose settings governed the failed message; null for account-level settings. */
    appId: integer("app_id"),
    messageId: text("message_id").notNull(),
    changedAt: integer("changed_at").notNull(),
    erroredAt: integer("errored_at").notNull(),
    type: text("type").notNull(),
    details: text("details").notNull(),
    status: text("status", { enum: SYNC_ERROR_STATUSES }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.portalId, t.storeId, t.objectType, t.externalId] }),
    index("ecomm_sync_errors_portal").on(t.portalId, t.erroredAt),
    index("ecomm_sync_errors_app").on(t.appId, t.erroredAt),
    // Whether a store has open errors at all, in one row read: a sync batch resolves errors only then.
    index("ecomm_sync_errors_open").on(t.portalId, t.storeId).where(sql`${t.status} = 'OPEN'`),
  ],
);

/** Outcome of every import webhook sent (the call to the settings' `webhookUri` that starts an import). */
export const ecommImports = sqliteTable(
  "ecomm_imports",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    portalId: integer("portal_id").notNull(),
    appId: integer("app_id").notNull(),
    storeId: text("store_id").notNull(),
    importStartedAt: integer("import_started_at").notNull(),
    trigger: text("trigger", { enum: ["STORE_CREATED", "REQUESTED"] }).notNull(),
    outcome: text("outcome", { enum: ["DELIVERED", "REJECTED", "FAILED"] }).notNull(),
    httpStatus: integer("http_status"),
    detail: text("detail"),
    /** Record counts per object type the integrator answered with, when it did (the import's expected size). */
    counts: text("counts", { mode: "json" }).$type<Record<string, number>>(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("ecomm_imports_store").on(t.portalId, t.storeId)],
);

/**
 * The end of an import's object type (`POST /imports/end`): the integrator's own page and
 * item counts. Once a type has ended, more pages of it for that import are refused.
 */
export const ecommImportEnds = sqliteTable(
  "ecomm_import_ends",
  {
    portalId: integer("portal_id").notNull(),
    storeId: text("store_id").notNull(),
    importStartedAt: integer("import_started_at").notNull(),
    objectType: text("object_type", { enum: ECOMM_OBJECT_TYPES }).notNull(),
    pageCount: integer("page_count").notNull(),
    itemCount: integer("item_count").notNull(),
    endedAt: integer("ended_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.portalId, t.storeId, t.importStartedAt, t.objectType] })],
);

/**
 * Objects with a queued sync message, so the sync status answers 200 as soon as the sync was accepted,
 * before the queue consumer has applied it (docs/reference/ecomm.md). Written after the queue took the
 * messages; the status reads it only while the object has neither a link nor an error, so a row left after
 * processing is never seen. Removed with its store.
 */
export const ecommPending = sqliteTable(
  "ecomm_pending",
  {
    portalId: integer("portal_id").notNull(),
    storeId: text("store_id").notNull(),
    objectType: text("object_type", { enum: ECOMM_OBJECT_TYPES }).notNull(),
    externalId: text("external_id").notNull(),
    queuedAt: integer("queued_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.portalId, t.storeId, t.objectType, t.externalId] })],
);
