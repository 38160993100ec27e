/**
 * @module Timeline event types and their properties (docs/reference/timeline.md): owned by a developer app and
 * read and written with that app's developer key or an OAuth token of one of its installs. Every query is
 * scoped by appId.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { onEveryShard } from "../../db/fanout";
import {
  timelineEventProperties,
  timelineEventTypes,
  type EnumOption,
  type PropertyType,
  type TimelineObjectType,
} from "../../db/tables/timeline";
import { ApiError, badRequest, conflict, forbidden, notFound } from "../../lib/errors";
import type { Principal } from "../../lib/principal";
import { checkTemplate } from "./template";
import { MAX_PROPERTIES_PER_TYPE } from "../../schemas/timeline/events";

/** At most 750 event types per application (the real service's limit). */
export const MAX_EVENT_TYPES_PER_APP = 750;

export type EventTypeRow = typeof timelineEventTypes.$inferSelect;
export type PropertyRow = typeof timelineEventProperties.$inferSelect;

/**
 * The real service's event type shape plus `usableInLists`: only contact event types can feed lists and
 * workflows; company and deal types cannot.
 */
export function presentEventType(row: EventTypeRow) {
  return {
    id: row.id,
    name: row.name,
    headerTemplate: row.headerTemplate,
    detailTemplate: row.detailTemplate,
    applicationId: row.appId,
    objectType: row.objectType,
    usableInLists: row.objectType === "CONTACT",
  };
}

/** The real service's property shape: both the legacy `contactProperty` and the newer `objectProperty` key. */
export function presentProperty(row: PropertyRow) {
  return {
    id: row.id,
    name: row.name,
    label: row.label,
    propertyType: row.propertyType,
    eventTypeId: row.eventTypeId,
    options: row.options,
    objectProperty: row.objectProperty,
    contactProperty: row.objectProperty,
  };
}

function isUniqueViolation(err: unknown): boolean {
  return err instanceof Error && /UNIQUE constraint failed/i.test(err.message + String((err as { cause?: unknown }).cause ?? ""));
}

/** Templates must parse and a header may not reference extraData (it is for the detail template only). */
export function validateTemplates(input: { headerTemplate?: string | null; detailTemplate?: string | null }) {
  const errors: { message: string; code: string; in: string; context: Record<string, unknown> }[] = [];
  for (const [field, kind] of [["headerTemplate", "header"], ["detailTemplate", "detail"]] as const) {
    const source = input[field];
    if (typeof source !== "string") continue;
    const problem = checkTemplate(source, kind);
    if (problem) errors.push({ message: `${field}: ${problem}`, code: "INVALID_TEMPLATE", in: "body", context: { propertyName: [field] } });
  }
  if (errors[0]) throw badRequest(`Invalid body: ${errors[0].message}`, { errors });
}

const limitError = (what: string, max: number) =>
  new ApiError("API_LIMIT", `This ${what} has reached the limit of ${max}`, { context: { limit: [String(max)] } });

export interface EventTypeInput {
  name: string;
  objectType: TimelineObjectType;
  headerTemplate?: string | null;
  detailTemplate?: string | null;
}

export async function createEventType(db: Db, appId: number, input: EventTypeInput, now: number): Promise<EventTypeRow> {
  validateTemplates(input);
  // One statement that inserts only while the app is under the limit, so concurrent creates cannot pass it.
  const inserted = await db.get<{ id: number } | undefined>(sql`
    insert into timeline_event_types (app_id, name, header_template, detail_template, object_type, created_at, updated_at)
    select ${appId}, ${input.name}, ${input.headerTemplate ?? null}, ${input.detailTemplate ?? null}, ${input.objectType}, ${now}, ${now}
    where (select count(*) from timeline_event_types where app_id = ${appId}) < ${MAX_EVENT_TYPES_PER_APP}
    returning id`);
  if (!inserted) throw limitError("app's number of timeline event types", MAX_EVENT_TYPES_PER_APP);
  return getEventType(db, appId, inserted.id);
}

export async function listEventTypes(db: Db, appId: number) {
  return db.select().from(timelineEventTypes).where(eq(timelineEventTypes.appId, appId)).orderBy(asc(timelineEventTypes.id)).all();
}

export async function getEventType(db: Db, appId: number, id: number): Promise<EventTypeRow> {
  const row = await db
    .select()
    .from(timelineEventTypes)
    .where(and(eq(timelineEventTypes.id, id), eq(timelineEventTypes.appId, appId)))
    .get();
  if (!row) throw notFound(`Event type ${id} not found`);
  return row;
}

/** Fields present replace the stored ones (null clears a template); absent fields keep their value. */
export async function updateEventType(
  db: Db,
  appId: number,
  id: number,
  input: Partial<EventTypeInput>,
  now: number,
): Promise<EventTypeRow> {
  const current = await getEventType(db, appId, id);
  // Events already written are attached to records of the original type; moving them is not meaningful.
  if (input.objectType && input.objectType !== current.objectType) {
    throw badRequest(`objectType cannot be changed (this event type is ${current.objectType})`, {
      errors: [{ message: "objectType cannot be changed", code: "IMMUTABLE_FIELD", in: "body", context: { propertyName: ["objectType"] } }],
    });
  }
  validateTemplates(input);
  const set: Partial<typeof timelineEventTypes.$inferInsert> = { updatedAt: now };
  if (input.name !== undefined) set.name = input.name;
  if (input.headerTemplate !== undefined) set.headerTemplate = input.headerTemplate;
  if (input.detailTemplate !== undefined) set.detailTemplate = input.detailTemplate;
  const row = await db
    .update(timelineEventTypes)
    .set(set)
    .where(and(eq(timelineEventTypes.id, id), eq(timelineEventTypes.appId, appId)))
    .returning()
    .get();
  return row ?? current;
}

