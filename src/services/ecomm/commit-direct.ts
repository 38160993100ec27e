/**
 * @module The direct path of a consumer batch's write (docs/explanation/scaling.md "Rows read per synced message"): the
 * two common effects, an object seen for the first time and an update of a linked record, written by key
 * and id with their values bound, so that D1 reads about one row per table an object touches, instead of
 * the JSON rows, joins and windows of the general statements (commit.ts), which handle everything else.
 *
 * It relies on what planning read (each effect's `link`), checked inside the same transaction:
 * - a new object's link is a plain INSERT, so a link that appeared since (another consumer) fails the batch,
 *   and the links' INSERT must write all of its rows (`SYNC_PLAN_STALE` otherwise). A failed batch is
 *   planned again and written message by message (sync-consumer.ts), from fresh reads: a check that fails
 *   costs time, never a lost or doubled write;
 * - an update is guarded like the general one: the link moves only forward, and the record is patched only
 *   while the link holds the message (a link's record never changes once set).
 *
 * Ids: the batch reserves its block of new ids first (one counter update per table), so the id-range
 * triggers skip their body for these rows (migrations, "cheaper triggers").
 */
import { sql, type SQL } from "drizzle-orm";
import { MAX_BOUND, sqlNumber as num } from "../../lib/d1-raw";
import { CRM_TYPE } from "./model";
import type { Effect } from "./plan";

type Upsert = Extract<Effect, { kind: "upsert" }>;

export interface DirectSplit {
  /** Objects without a link: their link and record are inserted. */
  fresh: Upsert[];
  /** Objects whose link has a record and is not deleted (the write's own guard decides which message wins). */
  updates: Upsert[];
  /** Everything else, for the general statements. */
  rest: Effect[];
}

export function splitDirect(effects: Effect[]): DirectSplit {
  const out: DirectSplit = { fresh: [], updates: [], rest: [] };
  for (const e of effects) {
    if (e.kind !== "upsert" || e.presetServiceId !== null) out.rest.push(e);
    else if (e.link === null && e.createProps && e.idCounters) out.fresh.push(e);
    else if (e.link?.serviceId != null && !e.link.deleted) out.updates.push(e);
    else out.rest.push(e);
  }
  return out;
}

/** A bound value, or a NULL literal (which costs no bound value). */
const val = (v: string | null): SQL => (v === null ? sql.raw("null") : sql`${v}`);

/** How many values `v` binds. */
const bound = (v: string | null) => (v === null ? 0 : 1);

/** Rows in groups that bind at most MAX_BOUND values each. */
function byBound<T>(rows: T[], cost: (row: T) => number, max = MAX_BOUND): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let used = 0;
  for (const row of rows) {
    const c = cost(row);
    if (current.length && used + c > max) {
      out.push(current);
      current = [];
      used = 0;
    }
    current.push(row);
    used += c;
  }
  if (current.length) out.push(current);
  return out;
}

/** Fails the batch (SYNC_PLAN_STALE) unless the statement just before changed exactly `n` rows. */
const expectChanges = (n: number): SQL => sql.raw(`insert into sync_plan_checks (ok) values (changes() = ${n})`);

const reserve = (table: "ecomm_links" | "crm_objects", n: number): SQL => sql.raw(`update id_sequences set seq = seq + ${n} where name = '${table}'`);
const reserved = (table: "ecomm_links" | "crm_objects", n: number): SQL => sql.raw(`(select seq - ${n} as first from id_sequences where name = '${table}')`);

interface Numbered {
  /** 1-based position in the batch's block of reserved ids. */
  k: number;
  e: Upsert;
}

function insertLinks(rows: Numbered[], n: number, now: number): SQL {
  const values = rows.map(({ k, e }) => {
    const m = e.msg;
    return sql`(${num(k)}, ${num(m.portalId)}, ${m.storeId}, ${m.objectType}, ${m.message.externalObjectId}, ${num(m.message.changedAt)}, ${m.id}, ${val(e.stage)})`;
  });
  return sql`insert into ecomm_links (id, portal_id, store_id, object_type, external_id, service_id, changed_at, message_id, deleted, processed_at, stage, stage_entered_at, updated_at)
    select l.first + v.column1, v.column2, v.column3, v.column4, v.column5, c.first + v.column1, v.column6, v.column7, 0, ${num(now)},
      v.column8, case when v.column8 is null then null else v.column6 end, ${num(now)}
    from ${reserved("ecomm_links", n)} l, ${reserved("crm_objects", n)} c, (values ${sql.join(values, sql`, `)}) v`;
}

function insertRecords(rows: Numbered[], n: number, now: number): SQL {
  const values = rows.map(({ k, e }) => sql`(${num(k)}, ${num(e.msg.portalId)}, ${CRM_TYPE[e.msg.objectType]}, ${JSON.stringify(e.createProps)}, ${val(e.email.value)}, ${e.guid})`);
  return sql`insert into crm_objects (id, portal_id, object_type, properties, email, guid, archived, created_at, updated_at)
    select c.first + v.column1, v.column2, v.column3, v.column4, v.column5, v.column6, 0, ${num(now)}, ${num(now)}
    from ${reserved("crm_objects", n)} c, (values ${sql.join(values, sql`, `)}) v`;
}

