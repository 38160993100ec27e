/**
 * @module `POST /crm/v3/objects/{objectType}/batch/{create,read,update,upsert,archive}` (docs/reference/crm.md
 * "Batch"). Each batch reads what it needs in one query, then runs every record's write (the statements
 * the single-record routes run, src/services/crm/records.ts) in ONE db.batch: all of it lands, or none of it.
 * Inputs that name no record are reported as errors beside the results (the route's 207).
 */
import { webhookEventItems, type OutboxSource, type RecordChange } from "../webhooks/events";
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import type { ObjectType } from "../../db/tables/crm";
import { badRequest } from "../../lib/errors";
import { crmRowFromRaw, type RawCrmRow } from "./records";
import * as crm from "./records";
import { jsonPath, uniquePropertiesOf } from "./unique";

/** One failure of a batch, in the real service's StandardError shape. */
export interface BatchError {
  status: "error";
  category: string;
  message: string;
  context: Record<string, string[]>;
  errors: never[];
  links: Record<string, string>;
}

export interface BatchOutcome<T> {
  results: T[];
  errors: BatchError[];
}

/** How inputs name records: the record id, (contacts) the email, or a unique custom property of the type. */
export type IdProperty = string;

const inputError = (at: string, message: string) =>
  badRequest(`${at}: ${message}`, { errors: [{ message: `${at}: ${message}`, in: "body", context: { propertyName: [at] } }] });

/** The idProperty a single-record path accepts: `hs_object_id` (the default) everywhere, `email` on contacts. */
export function idPropertyOf(type: ObjectType, given: string | undefined, at: string): "hs_object_id" | "email" {
  if (given === undefined || given === "hs_object_id") return "hs_object_id";
  if (given === "email" && type === "contacts") return "email";
  throw inputError(at, `${JSON.stringify(given)} is not a unique property of ${type}; use hs_object_id${type === "contacts" ? " or email" : ""}`);
}

/**
 * The idProperty a batch accepts: `hs_object_id` (the default), `email` on contacts, or a custom property of
 * the type with `hasUniqueValue` (the real service's rule: an idProperty names a unique property).
 */
export async function resolveIdProperty(db: Db, portalId: number, type: ObjectType, given: string | undefined, at: string): Promise<IdProperty> {
  if (given === undefined || given === "hs_object_id" || (given === "email" && type === "contacts")) return given ?? "hs_object_id";
  if ((await uniquePropertiesOf(db, portalId, type)).includes(given)) return given;
  throw inputError(at, `${JSON.stringify(given)} is not a unique property of ${type}; use hs_object_id${type === "contacts" ? ", email" : ""} or a property with hasUniqueValue`);
}

/** The key an id is matched on: the numeric id, the lower-cased email, or a unique property's value as given. */
function keyOf(idProperty: IdProperty, id: string, at: string): string {
  if (idProperty === "email") return id.trim().toLowerCase();
  if (idProperty !== "hs_object_id") return id;
  if (!/^\d{1,15}$/.test(id)) throw inputError(at, "must be a numeric record id (or set idProperty)");
  return String(Number(id));
}

/**
 * The live records named by `ids` (one query), keyed as `keyOf` keys them; with `archived`, the archived
 * ones that were not merged away (the one archived last, where several archived contacts share an email).
 * Live email lookups state the partial index's condition with literals, so SQLite uses crm_objects_contact_email;
 * archived ones name crm_objects_archived_email, which SQLite would otherwise pass over for the list index
 * (three equal columns against two), reading every archived contact of the account.
 */
