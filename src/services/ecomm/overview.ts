/**
 * @module The store overview of the web app (docs/reference/web.md): per store of an account, how many
 * records of each object type the bridge keeps in sync, and its open sync errors with their details.
 * Four reads in one db.batch; the error list is bounded per store, the count of open errors is not.
 */
import { and, asc, desc, eq, getTableColumns, isNotNull, lte, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { ECOMM_OBJECT_TYPES, ecommLinks, ecommStores, ecommSyncErrors, type EcommObjectType } from "../../db/tables/ecomm";
import { presentError } from "./status";
import { recentRecords, type SyncedRecord } from "./store-records";
import { presentStore } from "./stores";

/** Open errors listed per store, newest first; the rest are counted and reachable through the errors API. */
export const ERRORS_PER_STORE = 20;

export interface StoreOverview {
  store: ReturnType<typeof presentStore> & { createdAt: number };
  counts: Record<EcommObjectType, number>;
  openErrors: number;
  errors: (ReturnType<typeof presentError> & { serviceId: number | null })[];
  /** The store's most recently linked records, with their CRM records (store-records.ts). */
  recent: SyncedRecord[];
}

export async function storeOverview(db: Db, portalId: number): Promise<StoreOverview[]> {
  // The newest open errors of each store: numbered per store, newest first (rowid breaks ties like the errors API).
  const e = ecommSyncErrors;
  const ranked = db
    .select({
      ...getTableColumns(e),
      n: sql<number>`row_number() over (partition by ${e.storeId} order by ${e.erroredAt} desc, ${e}.rowid desc)`.as("n"),
      // The object's CRM record, for a link from the error; a lookup in the links' unique index.
      // Columns are qualified by hand: drizzle leaves a lone table's columns unqualified, which `l` would capture.
      serviceId: sql<number | null>`(select l.service_id from ${ecommLinks} l where l.portal_id = ${e}.portal_id and l.store_id = ${e}.store_id and l.object_type = ${e}.object_type and l.external_id = ${e}.external_id)`.as("service_id"),
    })
    .from(e)
    .where(and(eq(e.portalId, portalId), eq(e.status, "OPEN")))
    .as("ranked");
  const [stores, counts, errorCounts, errors] = await db.batch([
    db.select().from(ecommStores).where(eq(ecommStores.portalId, portalId)).orderBy(asc(ecommStores.storeId)),
    // Records linked and not deleted: what the store currently syncs (a DELETE stops syncing, the record stays).
    db
      .select({ storeId: ecommLinks.storeId, objectType: ecommLinks.objectType, n: sql<number>`count(*)` })
      .from(ecommLinks)
      .where(and(eq(ecommLinks.portalId, portalId), eq(ecommLinks.deleted, false), isNotNull(ecommLinks.serviceId)))
      .groupBy(ecommLinks.storeId, ecommLinks.objectType),
    db
      .select({ storeId: ecommSyncErrors.storeId, n: sql<number>`count(*)` })
      .from(ecommSyncErrors)
      .where(and(eq(ecommSyncErrors.portalId, portalId), eq(ecommSyncErrors.status, "OPEN")))
      .groupBy(ecommSyncErrors.storeId),
    db
      .select()
      .from(ranked)
      .where(lte(ranked.n, ERRORS_PER_STORE))
      .orderBy(asc(ranked.storeId), desc(ranked.erroredAt), asc(ranked.n)),
  ]);
  const recent = await recentRecords(db, portalId, stores.map((s) => s.storeId));
  return stores.map((s) => {
    const perType = Object.fromEntries(ECOMM_OBJECT_TYPES.map((t) => [t, 0])) as Record<EcommObjectType, number>;
    for (const c of counts) if (c.storeId === s.storeId) perType[c.objectType] = c.n;
    return {
      store: { ...presentStore(s), createdAt: s.createdAt },
      counts: perType,
      openErrors: errorCounts.find((e) => e.storeId === s.storeId)?.n ?? 0,
      errors: errors.filter((e) => e.storeId === s.storeId).map((e) => ({ ...presentError(e), serviceId: e.serviceId })),
      recent: recent.get(s.storeId) ?? [],
    };
  });
}
