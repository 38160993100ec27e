/**
 * @module The GDPR delete of a contact (`POST /crm/v3/objects/contacts/gdpr-delete`): the contact is
 * deleted for good, not archived, so no read (archived ones included) and no restore finds it again. With it
 * go the contacts merged into it earlier (they hold the same person's data), their association links (the
 * records at the other end, activities included, stay but lose the link; labels go with the links), list
 * memberships, merge records, timeline events and visitor tokens, and the account's pending webhook events
 * that name them; and the account's webhook delivery log forgets the events that name them. docs/reference/crm.md
 * "Merge and GDPR delete".
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rawRows, rawStatement, runRawBatch } from "../../db/d1-raw";
import { webhookEventStatements, type OutboxSource } from "../webhooks/events";
import type { RecordKey } from "./records";

/**
 * The contact a key names and the contacts merged into it, or null. By id: a live or archived contact (never
 * one merged away: it is part of its survivor); by email: the live contact with it, else the one archived last.
 */
async function contactIds(db: Db, portalId: number, key: RecordKey): Promise<number[] | null> {
  const target =
    "id" in key
      ? sql`select id from crm_objects where id = ${key.id} and portal_id = ${portalId} and object_type = 'contacts' and merged_into is null`
      : sql`select id from crm_objects where portal_id = ${portalId} and object_type = 'contacts' and merged_into is null and email = ${key.email.trim().toLowerCase()}
          order by archived, updated_at desc, id desc limit 1`;
  const rows = await rawRows<[number]>(db, sql`with t as (${target}) select id from t
    union all select o.id from crm_objects o join t on o.merged_into = t.id where o.portal_id = ${portalId} and o.object_type = 'contacts'`);
  return rows.length ? rows.map((r) => r[0]) : null;
}

/** Deletes the contact for good; false when the key names no contact of the account (nothing written). */
export async function purgeContact(db: Db, control: Db, portalId: number, key: RecordKey, outbox?: OutboxSource, eventsDb: Db = db): Promise<boolean> {
  const ids = await contactIds(db, portalId, key);
  if (!ids) return false;
  const [id] = ids as [number];
  const list = JSON.stringify(ids);
  const inIds = (column: string) => sql`${sql.raw(column)} in (select value from json_each(${list}))`;
  const timelineDelete = sql`delete from timeline_events where portal_id = ${portalId} and object_type = 'CONTACT' and ${inIds("object_id")}`;
  // The delivery log lives with the timeline events (both companion tables): beside them on a companion shard.
  const log = forgetStatements(portalId, ids).map((q) => rawStatement(eventsDb, q));
  // Events and log entries on a companion shard go first, by themselves: if the account's batch then fails,
  // the contact is still there to purge again, and the repeated deletes find nothing (idempotent).
  if (eventsDb !== db) await runRawBatch(eventsDb, [rawStatement(eventsDb, timelineDelete), ...log]);
  const statements = [
    // Pending events that name the contact are not sent any more: the deletion events below replace them.
    sql`delete from webhook_outbox where portal_id = ${portalId} and ${inIds("object_id")}`,
    // Deleting a link deletes its labels (trigger); the other record stays.
    sql`delete from crm_associations where portal_id = ${portalId} and (${inIds("from_id")} or (to_type = 'contacts' and ${inIds("to_id")}))`,
    ...(eventsDb === db ? [timelineDelete] : []),
    sql`delete from timeline_utks where portal_id = ${portalId} and ${inIds("contact_id")}`,
    sql`delete from contact_merges where portal_id = ${portalId} and (${inIds("canonical_vid")} or ${inIds("merged_vid")})`,
    // The rows themselves; triggers take them out of lists and of the contact search index.
    sql`delete from crm_objects where portal_id = ${portalId} and object_type = 'contacts' and ${inIds("id")}`,
  ].map((q) => rawStatement(db, q));
  const events = await webhookEventStatements(db, outbox, [{ kind: "purged", objectType: "contacts", id }]);
  // The control plane's older log first: if the account's batch then fails, the contact is still there to
  // delete again, and that log has only lost entries about it.
  await forgetLegacyDeliveries(control, portalId, ids);
  // One D1 batch on the account's database, all or nothing (its delivery log with it, unless on a companion).
  await runRawBatch(db, [...statements, ...(eventsDb === db ? log : []), ...events]);
  return true;
}

/**
 * The account's delivery log keeps the events of deliveries that were retried (a delivery delivered at once
 * keeps only ids): those that name the contacts are removed from it, and a delivery left with none is removed
 * with its attempts. Every row is the account's own (one account per delivery).
 */
function forgetStatements(portalId: number, ids: number[]) {
  const list = JSON.stringify(ids);
  const names = sql`(e.value->>'objectId' in (select value from json_each(${list})))`;
  return [
    sql`update webhook_deliveries set
        events = (select json_group_array(json(e.value)) from json_each(webhook_deliveries.events) e where not ${names}),
        event_count = (select count(*) from json_each(webhook_deliveries.events) e where not ${names})
      where portal_id = ${portalId} and exists (select 1 from json_each(webhook_deliveries.events) e where ${names})`,
    sql`delete from webhook_attempts where portal_id = ${portalId} and delivery_id in (select id from webhook_deliveries where portal_id = ${portalId} and event_count = 0)`,
    sql`delete from webhook_deliveries where portal_id = ${portalId} and event_count = 0`,
  ];
}

/**
 * The control plane's older delivery log (rows without an account, whose deliveries mixed accounts): the
 * events that name the contacts are removed from it as from the account's own log. Only the deliveries of
 * apps installed in the account can hold its events.
 */
export async function forgetLegacyDeliveries(control: Db, portalId: number, ids: number[]): Promise<void> {
  const list = JSON.stringify(ids);
  const names = sql`(e.value->>'portalId' = ${portalId} and e.value->>'objectId' in (select value from json_each(${list})))`;
  const apps = sql`portal_id is null and app_id in (select app_id from installs where portal_id = ${portalId})`;
  await runRawBatch(control, [
    rawStatement(
      control,
      sql`update webhook_deliveries set
          events = (select json_group_array(json(e.value)) from json_each(webhook_deliveries.events) e where not ${names}),
          event_count = (select count(*) from json_each(webhook_deliveries.events) e where not ${names})
        where ${apps} and exists (select 1 from json_each(webhook_deliveries.events) e where ${names})`,
    ),
    rawStatement(control, sql`delete from webhook_attempts where delivery_id in (select id from webhook_deliveries where ${apps} and event_count = 0)`),
    rawStatement(control, sql`delete from webhook_deliveries where ${apps} and event_count = 0`),
  ]);
}
