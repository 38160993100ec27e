/**
 * @module The D1 write of a consumer batch: every effect of the batch in ONE db.batch (the second commit
 * point of the apply path, after the SyncOrder decision and before the acks).
 *
 * Each statement takes all rows of the batch as one JSON parameter read through `json_each`, so the
 * statement count is constant per batch (about ten) and D1's 100-bound-parameter cap never bites.
 * Every write is guarded by the link's (changed_at, message_id) watermark:
 *   1. the link upsert only moves the watermark forward (row-value comparison, ties by message id);
 *   2. every later statement acts only where the link's message_id is the message's own id.
 * So re-running a batch changes nothing (redelivery is idempotent), and a late commit of an older
 * decision can never overwrite a newer one, whatever order concurrent consumer invocations commit in.
 *
 * New CRM records: the INSERT ... SELECT creates the records of the batch, then the next statement links
 * each to its object from the ids that INSERT just assigned (consecutive, ending at last_insert_rowid()),
 * checked against the record's random guid. A record is created only while the link has no service_id,
 * inside the same transaction, so one externalObjectId never gets two records.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { idCounter } from "../../db/id-ranges";
import { rawStatement, runRawBatch, type BoundQuery } from "../../db/d1-raw";
import { directStatements, splitDirect } from "./commit-direct";
import { freshEventStatements, updateEventStatements } from "./sync-events-direct";
import { CRM_TYPE } from "./model";
import type { Effect } from "./plan";
import { syncWebhookRows } from "./sync-events";
import type { WebhookTarget } from "../webhooks/targets";
import { OUTBOX_COLUMNS, type OutboxRow } from "../webhooks/drain";
import { stampOf, type BatchTime } from "./batch-time";

type Upsert = Extract<Effect, { kind: "upsert" }>;

/** A JSON parameter stays well under D1's 2 MB value limit. */
const MAX_JSON_BYTES = 512_000;

function chunkJson<T>(rows: T[]): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let bytes = 2;
  for (const row of rows) {
    const text = JSON.stringify(row);
    if (current.length && bytes + text.length + 1 > MAX_JSON_BYTES) {
      out.push(`[${current.join(",")}]`);
      current = [];
      bytes = 2;
    }
    current.push(text);
    bytes += text.length + 1;
  }
  if (current.length) out.push(`[${current.join(",")}]`);
  return out;
}

const key = (e: Effect) => ({ p: e.msg.portalId, s: e.msg.storeId, t: e.msg.objectType, e: e.msg.message.externalObjectId, m: e.msg.id });

/** `l` is the link of the json row `j` (the unique key), `j.value->>'m'` the row's message id. */
const LINK_OF_J = sql.raw(
  "l.portal_id = j.value->>'p' and l.store_id = j.value->>'s' and l.object_type = j.value->>'t' and l.external_id = j.value->>'e'",
);
const OWN_MESSAGE = sql.raw("l.message_id = j.value->>'m'");

/**
 * The time of the json row `j`'s account: its `n` when its clock runs ahead (batch-time.ts), else `now`, real
 * time. Last-write-wins never looks at it: the watermark compares the integrator's changedAt.
 */
const nowOfJ = (now: number): SQL => sql`coalesce(j.value->>'n', ${now})`;

/** 1a. Applied messages move the watermark and record the outcome (the most recent changedAt wins). */
function linkApplied(json: string, now: number): SQL {
  return sql`insert into ecomm_links (id, portal_id, store_id, object_type, external_id, service_id, changed_at, message_id, deleted, processed_at, stage, stage_entered_at, updated_at)
    select ${idCounter("ecomm_links")} + row_number() over (order by j.key), j.value->>'p', j.value->>'s', j.value->>'t', j.value->>'e', j.value->>'sid', j.value->>'c', j.value->>'m', j.value->>'d', ${nowOfJ(now)},
      j.value->>'st', case when j.value->>'st' is null then null else j.value->>'c' end, ${nowOfJ(now)}
    from json_each(${json}) j where true
    on conflict (portal_id, store_id, object_type, external_id) do update set
      service_id = coalesce(ecomm_links.service_id, excluded.service_id),
      changed_at = excluded.changed_at,
      message_id = excluded.message_id,
      deleted = excluded.deleted,
      processed_at = excluded.processed_at,
      stage = case when excluded.deleted then null else coalesce(excluded.stage, ecomm_links.stage) end,
      stage_entered_at = case
        when excluded.deleted then null
        when excluded.stage is null or excluded.stage is ecomm_links.stage then ecomm_links.stage_entered_at
        else excluded.changed_at end,
      updated_at = excluded.updated_at
    where (excluded.changed_at, excluded.message_id) > (ecomm_links.changed_at, ecomm_links.message_id)`;
}

