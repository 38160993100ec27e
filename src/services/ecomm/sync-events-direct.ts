/**
 * @module Webhook events of the sync's direct path (services/ecomm/commit-direct.ts), written like its
 * records: by id, with bound VALUES and ids reserved for the batch, instead of the general statement's JSON
 * rows, joins and window (sync-events.ts). What each event needs is known from planning:
 * - a new object's record is the one this batch creates (its reserved id), and the value a propertyChange
 *   carries is the value it is created with, so the rows are decided here;
 * - an update's propertyChange is written only when the patch changes the stored value, read from the record
 *   before the patch, and only while the message holds the link (as the patch itself).
 * The rows are written claimed, and returned, as the general statement's are (commit.ts `webhookEvents`): each
 * event's occurredAt is its account's time (a number per VALUES row), its claim real time.
 */
import { chunks, MAX_BOUND, numberText as num, type BoundQuery } from "../../db/d1-raw";
import { reserve, reserved, val } from "./commit-direct";
import { OUTBOX_COLUMNS } from "../webhooks/drain";
import { syncWebhookRows } from "./sync-events";
import type { WebhookTarget } from "../webhooks/targets";
import type { Effect } from "./plan";
import { timeOf, type BatchTime } from "./batch-time";

type Upsert = Extract<Effect, { kind: "upsert" }>;

/** The reservation of the events' ids, then the inserts that return the events they wrote. */
export interface EventStatements {
  reserve: BoundQuery[];
  inserts: BoundQuery[];
}

const NONE: EventStatements = { reserve: [], inserts: [] };

const extraOf = (propertyName: string | undefined, value: string | null | undefined) =>
  propertyName === undefined ? null : JSON.stringify({ propertyName, propertyValue: value ?? "" });

/**
 * The events of new objects: `fresh` in the order their records' ids were reserved (`crmReserved` ids in
 * all, the k-th record is first + k). Must run while the crm_objects counter still ends the batch's block,
 * that is before any general insert into crm_objects. Rendered as text and bound values (BoundQuery), as the
 * direct path's own statements.
 */
export function freshEventStatements(fresh: Upsert[], crmReserved: number, webhooks: Map<number, WebhookTarget[]> | undefined, time: BatchTime): EventStatements {
  const rows = fresh.flatMap((e, i) =>
    syncWebhookRows([e], webhooks)
      // A propertyChange on creation only when the record is created with a value (as the general statement).
      .filter((r) => r.k === "c" || (r.cv ?? "") !== "")
      .map((r) => ({ record: i + 1, r })),
  );
  if (!rows.length) return NONE;
  const n = rows.length;
  const out: BoundQuery[] = [];
  let k = 0;
  for (const part of chunks(rows, Math.floor(MAX_BOUND / 2))) {
    // Numbers in the text, strings bound: at most two bound values per row.
    const params: unknown[] = [];
    const values = part.map(({ record, r }) => `(${num(++k)}, ${num(r.p)}, ${num(r.a)}, ${num(r.sid)}, ${val(params, r.ty)}, ${num(record)}, ${val(params, extraOf(r.k === "p" ? r.pn : undefined, r.cv))}, ${num(timeOf(time, r.p))})`);
    out.push({
      sql: `insert into webhook_outbox (id, portal_id, app_id, subscription_id, subscription_type, object_id, occurred_at, change_source, extra, claimed_at)
      select w.first + v.column1, v.column2, v.column3, v.column4, v.column5, c.first + v.column6, v.column8, 'INTEGRATION', v.column7, ${num(time.now)}
      from ${reserved("webhook_outbox", n)} w, ${reserved("crm_objects", crmReserved)} c, (values ${values.join(", ")}) v
      returning ${OUTBOX_COLUMNS}`,
      params,
    });
  }
  return { reserve: [reserve("webhook_outbox", n)], inserts: out };
}

/**
 * The propertyChange events of updates: after the links moved, before the records are patched. Ids are
 * reserved for every candidate; a candidate whose value does not change leaves its id unused.
 */
export function updateEventStatements(updates: Upsert[], webhooks: Map<number, WebhookTarget[]> | undefined, time: BatchTime): EventStatements {
  const rows = updates.flatMap((e) => syncWebhookRows([e], webhooks).filter((r) => r.k === "p").map((r) => ({ e, r })));
  if (!rows.length) return NONE;
  const n = rows.length;
  const out: BoundQuery[] = [];
  let k = 0;
  for (const part of chunks(rows, Math.floor(MAX_BOUND / 4))) {
    // Numbers in the text, strings bound: at most four bound values per row.
    const params: unknown[] = [];
    const values = part.map(
      ({ e, r }) =>
        `(${num(++k)}, ${num(r.p)}, ${num(r.a)}, ${num(r.sid)}, ${val(params, r.ty)}, ${num(e.link!.serviceId!)}, ${num(e.link!.id)}, ${val(params, e.msg.id)}, ${val(params, r.pn ?? null)}, ${val(params, r.v ?? null)}, ${num(timeOf(time, r.p))})`,
    );
    out.push({
      sql: `insert into webhook_outbox (id, portal_id, app_id, subscription_id, subscription_type, object_id, occurred_at, change_source, extra, claimed_at)
      select w.first + v.column1, v.column2, v.column3, v.column4, v.column5, v.column6, v.column11, 'INTEGRATION',
        json_object('propertyName', v.column9, 'propertyValue', coalesce(v.column10, '')), ${num(time.now)}
      from ${reserved("webhook_outbox", n)} w, (values ${values.join(", ")}) v join crm_objects o on o.id = v.column6
      where o.archived = 0
        and coalesce(json_extract(o.properties, '$."' || v.column9 || '"'), '') <> coalesce(v.column10, '')
        and exists (select 1 from ecomm_links l where l.id = v.column7 and l.message_id = v.column8)
      returning ${OUTBOX_COLUMNS}`,
      params,
    });
  }
  return { reserve: [reserve("webhook_outbox", n)], inserts: out };
}
