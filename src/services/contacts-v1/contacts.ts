/**
 * @module The legacy v1 contacts API's storage (docs/reference/contacts-v1.md): looking contacts up by
 * vid, email and utk (a merged-away vid or email resolves to the surviving contact), creating and updating
 * them one at a time or up to 1,000 per batch as one atomic write, deleting them, and the recent lists.
 * Every function takes the request's `db` handle and scopes every statement by portal id. Statement
 * counts: docs/explanation/contacts-v1-queries.md.
 */
import { and, desc, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { idCounter, newId } from "../../db/id-ranges";
import { crmObjects, type contactMerges } from "../../db/tables/crm";
import { ApiError, badRequest, conflict, notFound } from "../../lib/errors";
import { builderStatement, rawRows, rawStatement, runRawBatch } from "../../db/d1-raw";
import { webhookEventStatements, type OutboxSource, type RecordChange } from "../webhooks/events";
import { crmColumns, crmRowFromArray, crmRowFromRaw, type CrmRow, type RawCrmRow } from "../crm/records";


export type MergeRow = typeof contactMerges.$inferSelect;

/** A contact's v1 writes: property name → value; "" clears the property (as in CRM v3). */
export type PropertyPatch = Record<string, string>;

/** Keys a contact is looked up by; every list is bound as one JSON parameter (D1's 100-parameter cap). */
export interface Keys {
  vids?: number[];
  emails?: string[];
  utks?: string[];
}

/** A live contact found for a key: `kind` v (vid), e (email) or u (utk), and the key as asked. */
export interface Found {
  kind: "v" | "e" | "u";
  key: string;
  row: CrmRow;
}

export const lowerEmail = (email: string) => email.trim().toLowerCase();

/** The legacy service refuses an address without a local part, an @ and a dotted domain. */
export const isValidEmail = (email: string) => /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(email.trim());

/** The legacy service's 400 for an invalid email: `validationResults` with INVALID_EMAIL. */
export function invalidEmail(email: string, context?: Record<string, unknown>) {
  return new ApiError("VALIDATION_ERROR", "Property values were not valid", {
    extra: { validationResults: [{ isValid: false, message: `Email address ${email} is invalid`, error: "INVALID_EMAIL", name: "email" }] },
    context,
  });
}

/** The legacy service's 409 for a create with an email a contact already has (CONTACT_EXISTS). */
export function contactExists(row: CrmRow) {
  const identity: Record<string, unknown>[] = [];
  if (row.email) identity.push({ value: row.email, type: "EMAIL", timestamp: row.createdAt, isPrimary: true });
  identity.push({ value: row.guid, type: "LEAD_GUID", timestamp: row.createdAt });
  return conflict("Contact already exists", {
    extra: { error: "CONTACT_EXISTS", identityProfile: { vid: row.id, identity, linkedVid: [], isContact: true, savedAtTimestamp: row.updatedAt } },
  });
}

export const contactNotFound = () => notFound("contact does not exist");

interface RawRow extends RawCrmRow {
  kind: "v" | "e" | "u";
  key: string | number;
}


/**
 * The live contacts named by the keys, as rows (kind, key, target id): a vid resolves through `merged_into`
 * to its survivor, an email through the live contacts' email index and the merged-away emails of
 * `contact_merges`, a utk through `timeline_utks`. Unknown keys are simply absent. Only the kinds of key
 * given are looked up, and a single vid (the profile by vid) by its primary key without `json_each`: each
 * `json_each` branch cost the profile read about 0.1 ms even when empty (measured in the local D1).
 */
function keyTargets(portalId: number, keys: Keys): SQL {
  const branches: SQL[] = [];
  const vids = keys.vids ?? [];
  if (vids.length === 1) {
    branches.push(sql`select 'v' as kind, o.id as key, coalesce(o.merged_into, o.id) as target from crm_objects o
        where o.id = ${vids[0]} and o.portal_id = ${portalId} and o.object_type = 'contacts'`);
  } else if (vids.length) {
    branches.push(sql`select 'v' as kind, j.value as key, coalesce(o.merged_into, o.id) as target
        from json_each(${JSON.stringify(vids)}) j cross join crm_objects o
        on o.id = j.value and o.portal_id = ${portalId} and o.object_type = 'contacts'`);
  }
  if (keys.emails?.length) {
    const emails = JSON.stringify(keys.emails.map(lowerEmail));
    branches.push(sql`select 'e' as kind, j.value as key, o.id as target from json_each(${emails}) j cross join crm_objects o
        on o.portal_id = ${portalId} and o.object_type = 'contacts' and o.archived = 0 and o.email = j.value and o.email is not null`);
    branches.push(sql`select 'e', j.value, m.canonical_vid from json_each(${emails}) j cross join contact_merges m
        on m.portal_id = ${portalId} and m.merged_email = j.value`);
  }
  if (keys.utks?.length) {
    branches.push(sql`select 'u' as kind, j.value as key, t.contact_id as target from json_each(${JSON.stringify(keys.utks)}) j cross join timeline_utks t
        on t.portal_id = ${portalId} and t.utk = j.value`);
  }
  if (!branches.length) branches.push(sql`select 'v' as kind, null as key, null as target where 0`);
  return sql`(${sql.join(branches, sql` union all `)}) k cross join crm_objects c on c.id = k.target and c.portal_id = ${portalId} and c.object_type = 'contacts' and c.archived = 0`;
}

/** Every live contact named by the keys, in ONE statement whatever their number (keyTargets). */
export async function findContacts(db: Db, portalId: number, keys: Keys): Promise<Found[]> {
  const rows = await db.all<RawRow>(sql`select k.kind, k.key, c.* from ${keyTargets(portalId, keys)}`);
  return rows.map((r) => ({ kind: r.kind, key: String(r.key), row: crmRowFromRaw(r) }));
}

export async function findOne(db: Db, portalId: number, keys: Keys): Promise<CrmRow> {
  const [found] = await findContacts(db, portalId, keys);
  if (!found) throw contactNotFound();
  return found.row;
}

/**
 * The columns a contact read returns, in this order: the contact's (`crmColumns`), then one of its merges
 * as a JSON array of contact_merges' columns (`MERGE`, built by `MERGE_TUPLE`, read as `MergeTuple`; null
 * when it has none). Rows come back as arrays (`raw()`): D1 hands the Worker columns and rows, and building
 * an object per row cost more than the mapping below (about 0.1 ms a page in the local D1); one column for the
 * merge instead of eight, nearly always null, is less for D1 to send and the Worker to read.
 */
const MERGE_TUPLE = `json_array(m.merged_vid, m.merged_email, m.merged_guid, m.merged_created_at, m.survivor_email,
      m.first_name, m.properties_moved, m.merged_at)`;
export const MERGE = `case when m.merged_vid is null then null else ${MERGE_TUPLE} end`;
type PageRow = [...[number, number, CrmRow["objectType"], string, string | null, string, number, number | null, number, number], merge: string | null];
type MergeTuple = [number, string | null, string, number, string | null, string | null, number, number];

/**
 * The contacts of the CTE `page` (alias p) left-joined to their merges. No ORDER BY: sorting the joined
 * rows costs a temporary B-tree (about 0.2 ms a page of 100 in the local D1); contactsAndMerges puts contacts in
 * id order and each contact's merges oldest first.
 */
const withMerges = () => `select ${crmColumns("p")}, ${MERGE}
    from page p left join contact_merges m on m.portal_id = p.portal_id and m.canonical_vid = p.id`;

const byMergeOrder = (a: MergeRow, b: MergeRow) => a.mergedAt - b.mergedAt || a.mergedVid - b.mergedVid;

/** A merge of contact `id` from its MERGE tuple. */
const mergeRow = (portalId: number, id: number, m: MergeTuple): MergeRow => ({
  portalId,
  mergedVid: m[0],
  canonicalVid: id,
  mergedEmail: m[1],
  mergedGuid: m[2],
  mergedCreatedAt: m[3],
  survivorEmail: m[4],
  firstName: m[5],
  propertiesMoved: m[6],
  mergedAt: m[7],
});

/**
 * Rows of account `portalId`'s contacts left-joined to their merges (one per contact and merge; the
 * contact's id first, its MERGE tuple or null at `mergeAt`) as one entry per contact, in id order, and
 * each contact's merges, oldest first.
 */
export function groupMerges<R extends unknown[], T>(raw: R[], portalId: number, mergeAt: number, entryOf: (r: R) => T) {
  // Most pages hold no merge and come in id order (the join keeps the page's order): their rows are the
  // entries as they are, and the Map and the sort below are spared.
  if (raw.every((r, i) => r[mergeAt] === null && (i === 0 || (raw[i - 1]![0] as number) < (r[0] as number)))) {
    return { entries: raw.map(entryOf), merges: new Map<number, MergeRow[]>() };
  }
  const byId = new Map<number, T>();
  const merges = new Map<number, MergeRow[]>();
  for (const r of raw) {
    const id = r[0] as number;
    if (!byId.has(id)) byId.set(id, entryOf(r));
    const merge = r[mergeAt] as string | null;
    if (merge === null) continue;
    const list = merges.get(id) ?? [];
    list.push(mergeRow(portalId, id, JSON.parse(merge) as MergeTuple));
    merges.set(id, list);
  }
  for (const list of merges.values()) if (list.length > 1) list.sort(byMergeOrder);
  const entries = [...byId].sort(([a], [b]) => a - b).map(([, entry]) => entry);
  return { entries, merges };
}

/** Rows of `withMerges` as contacts in id order and their merges, oldest first. */
function contactsAndMerges(raw: PageRow[], portalId: number) {
  const { entries, merges } = groupMerges(raw, portalId, 10, (r) => crmRowFromArray(r));
  return { rows: entries, merges };
}

/**
 * The profile by vid (the hot one): the survivor of the vid (itself unless merged away) by its primary key,
 * found by a scalar subquery, with all its merges as one JSON array of MERGE tuples from a correlated
 * subquery ('[]' when it has none). No join: in the local D1 the same read written as a self-join and a
 * left join to contact_merges answered about 0.15 ms later, each join about half of that.
 */
const PROFILE_BY_VID = `select ${crmColumns("c")},
      (select json_group_array(${MERGE_TUPLE}) from contact_merges m where m.portal_id = c.portal_id and m.canonical_vid = c.id)
    from crm_objects c
    where c.id = (select coalesce(o.merged_into, o.id) from crm_objects o where o.id = ?1 and o.portal_id = ?2 and o.object_type = 'contacts')
      and c.portal_id = ?2 and c.object_type = 'contacts' and c.archived = 0`;

/** The one row of PROFILE_BY_VID as the contact and its merges, oldest first. */
function profileRow(raw: PageRow[]): { row: CrmRow; merges: MergeRow[] } | undefined {
  const r = raw[0];
  if (!r) return undefined;
  const merges = (JSON.parse(r[10] ?? "[]") as MergeTuple[]).map((m) => mergeRow(r[1], r[0], m));
  if (merges.length > 1) merges.sort(byMergeOrder);
  return { row: crmRowFromArray(r), merges };
}

/**
 * One contact by its keys (the first found, as findOne) with its merges, in ONE statement rather than
 * findOne then mergesOf, two round trips.
 */
export async function findOneWithMerges(db: Db, portalId: number, keys: Keys): Promise<{ row: CrmRow; merges: MergeRow[] }> {
  const [vid, ...more] = keys.vids ?? [];
  const byVid = vid !== undefined && !more.length && !keys.emails?.length && !keys.utks?.length;
  if (byVid) {
    const found = profileRow(await db.$client.prepare(PROFILE_BY_VID).bind(vid, portalId).raw<PageRow>());
    if (!found) throw contactNotFound();
    return found;
  }
  const raw = await rawRows<PageRow>(db, sql`with page as (select c.* from ${keyTargets(portalId, keys)} limit 1) ${sql.raw(withMerges())}`);
  const { rows, merges } = contactsAndMerges(raw, portalId);
  const row = rows[0];
  if (!row) throw contactNotFound();
  return { row, merges: merges.get(row.id) ?? [] };
}

/**
 * The merges whose survivor is `?2` (MERGES_OF_ONE) or one of the JSON list `?2` (MERGES_OF_MANY) in the
 * account `?1`, oldest first, each as its survivor and the columns of a MERGE tuple. Constant text: the contact page runs it
 * on every view.
 */
const MERGES = `select m.canonical_vid, m.merged_vid, m.merged_email, m.merged_guid, m.merged_created_at, m.survivor_email, m.first_name,
    m.properties_moved, m.merged_at from contact_merges m where m.portal_id = ?1`;
const MERGES_OF_ONE = `${MERGES} and m.canonical_vid = ?2 order by m.merged_at, m.merged_vid`;
const MERGES_OF_MANY = `${MERGES} and m.canonical_vid in (select value from json_each(?2)) order by m.merged_at, m.merged_vid`;

/** The merges whose survivor is one of `ids` (one statement), oldest first, grouped by survivor. */
export async function mergesOf(db: Db, portalId: number, ids: number[]): Promise<Map<number, MergeRow[]>> {
  const out = new Map<number, MergeRow[]>();
  if (ids.length === 0) return out;
  const one = ids.length === 1;
  const rows = await db.$client
    .prepare(one ? MERGES_OF_ONE : MERGES_OF_MANY)
    .bind(portalId, one ? ids[0] : JSON.stringify(ids))
    .raw<[number, ...MergeTuple]>();
  for (const [canonicalVid, ...tuple] of rows) {
    const list = out.get(canonicalVid) ?? [];
    list.push(mergeRow(portalId, canonicalVid, tuple));
    out.set(canonicalVid, list);
  }
  return out;
}

/** Applies a patch to properties: "" clears, anything else sets. */
export function applyPatch(current: Record<string, string>, patch: PropertyPatch): Record<string, string> {
  const props = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    if (v === "") delete props[k];
    else props[k] = v;
  }
  return props;
}