/** 1b. Failed messages move the watermark too (an older message stays older) but apply nothing. */
function linkFailed(json: string, now: number): SQL {
  return sql`insert into ecomm_links (id, portal_id, store_id, object_type, external_id, service_id, changed_at, message_id, deleted, processed_at, stage, stage_entered_at, updated_at)
    select ${idCounter("ecomm_links")} + row_number() over (order by j.key), j.value->>'p', j.value->>'s', j.value->>'t', j.value->>'e', null, j.value->>'c', j.value->>'m', 0, null, null, null, ${nowOfJ(now)}
    from json_each(${json}) j where true
    on conflict (portal_id, store_id, object_type, external_id) do update set
      changed_at = excluded.changed_at, message_id = excluded.message_id, updated_at = excluded.updated_at
    where (excluded.changed_at, excluded.message_id) > (ecomm_links.changed_at, ecomm_links.message_id)`;
}

/** 2. Creates the records of objects that have none yet (see module comment). */
function createRecords(json: string, now: number): SQL {
  return sql`insert into crm_objects (id, portal_id, object_type, properties, email, guid, archived, created_at, updated_at)
    select ${idCounter("crm_objects")} + row_number() over (order by j.key), l.portal_id, j.value->>'ot', j.value->>'props', j.value->>'em', j.value->>'g', 0, ${nowOfJ(now)}, ${nowOfJ(now)}
    from json_each(${json}) j join ecomm_links l on ${LINK_OF_J}
    where ${OWN_MESSAGE} and l.service_id is null
    order by j.key`;
}

/**
 * 3. Links the records statement 2 just created; must directly follow it. Statement 2 inserted exactly
 * the rows this subquery selects (same join, same condition, nothing changed in between), in j.key order,
 * with consecutive ids ending at last_insert_rowid(); so the k-th of n rows got id last - n + k. The guid
 * check (a primary-key lookup) makes sure of it: a row that does not match is left unlinked, never mislinked.
 */
function linkCreated(json: string): SQL {
  return sql`update ecomm_links set service_id = q.id
    from (
      select l.id as link_id, j.value->>'g' as g,
        last_insert_rowid() - count(*) over () + row_number() over (order by j.key) as id
      from json_each(${json}) j join ecomm_links l on ${LINK_OF_J}
      where ${OWN_MESSAGE} and l.service_id is null
    ) q
    where ecomm_links.id = q.link_id and (select o.guid from crm_objects o where o.id = q.id) = q.g`;
}

/**
 * 3b. The batch's webhook events (services/ecomm/sync-events.ts), after the creates and before the
 * patches: a creation only for the record this message created (its guid); a propertyChange with the value
 * it was created with, or only when the patch changes the stored value. The event's occurredAt is its
 * account's time; its claim real time, which the drain compares with its own. The rows are written already
 * claimed by this consumer, which sends them right after the commit (the cron's drain takes them over if it
 * dies first), and returned to it.
 */
