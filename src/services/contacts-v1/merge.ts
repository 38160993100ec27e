/**
 * @module Merging two contacts (`POST /contacts/v1/contact/merge-vids/{vid}`): the secondary's
 * properties, identities, timeline events, visitor tokens and associations move to the primary in ONE
 * `db.batch`, and the secondary becomes an archived row whose `merged_into` names the survivor. Which
 * property values win, and what the two records then show: docs/reference/contacts-v1.md "Merge".
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { contactMerges, crmObjects } from "../../db/tables/crm";
import { timelineEvents, timelineUtks } from "../../db/tables/timeline";
import { badRequest } from "../../lib/errors";
import { builderStatement as boundStatement, rawStatement, runRawBatch } from "../../db/d1-raw";
import { webhookEventStatements, type OutboxSource } from "../webhooks/events";
import type { CrmRow } from "../crm/records";

/** The legacy service's 400s for a merge it refuses, as recorded from its merge-vids calls. */
const badPrimary = () => badRequest("canonical vid is not a valid contact or is already in the process of being merged");
const badSecondary = () => badRequest("vid to merge is not a valid contact or is already in the process of being merged");

/**
 * The merged properties: the more recently modified record's values win (the real service keeps the newest
 * value of each property; we keep one modification time per record), except the email, which stays the
 * primary's when it has one: the secondary's email becomes a secondary identity of the survivor.
 */
export function mergedProperties(primary: CrmRow, secondary: CrmRow) {
  const secondaryWins = secondary.updatedAt > primary.updatedAt;
  const props = { ...primary.properties };
  let moved = 0;
  for (const [k, v] of Object.entries(secondary.properties)) {
    if (k === "email" && primary.properties.email) continue;
    if (props[k] === undefined || (secondaryWins && props[k] !== v)) {
      props[k] = v;
      moved++;
    }
  }
  return { props, moved };
}

const live = (db: Db, portalId: number, id: number) =>
  db
    .select()
    .from(crmObjects)
    .where(and(eq(crmObjects.id, id), eq(crmObjects.portalId, portalId), eq(crmObjects.objectType, "contacts"), eq(crmObjects.archived, false)))
    .get();

export async function mergeContacts(db: Db, portalId: number, primaryVid: number, secondaryVid: number, now: number, outbox?: OutboxSource) {
  const [primary, secondary] = await Promise.all([live(db, portalId, primaryVid), live(db, portalId, secondaryVid)]);
  if (!primary) throw badPrimary();
  if (!secondary || secondary.id === primary.id) throw badSecondary();
  const { props, moved } = mergedProperties(primary, secondary);
  const email = props.email ? props.email.trim().toLowerCase() : null;
  const P = primary.id;
  const S = secondary.id;
  const mine = (col: typeof crmObjects.portalId | typeof contactMerges.portalId) => eq(col, portalId);
  const builders = [
    // The secondary leaves the live rows first, so the survivor may take its email (unique index).
    db.update(crmObjects).set({ archived: true, mergedInto: P, updatedAt: now }).where(and(eq(crmObjects.id, S), mine(crmObjects.portalId))),
    db.update(crmObjects).set({ properties: props, email, updatedAt: now }).where(and(eq(crmObjects.id, P), mine(crmObjects.portalId))),
    // Contacts merged into the secondary earlier now resolve to the survivor too.
    db.update(crmObjects).set({ mergedInto: P }).where(and(mine(crmObjects.portalId), eq(crmObjects.mergedInto, S))),
    db.update(contactMerges).set({ canonicalVid: P }).where(and(mine(contactMerges.portalId), eq(contactMerges.canonicalVid, S))),
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
    db
      .update(timelineEvents)
      .set({ objectId: P, updatedAt: now })
      .where(and(eq(timelineEvents.portalId, portalId), eq(timelineEvents.objectType, "CONTACT"), eq(timelineEvents.objectId, S))),
    db.update(timelineUtks).set({ contactId: P, updatedAt: now }).where(and(eq(timelineUtks.portalId, portalId), eq(timelineUtks.contactId, S))),
  ];
  // Associations in both directions, minus one between the two contacts themselves.
  const raw = [
    sql`insert or ignore into crm_associations (portal_id, from_id, to_type, to_id)
      select portal_id, ${P}, to_type, to_id from crm_associations
      where portal_id = ${portalId} and from_id = ${S} and not (to_type = 'contacts' and to_id = ${P})`,
    sql`insert or ignore into crm_associations (portal_id, from_id, to_type, to_id)
      select portal_id, from_id, 'contacts', ${P} from crm_associations
      where portal_id = ${portalId} and to_type = 'contacts' and to_id = ${S} and from_id <> ${P}`,
    sql`delete from crm_associations where portal_id = ${portalId}
      and (from_id = ${S} or (to_type = 'contacts' and to_id = ${S}))`,
  ];
  // One D1 batch, all or nothing (drizzle cannot batch raw SQL, so every statement goes through d1-raw).
  const events = await webhookEventStatements(db, outbox, [{ kind: "merged", objectType: "contacts", id: P, mergedIds: [S], before: primary.properties, after: props }]);
  await runRawBatch(db, [...builders.map((b) => boundStatement(db, b)), ...raw.map((q) => rawStatement(db, q)), ...events]);
}
