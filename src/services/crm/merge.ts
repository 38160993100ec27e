/**
 * @module The one merge of two records of the same type, behind both faces: CRM v3
 * `POST /crm/v3/objects/{contacts,companies,deals,tickets}/merge` and the legacy
 * `POST /contacts/v1/contact/merge-vids/{vid}` (src/services/contacts-v1/merge.ts). In ONE `db.batch`:
 * the secondary becomes an archived row whose `merged_into` names the survivor (no read answers it again:
 * it is part of the survivor), the survivor keeps its id and takes the merged properties, and the
 * secondary's associations (every label), activities, list memberships, timeline events and (contacts)
 * visitor tokens move to it. What wins and what moves: docs/reference/crm.md "Merge and GDPR delete".
 * Refusals are values, each face answers them with its own words.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { contactMerges, crmObjects, type ObjectType } from "../../db/tables/crm";
import { timelineEvents, timelineUtks, type TimelineObjectType } from "../../db/tables/timeline";
import { builderStatement as boundStatement, rawStatement, runRawBatch } from "../../db/d1-raw";
import { webhookEventStatements, type OutboxSource } from "../webhooks/events";
import type { CrmRow } from "./records";

/**
 * The survivor lists every record merged into it, semicolon-separated, as the real service's
 * `hs_merged_object_ids` property does; a chain of merges carries the earlier ids on.
 */
export const MERGED_IDS = "hs_merged_object_ids";

/** Why a merge is refused: the primary or the secondary is not a live record of the type here, or both are one. */
export type MergeRefusal = "primary" | "secondary" | "same";
export type MergeResult = { ok: true; row: CrmRow; moved: number } | { ok: false; refused: MergeRefusal };

const TIMELINE_TYPE: Partial<Record<ObjectType, TimelineObjectType>> = { contacts: "CONTACT", companies: "COMPANY", deals: "DEAL" };

const idsOf = (value: string | undefined) => (value ? value.split(";").filter((v) => /^\d+$/.test(v)) : []);

/**
 * The merged properties: the more recently modified record's values win (the real service keeps the newest
 * value of each property; we keep one modification time per record), except the email, which stays the
 * primary's when it has one: the secondary's email becomes a secondary identity of the survivor.
 * `moved` counts the values taken from the secondary (v1 `num-properties-moved`).
 */
export function mergedProperties(primary: CrmRow, secondary: CrmRow) {
  const secondaryWins = secondary.updatedAt > primary.updatedAt;
  const props = { ...primary.properties };
  let moved = 0;
  for (const [k, v] of Object.entries(secondary.properties)) {
    if (k === MERGED_IDS || (k === "email" && primary.properties.email)) continue;
    if (props[k] === undefined || (secondaryWins && props[k] !== v)) {
      props[k] = v;
      moved++;
    }
  }
  const merged = [...new Set([...idsOf(primary.properties[MERGED_IDS]), ...idsOf(secondary.properties[MERGED_IDS]), String(secondary.id)])];
  props[MERGED_IDS] = merged.join(";");
  return { props, moved };
}

const live = (db: Db, portalId: number, type: ObjectType, id: number) =>
  db
    .select()
    .from(crmObjects)
    .where(and(eq(crmObjects.id, id), eq(crmObjects.portalId, portalId), eq(crmObjects.objectType, type), eq(crmObjects.archived, false)))
    .get();

