/**
 * @module The read of a consumer batch: everything planning needs, in one D1 round trip that does not
 * depend on the ordering decision (the consumer runs it alongside the SyncOrder RPC).
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { replicaDb } from "../../db/replica";
import { rowReader } from "../../db/raw-rows";
import { crmObjects } from "../../db/tables/crm";
import { ecommPipelineStages, ecommSettings, ecommStores, type EcommObjectType } from "../../db/tables/ecomm";
import type { SyncQueueMessage } from "./sync-message";
import { inJson } from "../crm/records";
import { chunks, MAX_BOUND, rawBatchItem, rawStatement, runRawBatch, type BoundQuery } from "../../db/d1-raw";
import { emailKey, keyOf, keyString, storeKey, targetsOf, type LinkKey } from "./keys";
import { settingsKey, syncSettingsOwners, type SettingsRow } from "./settings";
import { isValidEmail } from "./translate";

/** What planning knows of an object's link: enough for the commit to take its direct path (commit-direct.ts). */
export interface LinkState {
  id: number;
  serviceId: number | null;
  messageId: string;
  changedAt: number;
  deleted: boolean;
}

/** Bound values per statement, within D1's limit: a few go to the (account, store, type) prefix. */
const KEYS_PER_QUERY = MAX_BOUND - 4;

/** A link as planning reads it (linkQueries). */
export interface LinkRow {
  id: number;
  portalId: number;
  storeId: string;
  objectType: EcommObjectType;
  externalId: string;
  serviceId: number | null;
  messageId: string;
  changedAt: number;
  deleted: boolean;
}

/** A link row as D1 returns it. */
interface LinkRecord {
  id: number;
  portal_id: number;
  store_id: string;
  object_type: EcommObjectType;
  external_id: string;
  service_id: number | null;
  message_id: string;
  changed_at: number;
  deleted: number;
}

const linkRowOf = (r: LinkRecord): LinkRow => ({
  id: r.id,
  portalId: r.portal_id,
  storeId: r.store_id,
  objectType: r.object_type,
  externalId: r.external_id,
  serviceId: r.service_id,
  messageId: r.message_id,
  changedAt: r.changed_at,
  deleted: r.deleted === 1,
});

const SELECT_LINKS = `select id, portal_id, store_id, object_type, external_id, service_id, message_id, changed_at, deleted from ecomm_links
  where portal_id = ? and store_id = ? and object_type = ? and external_id in (`;

/**
 * The links of `keys`: one query per (account, store, type) and up to 96 external ids, each a seek in the
 * links' unique index with the ids as bound values (a JSON list read through json_each would cost D1 one
 * more row read per key). Run them in one db.batch; their rows go through `linkRowOf`. Rendered by hand
 * (BoundQuery): a query builder with a hundred bound values costs more to render than D1 takes to run it.
 */
export function linkQueries(keys: LinkKey[]): BoundQuery[] {
  const groups = new Map<string, { prefix: LinkKey; ids: string[] }>();
  for (const k of keys) {
    const g = JSON.stringify([k.portalId, k.storeId, k.objectType]);
    const group = groups.get(g);
    if (group) group.ids.push(k.externalId);
    else groups.set(g, { prefix: k, ids: [k.externalId] });
  }
  return [...groups.values()].flatMap(({ prefix, ids }) =>
    chunks(ids, KEYS_PER_QUERY).map((part) => ({
      sql: `${SELECT_LINKS}${part.map(() => "?").join(", ")})`,
      params: [prefix.portalId, prefix.storeId, prefix.objectType, ...part],
    })),
  );
}

export const linkState = (l: LinkRow): LinkState => ({ id: l.id, serviceId: l.serviceId, messageId: l.messageId, changedAt: l.changedAt, deleted: l.deleted });

/** The links of `keys` in one round trip (the second read of planBatch). */
export async function readLinks(db: Db, keys: LinkKey[]): Promise<LinkRow[]> {
  const queries = linkQueries(keys);
  if (!queries.length) return [];
  const results = await runRawBatch(db, queries.map((q) => rawStatement(db, q)));
  return results.flatMap((r) => (r.results as LinkRecord[]).map(linkRowOf));
}

/** The live contacts that own `emails` ([account, lower-cased email]): bound lists per account, like linkQueries. */
function emailOwnerQueries(db: Db, emails: [number, string][]) {
  const byPortal = new Map<number, string[]>();
  for (const [portalId, email] of emails) byPortal.set(portalId, [...(byPortal.get(portalId) ?? []), email]);
  return [...byPortal].flatMap(([portalId, list]) =>
    chunks(list, KEYS_PER_QUERY).map((part) =>
      db
        .select({ id: crmObjects.id, portalId: crmObjects.portalId, email: crmObjects.email })
        .from(crmObjects)
                // The conditions of the partial unique index on contact emails, as literals so SQLite can use it.
        .where(and(eq(crmObjects.portalId, portalId), sql`${crmObjects.objectType} = 'contacts' and ${crmObjects.archived} = 0 and ${crmObjects.email} is not null`, inArray(crmObjects.email, part))),
    ),
  );
}
type EmailOwnerRow = Awaited<ReturnType<typeof emailOwnerQueries>[number]>[number];

