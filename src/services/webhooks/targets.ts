/**
 * @module Which subscriptions a change in an account feeds: the active subscriptions of the apps installed
 * in the account that have settings. One indexed control-plane read per write (or per sync batch), done
 * when the write starts, so settings, subscriptions and installs apply from their response on.
 */
import type { Db } from "../../db/client";
import type { ChangeSource } from "../../schemas/webhooks/event-types";

export interface WebhookTarget {
  portalId: number;
  appId: number;
  subscriptionId: number;
  eventType: string;
  propertyName: string | null;
}

/** What a write needs to add its events to its batch. `targets` empty: the write emits nothing. */
export interface Outbox {
  portalId: number;
  targets: WebhookTarget[];
  now: number;
  source: ChangeSource;
}

/**
 * The outbox of a write, or its read still under way (writeWithEvents starts it beside the write's own
 * reads, so it costs no extra round trip there); undefined emits nothing.
 */
export type OutboxSource = Outbox | Promise<Outbox> | undefined;

/** Constant SQL text (prepared as is), read on every write and every sync batch. */
const TARGETS_OF_ACCOUNTS = `select i.portal_id, s.app_id, s.id, s.event_type, s.property_name
  from installs i join webhook_settings w on w.app_id = i.app_id
    join webhook_subscriptions s on s.app_id = i.app_id and s.active = 1
  where i.portal_id in (select value from json_each(?))`;

/** The targets of several accounts at once (a sync batch), by account. */
export async function webhookTargetsOf(control: Db, portalIds: number[]): Promise<Map<number, WebhookTarget[]>> {
  const out = new Map<number, WebhookTarget[]>();
  const unique = [...new Set(portalIds)];
  if (!unique.length) return out;
  const { results: rows } = await control.$client
    .prepare(TARGETS_OF_ACCOUNTS)
    .bind(JSON.stringify(unique))
    .all<{ portal_id: number; app_id: number; id: number; event_type: string; property_name: string | null }>();
  for (const r of rows) {
    const list = out.get(r.portal_id) ?? [];
    list.push({ portalId: r.portal_id, appId: r.app_id, subscriptionId: r.id, eventType: r.event_type, propertyName: r.property_name });
    out.set(r.portal_id, list);
  }
  return out;
}

/** The outbox of one account's write, read now. */
export async function webhookOutbox(control: Db, portalId: number, now: number, source: ChangeSource = "API"): Promise<Outbox> {
  return { portalId, targets: (await webhookTargetsOf(control, [portalId])).get(portalId) ?? [], now, source };
}
