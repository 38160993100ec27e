/**
 * @module Writing timeline events (docs/reference/timeline.md): validation against the event type's properties, the
 * association rules, objectProperty stamping and the visitor-token ties. A request (one event or a batch)
 * is first validated and resolved completely in memory, then written as one db.batch, so a refused request
 * writes nothing and an accepted one is never half-written.
 */
import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { newId } from "../../db/id-ranges";
import { crmObjects, type ObjectType } from "../../db/tables/crm";
import {
  timelineEventProperties,
  timelineEventTypes,
  timelineEvents,
  timelineUtks,
  type TimelineObjectType,
} from "../../db/tables/timeline";
import { ApiError, badRequest, conflict, notFound } from "../../lib/errors";
import type { EventInput } from "../../schemas/timeline/events";
import { inJson } from "../crm/records";
import type { PropertyRow } from "./types";

export const RECORD_TYPE: Record<TimelineObjectType, ObjectType> = { CONTACT: "contacts", COMPANY: "companies", DEAL: "deals" };
export const TIMELINE_TYPE: Partial<Record<ObjectType, TimelineObjectType>> = { contacts: "CONTACT", companies: "COMPANY", deals: "DEAL" };

/** Where an event goes: a known record, a contact this write creates (found by its email), or nowhere yet. */
type Target = { kind: "id"; id: number } | { kind: "email"; email: string } | { kind: "pending" };

type ErrorDetail = { message: string; code: string; in: string; context: Record<string, unknown> };

const targetKey = (t: Target) => (t.kind === "id" ? `id:${t.id}` : t.kind === "email" ? `email:${t.email}` : "pending");

// ---------------------------------------------------------------------------------------------------------
// Property values (String, Numeric, Enumeration, Date as epoch ms)

const NUMERIC = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const EPOCH_MS = /^-?\d{1,15}$/;
const MAX_VALUE_CHARS = 65_536;

/** The stored string form of a value, or the reason it is refused. */
export function coerceValue(prop: Pick<PropertyRow, "propertyType" | "options">, raw: unknown): { value: string } | { error: string } {
  switch (prop.propertyType) {
    case "String":
      if (typeof raw !== "string") return { error: "must be a string" };
      if (raw.length > MAX_VALUE_CHARS) return { error: `must be at most ${MAX_VALUE_CHARS} characters` };
      return { value: raw };
    case "Numeric":
      if (typeof raw === "number" && Number.isFinite(raw)) return { value: String(raw) };
      if (typeof raw === "string" && NUMERIC.test(raw.trim())) return { value: raw.trim() };
      return { error: "must be a number" };
    case "Date":
      if (typeof raw === "number" && Number.isSafeInteger(raw)) return { value: String(raw) };
      if (typeof raw === "string" && EPOCH_MS.test(raw.trim())) return { value: raw.trim() };
      return { error: "must be a date in epoch milliseconds" };
    case "Enumeration": {
      const value = typeof raw === "string" ? raw : typeof raw === "number" ? String(raw) : null;
      const allowed = prop.options.map((o) => o.value);
      if (value !== null && allowed.includes(value)) return { value };
      const shown = allowed.slice(0, 20).join(", ") + (allowed.length > 20 ? ", ..." : "");
      return { error: allowed.length ? `must be one of: ${shown}` : "has no options to choose from" };
    }
  }
}

/** Custom values of one event; keys that are not properties of its type are ignored (decision, docs/reference/timeline.md). */
function readValues(input: EventInput, props: PropertyRow[], prefix: string, errors: ErrorDetail[]) {
  const values: Record<string, string> = {};
  const stamp: Record<string, string> = {};
  const source = input as Record<string, unknown>;
  for (const prop of props) {
    const raw = source[prop.name];
    if (raw === undefined || raw === null) continue;
    const result = coerceValue(prop, raw);
    if ("error" in result) {
      errors.push({
        message: `${prefix}${prop.name}: ${result.error}`,
        code: "INVALID_PROPERTY_VALUE",
        in: "body",
        context: { propertyName: [`${prefix}${prop.name}`] },
      });
      continue;
    }
    values[prop.name] = result.value;
    if (prop.objectProperty) stamp[prop.objectProperty] = result.value;
  }
  return { values, stamp };
}