function webhookEvents(json: string, now: number): SQL {
  return sql`insert into webhook_outbox (id, portal_id, app_id, subscription_id, subscription_type, object_id, occurred_at, change_source, extra, claimed_at)
    select ${idCounter("webhook_outbox")} + row_number() over (order by j.key), l.portal_id, j.value->>'a', j.value->>'sid', j.value->>'ty', o.id, ${nowOfJ(now)}, 'INTEGRATION',
      case when j.value->>'k' = 'p' then json_object('propertyName', j.value->>'pn', 'propertyValue',
        case when o.guid = j.value->>'g' then coalesce(j.value->>'cv', '') else coalesce(j.value->>'v', '') end) end,
      ${now}
    from json_each(${json}) j join ecomm_links l on ${LINK_OF_J} join crm_objects o on o.id = l.service_id
    where ${OWN_MESSAGE} and o.archived = 0 and (
      (j.value->>'k' = 'c' and o.guid = j.value->>'g')
      or (j.value->>'k' = 'p' and o.guid = j.value->>'g' and coalesce(j.value->>'cv', '') <> '')
      or (j.value->>'k' = 'p' and o.guid <> j.value->>'g' and j.value->>'hv' = 1
        and coalesce(json_extract(o.properties, '$."' || (j.value->>'pn') || '"'), '') <> coalesce(j.value->>'v', '')))
    order by j.key
    returning ${sql.raw(OUTBOX_COLUMNS)}`;
}

/**
 * 4. Merges the properties into existing records (json_patch: a null removes a property). A record the
 * user archived is not brought back by later sync messages; the record this message created is skipped.
 */
function patchRecords(json: string, now: number): SQL {
  return sql`update crm_objects set
      properties = json_patch(crm_objects.properties, j.value->>'patch'),
      email = case when j.value->>'se' then j.value->>'em' else crm_objects.email end,
      updated_at = ${nowOfJ(now)}
    from json_each(${json}) j join ecomm_links l on ${LINK_OF_J}
    where crm_objects.id = l.service_id and ${OWN_MESSAGE} and crm_objects.guid <> j.value->>'g' and crm_objects.archived = 0`;
}

/** 5a/5b. Associations a message replaces (both directions; reverse rows first, while forward ones exist). */
function dropReverseAssociations(json: string): SQL {
  return sql`delete from crm_associations where (portal_id, from_id, to_type, to_id) in (
      select a.portal_id, a.to_id, j.value->>'ft', a.from_id
      from json_each(${json}) j join ecomm_links l on ${LINK_OF_J} join json_each(j.value->'rt') r
        join crm_associations a on a.portal_id = l.portal_id and a.from_id = l.service_id and a.to_type = r.value
      where ${OWN_MESSAGE})`;
}
function dropForwardAssociations(json: string): SQL {
  return sql`delete from crm_associations where (portal_id, from_id, to_type) in (
      select l.portal_id, l.service_id, r.value
      from json_each(${json}) j join ecomm_links l on ${LINK_OF_J} join json_each(j.value->'rt') r
      where ${OWN_MESSAGE} and l.service_id is not null)`;
}

/** 6. Associations to objects of the same store that exist; unknown targets drop out of the join, without an error. */
function addAssociations(json: string): SQL {
  return sql`insert or ignore into crm_associations (portal_id, from_id, to_type, to_id)
    select l.portal_id, l.service_id, j.value->>'tt', b.service_id
      from json_each(${json}) j join ecomm_links l on ${LINK_OF_J}
        join ecomm_links b on b.portal_id = l.portal_id and b.store_id = l.store_id and b.object_type = j.value->>'bt' and b.external_id = j.value->>'be'
      where ${OWN_MESSAGE} and l.service_id is not null and b.service_id is not null
    union all
    select l.portal_id, b.service_id, j.value->>'ft', l.service_id
      from json_each(${json}) j join ecomm_links l on ${LINK_OF_J}
        join ecomm_links b on b.portal_id = l.portal_id and b.store_id = l.store_id and b.object_type = j.value->>'bt' and b.external_id = j.value->>'be'
      where ${OWN_MESSAGE} and l.service_id is not null and b.service_id is not null`;
}

/** 7. The latest error of an object (the only one kept), recorded only while its message is the winner. */
function recordErrors(json: string, now: number): SQL {
  return sql`insert into ecomm_sync_errors (portal_id, store_id, object_type, external_id, app_id, message_id, changed_at, errored_at, type, details, status)
    select l.portal_id, l.store_id, l.object_type, l.external_id, j.value->>'a', j.value->>'m', j.value->>'c', ${nowOfJ(now)}, j.value->>'ty', j.value->>'de', 'OPEN'
    from json_each(${json}) j join ecomm_links l on ${LINK_OF_J}
    where ${OWN_MESSAGE}
    on conflict (portal_id, store_id, object_type, external_id) do update set
      app_id = excluded.app_id, message_id = excluded.message_id, changed_at = excluded.changed_at,
      errored_at = excluded.errored_at, type = excluded.type, details = excluded.details, status = 'OPEN'`;
}