export async function recordsById(db: Db, portalId: number, type: ObjectType, idProperty: IdProperty, keys: string[], archived = false): Promise<Map<string, crm.CrmRow>> {
  if (keys.length === 0) return new Map();
  if (idProperty !== "email" && idProperty !== "hs_object_id") return recordsByUnique(db, portalId, type, idProperty, keys, archived);
  const list = JSON.stringify(idProperty === "email" ? keys : keys.map(Number));
  const which = sql.raw(crm.liveOrArchived(archived));
  const byEmail = archived ? sql`crm_objects indexed by crm_objects_archived_email` : sql`crm_objects`;
  const rows =
    idProperty === "email"
      ? await db.all<RawCrmRow>(sql`select * from ${byEmail} where portal_id = ${portalId} and object_type = 'contacts' and ${which}
          and email is not null and email in (select value from json_each(${list}))`)
      : await db.all<RawCrmRow>(sql`select * from crm_objects where portal_id = ${portalId} and object_type = ${type} and ${which}
          and id in (select value from json_each(${list}))`);
  // Oldest archive first, so the Map keeps the contact archived last for an email several share.
  if (archived) rows.sort((x, y) => x.updated_at - y.updated_at || x.id - y.id);
  return new Map(rows.map(crmRowFromRaw).map((r) => [idProperty === "email" ? r.email! : String(r.id), r]));
}

/** The records holding `keys` in the unique custom property `name` (live ones; with `archived`, archived ones). */
async function recordsByUnique(db: Db, portalId: number, type: ObjectType, name: string, keys: string[], archived: boolean): Promise<Map<string, crm.CrmRow>> {
  const rows = await db.all<RawCrmRow>(sql`select * from crm_objects where portal_id = ${portalId} and object_type = ${type} and ${sql.raw(crm.liveOrArchived(archived))}
    and json_extract(properties, ${jsonPath(name)}) in (select value from json_each(${JSON.stringify(keys)}))`);
  // Oldest archive first, so the Map keeps the record archived last for a value several archived ones share.
  if (archived) rows.sort((x, y) => x.updated_at - y.updated_at || x.id - y.id);
  return new Map(rows.map(crmRowFromRaw).map((r) => [r.properties[name]!, r]));
}

/** Keys of the inputs, refusing a record named twice (its two writes would race inside one batch). */
function distinctKeys(idProperty: IdProperty, ids: string[], field: (i: number) => string): string[] {
  const seen = new Map<string, number>();
  return ids.map((id, i) => {
    const key = keyOf(idProperty, id, field(i));
    const first = seen.get(key);
    if (first !== undefined) throw inputError(field(i), `names the same record as inputs.${first}`);
    seen.set(key, i);
    return key;
  });
}

/** Refuses an upsert naming one key twice (`inputs.N.id`), before any other check reads the inputs. */
export const requireDistinctKeys = (idProperty: IdProperty, ids: string[]) => void distinctKeys(idProperty, ids, (i) => `inputs.${i}.id`);

const notFoundError = (type: ObjectType, ids: string[]): BatchError => ({
  status: "error",
  category: "OBJECT_NOT_FOUND",
  message: `Could not get some ${type} objects, they may be deleted or not exist. Check that ids are valid.`,
  context: { ids },
  errors: [],
  links: {},
});

/** The records `ids` name: live ones, or with `archived` archived ones; the others are a 207's errors. */
export async function batchRead(db: Db, portalId: number, type: ObjectType, idProperty: IdProperty, ids: string[], archived = false): Promise<BatchOutcome<crm.CrmRow>> {
  const keys = ids.map((id, i) => keyOf(idProperty, id, `inputs.${i}.id`));
  const found = await recordsById(db, portalId, type, idProperty, [...new Set(keys)], archived);
  const results = [...new Map(keys.flatMap((k) => (found.has(k) ? [[k, found.get(k)!] as const] : []))).values()];
  const missing = ids.filter((_, i) => !found.has(keys[i]!));
  return { results, errors: missing.length ? [notFoundError(type, missing)] : [] };
}

export interface CreateInput {
  properties: Record<string, string>;
  associations: { type: ObjectType; id: number }[];
}

/** Two inputs of one batch may not give a contact the same email (the unique index would refuse the batch). */
function checkDistinctEmails(type: ObjectType, props: Record<string, string>[], field: (i: number) => string) {
  const seen = new Map<string, number>();
  props.forEach((p, i) => {
    const email = crm.emailOf(type, p);
    if (!email) return;
    const first = seen.get(email);
    if (first !== undefined) throw inputError(field(i), `the same email as inputs.${first}`);
    seen.set(email, i);
  });
}

