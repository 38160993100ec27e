/**
 * @module The synced records of a store as the web app shows them (docs/reference/web.md): each
 * external object the bridge links (one CRM record per externalObjectId) with its CRM record, so the store
 * overview and the store page link to the records. Reads walk the `ecomm_links_key` index
 * (portal, store, type, external id) or the primary key; pages are bounded.
 */
import { and, asc, desc, eq, gt, isNotNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { crmObjects } from "../../db/tables/crm";
import { ECOMM_OBJECT_TYPES, ecommLinks, type EcommObjectType } from "../../db/tables/ecomm";
import type { CrmRow } from "../crm/records";

/** Synced records per page of the store page. */
export const STORE_RECORDS_PAGE = 25;
/** The most recently linked records the overview lists per store. */
export const RECENT_PER_STORE = 10;

export interface SyncedRecord {
  objectType: EcommObjectType;
  externalId: string;
  /** The CRM record, when one exists and is not archived. */
  record: CrmRow | null;
  /** The last winning message was a DELETE: syncing stopped, the record is kept. */
  deleted: boolean;
  changedAt: number;
  processedAt: number | null;
}

const linkColumns = {
  objectType: ecommLinks.objectType,
  externalId: ecommLinks.externalId,
  deleted: ecommLinks.deleted,
  changedAt: ecommLinks.changedAt,
  processedAt: ecommLinks.processedAt,
  record: crmObjects,
};

/** Links joined to their CRM record of the same account (a link's service id is always the account's own). */
function linksWithRecords(db: Db) {
  return db
    .select(linkColumns)
    .from(ecommLinks)
    .leftJoin(crmObjects, and(eq(crmObjects.id, ecommLinks.serviceId), eq(crmObjects.portalId, ecommLinks.portalId), eq(crmObjects.archived, false)));
}

type JoinedRow = Omit<SyncedRecord, "record"> & { record: CrmRow | null };

/** A left join without a record: no record (also when a driver answers it as a record of nulls). */
const normalise = (r: JoinedRow): SyncedRecord => ({ ...r, record: r.record && r.record.id !== null && r.record.properties !== null ? r.record : null });

/**
 * The newest links of each store (by link id: the order objects were first synced), one query per store
 * (stores per account are few). Not a db.batch: D1's batch answers rows as objects keyed by column name,
 * which a join of two tables with the same column names would garble.
 */
export async function recentRecords(db: Db, portalId: number, storeIds: string[]): Promise<Map<string, SyncedRecord[]>> {
  const results = await Promise.all(
    storeIds.map((storeId) =>
      linksWithRecords(db)
        .where(and(eq(ecommLinks.portalId, portalId), eq(ecommLinks.storeId, storeId)))
        .orderBy(desc(ecommLinks.id))
        .limit(RECENT_PER_STORE)
        .all(),
    ),
  );
  return new Map(storeIds.map((id, i) => [id, (results[i] ?? []).map(normalise)]));
}

/** One page of a store's links of one type in external-id order (the unique index), `after` exclusive. */
export async function storeRecordsPage(db: Db, portalId: number, storeId: string, objectType: EcommObjectType, after: string | undefined) {
  const rows = await linksWithRecords(db)
    .where(
      and(
        eq(ecommLinks.portalId, portalId),
        eq(ecommLinks.storeId, storeId),
        eq(ecommLinks.objectType, objectType),
        after === undefined ? undefined : gt(ecommLinks.externalId, after),
      ),
    )
    .orderBy(asc(ecommLinks.externalId))
    .limit(STORE_RECORDS_PAGE + 1)
    .all();
  return { rows: rows.slice(0, STORE_RECORDS_PAGE).map(normalise), hasMore: rows.length > STORE_RECORDS_PAGE };
}

/** Linked, not deleted records of one store per type (as the overview counts them), through the links' unique index. */
export async function storeCounts(db: Db, portalId: number, storeId: string): Promise<Record<EcommObjectType, number>> {
  const rows = await db
    .select({ objectType: ecommLinks.objectType, n: sql<number>`count(*)` })
    .from(ecommLinks)
    .where(and(eq(ecommLinks.portalId, portalId), eq(ecommLinks.storeId, storeId), eq(ecommLinks.deleted, false), isNotNull(ecommLinks.serviceId)))
    .groupBy(ecommLinks.objectType)
    .all();
  const counts = Object.fromEntries(ECOMM_OBJECT_TYPES.map((t) => [t, 0])) as Record<EcommObjectType, number>;
  for (const r of rows) counts[r.objectType] = r.n;
  return counts;
}