// ---------------------------------------------------------------------------------------------------------
// Reading what a request refers to, in a handful of queries whatever the number of events

/** Event types and properties are app-level (control plane); records and utks are the account's (its shard). */
async function loadContext(db: Db, control: Db, portalId: number, appId: number, inputs: EventInput[]) {
  const typeIds = [...new Set(inputs.map((e) => e.eventTypeId))];
  const objectIds = [...new Set(inputs.flatMap((e) => (e.objectId == null ? [] : [e.objectId])))];
  const emails = [...new Set(inputs.flatMap((e) => (e.email ? [e.email.trim().toLowerCase()] : [])))];
  const utks = [...new Set(inputs.flatMap((e) => (e.utk ? [e.utk] : [])))];

  const [types, props, records, contacts, ties] = await Promise.all([
    control
      .select()
      .from(timelineEventTypes)
      .where(and(eq(timelineEventTypes.appId, appId), inJson(timelineEventTypes.id, typeIds)))
      .all(),
    control.select().from(timelineEventProperties).where(inJson(timelineEventProperties.eventTypeId, typeIds)).all(),
    objectIds.length
      ? db
          .select({ id: crmObjects.id, objectType: crmObjects.objectType, email: crmObjects.email })
          .from(crmObjects)
          .where(and(eq(crmObjects.portalId, portalId), eq(crmObjects.archived, false), inJson(crmObjects.id, objectIds)))
          .all()
      : [],
    emails.length
      ? db
          .select({ id: crmObjects.id, email: crmObjects.email })
          .from(crmObjects)
          .where(
            and(
              eq(crmObjects.portalId, portalId),
              eq(crmObjects.objectType, "contacts"),
              eq(crmObjects.archived, false),
              inJson(crmObjects.email, emails),
            ),
          )
          .all()
      : [],
    utks.length
      ? db
          .select({ utk: timelineUtks.utk, contactId: timelineUtks.contactId })
          .from(timelineUtks)
          .innerJoin(crmObjects, and(eq(crmObjects.id, timelineUtks.contactId), eq(crmObjects.archived, false)))
          .where(and(eq(timelineUtks.portalId, portalId), inJson(timelineUtks.utk, utks)))
          .all()
      : [],
  ]);

  const propsByType = new Map<number, PropertyRow[]>();
  for (const p of props) propsByType.set(p.eventTypeId, [...(propsByType.get(p.eventTypeId) ?? []), p]);
  return {
    types: new Map(types.map((t) => [t.id, t])),
    propsByType,
    records: new Map(records.map((r) => [r.id, r])),
    contacts,
    ties,
  };
}

// ---------------------------------------------------------------------------------------------------------
// The plan: every decision made in memory, in request order, before anything is written

interface PlannedEvent {
  input: EventInput;
  eventTypeId: number;
  objectType: TimelineObjectType;
  target: Target;
  values: Record<string, string>;
}

interface Plan {
  /** Contacts created by this write (an unknown email creates a contact): lower-cased email -> email as sent. */
  newContacts: Map<string, string>;
  /** Contacts whose email this write changes (objectId plus a new email): id -> email as sent. */
  emailChanges: Map<number, string>;
  /** Visitor tokens this write ties to a contact. */
  ties: Map<string, Target>;
  events: PlannedEvent[];
  /** objectProperty stamps merged per record: a property's value is also set on that record property. */
  stamps: Map<string, { target: Target; patch: Record<string, string> }>;
}

