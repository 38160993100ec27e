/**
 * @module The legacy engagements v1 API over the one CRM store (docs/reference/engagements.md): an
 * engagement is a v3 activity row (notes, tasks, calls, meetings, emails, and read-only communications and
 * postal mail), written through the CRM record services and read by id, in id order, newest-modified first
 * or by the record it is associated with. Every query is scoped by portalId: another account's id is not
 * found.
 */
import { and, asc, desc, eq, gt, gte, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { ACTIVITY_TYPES, crmAssociations, crmObjects, type ActivityType } from "../../db/tables/crm";
import { ApiError, badRequest, notFound, type ErrorDetail } from "../../lib/errors";
import { validate } from "../../lib/http";
import { z } from "zod";
import { metadataSchema, type RecordType, type WritableType } from "../../schemas/engagements";
import { associateRecords, dissociateRecords } from "../crm/associations";
import * as crm from "../crm/records";
import { checkValues, type ValueSource } from "../crm/values";
import type { OutboxSource } from "../webhooks/events";
import { storedType, toProperties, v1FieldOf, v1TypeOf, type EngagementWrite } from "./mapping";

/** The record types an engagement is associated with in v1 (`contactIds`, `companyIds`, `dealIds`, `ticketIds`). */
export const ASSOCIATED_TYPES = ["contacts", "companies", "deals", "tickets"] as const satisfies readonly RecordType[];

/** The types a v1 write may not touch: they have no v1 type to write (src/schemas/engagements.ts). */
const READ_ONLY: readonly ActivityType[] = ["communications", "postal_mail"];

export type Associations = Partial<Record<RecordType, number[]>>;
export interface Engagement {
  row: crm.CrmRow;
  associations: Associations;
}

const live = (portalId: number) => and(eq(crmObjects.portalId, portalId), inArray(crmObjects.objectType, [...ACTIVITY_TYPES]), eq(crmObjects.archived, false));

const engagementNotFound = (id: number) => notFound(`Engagement ${id} does not exist`);

/** The rows with their v1 associations (one more query, whatever the count). */
async function withAssociations(db: Db, portalId: number, rows: crm.CrmRow[]): Promise<Engagement[]> {
  const assoc = await crm.associationsOf(db, portalId, rows.map((r) => r.id), [...ASSOCIATED_TYPES]);
  return rows.map((row) => ({ row, associations: (assoc.get(row.id) ?? {}) as Associations }));
}

/** A live engagement of the account; 404 when the id is not one (another account's, archived, not an activity). */
export async function findEngagement(db: Db, portalId: number, id: number): Promise<crm.CrmRow> {
  const row = await db.select().from(crmObjects).where(and(eq(crmObjects.id, id), live(portalId))).get();
  if (!row) throw engagementNotFound(id);
  return row;
}

export async function getEngagement(db: Db, portalId: number, id: number): Promise<Engagement> {
  const [one] = await withAssociations(db, portalId, [await findEngagement(db, portalId, id)]);
  return one!;
}

/** Every engagement in id order after `offset` (the last id of the previous page). */
export async function engagementPage(db: Db, portalId: number, offset: number, limit: number) {
  const rows = await db.select().from(crmObjects).where(and(live(portalId), gt(crmObjects.id, offset))).orderBy(asc(crmObjects.id)).limit(limit + 1).all();
  const shown = rows.slice(0, limit);
  return { results: await withAssociations(db, portalId, shown), hasMore: rows.length > limit, offset: shown.at(-1)?.id ?? offset };
}

/**
 * The engagements most recently modified first, from position `offset` (the real service's recent list
 * pages by position too), modified at or after `since` when given, and how many there are.
 */
export async function recentPage(db: Db, portalId: number, offset: number, count: number, since: number | undefined) {
  const where = and(live(portalId), since === undefined ? undefined : gte(crmObjects.updatedAt, since));
  const [rows, total] = await Promise.all([
    db.select().from(crmObjects).where(where).orderBy(desc(crmObjects.updatedAt), desc(crmObjects.id)).limit(count + 1).offset(offset).all(),
    db.select({ n: sql<number>`count(*)` }).from(crmObjects).where(where).get(),
  ]);
  const shown = rows.slice(0, count);
  return { results: await withAssociations(db, portalId, shown), hasMore: rows.length > count, offset: offset + shown.length, total: total?.n ?? 0 };
}

/** The engagements associated with one live record of the account, in id order after `offset`; 404 when the record is not one. */
export async function associatedPage(db: Db, portalId: number, type: RecordType, recordId: number, offset: number, limit: number) {
  await crm.getObject(db, portalId, type, recordId);
  const rows = await db
    .select({ row: crmObjects })
    .from(crmAssociations)
    .innerJoin(crmObjects, eq(crmObjects.id, crmAssociations.toId))
    .where(
      and(
        eq(crmAssociations.portalId, portalId),
        eq(crmAssociations.fromId, recordId),
        inArray(crmAssociations.toType, [...ACTIVITY_TYPES]),
        gt(crmAssociations.toId, offset),
        live(portalId),
      ),
    )
    .orderBy(asc(crmAssociations.toId))
    .limit(limit + 1)
    .all();
  const shown = rows.slice(0, limit).map((r) => r.row);
  return { results: await withAssociations(db, portalId, shown), hasMore: rows.length > limit, offset: shown.at(-1)?.id ?? offset };
}

/** The metadata of a write on `type`, checked field by field; a 400 names each bad one as `metadata.<field>`. */
function checkedMetadata(type: ActivityType, metadata: Record<string, unknown> | undefined): Record<string, unknown> {
  return validate(z.object({ metadata: metadataSchema(type) }), { metadata: metadata ?? {} }, "body").metadata as Record<string, unknown>;
}

/**
 * The v3 value checks (fixed options, owners, ...) over the properties a write makes, with their errors
 * naming the v1 fields the properties came from (`metadata.status`, not `properties.hs_task_status`).
 */
async function checkedValues(src: ValueSource, portalId: number, type: ActivityType, properties: Record<string, string>, id?: number) {
  try {
    await checkValues(src, portalId, type, [{ properties, at: "", id }]);
  } catch (err) {
    if (!(err instanceof ApiError) || !err.init.errors) throw err;
    const rename = (name: string) => {
      const property = name.replace(/^properties\./, "");
      return v1FieldOf(type, property) ?? name;
    };
    const errors: ErrorDetail[] = err.init.errors.map((e) => {
      const names = (e.context?.propertyName as string[] | undefined) ?? [];
      let message = e.message;
      for (const n of names) message = message.replaceAll(n.replace(/^properties\./, ""), rename(n));
      return { ...e, message, context: { ...e.context, propertyName: names.map(rename) } };
    });
    const fields = [...new Set(errors.flatMap((e) => (e.context?.propertyName as string[]) ?? []))];
    throw badRequest(`Engagement values were not valid: ${fields.join(", ")}`, { errors });
  }
}

/** The records a create associates with, each a live record of the account; a 400 names each missing one. */
async function associationTargets(db: Db, portalId: number, input: Associations) {
  const targets: { type: RecordType; id: number }[] = [];
  const errors: ErrorDetail[] = [];
  const field: Record<RecordType, string> = { contacts: "contactIds", companies: "companyIds", deals: "dealIds", tickets: "ticketIds" };
  for (const type of ASSOCIATED_TYPES) {
    const ids = input[type] ?? [];
    if (!ids.length) continue;
    const found = await crm.existingIds(db, portalId, type, ids);
    ids.forEach((id, i) => {
      if (found.has(id)) targets.push({ type, id });
      else errors.push({ message: `No ${type} with id ${id} in this account to associate with`, code: "INVALID_ASSOCIATION", in: "body", context: { propertyName: [`associations.${field[type]}.${i}`] } });
    });
  }
  if (errors.length) throw badRequest(`Associations were not valid: ${errors.map((e) => (e.context!.propertyName as string[])[0]).join(", ")}`, { errors });
  const unique = new Map(targets.map((t) => [`${t.type}:${t.id}`, t]));
  return [...unique.values()];
}

export interface WriteDeps extends ValueSource {
  now: number;
}

/** Creates the engagement: the v3 activity of its type, with its associations, in one batch. */
export async function createEngagement(d: WriteDeps, portalId: number, write: EngagementWrite & { type: WritableType }, associations: Associations, outbox?: OutboxSource) {
  const type = storedType(write.type);
  const metadata = checkedMetadata(type, write.metadata);
  // The real v1 API makes `timestamp` optional (the time of the create); v3 requires hs_timestamp.
  const properties = toProperties(type, { ...write, metadata, timestamp: write.timestamp ?? d.now });
  await checkedValues(d, portalId, type, properties);
  const targets = await associationTargets(d.db, portalId, associations);
  const row = await crm.createObject(d.db, portalId, type, properties, d.now, targets, outbox);
  return { row, associations: Object.fromEntries(ASSOCIATED_TYPES.map((t) => [t, targets.filter((x) => x.type === t).map((x) => x.id).sort((a, b) => a - b)])) as Associations };
}

/** The row a v1 write may change: a live engagement of a type v1 writes. */
async function writable(db: Db, portalId: number, id: number) {
  const row = await findEngagement(db, portalId, id);
  if (READ_ONLY.includes(row.objectType as ActivityType)) {
    throw badRequest(`Engagement ${id} is of type ${v1TypeOf(row)}, which the v1 API does not edit; use /crm/v3/objects/${row.objectType}`, {
      errors: [{ message: "this engagement type cannot be edited through v1", code: "INVALID_TYPE", in: "path", context: { propertyName: ["engagementId"] } }],
    });
  }
  return row;
}

/**
 * Updates what the write gives (a partial update) and answers the row. The type cannot change to another
 * activity type (a note does not become a call); between the three email types it can.
 */
export async function updateEngagement(d: WriteDeps, portalId: number, id: number, write: EngagementWrite, outbox?: OutboxSource) {
  const current = await writable(d.db, portalId, id);
  const type = current.objectType as ActivityType;
  if (write.type && storedType(write.type) !== type) {
    throw badRequest(`engagement.type: engagement ${id} is a ${v1TypeOf(current)}; its type cannot change to ${write.type}`, {
      errors: [{ message: `engagement.type: cannot change a ${v1TypeOf(current)} to ${write.type}`, code: "INVALID_TYPE", in: "body", context: { propertyName: ["engagement.type"] } }],
    });
  }
  const metadata = checkedMetadata(type, write.metadata);
  const properties = toProperties(type, { ...write, metadata }, current.properties);
  await checkedValues(d, portalId, type, properties, id);
  return crm.updateObject(d.db, portalId, type, id, properties, d.now, outbox);
}

/** Archives the engagement, as the v3 archive does (it leaves every read). */
export async function deleteEngagement(d: WriteDeps, portalId: number, id: number, outbox?: OutboxSource) {
  const row = await findEngagement(d.db, portalId, id);
  await crm.archiveObject(d.db, portalId, row.objectType, id, d.now, outbox);
}

/** Associates the engagement with a live record of the account (both directions, idempotent); 404 when either is not one. */
export async function associateEngagement(db: Db, portalId: number, id: number, type: RecordType, recordId: number, outbox?: OutboxSource) {
  const row = await findEngagement(db, portalId, id);
  await associateRecords(db, portalId, { type: row.objectType, id }, { type, id: recordId }, outbox);
}

export async function dissociateEngagement(db: Db, portalId: number, id: number, type: RecordType, recordId: number, outbox?: OutboxSource) {
  const row = await findEngagement(db, portalId, id);
  await dissociateRecords(db, portalId, { type: row.objectType, id }, { type, id: recordId }, outbox);
}
