/**
 * @module Sync status and sync errors (docs/reference/ecomm.md "Status and errors"). Times go out as
 * strings of epoch ms. The status lists the object's latest error whatever its status (the real service
 * does not clear the errors array after a later success); `numErrors` counts the OPEN ones.
 */
import { and, desc, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rowReader } from "../../db/raw-rows";
import { ecommSyncErrors, type EcommObjectType } from "../../db/tables/ecomm";
import { notFound } from "../../lib/errors";
import type { ErrorsQuery } from "../../schemas/ecomm";

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

const errorRows = rowReader(ecommSyncErrors);

/**
 * The status's one statement, written once (drizzle rebuilds a select's SQL text on every call, see
 * src/db/raw-rows.ts): the store check and the object's link, error and pending entry as scalar
 * subqueries of one row. Each is at most one row: the link's key is unique, the error's is its primary
 * key (one latest error per object), the pending entry's too. One statement instead of a batch of four
 * saves D1 three statements' overhead (about 0.05-0.08 ms a read in the local D1).
 */
const KEY = "portal_id = ?1 and store_id = ?2 and object_type = ?3 and external_id = ?4";
const STATUS_READ = `select
    (select 1 from ecomm_stores where portal_id = ?1 and store_id = ?2) as store,
    (select json_array(service_id, processed_at) from ecomm_links where ${KEY}) as link,
    (select ${errorRows.jsonObject("e")} from ecomm_sync_errors e where ${KEY}) as error,
    (select 1 from ecomm_pending where ${KEY}) as pending`;

type StatusRow = [store: number | null, link: string | null, error: string | null, pending: number | null];

/**
 * One round trip, one statement (STATUS_READ). A missing store is still a 404, as a separate store check
 * would answer; nothing needs its row before the others.
 */
export async function syncStatus(db: Db, portalId: number, storeId: string, objectType: EcommObjectType, externalId: string) {
  const [row] = await db.$client.prepare(STATUS_READ).bind(portalId, storeId, objectType, externalId).raw<StatusRow>();
  const [store, linkJson, errorJson, pending] = row ?? [null, null, null, null];
  if (store === null) throw notFound(`Store ${storeId} not found`); // as requireStore (stores.ts) words it
  const linkCols = linkJson === null ? undefined : (JSON.parse(linkJson) as [number | null, number | null]);
  const link = linkCols && { serviceId: linkCols[0], processedAt: linkCols[1] };
  const errors = errorJson === null ? [] : [errorRows.fromJson(JSON.parse(errorJson) as Record<string, unknown>)];
  // Queued and not processed yet: a status with nothing processed (enqueue.ts), not a 404.
  if (!link && !errors.length && pending === null) {
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

/** Newest first; `page` is a 1-based record offset and `paging` appears only when more exist, as in the real service. */
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
