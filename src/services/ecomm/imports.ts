/**
 * @module Import pages and their end (`POST /imports/page`, `POST /imports/end`; imports exist only for
 * OAuth apps). An integrator answers the import webhook (import-webhook.ts) by sending the store's
 * existing records in pages keyed by the webhook's `importStartedAt`, then one end call per object type.
 * Decisions (docs/reference/ecomm.md):
 *   - a page goes through the same validation, queue, consumer and last-write-wins as PUT /sync/messages;
 *   - a message without changedAt is dated `importStartedAt`, not the receive time: an import is a snapshot
 *     taken when it started, so it never overwrites a live sync message sent meanwhile (dated later);
 *   - only an import this app was asked for on this store takes pages, and an object type that has ended
 *     takes no more; re-sending a page is harmless (the same messages reach the same outcome);
 *   - the end records the integrator's page and item counts; ending a type again replaces them.
 */
import { and, eq } from "drizzle-orm";
import type { z } from "zod";
import type { Db } from "../../db/client";
import { ecommImportEnds, ecommImports, type EcommObjectType } from "../../db/tables/ecomm";
import type { importEndBody, importPageBody } from "../../schemas/ecomm";
import { buildQueueMessages, enqueue, fieldError, unknownStore } from "./enqueue";
import { findStore } from "./stores";

interface Caller {
  portalId: number;
  appId: number;
}

/** The import's row and, for `objectType`, when it ended (null while open); 400 when there is no such import. */
async function requireImport(db: Db, c: Caller, body: { storeId: string; importStartedAt: number; objectType: EcommObjectType }) {
  const [row] = await db
    .select({ id: ecommImports.id, endedAt: ecommImportEnds.endedAt })
    .from(ecommImports)
    .leftJoin(
      ecommImportEnds,
      and(
        eq(ecommImportEnds.portalId, ecommImports.portalId),
        eq(ecommImportEnds.storeId, ecommImports.storeId),
        eq(ecommImportEnds.importStartedAt, ecommImports.importStartedAt),
        eq(ecommImportEnds.objectType, body.objectType),
      ),
    )
    .where(
      and(
        eq(ecommImports.portalId, c.portalId),
        eq(ecommImports.appId, c.appId),
        eq(ecommImports.storeId, body.storeId),
        eq(ecommImports.importStartedAt, body.importStartedAt),
      ),
    )
    .limit(1);
  if (!row) throw fieldError("importStartedAt", `this app has no import of store ${body.storeId} started at ${body.importStartedAt}`);
  return row;
}

export async function importPage(db: Db, queue: Queue, c: Caller, body: z.output<typeof importPageBody>, requestId: string, now: number) {
  // Store first: an unknown store is reported as such (a 400 on storeId), like PUT /sync/messages.
  const batch = await buildQueueMessages(db, { ...c, requestId, receivedAt: now, body, defaultChangedAt: body.importStartedAt });
  const imp = await requireImport(db, c, body);
  if (imp.endedAt !== null) throw fieldError("objectType", `the import of ${body.objectType} started at ${body.importStartedAt} has ended`);
  await enqueue(db, queue, batch);
}

export async function importEnd(db: Db, c: Caller, body: z.output<typeof importEndBody>, now: number) {
  if (!(await findStore(db, c.portalId, body.storeId))) throw unknownStore(body.storeId);
  await requireImport(db, c, body);
  const key = { portalId: c.portalId, storeId: body.storeId, importStartedAt: body.importStartedAt, objectType: body.objectType };
  const counts = { pageCount: body.pageCount, itemCount: body.itemCount, endedAt: now };
  await db
    .insert(ecommImportEnds)
    .values({ ...key, ...counts })
    .onConflictDoUpdate({ target: [ecommImportEnds.portalId, ecommImportEnds.storeId, ecommImportEnds.importStartedAt, ecommImportEnds.objectType], set: counts });
}
