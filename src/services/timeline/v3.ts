/**
 * @module The v3 face of the timeline (`/integrators/timeline/v3`), over the v1 store: a template is a v1
 * event type (same id, a string in v3), its tokens are the type's properties, and a v3 event is a v1 event
 * row. The mapping is here, once; every rule (limits, names, templates, association, stamping) is v1's.
 *
 * | v3 | v1 |
 * |---|---|
 * | template `objectType` `contacts`/`companies`/`deals` | event type `CONTACT`/`COMPANY`/`DEAL` |
 * | token `type` `string`/`number`/`date`/`enumeration` | `propertyType` `String`/`Numeric`/`Date`/`Enumeration` |
 * | token `objectPropertyName` | `objectProperty` |
 * | event `eventTemplateId`, `tokens{}`, ISO `timestamp` | `eventTypeId`, top-level values, epoch ms |
 * | iframe `headerLabel`, `url` | `iframeLabel`, `iframeUri` |
 *
 * Decision (docs/reference/timeline.md): v3 events are immutable. A v3 create with the id of a stored event is
 * a 409 and leaves the event as it was; the v1 PUT keeps replacing it (the event id is v1's idempotency key).
 */
import { and, eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { timelineEventProperties, timelineEventTypes, timelineEvents, type PropertyType, type TimelineObjectType } from "../../db/tables/timeline";
import { conflict, notFound, type ApiError } from "../../lib/errors";
import type { EventV3Input, TemplateCreate, TemplateUpdate, TokenInput, TokenUpdate } from "../../schemas/timeline/v3";
import type { EventInput } from "../../schemas/timeline/events";
import { inJson } from "../crm/records";
import { writeEventsEach, type EventRow } from "./events";
import { renderEvent } from "./render";
import * as types from "./types";

type V3ObjectType = "contacts" | "companies" | "deals";
type TokenType = TokenInput["type"];

export const V3_OBJECT: Record<TimelineObjectType, V3ObjectType> = { CONTACT: "contacts", COMPANY: "companies", DEAL: "deals" };
const V1_OBJECT: Record<V3ObjectType, TimelineObjectType> = { contacts: "CONTACT", companies: "COMPANY", deals: "DEAL" };
const V3_TOKEN: Record<PropertyType, TokenType> = { String: "string", Numeric: "number", Date: "date", Enumeration: "enumeration" };
const V1_TOKEN: Record<TokenType, PropertyType> = { string: "String", number: "Numeric", date: "Date", enumeration: "Enumeration" };

const iso = (ms: number) => new Date(ms).toISOString();

// ---------------------------------------------------------------------------------------------------------
// Templates and tokens

export function presentToken(p: types.PropertyRow) {
  return {
    name: p.name,
    label: p.label,
    type: V3_TOKEN[p.propertyType],
    ...(p.options.length ? { options: p.options } : {}),
    ...(p.objectProperty ? { objectPropertyName: p.objectProperty } : {}),
    createdAt: iso(p.createdAt),
  };
}

export function presentTemplate(t: types.EventTypeRow, props: types.PropertyRow[]) {
  return {
    id: String(t.id),
    name: t.name,
    objectType: V3_OBJECT[t.objectType],
    ...(t.headerTemplate !== null ? { headerTemplate: t.headerTemplate } : {}),
    ...(t.detailTemplate !== null ? { detailTemplate: t.detailTemplate } : {}),
    tokens: props.map(presentToken),
    createdAt: iso(t.createdAt),
    updatedAt: iso(t.updatedAt),
  };
}

const propertyOf = (t: Pick<TokenInput, "name" | "label" | "type" | "options" | "objectPropertyName">): types.PropertyInput => ({
  name: t.name,
  label: t.label,
  propertyType: V1_TOKEN[t.type],
  options: t.options ?? [],
  objectProperty: t.objectPropertyName ?? null,
});

const propertyRow = (db: Db, eventTypeId: number, p: types.PropertyInput, now: number) =>
  db.insert(timelineEventProperties).values({ eventTypeId, ...p, createdAt: now });

export async function readTemplate(db: Db, appId: number, id: number) {
  const type = await types.getEventType(db, appId, id);
  return presentTemplate(type, await types.listProperties(db, id));
}

export async function listTemplates(db: Db, appId: number) {
  const all = await types.listEventTypes(db, appId);
  const props = all.length ? await db.select().from(timelineEventProperties).where(inJson(timelineEventProperties.eventTypeId, all.map((t) => t.id))).orderBy(timelineEventProperties.id).all() : [];
  return all.map((t) => presentTemplate(t, props.filter((p) => p.eventTypeId === t.id)));
}

/** The v1 create (its 750 limit and template checks), then the tokens in one statement; undone if they fail. */
export async function createTemplate(db: Db, appId: number, input: TemplateCreate, now: number) {
  const type = await types.createEventType(db, appId, { ...input, objectType: V1_OBJECT[input.objectType] }, now);
  const [first, ...rest] = input.tokens.map((t) => propertyRow(db, type.id, propertyOf(t), now));
  try {
    if (first) await db.batch([first, ...rest]);
  } catch (err) {
    await db.delete(timelineEventTypes).where(eq(timelineEventTypes.id, type.id));
    throw err;
  }
  return readTemplate(db, appId, type.id);
}

/** Name and templates, and the token list replaced by the one sent (kept tokens keep their creation date). */
export async function updateTemplate(db: Db, appId: number, id: number, input: TemplateUpdate, now: number) {
  if (input.id !== undefined && Number(input.id) !== id) throw notFound(`Event template ${input.id} is not the template ${id} of the path`);
  await types.getEventType(db, appId, id);
  types.validateTemplates(input);
  const current = new Map((await types.listProperties(db, id)).map((p) => [p.name, p]));
  const set: Partial<typeof timelineEventTypes.$inferInsert> = { name: input.name, updatedAt: now };
  if (input.headerTemplate !== undefined) set.headerTemplate = input.headerTemplate;
  if (input.detailTemplate !== undefined) set.detailTemplate = input.detailTemplate;
  const statements: BatchItem<"sqlite">[] = [
    db.update(timelineEventTypes).set(set).where(and(eq(timelineEventTypes.id, id), eq(timelineEventTypes.appId, appId))),
  ];
  const sent = new Set(input.tokens.map((t) => t.name));
  for (const p of current.values()) if (!sent.has(p.name)) statements.push(db.delete(timelineEventProperties).where(eq(timelineEventProperties.id, p.id)));
  for (const t of input.tokens) {
    const known = current.get(t.name);
    const { name: _name, ...fields } = propertyOf(t);
    statements.push(known ? db.update(timelineEventProperties).set(fields).where(eq(timelineEventProperties.id, known.id)) : propertyRow(db, id, propertyOf(t), now));
  }
  await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  return readTemplate(db, appId, id);
}

async function tokenByName(db: Db, appId: number, eventTypeId: number, name: string) {
  await types.getEventType(db, appId, eventTypeId);
  const row = await db
    .select()
    .from(timelineEventProperties)
    .where(and(eq(timelineEventProperties.eventTypeId, eventTypeId), eq(timelineEventProperties.name, name)))
    .get();
  if (!row) throw notFound(`Token ${name} not found on event template ${eventTypeId}`);
  return row;
}

/** The v1 property create: its 500 limit and its 409 for a name already taken. */
export async function createToken(db: Db, appId: number, eventTypeId: number, input: TokenInput, now: number) {
  return presentToken(await types.createProperty(db, appId, eventTypeId, propertyOf(input), now));
}

export async function updateToken(db: Db, appId: number, eventTypeId: number, name: string, input: TokenUpdate) {
  const current = await tokenByName(db, appId, eventTypeId, name);
  const row = await types.updateProperty(db, appId, eventTypeId, current.id, {
    label: input.label,
    ...(input.options !== undefined ? { options: input.options } : {}),
    ...(input.objectPropertyName !== undefined ? { objectProperty: input.objectPropertyName } : {}),
  });
  return presentToken(row);
}

/** Stored events keep their values (the real service: "existing events … will still retain the token"). */
export async function deleteToken(db: Db, appId: number, eventTypeId: number, name: string) {
  const current = await tokenByName(db, appId, eventTypeId, name);
  await types.deleteProperty(db, appId, eventTypeId, current.id);
}

// ---------------------------------------------------------------------------------------------------------
// Events

/** A date token may come as epoch ms (v1's form) or as an ISO date; stored as epoch ms either way. */
function tokenValue(raw: string | number | boolean): string | number | boolean {
  if (typeof raw === "string" && /^\d{4}-\d{2}-\d{2}(T|$)/.test(raw)) {
    const ms = Date.parse(raw);
    if (Number.isFinite(ms)) return String(ms);
  }
  return raw;
}

/** The v1 event a v3 event is. An event without an id gets one: v3 makes the id optional. */
export function toV1Event(e: EventV3Input): EventInput {
  const values: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e.tokens)) values[k] = tokenValue(v);
  const iframe = e.timelineIFrame;
  return {
    ...values,
    id: e.id ?? crypto.randomUUID(),
    eventTypeId: Number(e.eventTemplateId),
    email: e.email,
    objectId: e.objectId === undefined ? undefined : Number(e.objectId),
    utk: e.utk,
    timestamp: e.timestamp === undefined ? undefined : Date.parse(e.timestamp),
    extraData: e.extraData,
    timelineIFrame: iframe ? { linkLabel: iframe.linkLabel, iframeLabel: iframe.headerLabel, iframeUri: iframe.url, width: iframe.width, height: iframe.height } : undefined,
  };
}