/** Refuses an invalid `email` property with the legacy service's INVALID_EMAIL 400. */
export function checkEmailProperty(patch: PropertyPatch, context?: Record<string, unknown>) {
  if (patch.email !== undefined && patch.email !== "" && !isValidEmail(patch.email)) throw invalidEmail(patch.email, context);
}

const isUniqueViolation = (err: unknown) =>
  err instanceof Error && /UNIQUE constraint failed/i.test(err.message + String((err as { cause?: unknown }).cause ?? ""));

/** Runs a write; another live contact already holding the email becomes the legacy service's 409. */
async function guarded<T>(db: Db, portalId: number, email: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const [holder] = email ? await findContacts(db, portalId, { emails: [email] }) : [];
    throw holder ? contactExists(holder.row) : conflict("A contact with that email already exists");
  }
}

/** `POST /contacts/v1/contact`: a new contact; an email that a contact (or a merged-away one) has is the 409. */
export async function createContact(db: Db, portalId: number, patch: PropertyPatch, now: number, outbox?: OutboxSource): Promise<CrmRow> {
  checkEmailProperty(patch);
  const props = applyPatch({}, patch);
  if (props.email) {
    const [holder] = await findContacts(db, portalId, { emails: [props.email] });
    if (holder) throw contactExists(holder.row);
  }
  const insert = db
    .insert(crmObjects)
    .values({ id: newId("crm_objects"), portalId, objectType: "contacts", properties: props, email: props.email ? lowerEmail(props.email) : null, guid: crypto.randomUUID(), createdAt: now, updatedAt: now })
    .returning();
  const events = await webhookEventStatements(db, outbox, [{ kind: "created", objectType: "contacts", id: { fromEnd: 0 }, properties: props }]);
  return guarded(db, portalId, props.email, async () => {
    const [rows] = await runRawBatch(db, [builderStatement(db, insert), ...events]);
    return crmRowFromRaw(rows!.results[0] as RawCrmRow);
  });
}

