/**
 * @module Sync status and sync errors (spec 2.5; reference §3.5, §3.6). Times go out as strings of epoch
 * ms (spec 2.5). The status lists the object's latest error whatever its status (the errors array is not
 * cleared by a later success, reference §10 #11); `numErrors` counts the OPEN ones.
 */
import { and, desc, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rowReader } from "../../db/raw-rows";
import { ecommSyncErrors, type EcommObjectType } from "../../db/tables/ecomm";
import { notFound } from "../../lib/errors";
import type { ErrorsQuery } from "../../routes/ecomm.schemas";

type ErrorRow = typeof ecommSyncErrors.$inferSelect;

export const presentError = (e: ErrorRow) => ({
  portalId: e.portalId,
  storeId: e.storeId,
  objectType: e.objectType,
  externalObjectId: e.externalId,
  changedAt: String(e.changedAt),
  erroredAt: String(e.erroredAt),
  type: e.type,
  details: e.details,
  status: e.status,
});

// The status's SQL, written once: drizzle rebuilds a select's SQL text on every call (src/db/raw-rows.ts).
const KEY = "portal_id = ?1 and store_id = ?2 and object_type = ?3 and external_id = ?4";
const STATUS_READS = [
  "select store_id from ecomm_stores where portal_id = ?1 and store_id = ?2",
  `select service_id, processed_at from ecomm_links where ${KEY}`,
  `select * from ecomm_sync_errors where ${KEY}`,
  `select queued_at from ecomm_pending where ${KEY}`,
] as const;
const errorRows = rowReader(ecommSyncErrors);

/**
 * One round trip: the store check and the object's link, errors and pending entry in one db.batch (the
 * store's absence is the 404 it was when checked first; its rows were not needed before the others).
 */
export async function syncStatus(db: Db, portalId: number, storeId: string, objectType: EcommObjectType, externalId: string) {
  const [store, links, errorRowsRaw, pending] = await db.$client.batch<Record<string, unknown>>(
    STATUS_READS.map((q, i) => db.$client.prepare(q).bind(...(i === 0 ? [portalId, storeId] : [portalId, storeId, objectType, externalId]))),
  ).then((answers) => answers.map((a) => a.results));
  if (!store?.length) throw notFound(`Store ${storeId} not found`); // as requireStore (stores.ts) words it
  const linkRow = links?.[0] as { service_id: number | null; processed_at: number | null } | undefined;
  const link = linkRow && { serviceId: linkRow.service_id, processedAt: linkRow.processed_at };
  const errors = (errorRowsRaw ?? []).map((r) => errorRows.fromRaw(r));
  // Queued and not processed yet: a status with nothing processed (enqueue.ts), not a 404.
  if (!link && !errors.length && !pending?.length) {
    throw notFound(`No sync status for ${objectType} ${externalId} in store ${storeId}: no sync message for it was accepted`);
  }
  return {
    storeId,
    objectType,
    externalObjectId: externalId,
    serviceId: link?.serviceId ?? null,
    lastProcessedAt: link?.processedAt != null ? String(link.processedAt) : null,
    errors: errors.map(presentError),
    numErrors: errors.filter((e) => e.status === "OPEN").length,
  };
}

/** The account's errors, the app's, or (OAuth `GET /sync/errors`) the app's in one account. */
export type ErrorScope = { portalId: number; appId?: number } | { appId: number };

/** Newest first; `page` is a 1-based record offset and `paging` appears only when more exist (reference §3.6). */
export async function listErrors(db: Db, scope: ErrorScope, q: ErrorsQuery, url: URL) {
  const filters: (SQL | undefined)[] = [
    "portalId" in scope ? eq(ecommSyncErrors.portalId, scope.portalId) : undefined,
    scope.appId !== undefined ? eq(ecommSyncErrors.appId, scope.appId) : undefined,
    q.includeResolved ? undefined : eq(ecommSyncErrors.status, "OPEN"),
    q.objectType ? eq(ecommSyncErrors.objectType, q.objectType) : undefined,
    q.errorType ? eq(ecommSyncErrors.type, q.errorType) : undefined,
  ];
  const rows = await db
    .select()
    .from(ecommSyncErrors)
    .where(and(...filters))
    // rowid breaks ties and is part of both indexes, so the listing walks the index without sorting.
    .orderBy(desc(ecommSyncErrors.erroredAt), sql`${ecommSyncErrors}.rowid desc`)
    .limit(q.limit + 1)
    .offset(q.page - 1)
    .all();
  const body: { results: ReturnType<typeof presentError>[]; paging?: { next: { page: string; link: string } } } = {
    results: rows.slice(0, q.limit).map(presentError),
  };
  if (rows.length > q.limit) {
    const next = String(q.page + q.limit);
    const link = new URL(url);
    link.searchParams.set("page", next);
    link.searchParams.delete("hapikey"); // never echo a credential
    body.paging = { next: { page: next, link: link.toString() } };
  }
  return body;
}