export function presentEventV3(row: EventRow) {
  const f = row.timelineIFrame;
  return {
    id: row.eventId,
    eventTemplateId: String(row.eventTypeId),
    objectType: V3_OBJECT[row.objectType],
    ...(row.objectId !== null ? { objectId: String(row.objectId) } : {}),
    ...(row.email ? { email: row.email } : {}),
    ...(row.utk ? { utk: row.utk } : {}),
    timestamp: iso(row.timestamp),
    tokens: row.properties,
    ...(row.extraData !== null && row.extraData !== undefined ? { extraData: row.extraData } : {}),
    ...(f ? { timelineIFrame: { linkLabel: f.linkLabel, headerLabel: f.iframeLabel, url: f.iframeUri, width: f.width, height: f.height } } : {}),
    createdAt: iso(row.createdAt),
  };
}

const keyOf = (e: { eventTypeId: number; id: string }) => `${e.eventTypeId}\u0000${e.id}`;

async function readEvents(db: Db, portalId: number, inputs: EventInput[]) {
  if (!inputs.length) return [];
  const rows = await db
    .select()
    .from(timelineEvents)
    .where(and(eq(timelineEvents.portalId, portalId), inJson(timelineEvents.eventId, inputs.map((e) => e.id))))
    .all();
  const byKey = new Map(rows.map((r) => [keyOf({ eventTypeId: r.eventTypeId, id: r.eventId }), r]));
  return inputs.flatMap((e) => byKey.get(keyOf(e)) ?? []);
}