/** Merges `secondaryId` into `primaryId` (both of `type`, live, in the account), or says why not; nothing is written on a refusal. */
export async function mergeRecords(
  db: Db,
  portalId: number,
  type: ObjectType,
  primaryId: number,
  secondaryId: number,
  now: number,
  outbox?: OutboxSource,
  /** Where the account's timeline events live (its companion shard, or `db`). */
  eventsDb: Db = db,
): Promise<MergeResult> {
  const [primary, secondary] = await Promise.all([live(db, portalId, type, primaryId), live(db, portalId, type, secondaryId)]);
  if (!primary) return { ok: false, refused: "primary" };
  if (primaryId === secondaryId) return { ok: false, refused: "same" };
  if (!secondary) return { ok: false, refused: "secondary" };
  const { props, moved } = mergedProperties(primary, secondary);
  const email = type === "contacts" && props.email ? props.email.trim().toLowerCase() : null;
  const P = primary.id;
  const S = secondary.id;
  const builders: { toSQL(): { sql: string; params: unknown[] } }[] = [
    // The secondary leaves the live rows first, so the survivor may take its email (unique index); archiving
    // it also takes it out of every list (trigger crm_objects_leave_lists_archived).
    db.update(crmObjects).set({ archived: true, mergedInto: P, updatedAt: now }).where(and(eq(crmObjects.id, S), eq(crmObjects.portalId, portalId))),
    db.update(crmObjects).set({ properties: props, email, updatedAt: now }).where(and(eq(crmObjects.id, P), eq(crmObjects.portalId, portalId))),
    // Records merged into the secondary earlier now resolve to the survivor too.
    db.update(crmObjects).set({ mergedInto: P }).where(and(eq(crmObjects.portalId, portalId), eq(crmObjects.mergedInto, S))),
  ];
  if (type === "contacts") {
    builders.push(
      db.update(contactMerges).set({ canonicalVid: P }).where(and(eq(contactMerges.portalId, portalId), eq(contactMerges.canonicalVid, S))),
      db.insert(contactMerges).values({
        portalId,
        mergedVid: S,
        canonicalVid: P,
        mergedEmail: secondary.email && secondary.email !== email ? secondary.email : null,
        mergedGuid: secondary.guid,
        mergedCreatedAt: secondary.createdAt,
        survivorEmail: email,
        firstName: props.firstname ?? null,
        propertiesMoved: moved,
        mergedAt: now,
      }),
      db.update(timelineUtks).set({ contactId: P, updatedAt: now }).where(and(eq(timelineUtks.portalId, portalId), eq(timelineUtks.contactId, S))),
    );
  }
  const timelineType = TIMELINE_TYPE[type];
  const moveEvents = timelineType
    ? eventsDb
        .update(timelineEvents)
        .set({ objectId: P, updatedAt: now })
        .where(and(eq(timelineEvents.portalId, portalId), eq(timelineEvents.objectType, timelineType), eq(timelineEvents.objectId, S)))
    : null;
  if (moveEvents && eventsDb === db) builders.push(moveEvents);
  // Events on a companion shard (docs/explanation/scaling.md "Accounts larger than one database") move to the
  // survivor first, in their own statement: if the merge's batch then fails, they show on the survivor until
  // the merge is repeated, which moves nothing more (idempotent), rather than stay on an archived record.
  else if (moveEvents) await moveEvents;
  // List memberships first: the survivor is in every manual or snapshot list the secondary was in, copied
  // before archiving the secondary takes it out of them.
  const lists = sql`insert or ignore into list_memberships (portal_id, list_id, record_id, added_at)
    select portal_id, list_id, ${P}, added_at from list_memberships where portal_id = ${portalId} and record_id = ${S}`;
  const raw = [
    // Associations in both directions (activities are associated records: they move with them), minus one
    // between the two records themselves; then their labels, before the secondary's rows go (deleting an
    // association row deletes its labels through a trigger).
    sql`insert or ignore into crm_associations (portal_id, from_id, to_type, to_id)
      select portal_id, ${P}, to_type, to_id from crm_associations
      where portal_id = ${portalId} and from_id = ${S} and not (to_type = ${type} and to_id = ${P})`,
    sql`insert or ignore into crm_associations (portal_id, from_id, to_type, to_id)
      select portal_id, from_id, ${type}, ${P} from crm_associations
      where portal_id = ${portalId} and to_type = ${type} and to_id = ${S} and from_id <> ${P}`,
    sql`insert or ignore into crm_association_types (portal_id, from_id, to_type, to_id, type_id)
      select portal_id, ${P}, to_type, to_id, type_id from crm_association_types
      where portal_id = ${portalId} and from_id = ${S} and not (to_type = ${type} and to_id = ${P})`,
    sql`insert or ignore into crm_association_types (portal_id, from_id, to_type, to_id, type_id)
      select portal_id, from_id, ${type}, ${P}, type_id from crm_association_types
      where portal_id = ${portalId} and to_type = ${type} and to_id = ${S} and from_id <> ${P}`,
    sql`delete from crm_associations where portal_id = ${portalId}
      and (from_id = ${S} or (to_type = ${type} and to_id = ${S}))`,
  ];
  const events = await webhookEventStatements(db, outbox, [{ kind: "merged", objectType: type, id: P, mergedIds: [S], moved, before: primary.properties, after: props }]);
  // One D1 batch, all or nothing (drizzle cannot batch raw SQL, so every statement goes through d1-raw).
  await runRawBatch(db, [rawStatement(db, lists), ...builders.map((b) => boundStatement(db, b)), ...raw.map((q) => rawStatement(db, q)), ...events]);
  return { ok: true, row: { ...primary, properties: props, email, updatedAt: now }, moved };
}
