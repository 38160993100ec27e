/**
 * @module Associations v4 (`/crm/v4/objects/{from}/{id}/associations/...`, docs/reference/crm.md "Associations
 * v4"): the same rows v3 writes (`crm_associations`, both directions), read one page at a time.
 */
import { and, asc, eq, gt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { crmAssociations, crmObjects, type ObjectType } from "../../db/tables/crm";
import { associateStatements, dissociateStatements, getObject } from "./records";

export type End = { type: ObjectType; id: number };

/**
 * Associates two records (v3 PUT, v4 create and default): both must be live records of the account (another
 * account's id is a 404, nothing written), then both directions are written in one batch (idempotent).
 */
export async function associateRecords(db: Db, portalId: number, a: End, b: End) {
  await getObject(db, portalId, a.type, a.id);
  await getObject(db, portalId, b.type, b.id);
  await db.batch(associateStatements(db, portalId, a, b));
}

/** Removes both directions of an association; both ends must be live records of the account, as for PUT. */
export async function dissociateRecords(db: Db, portalId: number, a: End, b: End) {
  await getObject(db, portalId, a.type, a.id);
  await getObject(db, portalId, b.type, b.id);
  await db.batch(dissociateStatements(db, portalId, a, b));
}


/** The live records `fromId` is associated with, of one type, in id order after `after`. */
export async function associationPage(db: Db, portalId: number, fromId: number, toType: ObjectType, after: number, limit: number) {
  const rows = await db
    .select({ toId: crmAssociations.toId })
    .from(crmAssociations)
    .innerJoin(crmObjects, and(eq(crmObjects.id, crmAssociations.toId), eq(crmObjects.archived, false)))
    .where(and(eq(crmAssociations.portalId, portalId), eq(crmAssociations.fromId, fromId), eq(crmAssociations.toType, toType), gt(crmAssociations.toId, after)))
    .orderBy(asc(crmAssociations.toId))
    .limit(limit + 1)
    .all();
  return { ids: rows.slice(0, limit).map((r) => r.toId), hasMore: rows.length > limit };
}