/**
 * Creates v3 events: each one that can be written is, the others come back with their error. An id already
 * stored for the template, or repeated in the request, is refused with 409 (v3 events are immutable).
 */
export async function createEvents(db: Db, eventsDb: Db, control: Db, portalId: number, appId: number, inputs: EventV3Input[], now: number) {
  const events = inputs.map(toV1Event);
  const taken = new Set((await readEvents(eventsDb, portalId, events)).map((r) => keyOf({ eventTypeId: r.eventTypeId, id: r.eventId })));
  const fresh: { event: EventInput; index: number }[] = [];
  const refused: { index: number; error: ApiError }[] = [];
  events.forEach((event, index) => {
    const key = keyOf(event);
    if (taken.has(key)) refused.push({ index, error: conflict(`Event ${event.id} of event template ${event.eventTypeId} already exists; events are immutable`) });
    else {
      taken.add(key);
      fresh.push({ event, index });
    }
  });
  const written = await writeEventsEach(db, eventsDb, control, portalId, appId, fresh.map((f) => f.event), now);
  for (const r of written.refused) refused.push({ index: fresh[r.index]!.index, error: r.error });
  refused.sort((a, b) => a.index - b.index);
  return { results: (await readEvents(eventsDb, portalId, written.accepted)).map(presentEventV3), refused };
}

/** The event's header (or detail) rendered as on the record's timeline. */
export async function renderStored(control: Db, appId: number, row: EventRow) {
  const type = await types.getEventType(control, appId, row.eventTypeId);
  return renderEvent(type, { ...row, eventId: row.eventId });
}