/** Updates a live contact found beforehand (its id is the survivor's). One statement. */
export async function updateContact(db: Db, portalId: number, row: CrmRow, patch: PropertyPatch, now: number, outbox?: OutboxSource): Promise<void> {
  checkEmailProperty(patch);
  const props = applyPatch(row.properties, patch);
  const update = db
    .update(crmObjects)
    .set({ properties: props, email: props.email ? lowerEmail(props.email) : null, updatedAt: now })
    .where(and(eq(crmObjects.id, row.id), eq(crmObjects.portalId, portalId), eq(crmObjects.archived, false)));
  const events = await webhookEventStatements(db, outbox, [{ kind: "updated", objectType: "contacts", id: row.id, before: row.properties, after: props }]);
  await guarded(db, portalId, props.email, () => runRawBatch(db, [builderStatement(db, update), ...events]));
}

/** `createOrUpdate/email/{email}`: the contact with that email (or merged-away email), else a new one. */
export async function createOrUpdateByEmail(db: Db, portalId: number, email: string, patch: PropertyPatch, now: number, outbox?: OutboxSource) {
  if (!isValidEmail(email)) throw invalidEmail(email);
  const [found] = await findContacts(db, portalId, { emails: [email] });
  if (found) {
    await updateContact(db, portalId, found.row, patch, now, outbox);
    return { vid: found.row.id, isNew: false };
  }
  const row = await createContact(db, portalId, { email, ...patch }, now, outbox);
  return { vid: row.id, isNew: true };
}

