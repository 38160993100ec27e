/**
 * @module The direct path of a consumer batch's write (docs/explanation/scaling.md "Rows read per synced message"): the
 * two common effects, an object seen for the first time and an update of a linked record, written by key
 * and id with their values bound, so that D1 reads about one row per table an object touches, instead of
 * the JSON rows, joins and windows of the general statements (commit.ts), which handle everything else.
 *
 * It relies on what planning read (each effect's `link`), checked inside the same transaction:
 * - a new object's link is a plain INSERT, so a link that appeared since (another consumer) fails the batch,
 *   and the links' INSERT must write all of its rows (`SYNC_PLAN_STALE` otherwise). A failed batch is
 *   planned again and written message by message (consumer.ts), from fresh reads: a check that fails
 *   costs time, never a lost or doubled write;
 * - an update is guarded like the general one: the link moves only forward, and the record is patched only
 *   while the link holds the message (a link's record never changes once set).
 *
 * Times: each account's (batch-time.ts). New objects are written per (account, store, type), so a statement
 * carries one account's time; the updates' statements bind or list it per object (UPDATE_LINK's text stays the same).
 *
 * Ids: the batch reserves its block of new ids first (one counter update per table), so the id-range
 * triggers skip their body for these rows (migrations, "cheaper triggers").
 */
import { MAX_BOUND, numberText as num, type BoundQuery } from "../../db/d1-raw";
import { CRM_TYPE } from "./model";
import type { Effect } from "./plan";
import { timeOf, type BatchTime } from "./batch-time";

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

/**
 * The statements are rendered here, text and bound values side by side (BoundQuery), not built from drizzle
 * `sql` fragments: a batch of 100 objects has hundreds of values, and rendering nested fragments cost more
 * Worker CPU than D1 spends running the statements. Numbers go into the text (num: finite numbers only),
 * strings are bound, in the order of their `?` in the text.
 */

/** A value's placeholder, pushing it to `params`; NULL as a literal (which costs no bound value). */
export function val(params: unknown[], v: string | null): string {
  if (v === null) return "null";
  params.push(v);
  return "?";
}

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

const text = (sql: string): BoundQuery => ({ sql, params: [] });

/** Fails the batch (SYNC_PLAN_STALE) unless the statement just before changed exactly `n` rows. */
const expectChanges = (n: number): BoundQuery => text(`insert into sync_plan_checks (ok) values (changes() = ${num(n)})`);

type Counted = "ecomm_links" | "crm_objects" | "webhook_outbox";
/** Reserves the next `n` ids of the table's counter for this batch. */
export const reserve = (table: Counted, n: number): BoundQuery => text(`update id_sequences set seq = seq + ${num(n)} where name = '${table}'`);
/** The first id before the block `reserve` took (the block is first + 1 … first + n), as a one-row subquery. */
export const reserved = (table: Counted, n: number): string => `(select seq - ${num(n)} as first from id_sequences where name = '${table}')`;

interface Numbered {
  /** 1-based position in the batch's block of reserved ids. */
  k: number;
  e: Upsert;
}

/**
 * New objects' links, all of one (account, store, type): the store and type are bound once for the
 * statement, so each row binds only its external id and message id (and its stage), and a statement takes
 * about 50 rows instead of 25.
 */
function insertLinks(rows: Numbered[], n: number, time: BatchTime): BoundQuery {
  const { portalId, storeId, objectType } = rows[0]!.e.msg;
  const now = timeOf(time, portalId);
  const params: unknown[] = [storeId, objectType];
  const values = rows.map(({ k, e }) => {
    params.push(e.msg.message.externalObjectId, e.msg.id);
    return `(${num(k)}, ?, ${num(e.msg.message.changedAt)}, ?, ${val(params, e.stage)})`;
  });
  return {
    sql: `insert into ecomm_links (id, portal_id, store_id, object_type, external_id, service_id, changed_at, message_id, deleted, processed_at, stage, stage_entered_at, updated_at)
    select l.first + v.column1, ${num(portalId)}, ?, ?, v.column2, c.first + v.column1, v.column3, v.column4, 0, ${num(now)},
      v.column5, case when v.column5 is null then null else v.column3 end, ${num(now)}
    from ${reserved("ecomm_links", n)} l, ${reserved("crm_objects", n)} c, (values ${values.join(", ")}) v`,
    params,
  };
}

