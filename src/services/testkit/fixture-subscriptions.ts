/**
 * @module A fixture's webhook subscriptions (docs/reference/testkit.md, "Fixtures"): subscriptions of an app
 * installed in the account, as `POST /webhooks/v3/{appId}/subscriptions` makes them (one per event type and
 * property, at most 1,000 per app), set as the document says: made when the app has none of that type and
 * property, its `active` set when it has one.
 *
 * Subscriptions are the app's, not the account's: they decide the events of every account where the app is
 * installed. So a fixture sets them only for an app installed in test accounts alone (DEVELOPER_TEST or
 * SANDBOX), as the hold of an app's deliveries is refused for an app a STANDARD account installed: a test's
 * fixture never changes what production accounts send.
 *
 * They live in the control plane, the records on the account's database: when that is the control plane
 * itself, one batch writes both; otherwise the subscriptions are written first and put back as they were
 * if the data's batch fails (src/services/testkit/fixtures.ts).
 */
import type { Db } from "../../db/client";
import type { ErrorDetail } from "../../lib/errors";
import { subscriptionKey } from "../../schemas/webhooks/event-types";
import type { FixtureSubscription } from "../../schemas/testkit";
import { MAX_SUBSCRIPTIONS_PER_APP } from "../webhooks/settings";
import { problem } from "./problems";

export interface PlannedSubscription {
  appId: number;
  key: string;
  propertyName: string | null;
  active: boolean;
  /** The app's subscription of that type and property, and whether it was active: null when the fixture makes it. */
  existing: { id: number; active: boolean } | null;
}

/** Checks the subscriptions: each of an app installed in the account, and in test accounts only. */
export async function planSubscriptions(control: Db, portalId: number, subs: FixtureSubscription[], errors: ErrorDetail[]): Promise<PlannedSubscription[]> {
  if (!subs.length) return [];
  const d1 = control.$client;
  const [installed, standard, held] = await d1.batch<{ appId: number; portalId?: number; accountType?: string; id?: number; key?: string; propertyName?: string | null; active?: number }>([
    d1.prepare("select app_id as appId from installs where portal_id = ?1 order by app_id").bind(portalId),
    d1
      .prepare(
        `select i.app_id as appId, a.portal_id as portalId, a.account_type as accountType from installs i join accounts a on a.portal_id = i.portal_id
         where i.app_id in (select app_id from installs where portal_id = ?1) and a.account_type not in ('DEVELOPER_TEST', 'SANDBOX') and a.status <> 'deleting'`,
      )
      .bind(portalId),
    d1
      .prepare(
        `select id, app_id as appId, event_type as key, property_name as propertyName, active from webhook_subscriptions
         where app_id in (select app_id from installs where portal_id = ?1)`,
      )
      .bind(portalId),
  ]);
  const apps = installed!.results.map((r) => r.appId);
  const production = new Map(standard!.results.map((r) => [r.appId, r]));
  const count = new Map<number, number>();
  const existing = new Map<string, { id: number; active: boolean }>();
  for (const s of held!.results) {
    count.set(s.appId, (count.get(s.appId) ?? 0) + 1);
    existing.set(`${s.appId}\u0000${s.key}\u0000${s.propertyName ?? ""}`, { id: s.id!, active: s.active === 1 });
  }
  const out: PlannedSubscription[] = [];
  const seen = new Map<string, number>();
  subs.forEach((s, i) => {
    const at = `subscriptions[${i}].`;
    let appId = s.appId;
    if (appId === undefined) {
      if (apps.length !== 1) {
        errors.push(problem(`${at}appId`, `appId is required: the account has ${apps.length ? `${apps.length} apps installed (${apps.join(", ")})` : "no app installed"}`, "REQUIRED"));
        return;
      }
      appId = apps[0]!;
    } else if (!apps.includes(appId)) {
      errors.push(problem(`${at}appId`, `app ${appId} is not installed in this account`, "NOT_INSTALLED"));
      return;
    }
    const prod = production.get(appId);
    if (prod) {
      errors.push(
        problem(`${at}appId`, `app ${appId} is installed in account ${prod.portalId}, whose accountType is ${prod.accountType}: a fixture sets the subscriptions of apps installed only in DEVELOPER_TEST or SANDBOX accounts`, "APP_IN_PRODUCTION"),
      );
      return;
    }
    const key = subscriptionKey(s.subscriptionType, s.objectTypeId);
    const propertyName = s.propertyName ?? null;
    const id = `${appId}\u0000${key}\u0000${propertyName ?? ""}`;
    if (seen.has(id)) {
      errors.push(problem(`${at}subscriptionType`, `the same subscription as subscriptions[${seen.get(id)}]: an app subscribes to each event type and property once`, "DUPLICATE_SUBSCRIPTION"));
      return;
    }
    seen.set(id, i);
    const current = existing.get(id) ?? null;
    if (!current) {
      const n = (count.get(appId) ?? 0) + 1;
      if (n > MAX_SUBSCRIPTIONS_PER_APP) {
        errors.push(problem(`${at}subscriptionType`, `app ${appId} would have more than ${MAX_SUBSCRIPTIONS_PER_APP} subscriptions, the most an app may have`, "TOO_MANY"));
        return;
      }
      count.set(appId, n);
    }
    out.push({ appId, key, propertyName, active: s.active ?? true, existing: current });
  });
  return out;
}

/**
 * The statements writing the subscriptions (one JSON parameter each, made ones first, then the updated ones),
 * and those putting them back as they were, given the ids the first statement returned.
 */
export function subscriptionStatements(d1: D1Database, subs: PlannedSubscription[], now: number) {
  const made = subs.filter((s) => !s.existing).map((s) => [s.appId, s.key, s.propertyName, s.active ? 1 : 0]);
  const changed = subs.flatMap((s) => (s.existing ? [[s.existing.id, s.active ? 1 : 0]] : []));
  const write = [
    d1
      .prepare(
        `insert into webhook_subscriptions (app_id, event_type, property_name, active, created_at, updated_at)
         select j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3, ?1, ?1 from json_each(?2) j order by j.key returning id`,
      )
      .bind(now, JSON.stringify(made)),
    d1.prepare("update webhook_subscriptions set active = j.value ->> 1, updated_at = ?1 from json_each(?2) j where webhook_subscriptions.id = j.value ->> 0").bind(now, JSON.stringify(changed)),
  ];
  const undo = (madeIds: number[]) => [
    d1.prepare("delete from webhook_subscriptions where id in (select value from json_each(?1))").bind(JSON.stringify(madeIds)),
    d1
      .prepare("update webhook_subscriptions set active = j.value ->> 1 from json_each(?1) j where webhook_subscriptions.id = j.value ->> 0")
      .bind(JSON.stringify(subs.flatMap((s) => (s.existing ? [[s.existing.id, s.existing.active ? 1 : 0]] : [])))),
  ];
  return { write, undo };
}
