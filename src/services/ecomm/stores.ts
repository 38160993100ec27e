/**
 * @module Stores (docs/reference/ecomm.md "Stores"). The first store of an account performs the setup,
 * the ecommerce deal pipeline with its six stages, in the same db.batch as the store itself: if any step
 * fails, nothing is created, not even the store. Deleting a store (or uninstalling the app that created it) removes its
 * sync state; the CRM records it synced stay, they are CRM data.
 */
import { and, asc, eq, inArray, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { ecommImportEnds, ecommImports, ecommLinks, ecommPending, ecommPipelines, ecommPipelineStages, ecommStores, ecommSyncErrors } from "../../db/tables/ecomm";
import { notFound } from "../../lib/errors";
import { PIPELINE_ID, PIPELINE_LABEL, PIPELINE_STAGES } from "./model";

export type StoreRow = typeof ecommStores.$inferSelect;

export interface StoreInput {
  id: string;
  label: string;
  adminUri?: string | null;
}

export const presentStore = (row: StoreRow) => ({
  id: row.storeId,
  label: row.label,
  ...(row.adminUri ? { adminUri: row.adminUri } : {}),
});

export const findStore = (db: Db, portalId: number, storeId: string) =>
  db
    .select()
    .from(ecommStores)
    .where(and(eq(ecommStores.portalId, portalId), eq(ecommStores.storeId, storeId)))
    .get();

export async function requireStore(db: Db, portalId: number, storeId: string): Promise<StoreRow> {
  const row = await findStore(db, portalId, storeId);
  if (!row) throw notFound(`Store ${storeId} not found`);
  return row;
}

export const listStores = (db: Db, portalId: number) =>
  db.select().from(ecommStores).where(eq(ecommStores.portalId, portalId)).orderBy(asc(ecommStores.storeId)).all();

/** The setup of an account's first store: the ecommerce pipeline and its six stages. */
export function pipelineSetupStatements(db: Db, portalId: number, now: number) {
  return [
    db.insert(ecommPipelines).values({ portalId, pipelineId: PIPELINE_ID, label: PIPELINE_LABEL, createdAt: now }),
    db
      .insert(ecommPipelineStages)
      .values(PIPELINE_STAGES.map((s, i) => ({ portalId, stageId: s.stageId, label: s.label, displayOrder: i }))),
  ] as const;
}

const hasPipeline = async (db: Db, portalId: number) =>
  !!(await db.select({ id: ecommPipelines.portalId }).from(ecommPipelines).where(eq(ecommPipelines.portalId, portalId)).get());

/**
 * Creates or updates a store. `created` is true when the id was new (the import webhook is sent then).
 * The creating app is kept on later updates, whoever makes them.
 */
export async function upsertStore(db: Db, portalId: number, appId: number | null, input: StoreInput, now: number) {
  const existing = await findStore(db, portalId, input.id);
  const upsert = db
    .insert(ecommStores)
    .values({
      portalId,
      storeId: input.id,
      label: input.label,
      adminUri: input.adminUri ?? null,
      appId,
      generation: crypto.randomUUID(),
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoUpdate({
      target: [ecommStores.portalId, ecommStores.storeId],
      set: { label: input.label, adminUri: input.adminUri ?? null, updatedAt: now },
    });
  if (existing || (await hasPipeline(db, portalId))) {
    await upsert;
  } else {
    try {
      await db.batch([...pipelineSetupStatements(db, portalId, now), upsert]);
    } catch (err) {
      // A concurrent first store may have set the pipeline up meanwhile: then only the store is missing.
      if (!(await hasPipeline(db, portalId))) throw err;
      await upsert;
    }
  }
  const row = await findStore(db, portalId, input.id);
  if (!row) throw new Error("store vanished after upsert");
  return { store: row, created: !existing };
}

/** Statements removing the sync state of the account's stores that `which` selects, then the stores. */
function storeCleanupStatements(db: Db, portalId: number, which: SQL | undefined): BatchItem<"sqlite">[] {
  const inAccount = and(eq(ecommStores.portalId, portalId), which);
  const storeIds = db.select({ id: ecommStores.storeId }).from(ecommStores).where(inAccount);
  return [
    db.delete(ecommLinks).where(and(eq(ecommLinks.portalId, portalId), inArray(ecommLinks.storeId, storeIds))),
    db.delete(ecommSyncErrors).where(and(eq(ecommSyncErrors.portalId, portalId), inArray(ecommSyncErrors.storeId, storeIds))),
    db.delete(ecommImportEnds).where(and(eq(ecommImportEnds.portalId, portalId), inArray(ecommImportEnds.storeId, storeIds))),
    db.delete(ecommPending).where(and(eq(ecommPending.portalId, portalId), inArray(ecommPending.storeId, storeIds))),
    db.delete(ecommImports).where(and(eq(ecommImports.portalId, portalId), inArray(ecommImports.storeId, storeIds))),
    db.delete(ecommStores).where(inAccount),
  ];
}

export async function deleteStore(db: Db, portalId: number, storeId: string) {
  await requireStore(db, portalId, storeId);
  await db.batch(storeCleanupStatements(db, portalId, eq(ecommStores.storeId, storeId)) as [BatchItem<"sqlite">]);
}

/**
 * Uninstalling an app deletes the stores it created: the statements run in the uninstall's db.batch
 * (an uninstall hook of the accounts family).
 */
export const deleteAppStores = (db: Db, { portalId, appId }: { portalId: number; appId: number }): BatchItem<"sqlite">[] =>
  storeCleanupStatements(db, portalId, eq(ecommStores.appId, appId));
