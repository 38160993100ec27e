/**
 * @module CRM records: create, read, update, archive and list objects of one account, and
 * associate them. Every query is scoped by portalId; another account's id is simply not found.
 */
import { and, eq, inArray, notInArray, sql, type AnyColumn, type SQLWrapper } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { newId } from "../../db/id-ranges";
import { alias } from "drizzle-orm/sqlite-core";
import { crmAssociations, crmObjects, isCustomType, type BuiltInObjectType, type ObjectType } from "../../db/tables/crm";
import { builderStatement } from "../../db/d1-raw";
import { badRequest, conflict, notFound } from "../../lib/errors";
import type { Scope } from "../../lib/scopes";
import { webhookEventItems, type OutboxSource } from "../webhooks/events";
import { projection } from "./projection";

export type CrmRow = typeof crmObjects.$inferSelect;

/** A `crm_objects` row as raw SQL (`db.all`) returns it, before drizzle's mapping. */
export interface RawCrmRow {
  id: number;
  portal_id: number;
  object_type: CrmRow["objectType"];
  properties: string;
  email: string | null;
  guid: string;
  archived: number;
  merged_into: number | null;
  created_at: number;
  updated_at: number;
}

export const crmRowFromRaw = (r: RawCrmRow): CrmRow => ({
  id: r.id,
  portalId: r.portal_id,
  objectType: r.object_type,
  properties: JSON.parse(r.properties) as Record<string, string>,
  email: r.email,
  guid: r.guid,
  archived: Boolean(r.archived),
  mergedInto: r.merged_into,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/**
 * crm_objects' columns in a fixed order, for reads that take rows as arrays (D1's `raw()`): D1 hands the
 * Worker columns and rows, and `all()` builds an object per row from them, about 1 us a row in the local D1.
 */
export const CRM_COLUMNS = ["id", "portal_id", "object_type", "properties", "email", "guid", "archived", "merged_into", "created_at", "updated_at"] as const;
/** `CRM_COLUMNS` as a select list, each column prefixed with `alias.` when one is given. */
export const crmColumns = (alias?: string) => CRM_COLUMNS.map((c) => (alias ? `${alias}.${c}` : c)).join(", ");

/** A row read as an array whose columns `crmColumns` listed, from position `at`. */
export const crmRowFromArray = (r: unknown[], at = 0): CrmRow => ({
  id: r[at] as number,
  portalId: r[at + 1] as number,
  objectType: r[at + 2] as CrmRow["objectType"],
  properties: JSON.parse(r[at + 3] as string) as Record<string, string>,
  email: r[at + 4] as string | null,
  guid: r[at + 5] as string,
  archived: Boolean(r[at + 6]),
  mergedInto: r[at + 7] as number | null,
  createdAt: r[at + 8] as number,
  updatedAt: r[at + 9] as number,
});

const SCOPE_OF: Record<BuiltInObjectType, { read: Scope; write: Scope }> = {
  contacts: { read: "crm.objects.contacts.read", write: "crm.objects.contacts.write" },
  companies: { read: "crm.objects.companies.read", write: "crm.objects.companies.write" },
  deals: { read: "crm.objects.deals.read", write: "crm.objects.deals.write" },
  products: { read: "e-commerce", write: "e-commerce" },
  line_items: { read: "e-commerce", write: "e-commerce" },
  tickets: { read: "tickets", write: "tickets" },
  // Activities are read and written with the contacts scopes, as on the real service; leads have their own.
  notes: { read: "crm.objects.contacts.read", write: "crm.objects.contacts.write" },
  tasks: { read: "crm.objects.contacts.read", write: "crm.objects.contacts.write" },
  calls: { read: "crm.objects.contacts.read", write: "crm.objects.contacts.write" },
  meetings: { read: "crm.objects.contacts.read", write: "crm.objects.contacts.write" },
  emails: { read: "crm.objects.contacts.read", write: "crm.objects.contacts.write" },
  communications: { read: "crm.objects.contacts.read", write: "crm.objects.contacts.write" },
  postal_mail: { read: "crm.objects.contacts.read", write: "crm.objects.contacts.write" },
  leads: { read: "crm.objects.leads.read", write: "crm.objects.leads.write" },
};

/** Records of every custom object type are read and written with the custom objects scopes, as on the real service. */
export const scopeFor = (type: ObjectType, access: "read" | "write"): Scope =>
  isCustomType(type) ? (access === "read" ? "crm.objects.custom.read" : "crm.objects.custom.write") : SCOPE_OF[type][access];

/** The lower-cased email a contact's properties carry, for the unique index (one contact per email in an account). */
export const emailOf = (type: ObjectType, props: Record<string, string>) =>
  type === "contacts" && props.email ? props.email.trim().toLowerCase() : null;

function isUniqueViolation(err: unknown): boolean {
  return err instanceof Error && /UNIQUE constraint failed/i.test(err.message + String((err as { cause?: unknown }).cause ?? ""));
}

/** An empty string means "no value": it is never stored (PATCH uses it to clear a property). */
const withoutEmpty = (props: Record<string, string>) => Object.fromEntries(Object.entries(props).filter(([, v]) => v !== ""));

/** A record's write: its statements, to run in one db.batch (alone, or with other records' writes). */
export type Statement = BatchItem<"sqlite">;

/**
 * The statements creating a record and its associations: the caller has checked that every
 * target is this account's. The new record's id is found by its guid inside the batch; the first
 * statement returns the row.
 */
export function createStatements(
  db: Db,
  portalId: number,
  type: ObjectType,
  input: Record<string, string>,
  now: number,
  associations: { type: ObjectType; id: number }[] = [],
): [Statement, ...Statement[]] {
  const props = withoutEmpty(input);
  const guid = crypto.randomUUID();
  const insert = db
    .insert(crmObjects)
    .values({ id: newId("crm_objects"), portalId, objectType: type, properties: props, email: emailOf(type, props), guid, createdAt: now, updatedAt: now })
    .returning();
  const self = sql`(select ${crmObjects.id} from ${crmObjects} where ${crmObjects.guid} = ${guid})`;
  const links = associations.flatMap((to) => [
    db.insert(crmAssociations).values({ portalId, fromId: self, toType: to.type, toId: to.id }).onConflictDoNothing(),
    db.insert(crmAssociations).values({ portalId, fromId: to.id, toType: type, toId: self }).onConflictDoNothing(),
  ]);
  return [insert, ...links];
}

/** The real service's words for a duplicate email, with the id integrators parse to fall back to an update. */
export const contactExists = (existingId: number | string) =>
  conflict(`Contact already exists. Existing ID: ${existingId}`);

/**
 * Runs the statements of one or more record writes in one db.batch. A unique-index violation (another
 * contact holds one of `emails`) becomes the 409 naming the holder.
 */
export async function runWrites(
  db: Db,
  portalId: number,
  statements: Statement[],
  emails: (string | null)[],
  /** Statements run after them in the same batch (webhook events); their results are not returned. */
  after: Statement[] = [],
): Promise<unknown[]> {
  if (statements.length === 0) return [];
  try {
    return (await db.batch([...statements, ...after] as [Statement, ...Statement[]])).slice(0, statements.length);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    for (const email of emails) {
      const holder = email ? await findContactByEmail(db, portalId, email) : undefined;
      if (holder) throw contactExists(holder.id);
    }
    // The holder changed between the batch and this read (a concurrent write): no id to name.
    throw conflict("Contact already exists");
  }
}

/** Creates a record and, in the same db.batch, its associations. */
export async function createObject(
  db: Db,
  portalId: number,
  type: ObjectType,
  input: Record<string, string>,
  now: number,
  associations: { type: ObjectType; id: number }[] = [],
  outbox?: OutboxSource,
) {
  // The record's webhook events follow its statements in the same batch (services/webhooks/events.ts).
  const events = await webhookEventItems(db, outbox, [
    { kind: "created", objectType: type, id: { fromEnd: 0 }, properties: withoutEmpty(input) },
    { kind: "associated", objectType: type, id: { fromEnd: 0 }, to: associations },
  ]);
  const [rows] = (await runWrites(db, portalId, createStatements(db, portalId, type, input, now, associations), [emailOf(type, input)], events)) as [CrmRow[]];
  return rows[0]!;
}

/** A live record by id: constant text (RECORD_BY_ID), rows as arrays. */
export async function getObject(db: Db, portalId: number, type: ObjectType, id: number): Promise<CrmRow> {
  const [row] = await db.$client.prepare(RECORD_BY_ID).bind(id, portalId, type).raw();
  if (!row) throw notFound(`${type} ${id} not found`);
  return crmRowFromArray(row);
}

/** A record holds at most this many properties, however many PATCHes brought them (200 per request). */
export const MAX_RECORD_PROPERTIES = 1000;
/** ... and at most this much stored JSON: the request body cap, well under D1's 2 MB row limit. */
export const MAX_RECORD_BYTES = 1024 * 1024;

/** A merged record past either cap is refused with a 400 instead of reaching D1 (which fails with SQLITE_TOOBIG). */
function checkRecordSize(props: Record<string, string>) {
  const count = Object.keys(props).length;
  if (count > MAX_RECORD_PROPERTIES) {
    throw badRequest(`A record holds at most ${MAX_RECORD_PROPERTIES} properties; this update would leave ${count}`);
  }
  const bytes = new TextEncoder().encode(JSON.stringify(props)).length;
  if (bytes > MAX_RECORD_BYTES) {
    throw badRequest(`A record's properties may take at most 1 MiB; this update would leave ${bytes} bytes`);
  }
}

/** The merged properties of a PATCH: an empty string clears a property. */
export function mergeProperties(current: Record<string, string>, patch: Record<string, string>) {
  const props = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    if (v === "") delete props[k];
    else props[k] = v;
  }
  checkRecordSize(props);
  return props;
}

/** The statement updating a record read before (`current`) with a PATCH; it returns the row. */
export function updateStatement(db: Db, portalId: number, current: CrmRow, patch: Record<string, string>, now: number) {
  const props = mergeProperties(current.properties, patch);
  const statement = db
    .update(crmObjects)
    .set({ properties: props, email: emailOf(current.objectType, props), updatedAt: now })
    .where(and(eq(crmObjects.id, current.id), eq(crmObjects.portalId, portalId)))
    .returning();
  return { statement, email: emailOf(current.objectType, props) };
}

/** Merges properties; an empty string clears a property. */
export async function updateObject(
  db: Db,
  portalId: number,
  type: ObjectType,
  id: number,
  patch: Record<string, string>,
  now: number,
  outbox?: OutboxSource,
): Promise<CrmRow> {
  const current = await getObject(db, portalId, type, id);
  const { statement, email } = updateStatement(db, portalId, current, patch, now);
  const events = await webhookEventItems(db, outbox, [{ kind: "updated", objectType: type, id, before: current.properties, after: mergeProperties(current.properties, patch) }]);
  const [rows] = (await runWrites(db, portalId, [statement], [email], events)) as [CrmRow[]];
  return rows[0] ?? current;
}

/** The statement archiving a record read before. */
export const archiveStatement = (db: Db, portalId: number, row: CrmRow, now: number) =>
  db
    .update(crmObjects)
    .set({ archived: true, updatedAt: now })
    .where(and(eq(crmObjects.id, row.id), eq(crmObjects.portalId, portalId)));

export async function archiveObject(db: Db, portalId: number, type: ObjectType, id: number, now: number, outbox?: OutboxSource) {
  const row = await getObject(db, portalId, type, id);
  const events = await webhookEventItems(db, outbox, [{ kind: "deleted", objectType: type, id }]);
  await runWrites(db, portalId, [archiveStatement(db, portalId, row, now)], [], events);
}

export async function findContactByEmail(db: Db, portalId: number, email: string) {
  return db
    .select()
    .from(crmObjects)
    .where(and(eq(crmObjects.portalId, portalId), eq(crmObjects.objectType, "contacts"), eq(crmObjects.archived, false), eq(crmObjects.email, email.trim().toLowerCase())))
    .get();
}

/** Which of `ids` are live records of `type` in the account (one query). */
export async function existingIds(db: Db, portalId: number, type: ObjectType, ids: number[]): Promise<Set<number>> {
  const rows = await db
    .select({ id: crmObjects.id })
    .from(crmObjects)
    .where(and(eq(crmObjects.portalId, portalId), eq(crmObjects.objectType, type), eq(crmObjects.archived, false), inJson(crmObjects.id, ids)))
    .all();
  return new Set(rows.map((r) => r.id));
}

/** Statements that associate two records in both directions (idempotent). */
export function associateStatements(db: Db, portalId: number, a: { type: ObjectType; id: number }, b: { type: ObjectType; id: number }) {
  return [
    db.insert(crmAssociations).values({ portalId, fromId: a.id, toType: b.type, toId: b.id }).onConflictDoNothing(),
    db.insert(crmAssociations).values({ portalId, fromId: b.id, toType: a.type, toId: a.id }).onConflictDoNothing(),
  ] as const;
}

export function dissociateStatements(db: Db, portalId: number, a: { type: ObjectType; id: number }, b: { type: ObjectType; id: number }) {
  return [
    db.delete(crmAssociations).where(and(eq(crmAssociations.portalId, portalId), eq(crmAssociations.fromId, a.id), eq(crmAssociations.toType, b.type), eq(crmAssociations.toId, b.id))),
    db.delete(crmAssociations).where(and(eq(crmAssociations.portalId, portalId), eq(crmAssociations.fromId, b.id), eq(crmAssociations.toType, a.type), eq(crmAssociations.toId, a.id))),
  ] as const;
}

/** `col IN (...)` with the list bound as one JSON parameter, so D1's 100-parameter cap never bites. */
export const inJson = (col: AnyColumn, values: readonly (string | number)[]) =>
  sql`${col} in (select value from json_each(${JSON.stringify(values)}))`;

/**
 * Whose associations to read: one record, a list of records, a subquery of ids, or the live contact with
 * an email (joined, so the contact and its associations are read in the same statement).
 */
type FromIds = number | number[] | SQLWrapper | { email: string };

const source = alias(crmObjects, "source");

/**
 * The associations of the records `from` names to live records of `types`. Unordered: groupAssociations
 * sorts each record's list, which spares D1 a sort of every row (rows it would count as read).
 */
/** Associated types: a list, or every type but some (a record page shows all but activities, custom types included). */
type AssociatedTypes = ObjectType[] | { except: readonly ObjectType[] };

function associationsQuery(db: Db, portalId: number, from: FromIds, types: AssociatedTypes) {
  const byEmail = typeof from === "object" && "email" in from ? from.email : undefined;
  const fromIds =
    typeof from === "number" ? eq(crmAssociations.fromId, from) : Array.isArray(from) ? inJson(crmAssociations.fromId, from) : byEmail === undefined ? inArray(crmAssociations.fromId, from as SQLWrapper) : undefined;
  const base = db
    .select({ fromId: crmAssociations.fromId, toType: crmAssociations.toType, toId: crmAssociations.toId })
    .from(crmAssociations)
    .innerJoin(crmObjects, and(eq(crmObjects.id, crmAssociations.toId), eq(crmObjects.archived, false)));
  const joined =
    byEmail === undefined
      ? base
      : base.innerJoin(source, and(eq(source.id, crmAssociations.fromId), eq(source.portalId, portalId), eq(source.objectType, "contacts"), eq(source.archived, false), eq(source.email, byEmail)));
  // The types (at most the six object types) as bound values: a JSON list would be read as rows too.
  const typed = Array.isArray(types) ? inArray(crmAssociations.toType, types) : notInArray(crmAssociations.toType, [...types.except]);
  return joined.where(and(eq(crmAssociations.portalId, portalId), fromIds, typed));
}

type AssociationRow = { fromId: number; toType: ObjectType; toId: number };

/** Association rows grouped per record (every one of `ids` has an entry) and associated type, by target id. */
function groupAssociations(ids: number[], rows: AssociationRow[]) {
  const out = new Map<number, Partial<Record<ObjectType, number[]>>>(ids.map((id) => [id, {}]));
  for (const r of rows) {
    const group = out.get(r.fromId);
    if (group) (group[r.toType] ??= []).push(r.toId);
  }
  for (const group of out.values()) for (const list of Object.values(group)) list?.sort((x, y) => x - y);
  return out;
}

/**
 * associationsOf's statement: `?1` the account, `?2` the record (or a JSON list of records), then the types
 * bound one by one (a JSON list would be read as rows too). Types left out are compared one by one: as
 * `not in (...)` SQLite probes a list it builds for every association, a row read each (103 rows for a
 * record with 50 notes, 53 this way). The text depends only on the count of records and types, so it is
 * made once per shape.
 */
function associationsText(many: boolean, count: number, except: boolean) {
  const key = `${many ? "n" : "1"}${except ? "-" : "+"}${count}`;
  let text = associationTexts.get(key);
  if (!text) {
    const at = Array.from({ length: count }, (_, i) => `?${i + 3}`);
    text = `select a.from_id, a.to_type, a.to_id from crm_associations a join crm_objects o on o.id = a.to_id and o.archived = 0
      where a.portal_id = ?1 and ${many ? "a.from_id in (select value from json_each(?2))" : "a.from_id = ?2"}
      ${except ? at.map((p) => `and a.to_type <> ${p}`).join(" ") : `and a.to_type in (${at.join(", ")})`}`;
    associationTexts.set(key, text);
  }
  return text;
}
const associationTexts = new Map<string, string>();

/** Associations of several records in one query, grouped per record and associated type. */
export async function associationsOf(db: Db, portalId: number, ids: number[], types: AssociatedTypes) {
  if ((Array.isArray(types) && types.length === 0) || ids.length === 0) return groupAssociations(ids, []);
  const listed = Array.isArray(types) ? types : types.except;
  const many = ids.length > 1;
  const rows = await db.$client
    .prepare(associationsText(many, listed.length, !Array.isArray(types)))
    .bind(portalId, many ? JSON.stringify(ids) : ids[0], ...listed)
    .raw<[number, ObjectType, number]>();
  return groupAssociations(
    ids,
    rows.map(([fromId, toType, toId]) => ({ fromId, toType, toId })),
  );
}

/** A live record by id, or a live contact by (lower-cased) email. */
export type RecordKey = { id: number } | { email: string };

interface RawAssociation {
  from_id: number;
  to_type: ObjectType;
  to_id: number;
}
const associationFromRaw = (r: RawAssociation): AssociationRow => ({ fromId: r.from_id, toType: r.to_type, toId: r.to_id });

/**
 * The rows of a read (each as an array, through `rowOf`) and, when `associations` is given, the rows of
 * that statement too, in one D1 round trip. A batch answers rows as objects: their values are the
 * read's columns, in order.
 */
async function withAssociations<R>(db: Db, read: D1PreparedStatement, rowOf: (r: unknown[]) => R, associations: D1PreparedStatement | null) {
  if (!associations) return { rows: (await read.raw()).map((r) => rowOf(r)), assoc: [] };
  const [rows, assoc] = await db.$client.batch<unknown>([read, associations]);
  return { rows: (rows!.results as Record<string, unknown>[]).map((r) => rowOf(Object.values(r))), assoc: (assoc!.results as RawAssociation[]).map(associationFromRaw) };
}

/** Which records a read sees: the live ones, or (`archived=true`) the archived ones that were not merged away. */
export const liveOrArchived = (archived: boolean, c = "") => (archived ? `${c}archived = 1 and ${c}merged_into is null` : `${c}archived = 0`);

/**
 * The statement that reads a record by id (`?1`, in the account `?2`, of type `?3`) or a contact by email
 * (`?2`): a live one, or with `archived` an archived one (never a merged-away contact, which is not archived
 * but gone into its survivor). Archived contacts may share an email: the one archived last answers.
 */
function byKey(columns: string, key: RecordKey, archived: boolean) {
  const which = liveOrArchived(archived, "c.");
  return "email" in key
    ? `select ${columns} from crm_objects c where c.portal_id = ?1 and c.object_type = 'contacts' and ${which} and c.email = ?2${archived ? " order by c.updated_at desc, c.id desc limit 1" : ""}`
    : `select ${columns} from crm_objects c where c.id = ?1 and c.portal_id = ?2 and c.object_type = ?3 and ${which}`;
}

/**
 * A record and (when `types` names any) its associations in ONE round trip (one db.batch): by id the
 * record's own id names its associations (another account's are not its portal's); by email they are
 * joined to the live contact with that email, or for an archived one named by a subquery of the same
 * conditions as the read. Null when no record matches: the 404 either way.
 */
async function readRecord<R extends { id: number }>(
  db: Db,
  portalId: number,
  type: ObjectType,
  key: RecordKey,
  types: ObjectType[] | undefined,
  columns: string,
  rowOf: (r: unknown[]) => R,
  archived = false,
) {
  const email = "email" in key ? key.email.trim().toLowerCase() : undefined;
  const read = db.$client.prepare(byKey(columns, key, archived));
  const bound = email === undefined ? read.bind((key as { id: number }).id, portalId, type) : read.bind(portalId, email);
  const from: FromIds =
    email === undefined
      ? (key as { id: number }).id
      : archived
        ? sql`(select id from crm_objects where portal_id = ${portalId} and object_type = 'contacts' and ${sql.raw(liveOrArchived(true))} and email = ${email} order by updated_at desc, id desc limit 1)`
        : { email };
  const { rows, assoc } = await withAssociations(db, bound, rowOf, types?.length ? builderStatement(db, associationsQuery(db, portalId, from, types)) : null);
  const row = rows[0];
  if (!row) return null;
  return { row, associations: types ? groupAssociations([row.id], assoc).get(row.id) : undefined };
}

const RECORD_COLUMNS = crmColumns("c");
/** The statement of getObject: every read of a record by id (a page, a PATCH's current row) runs it. */
const RECORD_BY_ID = byKey(RECORD_COLUMNS, { id: 0 }, false);

/** The whole record (every property), for the writes that answer it; see readRecord. */
export const recordWithAssociations = (db: Db, portalId: number, type: ObjectType, key: RecordKey, types: ObjectType[] | undefined) =>
  readRecord(db, portalId, type, key, types, RECORD_COLUMNS, (r) => crmRowFromArray(r));

/**
 * The record with only the asked stored properties (`stored`; projection.ts), as the v3 reads answer it:
 * a live one, or with `archived` an archived one; see readRecord.
 */
export function projectedRecord(db: Db, portalId: number, type: ObjectType, key: RecordKey, stored: string[], types: ObjectType[] | undefined, archived = false) {
  const picked = projection(stored);
  return readRecord(db, portalId, type, key, types, picked.columns, picked.read, archived);
}

/**
 * One page in id order (limit + 1 rows, to know whether another page exists) with only the asked stored
 * properties (`stored`; projection.ts) and, when `types` names any, the page's associations, in ONE round
 * trip: the associations through a subquery of the same page. Live records, or with `archived` archived ones.
 */
export async function listObjectsWithAssociations(
  db: Db,
  portalId: number,
  type: ObjectType,
  limit: number,
  after: number,
  stored: string[],
  types: ObjectType[] | undefined,
  archived = false,
) {
  const picked = projection(stored);
  const read = db.$client
    .prepare(`select ${picked.columns} from crm_objects c where c.portal_id = ?1 and c.object_type = ?2 and ${liveOrArchived(archived, "c.")} and c.id > ?3 order by c.id limit ?4`)
    .bind(portalId, type, after, limit + 1);
  // The page's ids as a subquery (the same conditions as the page), so the associations need not wait for it.
  const pageIds = sql`(select id from crm_objects where portal_id = ${portalId} and object_type = ${type} and ${sql.raw(liveOrArchived(archived))} and id > ${after} order by id limit ${limit + 1})`;
  const associations = types?.length ? builderStatement(db, associationsQuery(db, portalId, pageIds, types)) : null;
  const { rows, assoc } = await withAssociations(db, read, picked.read, associations);
  const shown = rows.slice(0, limit);
  return { rows: shown, hasMore: rows.length > limit, associations: types ? groupAssociations(shown.map((r) => r.id), assoc) : undefined };
}

export const countObjects = (db: Db, portalId: number, type: ObjectType) =>
  db
    .select({ n: sql<number>`count(*)` })
    .from(crmObjects)
    .where(and(eq(crmObjects.portalId, portalId), eq(crmObjects.objectType, type), eq(crmObjects.archived, false)))
    .get();
