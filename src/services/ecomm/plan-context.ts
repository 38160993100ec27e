/**
 * @module The read of a consumer batch: everything planning needs, in one D1 round trip that does not
 * depend on the ordering decision (the consumer runs it alongside the SyncOrder RPC).
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { crmObjects } from "../../db/tables/crm";
import { ecommLinks, ecommPipelineStages, ecommSettings, ecommStores } from "../../db/tables/ecomm";
import type { SyncQueueMessage } from "../../queue/messages";
import { inJson } from "../crm";
import { emailKey, keyOf, keyString, storeKey, targetsOf, type LinkKey } from "./keys";
import { settingsKey, syncSettingsOwners, type SettingsRow } from "./settings";
import { isValidEmail } from "./translate";

export const linkQuery = (db: Db, keys: LinkKey[]) =>
  db
    .select({
      portalId: ecommLinks.portalId,
      storeId: ecommLinks.storeId,
      objectType: ecommLinks.objectType,
      externalId: ecommLinks.externalId,
      serviceId: ecommLinks.serviceId,
      messageId: ecommLinks.messageId,
    })
    .from(ecommLinks)
    .where(
      sql`(${ecommLinks.portalId}, ${ecommLinks.storeId}, ${ecommLinks.objectType}, ${ecommLinks.externalId}) in (select value->>0, value->>1, value->>2, value->>3 from json_each(${JSON.stringify(keys.map((k) => [k.portalId, k.storeId, k.objectType, k.externalId]))}))`,
    );

/** Every email a contact message could set: any of its string values that is a valid email. */
function candidateEmails(msgs: SyncQueueMessage[]): [number, string][] {
  const out = new Map<string, [number, string]>();
  for (const m of msgs) {
    if (m.objectType !== "CONTACT") continue;
    for (const v of Object.values(m.message.properties ?? {})) {
      if (typeof v === "string" && isValidEmail(v.trim())) out.set(emailKey(m.portalId, v.trim().toLowerCase()), [m.portalId, v.trim().toLowerCase()]);
    }
  }
  return [...out.values()];
}

/** What planning reads from D1. `readKeys` are the object keys whose link was looked up (found or not). */
export interface PlanContext {
  /** Every settings row that could govern a message, by `settingsKey`; pick with `governingSettings`. */
  settings: Map<string, SettingsRow>;
  stores: Map<string, typeof ecommStores.$inferSelect>;
  stages: Map<number, Set<string>>;
  links: Map<string, { serviceId: number | null; messageId: string }>;
  readKeys: Set<string>;
  /** `${portalId}|${lower-cased email}` -> the contact that owns it (spec 2.8 rule 2: unique per account). */
  emailOwners: Map<string, number>;
}

/**
 * Everything planning needs, in ONE D1 round trip that does not depend on the ordering decision, so the
 * consumer runs it alongside the SyncOrder RPCs: settings (of every candidate owner, in one query), stores,
 * stages, the links of the messages' objects and of the objects their `associations` name, and the owners
 * of every email a contact message could set. (Only v1 `hs_assoc__*` association properties can need a
 * second read, see planBatch.)
 */
export async function readPlanContext(db: Db, msgs: SyncQueueMessage[], control: Db = db): Promise<PlanContext> {
  // Every owner whose settings could govern a message (an OAuth message: its app's, then its account's).
  // App-level settings live in the control plane, account-level ones on the account's shard (issue 16):
  // with separate databases the app rows are one more read, run alongside the shard's batch.
  const allOwners = [...new Map(msgs.flatMap((m) => syncSettingsOwners(m.portalId, m.appId)).map((o) => [settingsKey(o), [o.kind, o.id] as const])).values()];
  const split = control !== db;
  const owners = split ? allOwners.filter(([kind]) => kind === "portal") : allOwners;
  const appOwners = allOwners.filter(([kind]) => kind === "app");
  const appSettings =
    split && appOwners.length
      ? control
          .select()
          .from(ecommSettings)
          .where(sql`(${ecommSettings.ownerKind}, ${ecommSettings.ownerId}) in (select value->>0, value->>1 from json_each(${JSON.stringify(appOwners)}))`)
          .all()
      : Promise.resolve([]);
  const stores = [...new Map(msgs.map((m) => [storeKey(m.portalId, m.storeId), [m.portalId, m.storeId]])).values()];
  const dealPortals = [...new Set(msgs.filter((m) => m.objectType === "DEAL").map((m) => m.portalId))];
  const keys = new Map<string, LinkKey>();
  for (const m of msgs) {
    keys.set(keyString(keyOf(m)), keyOf(m));
    const t = targetsOf(m, {});
    for (const [objectType, ids] of [["CONTACT", t.contacts], ["DEAL", t.deals], ["PRODUCT", t.products]] as const) {
      for (const externalId of ids ?? []) {
        const k = { portalId: m.portalId, storeId: m.storeId, objectType, externalId };
        keys.set(keyString(k), k);
      }
    }
  }
  const [[shardSettings, storeRows, stageRows, linkRows, contactRows], appRows] = await Promise.all([db.batch([
    db
      .select()
      .from(ecommSettings)
      .where(sql`(${ecommSettings.ownerKind}, ${ecommSettings.ownerId}) in (select value->>0, value->>1 from json_each(${JSON.stringify(owners)}))`),
    db
      .select()
      .from(ecommStores)
      .where(sql`(${ecommStores.portalId}, ${ecommStores.storeId}) in (select value->>0, value->>1 from json_each(${JSON.stringify(stores)}))`),
    db
      .select({ portalId: ecommPipelineStages.portalId, stageId: ecommPipelineStages.stageId })
      .from(ecommPipelineStages)
      .where(inJson(ecommPipelineStages.portalId, dealPortals)),
    linkQuery(db, [...keys.values()]),
    db
      .select({ id: crmObjects.id, portalId: crmObjects.portalId, email: crmObjects.email })
      .from(crmObjects)
      .where(
        and(
          eq(crmObjects.objectType, "contacts"),
          eq(crmObjects.archived, false),
          sql`${crmObjects.email} is not null`,
          sql`(${crmObjects.portalId}, ${crmObjects.email}) in (select value->>0, value->>1 from json_each(${JSON.stringify(candidateEmails(msgs))}))`,
        ),
      ),
  ]), appSettings]);
  const settingsRows = [...appRows, ...shardSettings];
  const stages = new Map<number, Set<string>>();
  for (const s of stageRows) {
    const set = stages.get(s.portalId) ?? new Set<string>();
    set.add(s.stageId);
    stages.set(s.portalId, set);
  }
  return {
    settings: new Map(settingsRows.map((s) => [settingsKey({ kind: s.ownerKind, id: s.ownerId }), s])),
    stores: new Map(storeRows.map((s) => [storeKey(s.portalId, s.storeId), s])),
    stages,
    links: new Map(linkRows.map((l) => [keyString(l), { serviceId: l.serviceId, messageId: l.messageId }])),
    readKeys: new Set(keys.keys()),
    emailOwners: new Map(contactRows.map((r) => [emailKey(r.portalId, r.email!), r.id])),
  };
}