/** A contact message's own object and the emails it could set. */
interface ContactKey {
  key: LinkKey;
  emails: string[];
}

interface ContactKeyRow {
  external_id: string;
  email: string | null;
  id: number | null;
  service_id: number | null;
  message_id: string | null;
  changed_at: number | null;
  deleted: number | null;
  /** The live contact that owns `email`, read only when the object has no record yet. */
  owner: number | null;
}

/**
 * The links of contact messages' own objects, and the owners of the emails they could set, read only for
 * an object without a record: a linked contact keeps its record, so its email's owner matters only when it
 * is another contact, which the email's unique index refuses at the commit (the batch is then planned again
 * message by message, with every owner read: `everyEmailOwner`). One (external id, email) row per value,
 * bound, in VALUES rows that D1 does not count as rows read.
 */
function contactKeyQueries(db: Db, entries: ContactKey[]) {
  const groups = new Map<string, { prefix: LinkKey; rows: [string, string | null][] }>();
  for (const { key, emails } of entries) {
    const g = JSON.stringify([key.portalId, key.storeId]);
    const group = groups.get(g) ?? { prefix: key, rows: [] };
    for (const email of emails.length ? emails : [null]) group.rows.push([key.externalId, email]);
    groups.set(g, group);
  }
  return [...groups.values()].flatMap(({ prefix, rows }) =>
    chunks(rows, Math.floor((KEYS_PER_QUERY - 1) / 2)).map((part) => ({
      prefix,
      query: rawBatchItem<ContactKeyRow>(
        db,
        sql`select k.column1 as external_id, k.column2 as email, l.id, l.service_id, l.message_id, l.changed_at, l.deleted,
            case when l.service_id is null and k.column2 is not null then (
              select o.id from crm_objects o where o.portal_id = ${prefix.portalId} and o.object_type = 'contacts' and o.archived = 0
                and o.email is not null and o.email = k.column2) end as owner
          from (values ${sql.join(part.map(([ext, email]) => sql`(${ext}, ${email})`), sql`, `)}) k
            left join ecomm_links l on l.portal_id = ${prefix.portalId} and l.store_id = ${prefix.storeId} and l.object_type = 'CONTACT' and l.external_id = k.column1`,
      ),
    })),
  );
}

/** Every email a contact message could set: any of its string values that is a valid email (lower-cased). */
function emailsOf(m: SyncQueueMessage): string[] {
  const out = new Set<string>();
  for (const v of Object.values(m.message.properties ?? {})) {
    if (typeof v === "string" && isValidEmail(v.trim())) out.add(v.trim().toLowerCase());
  }
  return [...out];
}

function candidateEmails(msgs: SyncQueueMessage[]): [number, string][] {
  const out = new Map<string, [number, string]>();
  for (const m of msgs) {
    if (m.objectType !== "CONTACT") continue;
    for (const email of emailsOf(m)) out.set(emailKey(m.portalId, email), [m.portalId, email]);
  }
  return [...out.values()];
}

const settingsReader = rowReader(ecommSettings);
const storesReader = rowReader(ecommStores);
/**
 * The batch's settings, stores and id counters as constant SQL text, built once per isolate: drizzle
 * rebuilds a select's SQL on every call (src/db/raw-rows.ts), once per consumer batch here. The bench's
 * consumer profile, four alternating runs: the read step of a batch of 100 went from 1.3–1.9 ms to 1.1–1.4.
 */
const SETTINGS_OF_OWNERS = `select ${settingsReader.selectList("s")} from ecomm_settings s
  where (s.owner_kind, s.owner_id) in (select value->>0, value->>1 from json_each(?))`;
const STORES_OF_KEYS = `select ${storesReader.selectList("s")} from ecomm_stores s
  where (s.portal_id, s.store_id) in (select value->>0, value->>1 from json_each(?))`;
const ID_COUNTERS = "select name from id_sequences where name in ('ecomm_links', 'crm_objects')";

/** What planning reads from D1. `readKeys` are the object keys whose link was looked up (found or not). */
export interface PlanContext {
  /** Every settings row that could govern a message, by `settingsKey`; pick with `governingSettings`. */
  settings: Map<string, SettingsRow>;
  stores: Map<string, typeof ecommStores.$inferSelect>;
  stages: Map<number, Set<string>>;
  links: Map<string, LinkState>;
  readKeys: Set<string>;
  /** `${portalId}|${lower-cased email}` -> the contact that owns it (an email is unique per account). */
  emailOwners: Map<string, number>;
  /** Whether the database's id counters exist (npm run migrate starts them), which new objects' direct write needs. */
  idCounters: boolean;
}