/**
 * App-wide changes through one install (docs/reference/timeline.md "Who may delete or replace an event type"):
 * an install's OAuth token may delete or replace (PUT) an event type only while no OTHER account holds
 * events of it; beyond that the change reaches accounts the token does not belong to, so it takes the
 * app's developer key (403 otherwise). A hardening over the legacy rules, where any install's token could.
 * One indexed existence probe per account database.
 */
export async function requireOnlyOwnEvents(env: Env, principal: Principal, eventTypeId: number, action: "delete" | "replace") {
  if (principal.kind !== "oauth") return;
  const others = await onEveryShard(env, async (shard) =>
    Boolean(
      await shard.get<{ x: number }>(sql`select 1 as x from timeline_events where event_type_id = ${eventTypeId} and portal_id <> ${principal.portalId} limit 1`),
    ),
  );
  if (others.some(Boolean)) {
    throw forbidden(`Event type ${eventTypeId} has events in other accounts; to ${action} it, use the app's developer key`);
  }
}

/**
 * Deletes the type with its properties and every event of it. The events live on every shard:
 * they go first, one statement per shard (fan-out, at most 6 at a time), then the type and its properties
 * in one control-plane batch; a failure part-way leaves the type in place, and repeating the call finishes.
 * Rows of accounts that moved away (fence "moved"), and a home shard's copy of events placed on a companion
 * shard (its marker, account_companions), are left to the move's purge; an account in the middle of a move
 * refuses the delete (ACCOUNT_FENCED → 503, retry).
 */
export async function deleteEventType(env: Env, db: Db, appId: number, id: number) {
  await getEventType(db, appId, id);
  await onEveryShard(env, (shard) =>
    shard.run(sql`delete from timeline_events where event_type_id = ${id}
      and portal_id not in (select portal_id from account_fences where state = 'moved')
      and portal_id not in (select portal_id from account_companions)`),
  );
  await db.batch([
    db.delete(timelineEventProperties).where(eq(timelineEventProperties.eventTypeId, id)),
    db.delete(timelineEventTypes).where(and(eq(timelineEventTypes.id, id), eq(timelineEventTypes.appId, appId))),
  ]);
}

// ---------------------------------------------------------------------------------------------------------
// Properties

export interface PropertyInput {
  name: string;
  label: string;
  propertyType: PropertyType;
  options: EnumOption[];
  objectProperty: string | null;
}

export async function listProperties(db: Db, eventTypeId: number) {
  return db
    .select()
    .from(timelineEventProperties)
    .where(eq(timelineEventProperties.eventTypeId, eventTypeId))
    .orderBy(asc(timelineEventProperties.id))
    .all();
}

export async function createProperty(db: Db, appId: number, eventTypeId: number, input: PropertyInput, now: number) {
  await getEventType(db, appId, eventTypeId);
  let inserted: { id: number } | undefined;
  try {
    // Insert-if-under-the-limit in one statement, as for event types.
    inserted = await db.get<{ id: number } | undefined>(sql`
      insert into timeline_event_properties (event_type_id, name, label, property_type, options, object_property, created_at)
      select ${eventTypeId}, ${input.name}, ${input.label}, ${input.propertyType}, ${JSON.stringify(input.options)}, ${input.objectProperty}, ${now}
      where (select count(*) from timeline_event_properties where event_type_id = ${eventTypeId}) < ${MAX_PROPERTIES_PER_TYPE}
      returning id`);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`Event type ${eventTypeId} already has a property named ${input.name}`);
    throw err;
  }
  if (!inserted) throw limitError("event type's number of properties", MAX_PROPERTIES_PER_TYPE);
  return getProperty(db, eventTypeId, inserted.id);
}

async function getProperty(db: Db, eventTypeId: number, id: number): Promise<PropertyRow> {
  const row = await db
    .select()
    .from(timelineEventProperties)
    .where(and(eq(timelineEventProperties.id, id), eq(timelineEventProperties.eventTypeId, eventTypeId)))
    .get();
  if (!row) throw notFound(`Property ${id} not found on event type ${eventTypeId}`);
  return row;
}

/** As in the real service, the property is named by the `id` in the body; its name cannot change. */
export async function updateProperty(
  db: Db,
  appId: number,
  eventTypeId: number,
  id: number,
  input: Partial<PropertyInput>,
) {
  await getEventType(db, appId, eventTypeId);
  const current = await getProperty(db, eventTypeId, id);
  if (input.name !== undefined && input.name !== current.name) {
    throw badRequest(`The name of a property cannot be changed (property ${id} is ${current.name})`, {
      errors: [{ message: "name cannot be changed", code: "IMMUTABLE_FIELD", in: "body", context: { propertyName: ["name"] } }],
    });
  }
  const set: Partial<typeof timelineEventProperties.$inferInsert> = {};
  if (input.label !== undefined) set.label = input.label;
  if (input.propertyType !== undefined) set.propertyType = input.propertyType;
  if (input.options !== undefined) set.options = input.options;
  if (input.objectProperty !== undefined) set.objectProperty = input.objectProperty;
  if (Object.keys(set).length === 0) return current;
  const row = await db
    .update(timelineEventProperties)
    .set(set)
    .where(and(eq(timelineEventProperties.id, id), eq(timelineEventProperties.eventTypeId, eventTypeId)))
    .returning()
    .get();
  return row ?? current;
}

export async function deleteProperty(db: Db, appId: number, eventTypeId: number, id: number) {
  await getEventType(db, appId, eventTypeId);
  await getProperty(db, eventTypeId, id);
  await db
    .delete(timelineEventProperties)
    .where(and(eq(timelineEventProperties.id, id), eq(timelineEventProperties.eventTypeId, eventTypeId)));
}