/** One record's write in a batch: its statements, the email it sets, and what it changes (for webhooks). */
interface RecordWrite {
  statements: crm.Statement[];
  email: string | null;
  change: Change;
}
type Change = { kind: "created"; properties: Record<string, string>; associations?: { type: ObjectType; id: number }[] } | { kind: "updated"; id: number; before: Record<string, string>; after: Record<string, string> };

/**
 * The webhook events of a batch's writes, appended after all of them: a created record is named by its place
 * among the batch's inserts counted from the end (services/webhooks/events.ts).
 */
function batchEvents(db: Db, type: ObjectType, writes: RecordWrite[], outbox: OutboxSource) {
  let created = writes.filter((w) => w.change.kind === "created").length;
  const changes: RecordChange[] = writes.flatMap(({ change: c }): RecordChange[] => {
    if (c.kind !== "created") return [{ kind: "updated", objectType: type, id: c.id, before: c.before, after: c.after }];
    const id = { fromEnd: --created };
    return [{ kind: "created", objectType: type, id, properties: c.properties }, { kind: "associated", objectType: type, id, to: c.associations ?? [] }];
  });
  return webhookEventItems(db, outbox, changes);
}

const createChange = (props: Record<string, string>, associations?: { type: ObjectType; id: number }[]): Change => ({
  kind: "created",
  properties: Object.fromEntries(Object.entries(props).filter(([, v]) => v !== "")),
  associations,
});
const updateChange = (row: crm.CrmRow, patch: Record<string, string>): Change => ({ kind: "updated", id: row.id, before: row.properties, after: crm.mergeProperties(row.properties, patch) });

/** Runs each record's statements in one db.batch, with their webhook events; returns each record's row (its first statement's). */
async function runRecordWrites(db: Db, portalId: number, type: ObjectType, writes: RecordWrite[], outbox: OutboxSource): Promise<crm.CrmRow[]> {
  const events = await batchEvents(db, type, writes, outbox);
  const results = await crm.runWrites(db, portalId, writes.flatMap((w) => w.statements), writes.map((w) => w.email), events);
  const rows: crm.CrmRow[] = [];
  let at = 0;
  for (const w of writes) {
    rows.push((results[at] as crm.CrmRow[])[0]!);
    at += w.statements.length;
  }
  return rows;
}

/** All or nothing: an email another contact holds is the single create's 409, naming that contact. */
export async function batchCreate(db: Db, portalId: number, type: ObjectType, inputs: CreateInput[], now: number, outbox?: OutboxSource): Promise<crm.CrmRow[]> {
  checkDistinctEmails(type, inputs.map((i) => i.properties), (i) => `inputs.${i}.properties.email`);
  const emails = inputs.map((i) => crm.emailOf(type, i.properties)).filter((e): e is string => e !== null);
  const held = await recordsById(db, portalId, type, "email", emails);
  const holder = held.values().next().value;
  if (holder) throw crm.contactExists(holder.id);
  return runRecordWrites(
    db,
    portalId,
    type,
    inputs.map((i) => ({ statements: crm.createStatements(db, portalId, type, i.properties, now, i.associations), email: crm.emailOf(type, i.properties), change: createChange(i.properties, i.associations) })),
    outbox,
  );
}

export interface UpdateInput {
  id: string;
  idProperty: IdProperty;
  properties: Record<string, string>;
}