function plan(inputs: EventInput[], ctx: Awaited<ReturnType<typeof loadContext>>, prefixOf: (i: number) => string): Plan {
  const out: Plan = { newContacts: new Map(), emailChanges: new Map(), ties: new Map(), events: [], stamps: new Map() };
  // Local views, updated as each event is planned, so later events of a batch see what earlier ones did.
  const contactByEmail = new Map<string, Target>(ctx.contacts.map((c) => [c.email ?? "", { kind: "id", id: c.id }]));
  const emailOfContact = new Map<number, string | null>();
  for (const r of ctx.records.values()) if (r.objectType === "contacts") emailOfContact.set(r.id, r.email);
  const tieByUtk = new Map<string, Target>(ctx.ties.map((t) => [t.utk, { kind: "id", id: t.contactId }]));
  const tie = (utk: string, target: Target) => {
    out.ties.set(utk, target);
    tieByUtk.set(utk, target);
  };

  const errors: ErrorDetail[] = [];
  inputs.forEach((input, i) => {
    const prefix = prefixOf(i);
    const type = ctx.types.get(input.eventTypeId);
    // Another app's event type is as unknown as a missing one.
    if (!type) throw notFound(`${prefix}Event type ${input.eventTypeId} not found`);
    const { values, stamp } = readValues(input, ctx.propsByType.get(type.id) ?? [], prefix, errors);

    let target: Target;
    const recordType = RECORD_TYPE[type.objectType];
    if (type.objectType !== "CONTACT") {
      // objectId is required for COMPANY and DEAL types and must name an existing record.
      if (input.objectId == null) {
        throw badRequest(`Invalid body: ${prefix}objectId is required for ${type.objectType} event types`, {
          errors: [{ message: `${prefix}objectId is required`, code: "REQUIRED", in: "body", context: { propertyName: [`${prefix}objectId`] } }],
        });
      }
      const rec = ctx.records.get(input.objectId);
      if (!rec || rec.objectType !== recordType) throw notFound(`${prefix}${recordType} ${input.objectId} not found`);
      target = { kind: "id", id: rec.id };
    } else if (input.objectId != null) {
      // objectId comes first of objectId, utk and email, and never creates a contact.
      const rec = ctx.records.get(input.objectId);
      if (!rec || rec.objectType !== "contacts") throw notFound(`${prefix}contacts ${input.objectId} not found`);
      target = { kind: "id", id: rec.id };
      if (input.email) {
        // A new email with the objectId of an existing contact updates that contact's email.
        const lower = input.email.trim().toLowerCase();
        const current = emailOfContact.get(rec.id) ?? null;
        if (current !== lower) {
          const holder = contactByEmail.get(lower);
          if (holder && targetKey(holder) !== targetKey(target)) {
            throw conflict(`${prefix}Another contact already has the email ${input.email}`);
          }
          out.emailChanges.set(rec.id, input.email.trim());
          if (current) contactByEmail.delete(current);
          contactByEmail.set(lower, target);
          emailOfContact.set(rec.id, lower);
        }
      }
      if (input.utk && !tieByUtk.has(input.utk)) tie(input.utk, target);
    } else if (input.utk && tieByUtk.has(input.utk)) {
      // A tied utk comes before email.
      target = tieByUtk.get(input.utk)!;
    } else if (input.email) {
      // Emails are unique per contact: the contact with that email, or a new contact holding only the email.
      const lower = input.email.trim().toLowerCase();
      let found = contactByEmail.get(lower);
      if (!found) {
        found = { kind: "email", email: lower };
        out.newContacts.set(lower, input.email.trim());
        contactByEmail.set(lower, found);
      }
      target = found;
      // The recommended email + utk pair ties the token, which reveals its pending events.
      if (input.utk) tie(input.utk, target);
    } else if (input.utk) {
      // A utk alone never creates a contact: an unknown token creates nothing; the event waits, invisible, for a tie.
      target = { kind: "pending" };
    } else {
      throw badRequest(`Invalid body: ${prefix}an event needs objectId, utk or email to find its record`, {
        errors: [{ message: `${prefix}objectId, utk or email is required`, code: "REQUIRED", in: "body", context: { propertyName: [`${prefix}objectId`] } }],
      });
    }

    if (target.kind !== "pending" && Object.keys(stamp).length) {
      const key = targetKey(target);
      const entry = out.stamps.get(key) ?? { target, patch: {} };
      Object.assign(entry.patch, stamp);
      out.stamps.set(key, entry);
    }
    out.events.push({ input, eventTypeId: type.id, objectType: type.objectType, target, values });
  });
  if (errors[0]) throw badRequest(`Invalid body: ${errors[0].message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ""}`, { errors: errors.slice(0, 20) });
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Statements

/** The record id a target stands for: a number, or a lookup of the contact this same batch creates. */
function recordId(db: Db, portalId: number, target: Target): number | SQL | null {
  if (target.kind === "id") return target.id;
  if (target.kind === "pending") return null;
  const q = db
    .select({ id: crmObjects.id })
    .from(crmObjects)
    .where(
      and(
        eq(crmObjects.portalId, portalId),
        eq(crmObjects.objectType, "contacts"),
        eq(crmObjects.archived, false),
        eq(crmObjects.email, target.email),
      ),
    );
  return sql`(${q})`;
}

function newContactStatement(db: Db, portalId: number, lower: string, email: string, now: number) {
  // On conflict (a concurrent write made the same contact) the existing one is used via its email.
  return db
    .insert(crmObjects)
    .values({ id: newId("crm_objects"), portalId, objectType: "contacts", properties: { email }, email: lower, guid: crypto.randomUUID(), createdAt: now, updatedAt: now })
    .onConflictDoNothing();
}

/** The statement that ties a token to a contact (on the account's shard, beside its contacts). */
function tieStatement(db: Db, portalId: number, utk: string, target: Target, now: number, retie: boolean) {
  const contactId = recordId(db, portalId, target) as number | SQL;
  const insert = db.insert(timelineUtks).values({ portalId, utk, contactId, updatedAt: now });
  return retie
    ? insert.onConflictDoUpdate({ target: [timelineUtks.portalId, timelineUtks.utk], set: { contactId, updatedAt: now } })
    : insert.onConflictDoNothing();
}

/** The statement that attaches a token's pending events to its contact (where the events live). */
function attachStatement(events: Db, portalId: number, utk: string, contactId: number | SQL, now: number) {
  return events
    .update(timelineEvents)
    .set({ objectId: contactId, updatedAt: now })
    .where(
      and(
        eq(timelineEvents.portalId, portalId),
        eq(timelineEvents.utk, utk),
        isNull(timelineEvents.objectId),
        eq(timelineEvents.objectType, "CONTACT"),
      ),
    );
}

function eventStatement(db: Db, portalId: number, ev: PlannedEvent, objectId: number | SQL | null, now: number, replace: boolean) {
  const { input } = ev;
  const fields = {
    objectId,
    email: input.email?.trim() ?? null,
    utk: input.utk ?? null,
    properties: ev.values,
    extraData: input.extraData ?? null,
    timelineIFrame: input.timelineIFrame ?? null,
    updatedAt: now,
  };
  const hasTimestamp = input.timestamp !== undefined && input.timestamp !== null;
  const insert = db.insert(timelineEvents).values({
    ...fields,
    rowId: newId("timeline_events"),
    portalId,
    eventTypeId: ev.eventTypeId,
    eventId: input.id,
    objectType: ev.objectType,
    timestamp: hasTimestamp ? input.timestamp! : now,
    createdAt: now,
  });
  // The v3 face keeps events immutable (docs/reference/timeline.md): a repeated id never replaces the stored event.
  if (!replace) return insert.onConflictDoNothing();
  return insert.onConflictDoUpdate({
    // The event id is the idempotency key; the same id replaces the stored event. Without a new
    // timestamp the original one is kept, so a retried write does not move the event on the timeline.
    target: [timelineEvents.portalId, timelineEvents.eventTypeId, timelineEvents.eventId],
    set: hasTimestamp ? { ...fields, timestamp: input.timestamp! } : fields,
  });
}

function isUniqueViolation(err: unknown): boolean {
  return err instanceof Error && /UNIQUE constraint failed/i.test(err.message + String((err as { cause?: unknown }).cause ?? ""));
}

async function runBatch(db: Db, statements: BatchItem<"sqlite">[]) {
  if (statements.length === 0) return;
  try {
    await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  } catch (err) {
    // Only reachable when a concurrent write took an email between our read and our write.
    if (isUniqueViolation(err)) throw conflict("Another contact already has that email");
    throw err;
  }
}

/** The statements of a plan that go to the account's shard: contacts, token ties and stamps. */
function homeStatements(db: Db, portalId: number, p: Plan, now: number): BatchItem<"sqlite">[] {
  const statements: BatchItem<"sqlite">[] = [];
  for (const [lower, email] of p.newContacts) statements.push(newContactStatement(db, portalId, lower, email, now));
  for (const [id, email] of p.emailChanges) {
    statements.push(
      db
        .update(crmObjects)
        .set({ email: email.toLowerCase(), properties: sql`json_set(${crmObjects.properties}, '$.email', ${email})`, updatedAt: now })
        .where(and(eq(crmObjects.id, id), eq(crmObjects.portalId, portalId))),
    );
  }
  for (const [utk, target] of p.ties) statements.push(tieStatement(db, portalId, utk, target, now, false));
  for (const { target, patch } of p.stamps.values()) {
    const id = recordId(db, portalId, target) as number | SQL;
    statements.push(
      db
        .update(crmObjects)
        .set({ properties: sql`json_patch(${crmObjects.properties}, ${JSON.stringify(patch)})`, updatedAt: now })
        .where(and(eq(crmObjects.portalId, portalId), eq(crmObjects.id, id))),
    );
  }
  return statements;
}

/**
 * The statements of a plan that go where the events live. `idOf` gives a target's record id: a lookup in
 * the same batch when the events share the account's shard, a number read after the home batch otherwise.
 */
function eventStatements(events: Db, portalId: number, p: Plan, idOf: (t: Target) => number | SQL | null, now: number, replace: boolean): BatchItem<"sqlite">[] {
  const statements: BatchItem<"sqlite">[] = p.events.map((ev) => eventStatement(events, portalId, ev, idOf(ev.target), now, replace));
  // After the events, so a pending event earlier in the same batch is attached too.
  for (const [utk, target] of p.ties) statements.push(attachStatement(events, portalId, utk, idOf(target) as number | SQL, now));
  return statements;
}

/** The contacts' ids of the email targets of a plan, read on the account's shard once its batch created them. */
async function emailTargetIds(db: Db, portalId: number, p: Plan): Promise<Map<string, number>> {
  const emails = new Set<string>();
  for (const t of [...p.events.map((e) => e.target), ...p.ties.values()]) if (t.kind === "email") emails.add(t.email);
  if (!emails.size) return new Map();
  const rows = await db
    .select({ id: crmObjects.id, email: crmObjects.email })
    .from(crmObjects)
    .where(and(eq(crmObjects.portalId, portalId), eq(crmObjects.objectType, "contacts"), eq(crmObjects.archived, false), inJson(crmObjects.email, [...emails])))
    .all();
  return new Map(rows.map((r) => [r.email ?? "", r.id]));
}

/**
 * Writes a plan. With the events on the account's shard: one batch, in the order that makes it see its own
 * new contacts and ties (all or nothing). With the events on a companion shard (docs/explanation/scaling.md
 * "Accounts larger than one database"): the shard's batch first (contacts, ties, stamps), then the events'
 * batch with the contacts' ids read back. Two transactions, each all or nothing; a failure between them
 * leaves the first written, and a retry of the same request is safe: every statement of the first batch is
 * idempotent (contacts and ties on conflict do nothing, stamps set the same values) and an event is keyed by
 * its id, so the retry writes exactly what is missing.
 */
async function writePlan(db: Db, events: Db, portalId: number, p: Plan, now: number, replace: boolean) {
  if (events === db) {
    const home = homeStatements(db, portalId, p, now);
    const contacts = p.newContacts.size + p.emailChanges.size;
    // Contacts first, then events, then ties with the events they attach, then stamps.
    const ties = home.slice(contacts, contacts + p.ties.size);
    const stamps = home.slice(contacts + p.ties.size);
    const evs = eventStatements(db, portalId, p, (t) => recordId(db, portalId, t), now, replace);
    const attach = evs.slice(p.events.length);
    const interleaved = ties.flatMap((tie, i) => [tie, attach[i]!]);
    return runBatch(db, [...home.slice(0, contacts), ...evs.slice(0, p.events.length), ...interleaved, ...stamps]);
  }
  await runBatch(db, homeStatements(db, portalId, p, now));
  const ids = await emailTargetIds(db, portalId, p);
  const idOf = (t: Target) => (t.kind === "id" ? t.id : t.kind === "pending" ? null : (ids.get(t.email) ?? null));
  await runBatch(events, eventStatements(events, portalId, p, idOf, now, replace));
}

/**
 * Validates, resolves and writes events. `prefixOf(i)` names event i in error messages (empty for a
 * single event, `eventWrappers.i.` in a batch).
 */
export async function writeEvents(
  db: Db,
  events: Db,
  control: Db,
  portalId: number,
  appId: number,
  inputs: EventInput[],
  now: number,
  prefixOf: (i: number) => string = () => "",
) {
  const ctx = await loadContext(db, control, portalId, appId, inputs);
  await writePlan(db, events, portalId, plan(inputs, ctx, prefixOf), now, true);
}

/**
 * Writes, as one batch, the events that can be written, each judged in the light of those accepted before
 * it; the others come back with the error that refuses them (the v3 batch's 207), and a refusal never
 * touches another event. Events are created, never replaced: on the v3 face events are immutable.
 */
export async function writeEventsEach(db: Db, events: Db, control: Db, portalId: number, appId: number, inputs: EventInput[], now: number) {
  const ctx = await loadContext(db, control, portalId, appId, inputs);
  const accepted: EventInput[] = [];
  const refused: { index: number; error: ApiError }[] = [];
  inputs.forEach((input, index) => {
    try {
      plan([...accepted, input], ctx, () => "");
      accepted.push(input);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      refused.push({ index, error: err });
    }
  });
  if (accepted.length) await writePlan(db, events, portalId, plan(accepted, ctx, () => ""), now, false);
  return { accepted, refused };
}

/**
 * Ties a visitor token to the contact with that email, creating the contact if needed: the "other means"
 * by which a token sent alone gets a contact and its waiting events become visible. A token already tied is
 * re-tied: the browser now belongs to this contact. Its pending events appear on the contact; events already
 * on a contact stay where they are.
 */
export async function identifyVisitor(db: Db, events: Db, portalId: number, utk: string, email: string, now: number) {
  const lower = email.trim().toLowerCase();
  const target: Target = { kind: "email", email: lower };
  const contact = newContactStatement(db, portalId, lower, email.trim(), now);
  const tie = tieStatement(db, portalId, utk, target, now, true);
  // The events on the account's shard: one batch. On a companion shard: the contact's id is read back first
  // (two transactions; repeating the call is safe, see writePlan).
  if (events === db) await runBatch(db, [contact, tie, attachStatement(db, portalId, utk, recordId(db, portalId, target) as SQL, now)]);
  else await runBatch(db, [contact, tie]);
  const row = await db
    .select({ id: crmObjects.id })
    .from(crmObjects)
    .where(and(eq(crmObjects.portalId, portalId), eq(crmObjects.objectType, "contacts"), eq(crmObjects.archived, false), eq(crmObjects.email, lower)))
    .get();
  if (!row) throw new ApiError("INTERNAL_ERROR", "The identified contact could not be read back");
  if (events !== db) await attachStatement(events, portalId, utk, row.id, now);
  return { utk, vid: row.id };
}

// ---------------------------------------------------------------------------------------------------------
// Reading

export type EventRow = typeof timelineEvents.$inferSelect;

export async function getEvent(db: Db, portalId: number, eventTypeId: number, eventId: string): Promise<EventRow> {
  const row = await db
    .select()
    .from(timelineEvents)
    .where(and(eq(timelineEvents.portalId, portalId), eq(timelineEvents.eventTypeId, eventTypeId), eq(timelineEvents.eventId, eventId)))
    .get();
  if (!row) throw notFound(`Event ${eventId} of event type ${eventTypeId} not found`);
  return row;
}

/** The stored event, custom values as strings at the top level (docs/reference/timeline.md). */
export function presentEvent(row: EventRow) {
  const out: Record<string, unknown> = {
    ...row.properties,
    id: row.eventId,
    eventTypeId: row.eventTypeId,
    objectId: row.objectId,
    timestamp: row.timestamp,
  };
  if (row.email) out.email = row.email;
  if (row.utk) out.utk = row.utk;
  if (row.extraData !== null && row.extraData !== undefined) out.extraData = row.extraData;
  if (row.timelineIFrame) out.timelineIFrame = row.timelineIFrame;
  return out;
}