/**
 * Moves the link's watermark forward, by id: linkApplied's update for one object (only when the message is
 * newer than the link's, whatever committed since planning). One statement per object: a single-row update
 * reads three rows, a multi-row one (IN list and CASE) six.
 */
function updateLink(e: Upsert, now: number): SQL {
  // Every value bound: the statement's text is the same for every object, so D1 prepares it once per batch.
  const c = e.msg.message.changedAt;
  return sql`update ecomm_links set
      changed_at = ${c}, message_id = ${e.msg.id}, deleted = 0, processed_at = ${now},
      stage = coalesce(${e.stage}, stage),
      stage_entered_at = case when ${e.stage} is null or ${e.stage} is stage then stage_entered_at else ${c} end,
      updated_at = ${now}
    where id = ${e.link!.id} and (changed_at, message_id) < (${c}, ${e.msg.id})`;
}

/**
 * Merges the message's properties into its record (patchRecords, by id), if the message holds the link:
 * `holds` is that condition, either the link update just before it changed its row (`changes() = 1`) or a
 * lookup of the link (when the webhook events run in between, see directStatements).
 */
function patchRecord(e: Upsert, now: number, holds: SQL): SQL {
  return sql`update crm_objects set
      properties = json_patch(properties, ${JSON.stringify(e.patch)}),
      email = case when ${e.email.set ? 1 : 0} then ${e.email.value} else email end,
      updated_at = ${now}
    where id = ${e.link!.serviceId!} and archived = 0 and ${holds}`;
}

const holdsByLookup = (e: Upsert): SQL => sql`exists (select 1 from ecomm_links where id = ${e.link!.id} and message_id = ${e.msg.id})`;
const HOLDS_BY_CHANGES = sql.raw("changes() = 1");

/**
 * A success resolves the object's open error (reference §3.6). The store-wide EXISTS is evaluated once, on
 * the partial index of open errors: a store without open errors costs one row, not one per object.
 */
function resolveErrors(rows: Upsert[]): SQL[] {
  const groups = new Map<string, Upsert[]>();
  for (const e of rows) {
    const g = JSON.stringify([e.msg.portalId, e.msg.storeId, e.msg.objectType]);
    groups.set(g, [...(groups.get(g) ?? []), e]);
  }
  return [...groups.values()].flatMap((group) =>
    byBound(group, () => 1, MAX_BOUND - 3).map((part) => {
      const { portalId, storeId, objectType } = part[0]!.msg;
      const ids = part.map((e) => sql`${e.msg.message.externalObjectId}`);
      return sql`update ecomm_sync_errors set status = 'RESOLVED'
        where exists (select 1 from ecomm_sync_errors e where e.portal_id = ${num(portalId)} and e.store_id = ${storeId} and e.status = 'OPEN')
          and portal_id = ${num(portalId)} and store_id = ${storeId} and object_type = ${objectType}
          and external_id in (${sql.join(ids, sql`, `)}) and status = 'OPEN'`;
    }),
  );
}

export interface DirectStatements {
  /** Reservations and the links' writes: before the general statements and the webhook events. */
  links: SQL[];
  /** The records' property merges: where the general patches run (after the webhook events read the old values). */
  patches: SQL[];
  /** Error resolution, with the general statements' own. */
  resolve: SQL[];
}

/**
 * `eventsBetween`: the batch writes webhook events, which must see the links moved and the records not yet
 * patched; the patches then check the link by lookup (one more row each). Otherwise each record's patch
 * directly follows its link's update and checks `changes()`.
 */
export function directStatements({ fresh, updates }: DirectSplit, now: number, eventsBetween: boolean): DirectStatements {
  const links: SQL[] = [];
  if (fresh.length) {
    const n = fresh.length;
    const numbered = fresh.map((e, i) => ({ k: i + 1, e }));
    links.push(reserve("ecomm_links", n), reserve("crm_objects", n));
    for (const part of byBound(numbered, ({ e }) => 4 + bound(e.stage))) links.push(insertLinks(part, n, now), expectChanges(part.length));
    // No count check here: the links' check already proved the reserved ids exist, and after a contact's
    // insert changes() is the full-text index's own last statement, not this one's.
    for (const part of byBound(numbered, ({ e }) => 3 + bound(e.email.value))) links.push(insertRecords(part, n, now));
  }
  const patches: SQL[] = [];
  for (const e of updates) {
    if (eventsBetween) {
      links.push(updateLink(e, now));
      patches.push(patchRecord(e, now, holdsByLookup(e)));
    } else {
      links.push(updateLink(e, now), patchRecord(e, now, HOLDS_BY_CHANGES));
    }
  }
  return { links, patches, resolve: resolveErrors([...fresh, ...updates]) };
}