/** Updates the records found; the others are errors. An email another contact holds is a 409 for the batch. */
export async function batchUpdate(db: Db, portalId: number, type: ObjectType, inputs: UpdateInput[], now: number, outbox?: OutboxSource): Promise<BatchOutcome<crm.CrmRow>> {
  const found = new Map<string, crm.CrmRow>();
  const keys: string[] = [];
  for (const idProperty of new Set(["hs_object_id", ...inputs.map((i) => i.idProperty)])) {
    const idx = inputs.map((inp, i) => (inp.idProperty === idProperty ? i : -1)).filter((i) => i >= 0);
    const ks = distinctKeys(idProperty, idx.map((i) => inputs[i]!.id), (j) => `inputs.${idx[j]}.id`);
    idx.forEach((i, j) => (keys[i] = `${idProperty}:${ks[j]}`));
    for (const [k, row] of await recordsById(db, portalId, type, idProperty, ks)) found.set(`${idProperty}:${k}`, row);
  }
  const rows = inputs.map((_, i) => found.get(keys[i]!));
  const ids = new Set<number>();
  rows.forEach((r, i) => {
    if (!r) return;
    if (ids.has(r.id)) throw inputError(`inputs.${i}.id`, "names a record another input names");
    ids.add(r.id);
  });
  const present = inputs.flatMap((inp, i) => (rows[i] ? [{ inp, row: rows[i] }] : []));
  // Two inputs setting one email; an email a record outside the inputs holds is the unique index's 409.
  checkDistinctEmails(type, present.map((p) => p.inp.properties), (i) => `inputs.${inputs.indexOf(present[i]!.inp)}.properties.email`);
  const writes = present.map(({ inp, row }) => {
    const { statement, email } = crm.updateStatement(db, portalId, row, inp.properties, now);
    return { statements: [statement], email, change: updateChange(row, inp.properties) };
  });
  const results = await runRecordWrites(db, portalId, type, writes, outbox);
  const missing = inputs.filter((_, i) => !rows[i]).map((inp) => inp.id);
  return { results, errors: missing.length ? [notFoundError(type, missing)] : [] };
}

/**
 * Upsert by a unique property: `email` on contacts, or a custom property with `hasUniqueValue` on any type.
 * A record holding the value is updated and keeps its id; otherwise one is created with the value. `new`
 * says which. Every write lands in one db.batch, or none does.
 */
export async function batchUpsert(
  db: Db,
  portalId: number,
  type: ObjectType,
  idProperty: IdProperty,
  inputs: { id: string; properties: Record<string, string> }[],
  now: number,
  outbox?: OutboxSource,
  /** Checks an input that creates a record (a custom type's required properties), before anything is written. */
  checkCreate: (properties: Record<string, string>, at: string) => void = () => {},
): Promise<{ row: crm.CrmRow; created: boolean }[]> {
  const keys = distinctKeys(idProperty, inputs.map((i) => i.id), (i) => `inputs.${i}.id`);
  keys.forEach((k, i) => {
    if (!k.trim()) throw inputError(`inputs.${i}.id`, `a value of ${idProperty} is required`);
  });
  const found = await recordsById(db, portalId, type, idProperty, keys);
  const plans = inputs.map((inp, i) => {
    const props = { ...inp.properties, [idProperty]: idProperty === "email" ? inp.id.trim() : inp.id };
    const current = found.get(keys[i]!);
    if (current) {
      const { statement, email } = crm.updateStatement(db, portalId, current, props, now);
      return { statements: [statement], email, created: false, change: updateChange(current, props) };
    }
    checkCreate(props, `inputs.${i}.`);
    return { statements: crm.createStatements(db, portalId, type, props, now), email: crm.emailOf(type, props), created: true, change: createChange(props) };
  });
  const rows = await runRecordWrites(db, portalId, type, plans, outbox);
  return rows.map((row, i) => ({ row, created: plans[i]!.created }));
}

/** Archives the records found (ids of no live record of the account are ignored, as on the real service). */
export async function batchArchive(db: Db, portalId: number, type: ObjectType, ids: string[], now: number, outbox?: OutboxSource): Promise<number> {
  const keys = [...new Set(ids.map((id, i) => keyOf("hs_object_id", id, `inputs.${i}.id`)))];
  const found = [...(await recordsById(db, portalId, type, "hs_object_id", keys)).values()];
  const statements = found.map((row) => crm.archiveStatement(db, portalId, row, now));
  const events = await webhookEventItems(db, outbox, found.map((row) => ({ kind: "deleted", objectType: type, id: row.id })));
  await crm.runWrites(db, portalId, statements, [], events);
  return statements.length;
}