/**
 * Everything planning needs, in ONE D1 round trip that does not depend on the ordering decision, so the
 * consumer runs it alongside the SyncOrder RPCs: settings (of every candidate owner, in one query), stores,
 * stages, the links of the messages' objects and of the objects their `associations` name, and the owners
 * of every email a contact message could set. (Only v1 `hs_assoc__*` association properties can need a
 * second read, see planBatch.)
 */
export async function readPlanContext(db: Db, msgs: SyncQueueMessage[], control: Db = db, { everyEmailOwner = false } = {}): Promise<PlanContext> {
  // Every owner whose settings could govern a message (an OAuth message: its app's, then its account's).
  // App-level settings live in the control plane, account-level ones on the account's shard:
  // with separate databases the app rows are one more read, run alongside the shard's batch.
  const allOwners = [...new Map(msgs.flatMap((m) => syncSettingsOwners(m.portalId, m.appId)).map((o) => [settingsKey(o), [o.kind, o.id] as const])).values()];
  const split = control !== db;
  const owners = split ? allOwners.filter(([kind]) => kind === "portal") : allOwners;
  const appOwners = allOwners.filter(([kind]) => kind === "app");
  const appSettings =
    split && appOwners.length
      ? // An app's settings change only its configuration: any replica may answer (src/db/replica.ts).
        replicaDb(control)
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
  // Contact messages' own objects: their links and, for objects without a record, their emails' owners.
  const contactKeys = everyEmailOwner ? [] : msgs.filter((m) => m.objectType === "CONTACT").map((m) => ({ key: keyOf(m), emails: emailsOf(m) }));
  const viaContacts = new Set(contactKeys.map((c) => keyString(c.key)));
  const owned = emailOwnerQueries(db, everyEmailOwner ? candidateEmails(msgs) : []);
  const contacts = contactKeyQueries(db, contactKeys);
  const links = linkQueries([...keys].filter(([k]) => !viaContacts.has(k)).map(([, k]) => k)).map((q) => rawBatchItem<LinkRecord>(db, q));
  // The deal stages only when the batch has deals (a statement less for the others).
  const stageQueries = dealPortals.length
    ? [db.select({ portalId: ecommPipelineStages.portalId, stageId: ecommPipelineStages.stageId }).from(ecommPipelineStages).where(inJson(ecommPipelineStages.portalId, dealPortals))]
    : [];
  const [[rawSettings, rawStores, counterRows, ...rest], appRows] = await Promise.all([db.batch([
    rawBatchItem<Record<string, unknown>>(db, { sql: SETTINGS_OF_OWNERS, params: [JSON.stringify(owners)] }) as unknown as (typeof owned)[number],
    rawBatchItem<Record<string, unknown>>(db, { sql: STORES_OF_KEYS, params: [JSON.stringify(stores)] }) as unknown as (typeof owned)[number],
    rawBatchItem<{ name: string }>(db, { sql: ID_COUNTERS, params: [] }) as unknown as (typeof owned)[number],
    ...owned,
    ...(links as unknown as typeof owned),
    ...(contacts.map((c) => c.query) as unknown as typeof owned),
    ...(stageQueries as unknown as typeof owned),
  ]), appSettings]);
  const shardSettings = (rawSettings as Record<string, unknown>[]).map((r) => settingsReader.fromJson(r));
  const storeRows = (rawStores as Record<string, unknown>[]).map((r) => storesReader.fromJson(r));
  const contactsEnd = owned.length + links.length + contacts.length;
  const stageRows = (rest.slice(contactsEnd) as unknown as { portalId: number; stageId: string }[][]).flat();
  const ownerRows = (rest.slice(0, owned.length) as EmailOwnerRow[][]).flat().map((r) => [emailKey(r.portalId, r.email!), r.id] as const);
  const linkRows = (rest.slice(owned.length, owned.length + links.length) as unknown as LinkRecord[][]).flat().map(linkRowOf);
  (rest.slice(owned.length + links.length, contactsEnd) as unknown as ContactKeyRow[][]).forEach((rows, i) => {
    const { portalId, storeId } = contacts[i]!.prefix;
    for (const r of rows) {
      if (r.owner !== null && r.email !== null) ownerRows.push([emailKey(portalId, r.email), r.owner]);
      if (r.id === null) continue;
      linkRows.push({ id: r.id, portalId, storeId, objectType: "CONTACT", externalId: r.external_id, serviceId: r.service_id, messageId: r.message_id!, changedAt: r.changed_at!, deleted: r.deleted === 1 });
    }
  });
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
    links: new Map(linkRows.map((l) => [keyString(l), linkState(l)])),
    readKeys: new Set(keys.keys()),
    emailOwners: new Map(ownerRows),
    idCounters: counterRows.length === 2,
  };
}
