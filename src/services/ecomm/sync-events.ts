/**
 * @module Webhook events of an ecommerce sync batch (docs/reference/webhooks.md). The batch's effects are set-based SQL
 * (services/ecomm/commit.ts), so its events are too: one row per (upserted object, matching subscription),
 * read through json_each by one INSERT … SELECT placed after the records are created and before they are
 * patched. There it sees the record's id (the link's service_id), whether this message created it (its
 * guid), and the value a property had before the patch, so a propertyChange is emitted only when the value
 * changes. No targets in the batch's accounts: no rows, no statement.
 */
import { CRM_TYPE } from "./model";
import type { Effect } from "./plan";
import { EVENT_OBJECT } from "../../schemas/webhooks/event-types";
import type { WebhookTarget } from "../webhooks/targets";

export interface SyncEventRow {
  /** The link's key (as commit.ts keys its rows) and the message's guid. */
  p: number;
  s: string;
  t: string;
  e: string;
  m: string;
  g: string;
  a: number;
  sid: number;
  ty: string;
  /** c: creation; p: propertyChange of `pn`, with its value when created (`cv`) or patched (`v`, `hv` = 1). */
  k: "c" | "p";
  pn?: string;
  cv?: string | null;
  v?: string | null;
  hv?: 0 | 1;
}

export function syncWebhookRows(effects: Effect[], targets: Map<number, WebhookTarget[]> | undefined): SyncEventRow[] {
  if (!targets?.size) return [];
  const rows: SyncEventRow[] = [];
  for (const e of effects) {
    if (e.kind !== "upsert") continue;
    const mine = targets.get(e.msg.portalId);
    if (!mine?.length) continue;
    const object = EVENT_OBJECT[CRM_TYPE[e.msg.objectType]];
    const key = { p: e.msg.portalId, s: e.msg.storeId, t: e.msg.objectType, e: e.msg.message.externalObjectId, m: e.msg.id, g: e.guid };
    for (const t of mine) {
      const base = { ...key, a: t.appId, sid: t.subscriptionId, ty: t.eventType };
      if (t.eventType === `${object}.creation` && e.createProps) rows.push({ ...base, k: "c" });
      if (t.eventType !== `${object}.propertyChange` || t.propertyName === null) continue;
      const pn = t.propertyName;
      const created = e.createProps?.[pn];
      const patched = Object.hasOwn(e.patch, pn);
      if (created === undefined && !patched) continue;
      rows.push({ ...base, k: "p", pn, cv: created ?? null, v: patched ? e.patch[pn] : null, hv: patched ? 1 : 0 });
    }
  }
  return rows;
}