/** 8. A later success marks the object's open error RESOLVED. */
function resolveErrors(json: string): SQL {
  return sql`update ecomm_sync_errors set status = 'RESOLVED'
    from json_each(${json}) j join ecomm_links l on ${LINK_OF_J}
    where ${OWN_MESSAGE} and ecomm_sync_errors.portal_id = l.portal_id and ecomm_sync_errors.store_id = l.store_id
      and ecomm_sync_errors.object_type = l.object_type and ecomm_sync_errors.external_id = l.external_id
      and ecomm_sync_errors.status = 'OPEN'`;
}

const each = (rows: unknown[], build: (json: string) => SQL): SQL[] => (rows.length ? chunkJson(rows).map(build) : []);

/**
 * The SQL of a batch's effects, in order. Empty when there is nothing to write. New objects and plain updates
 * take the direct path (commit-direct.ts); the general statements below write the rest.
 */
export function commitPlan(effects: Effect[], time: BatchTime, webhooks?: Map<number, WebhookTarget[]>): { queries: (SQL | BoundQuery)[]; outbox: Set<number> } {
  const { now } = time;
  const stamp = (e: Effect) => stampOf(time, e.msg.portalId);
  const split = splitDirect(effects);
  const freshEvents = freshEventStatements(split.fresh, split.fresh.length, webhooks, time);
  const updateEvents = updateEventStatements(split.updates, webhooks, time);
  const direct = directStatements(split, time, updateEvents.inserts.length > 0);
  const upserts = effects.filter((e): e is Upsert => e.kind === "upsert");
  const general = split.rest;
  const generalUpserts = general.filter((e): e is Upsert => e.kind === "upsert");
  const applied = general.filter((e) => e.kind !== "error");
  const failed = general.filter((e): e is Extract<Effect, { kind: "error" }> => e.kind === "error");

  const linkRows = applied.map((e) => ({
    ...key(e),
    ...stamp(e),
    c: e.msg.message.changedAt,
    d: e.kind === "delete" ? 1 : 0,
    st: e.kind === "upsert" ? e.stage : null,
    sid: e.kind === "upsert" ? e.presetServiceId : null,
  }));
  const createRows = generalUpserts
    .filter((e) => e.createProps)
    .map((e) => ({ ...key(e), ...stamp(e), ot: CRM_TYPE[e.msg.objectType], props: e.createProps, em: e.email.value, g: e.guid }));
  const patchRows = generalUpserts.map((e) => ({ ...key(e), ...stamp(e), patch: e.patch, se: e.email.set ? 1 : 0, em: e.email.value, g: e.guid }));
  const replaceRows = upserts
    .filter((e) => e.assoc.replace.length)
    .map((e) => ({ ...key(e), ft: CRM_TYPE[e.msg.objectType], rt: e.assoc.replace.map((t) => CRM_TYPE[t]) }));
  const assocRows = upserts.flatMap((e) =>
    e.assoc.targets.map((t) => ({ ...key(e), ft: CRM_TYPE[e.msg.objectType], tt: CRM_TYPE[t.objectType], bt: t.objectType, be: t.externalId })),
  );
  const errorRows = failed.map((e) => ({ ...key(e), ...stamp(e), c: e.msg.message.changedAt, a: e.msg.appId, ty: e.type, de: e.details }));

  const creates = createRows.length
    ? chunkJson(createRows).flatMap((json) => [createRecords(json, now), linkCreated(json)])
    : [];
  // Each part in order; `events` parts return the outbox rows they write.
  const parts: { queries: (SQL | BoundQuery)[]; events?: true }[] = [
    // General first: within a batch, link and record ids then follow planning's order more closely (a
    // contact joined by its email, the common general case, is planned first).
    { queries: [...each(linkRows, (j) => linkApplied(j, now)), ...each(errorRows, (j) => linkFailed(j, now)), ...creates] },
    { queries: direct.links },
    // The new objects' events while the records' id block still ends at the counter (nothing inserts records in between).
    { queries: freshEvents.reserve },
    { queries: freshEvents.inserts, events: true },
    // The updates' events between their links' move and their records' patch.
    { queries: updateEvents.reserve },
    { queries: updateEvents.inserts, events: true },
    { queries: each(syncWebhookRows(general, webhooks).map((r) => ({ ...r, ...stampOf(time, r.p) })), (j) => webhookEvents(j, now)), events: true },
    { queries: rest(direct, patchRows, replaceRows, assocRows, errorRows, applied, now) },
  ];
  const queries: (SQL | BoundQuery)[] = [];
  const outbox = new Set<number>();
  for (const part of parts) {
    for (const q of part.queries) {
      if (part.events) outbox.add(queries.length);
      queries.push(q);
    }
  }
  return { queries, outbox };
}