/** One entry of `POST /contacts/v1/contact/batch`, keyed by vid or by email. */
export interface BatchEntry {
  vid?: number;
  email?: string;
  properties: PropertyPatch;
}

/**
 * `POST /contacts/v1/contact/batch`: up to 1,000 contacts in one atomic write. One read resolves every key;
 * then ONE insert (every new contact, read from a single JSON parameter) and ONE update (every existing
 * contact, `UPDATE … FROM json_each`) run in one `db.batch`, so a failure writes nothing. Entries naming the
 * same contact are applied in order. A bad entry (invalid email, unknown vid) is a 400 naming its index.
 */
export async function batchCreateOrUpdate(db: Db, portalId: number, entries: BatchEntry[], now: number, outbox?: OutboxSource) {
  entries.forEach((e, index) => {
    if (e.email !== undefined && !isValidEmail(e.email)) throw invalidEmail(e.email, { index: [String(index)] });
    checkEmailProperty(e.properties, { index: [String(index)] });
  });
  const vids = entries.flatMap((e) => (e.vid !== undefined ? [e.vid] : []));
  const emails = entries.flatMap((e) => (e.vid === undefined && e.email !== undefined ? [lowerEmail(e.email)] : []));
  const found = await findContacts(db, portalId, { vids, emails });
  const byVid = new Map(found.filter((f) => f.kind === "v").map((f) => [Number(f.key), f.row]));
  const byEmail = new Map(found.filter((f) => f.kind === "e").map((f) => [f.key, f.row]));

  const updates = new Map<number, Record<string, string>>();
  const before = new Map<number, Record<string, string>>();
  const inserts = new Map<string, Record<string, string>>();
  entries.forEach((e, index) => {
    const existing = e.vid !== undefined ? byVid.get(e.vid) : byEmail.get(lowerEmail(e.email!));
    if (e.vid !== undefined && !existing) {
      throw badRequest(`contact ${index} (vid ${e.vid}) does not exist`, { context: { index: [String(index)], vid: [String(e.vid)] } });
    }
    if (existing) {
      before.set(existing.id, existing.properties);
      updates.set(existing.id, applyPatch(updates.get(existing.id) ?? existing.properties, e.properties));
    } else {
      const key = lowerEmail(e.email!);
      inserts.set(key, applyPatch(inserts.get(key) ?? { email: e.email!.trim() }, e.properties));
    }
  });

  const emailCol = (p: Record<string, string>) => (p.email ? lowerEmail(p.email) : null);
  const newRows = JSON.stringify([...inserts.values()].map((p) => ({ p, e: emailCol(p), g: crypto.randomUUID() })));
  const changed = JSON.stringify([...updates].map(([id, p]) => ({ id, p, e: emailCol(p) })));
  // The unary + keeps SQLite off the portal index so each JSON row is one primary-key lookup.
  const statements = [
    rawStatement(db, sql`
      insert into crm_objects (id, portal_id, object_type, properties, email, guid, archived, created_at, updated_at)
      select ${idCounter("crm_objects")} + row_number() over (order by j.key), ${portalId}, 'contacts', j.value ->> 'p', j.value ->> 'e', j.value ->> 'g', 0, ${now}, ${now}
      from json_each(${newRows}) j`),
    rawStatement(db, sql`
      update crm_objects set properties = j.value ->> 'p', email = j.value ->> 'e', updated_at = ${now}
      from json_each(${changed}) j
      where crm_objects.id = j.value ->> 'id' and +crm_objects.portal_id = ${portalId} and +crm_objects.archived = 0`),
    // Right after the insert: new contacts got consecutive ids in insertion order, the last one in the sequence.
    ...(await webhookEventStatements(db, outbox, [
      ...[...inserts.values()].map((properties, k): RecordChange => ({ kind: "created", objectType: "contacts", id: { fromEnd: inserts.size - 1 - k }, properties })),
      ...[...updates].map(([id, after]): RecordChange => ({ kind: "updated", objectType: "contacts", id, before: before.get(id) ?? {}, after })),
    ])),
  ];
  try {
    await runRawBatch(db, statements);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict("Two contacts of the batch, or a contact of the batch and an existing one, would have the same email");
    throw err;
  }
  return { created: inserts.size, updated: updates.size };
}