/** New objects' records, all of one (account, store, type), the CRM type bound once (as insertLinks). */
function insertRecords(rows: Numbered[], n: number, time: BatchTime): BoundQuery {
  const { portalId, objectType } = rows[0]!.e.msg;
  const now = timeOf(time, portalId);
  const params: unknown[] = [CRM_TYPE[objectType]];
  const values = rows.map(({ k, e }) => {
    params.push(JSON.stringify(e.createProps));
    const email = val(params, e.email.value);
    params.push(e.guid);
    return `(${num(k)}, ?, ${email}, ?)`;
  });
  return {
    sql: `insert into crm_objects (id, portal_id, object_type, properties, email, guid, archived, created_at, updated_at)
    select c.first + v.column1, ${num(portalId)}, ?, v.column2, v.column3, v.column4, 0, ${num(now)}, ${num(now)}
    from ${reserved("crm_objects", n)} c, (values ${values.join(", ")}) v`,
    params,
  };
}

/** Rows grouped by their message's (account, store, type), each group in batch order. */
function byOrigin(rows: Numbered[]): Numbered[][] {
  const groups = new Map<string, Numbered[]>();
  for (const row of rows) {
    const { portalId, storeId, objectType } = row.e.msg;
    const key = JSON.stringify([portalId, storeId, objectType]);
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  return [...groups.values()];
}

/**
 * Moves the link's watermark forward, by id: linkApplied's update for one object (only when the message is
 * newer than the link's, whatever committed since planning), when webhook events must run between it and the
 * record's patch. One statement per object: a single-row update reads three rows, a multi-row one (IN list and
 * CASE) six, one joined to a VALUES list (UPDATE ... FROM) five. Every value bound: the statement's text is the
 * same for every object, so D1 prepares it once per batch. Without events in between, applyUpdates does it.
 */
const UPDATE_LINK = `update ecomm_links set
      changed_at = ?1, message_id = ?2, deleted = 0, processed_at = ?3,
      stage = coalesce(?4, stage),
      stage_entered_at = case when ?4 is null or ?4 is stage then stage_entered_at else ?1 end,
      updated_at = ?3
    where id = ?5 and (changed_at, message_id) < (?1, ?2)`;

const updateLink = (e: Upsert, time: BatchTime): BoundQuery => ({ sql: UPDATE_LINK, params: [e.msg.message.changedAt, e.msg.id, timeOf(time, e.msg.portalId), e.stage, e.link!.id] });

/**
 * Merges the message's properties into its record (patchRecords, by id), if the message holds the link, looked
 * up (the webhook events run between the link's update and this, see directStatements).
 */
const PATCH_RECORD = `update crm_objects set
      properties = json_patch(properties, ?1),
      email = case when ?2 then ?3 else email end,
      updated_at = ?4
    where id = ?5 and archived = 0 and exists (select 1 from ecomm_links where id = ?6 and message_id = ?7)`;

const patchRecord = (e: Upsert, time: BatchTime): BoundQuery => ({
  sql: PATCH_RECORD,
  params: [JSON.stringify(e.patch), e.email.set ? 1 : 0, e.email.value, timeOf(time, e.msg.portalId), e.link!.serviceId!, e.link!.id, e.msg.id],
});

/**
 * The updates of a batch without webhook events in between, many per statement: each row inserted into the
 * `sync_updates` view (migration 0018) runs updateLink's and patchRecord's statements for one object inside
 * the view's trigger (the patch checking `changes()` of the link's update), so D1 reads about the rows the two
 * statements read, one more, and the batch pays one statement per group of objects instead of two per object.
 */
function applyUpdates(rows: Upsert[], time: BatchTime): BoundQuery {
  const params: unknown[] = [];
  const values = rows.map((e) => {
    params.push(e.msg.id);
    const stage = val(params, e.stage);
    params.push(JSON.stringify(e.patch));
    const email = val(params, e.email.value);
    return `(${num(e.link!.id)}, ${num(e.msg.message.changedAt)}, ?, ${stage}, ${num(timeOf(time, e.msg.portalId))}, ${num(e.link!.serviceId!)}, ?, ${e.email.set ? 1 : 0}, ${email})`;
  });
  return {
    sql: `insert into sync_updates (link_id, changed_at, message_id, stage, now, service_id, patch, email_set, email) values ${values.join(", ")}`,
    params,
  };
}

/**
 * A success marks the object's open error RESOLVED (only its latest error is kept). The store-wide EXISTS
 * is evaluated once, on the partial index of open errors: a store without open errors costs one row, not
 * one per object.
 */
function resolveErrors(rows: Upsert[]): BoundQuery[] {
  const groups = new Map<string, Upsert[]>();
  for (const e of rows) {
    const g = JSON.stringify([e.msg.portalId, e.msg.storeId, e.msg.objectType]);
    const group = groups.get(g);
    if (group) group.push(e);
    else groups.set(g, [e]);
  }
  return [...groups.values()].flatMap((group) =>
    byBound(group, () => 1, MAX_BOUND - 3).map((part) => {
      const { portalId, storeId, objectType } = part[0]!.msg;
      const p = num(portalId);
      return {
        sql: `update ecomm_sync_errors set status = 'RESOLVED'
        where exists (select 1 from ecomm_sync_errors e where e.portal_id = ${p} and e.store_id = ? and e.status = 'OPEN')
          and portal_id = ${p} and store_id = ? and object_type = ?
          and external_id in (${part.map(() => "?").join(", ")}) and status = 'OPEN'`,
        params: [storeId, storeId, objectType, ...part.map((e) => e.msg.message.externalObjectId)],
      };
    }),
  );
}

export interface DirectStatements {
  /** Reservations and the links' writes: before the general statements and the webhook events. */
  links: BoundQuery[];
  /** The records' property merges: where the general patches run (after the webhook events read the old values). */
  patches: BoundQuery[];
  /** Error resolution, with the general statements' own. */
  resolve: BoundQuery[];
}

/**
 * `eventsBetween`: the batch writes webhook events, which must see the links moved and the records not yet
 * patched; the patches then check the link by lookup (one more row each). Otherwise each record's patch
 * directly follows its link's update and checks `changes()`, both inside the `sync_updates` view's trigger
 * (applyUpdates).
 */
export function directStatements({ fresh, updates }: DirectSplit, time: BatchTime, eventsBetween: boolean): DirectStatements {
  const links: BoundQuery[] = [];
  if (fresh.length) {
    const n = fresh.length;
    const numbered = fresh.map((e, i) => ({ k: i + 1, e }));
    links.push(reserve("ecomm_links", n), reserve("crm_objects", n));
    const groups = byOrigin(numbered);
    for (const group of groups) {
      for (const part of byBound(group, ({ e }) => 2 + bound(e.stage), MAX_BOUND - 2)) links.push(insertLinks(part, n, time), expectChanges(part.length));
    }
    // No count check here: the links' check already proved the reserved ids exist, and after a contact's
    // insert changes() is the full-text index's own last statement, not this one's.
    for (const group of groups) {
      for (const part of byBound(group, ({ e }) => 2 + bound(e.email.value), MAX_BOUND - 1)) links.push(insertRecords(part, n, time));
    }
  }
  const patches: BoundQuery[] = [];
  if (eventsBetween) {
    for (const e of updates) {
      links.push(updateLink(e, time));
      patches.push(patchRecord(e, time));
    }
  } else {
    for (const part of byBound(updates, (e) => 2 + bound(e.stage) + bound(e.email.value))) links.push(applyUpdates(part, time));
  }
  return { links, patches, resolve: resolveErrors([...fresh, ...updates]) };
}