function rest(direct: { patches: BoundQuery[]; resolve: BoundQuery[] }, patchRows: object[], replaceRows: object[], assocRows: object[], errorRows: object[], applied: Effect[], now: number): (SQL | BoundQuery)[] {
  return [
    ...direct.patches,
    ...each(patchRows, (j) => patchRecords(j, now)),
    ...each(replaceRows, dropReverseAssociations),
    ...each(replaceRows, dropForwardAssociations),
    ...each(assocRows, addAssociations),
    ...each(errorRows, (j) => recordErrors(j, now)),
    ...direct.resolve,
    ...each(applied.map(key), resolveErrors),
  ];
}

export const commitQueries = (effects: Effect[], time: BatchTime, webhooks?: Map<number, WebhookTarget[]>): (SQL | BoundQuery)[] => commitPlan(effects, time, webhooks).queries;

/**
 * Commits the effects, and their webhook events when `webhooks` has targets, in one db.batch (all or nothing).
 * Returns the events it wrote, claimed for the caller to send (services/webhooks/drain.ts `sendClaimed`).
 */
export async function commitEffects(db: Db, effects: Effect[], time: BatchTime, webhooks?: Map<number, WebhookTarget[]>): Promise<OutboxRow[]> {
  const { queries, outbox } = commitPlan(effects, time, webhooks);
  if (!queries.length) return [];
  const results = await runRawBatch(db, queries.map((q) => rawStatement(db, q)));
  return results.flatMap((r, i) => (outbox.has(i) ? (r.results as OutboxRow[]) : []));
}

/**
 * Records messages the queue gave up on (dead-letter consumer) as UNKNOWN_ERROR, unless the object's link
 * holds the message itself (it was applied: a pack is retried whole, applied messages and all) or a newer
 * one (then the object's state is newer than the lost change anyway).
 */
export function deadLetterStatements(db: Db, rows: { portalId: number; storeId: string; objectType: string; externalId: string; appId: number | null; messageId: string; changedAt: number; details: string }[], time: BatchTime) {
  const { now } = time;
  return each(
    rows.map((r) => ({ p: r.portalId, s: r.storeId, t: r.objectType, e: r.externalId, a: r.appId, m: r.messageId, c: r.changedAt, de: r.details, ...stampOf(time, r.portalId) })),
    (json) => sql`insert into ecomm_sync_errors (portal_id, store_id, object_type, external_id, app_id, message_id, changed_at, errored_at, type, details, status)
      select j.value->>'p', j.value->>'s', j.value->>'t', j.value->>'e', j.value->>'a', j.value->>'m', j.value->>'c', ${nowOfJ(now)}, 'UNKNOWN_ERROR', j.value->>'de', 'OPEN'
      from json_each(${json}) j
      where not exists (select 1 from ecomm_links l where ${LINK_OF_J} and (l.changed_at, l.message_id) >= (j.value->>'c', j.value->>'m'))
      on conflict (portal_id, store_id, object_type, external_id) do update set
        app_id = excluded.app_id, message_id = excluded.message_id, changed_at = excluded.changed_at,
        errored_at = excluded.errored_at, type = excluded.type, details = excluded.details, status = 'OPEN'`,
  ).map((q) => rawStatement(db, q));
}