/** `DELETE /contacts/v1/contact/vid/{vid}`: archives the live contact (a merged-away vid is not one). */
export async function deleteContact(db: Db, portalId: number, vid: number, now: number, outbox?: OutboxSource) {
  const archive = db
    .update(crmObjects)
    .set({ archived: true, updatedAt: now })
    .where(and(eq(crmObjects.id, vid), eq(crmObjects.portalId, portalId), eq(crmObjects.objectType, "contacts"), eq(crmObjects.archived, false)));
  const events = await webhookEventStatements(db, outbox, [{ kind: "deleted", objectType: "contacts", id: vid }]);
  if (!events.length) {
    const res = await archive.run();
    if (!res.meta.changes) throw contactNotFound();
    return;
  }
  // With events: the contact must be live before its deletion event is written with it.
  const [live] = await findContacts(db, portalId, { vids: [vid] });
  if (!live || live.row.id !== vid) throw contactNotFound();
  await runRawBatch(db, [builderStatement(db, archive), ...events]);
}

/** Which clock a recent list pages on: last modification, or creation. */
export type RecentKind = "updated" | "created";

/**
 * A page of live contacts, newest first, after the (time, vid) cursor: one statement on the
 * `crm_objects_recent_*` partial index (reads count + 1 rows to set has-more). The live-contact condition
 * is written with literals, as the index's WHERE is: SQLite uses a partial index only when the query's
 * terms imply it, and a bound parameter implies nothing.
 */
export function recentContactsQuery(db: Db, portalId: number, kind: RecentKind, count: number, cursor?: { time: number; vid: number }) {
  const clock = kind === "updated" ? crmObjects.updatedAt : crmObjects.createdAt;
  return db
    .select()
    .from(crmObjects)
    .where(
      and(
        eq(crmObjects.portalId, portalId),
        sql`${crmObjects.objectType} = 'contacts' and ${crmObjects.archived} = 0`,
        cursor ? sql`(${clock}, ${crmObjects.id}) < (${cursor.time}, ${cursor.vid})` : undefined,
      ),
    )
    .orderBy(desc(clock), desc(crmObjects.id))
    .limit(count + 1);
}

export async function recentContacts(db: Db, portalId: number, kind: RecentKind, count: number, cursor?: { time: number; vid: number }) {
  const rows = await recentContactsQuery(db, portalId, kind, count, cursor).all();
  return { rows: rows.slice(0, count), hasMore: rows.length > count };
}
