/**
 * @module What moving an account to another shard copies (docs/explanation/scaling.md, "Moves"): every
 * account table, and how to select one account's rows in it. The fence triggers (migrations/0008_fences.sql)
 * cover the same tables; test/shards/moves.test.ts checks that this list and the schema's account tables
 * agree.
 */
export interface AccountTable {
  name: string;
  /** SQL condition selecting the account's rows, with one `?` for the portalId. */
  where: string;
  /** Columns holding secrets (password and token hashes): never exported (docs/how-to/account-lifecycle.md). */
  secrets?: string[];
  /** Left out of the export altogether (short-lived sign-in state whose every column is a secret or a key to one). */
  notExported?: true;
}

const byPortal = (name: string): AccountTable => ({ name, where: "portal_id = ?" });

/**
 * A delivery of the control plane's older log (rows without an account: deliveries then mixed the accounts of
 * one app) whose every event is of the account (`d` or the table itself).
 */
const LEGACY_ONLY_EVENTS_OF = "portal_id is null and not exists (select 1 from json_each(events) e where e.value ->> 'portalId' is not ?)";

/**
 * The control plane's older delivery log: deleting an account keeps a delivery shared with other accounts
 * and takes the account's events out of it (its log row and every later attempt then carry only the
 * others'), up to 100 deliveries a statement; those made only of the account's events are deleted
 * (ACCOUNT_CONTROL_TABLES). Bind the portalId once. The account's own log (one account per delivery) is an
 * account table, deleted with the others.
 */
export const STRIP_LEGACY_DELIVERIES = `update webhook_deliveries
  set events = (select json_group_array(json(k.value)) from (select value from json_each(webhook_deliveries.events) where value ->> 'portalId' is not ?1 order by key) k),
      event_count = (select count(*) from json_each(webhook_deliveries.events) where value ->> 'portalId' is not ?1)
  where id in (select d.id from webhook_deliveries d
    where d.portal_id is null
      and exists (select 1 from json_each(d.events) where value ->> 'portalId' = ?1)
      and exists (select 1 from json_each(d.events) where value ->> 'portalId' is not ?1)
    limit 100)`;

export const ACCOUNT_TABLES: AccountTable[] = [
  byPortal("crm_objects"),
  byPortal("crm_associations"),
  // Association labels: the account's label definitions, the labels its pairs hold, its association limits.
  byPortal("association_definitions"),
  byPortal("crm_association_types"),
  byPortal("association_limits"),
  // Contact merge records (v1 merge-vids). The FTS5 contact index `contact_search` is not copied: the
  // triggers of crm_objects rebuild it on the target as rows are inserted, and empty it on the source as
  // rows are purged.
  byPortal("contact_merges"),
  // Custom property definitions of /crm/v3/properties (no integer id: keyed by account, type and name).
  byPortal("crm_properties"),
  // Custom property groups (keyed by account, type and name).
  byPortal("crm_property_groups"),
  byPortal("blogs"),
  byPortal("blog_authors"),
  byPortal("blog_topics"),
  byPortal("blog_posts"),
  { ...byPortal("smtp_tokens"), secrets: ["password_hash"] },
  byPortal("sent_emails"),
  { name: "ecomm_settings", where: "owner_kind = 'portal' and owner_id = ?" },
  byPortal("ecomm_stores"),
  byPortal("ecomm_pipelines"),
  byPortal("ecomm_pipeline_stages"),
  byPortal("ecomm_links"),
  byPortal("ecomm_sync_errors"),
  byPortal("ecomm_imports"),
  byPortal("ecomm_import_ends"),
  byPortal("ecomm_pending"),
  byPortal("timeline_events"),
  byPortal("timeline_utks"),
  // Pending webhook events: a move carries them, so events of changes made before it are still sent.
  byPortal("webhook_outbox"),
  // Pipelines and stages an account created or changed, and their audit (built-in ones unchanged have no rows).
  byPortal("pipelines"),
  byPortal("pipeline_stages"),
  byPortal("pipeline_audits"),
  // A test account's snapshots (docs/reference/testkit.md): moved and deleted with it; controls, not its data.
  { ...byPortal("snapshots"), notExported: true },
  { ...byPortal("snapshot_rows"), notExported: true },
  // Custom object schemas (their records are crm_objects rows, their properties crm_properties rows).
  byPortal("crm_schemas"),
  // Lists and the members of the manual and snapshot ones (dynamic lists have no member rows).
  byPortal("lists"),
  byPortal("list_memberships"),
  byPortal("list_folders"),
  // The webhook delivery log of the account's events (one account per delivery, docs/reference/webhooks.md
  // "The delivery log"): read by the app's developer, stored with the account. Not exported (so neither in the
  // test kit's snapshots and imports, which take the export's tables): it is the app developer's record of what
  // was sent, which a restore cannot unsend.
  { ...byPortal("webhook_deliveries"), notExported: true },
  { ...byPortal("webhook_attempts"), notExported: true },
];

/**
 * Append-only account tables an operator may place on a companion shard beside the account's shard
 * (docs/explanation/scaling.md "Accounts larger than one database"): read by one record or by key, never
 * joined in a search, so they can live in another database. `accounts.companion` names it.
 */
export const COMPANION_TABLE_NAMES: readonly string[] = ["timeline_events", "webhook_deliveries", "webhook_attempts"];
export const COMPANION_TABLES = ACCOUNT_TABLES.filter((t) => COMPANION_TABLE_NAMES.includes(t.name));
/** The tables that stay on the account's shard when its companion tables live elsewhere. */
export const HOME_TABLES = ACCOUNT_TABLES.filter((t) => !COMPANION_TABLE_NAMES.includes(t.name));

/** Control-plane tables: they stay in DB and are never copied (docs/explanation/scaling.md lists both kinds). */
export const CONTROL_TABLES = [
  "accounts",
  "apps",
  "installs",
  "private_apps",
  "users",
  "credentials",
  "auth_codes",
  "sessions",
  "card_types",
  "timeline_event_types",
  "timeline_event_properties",
  "timeline_event_holders",
  "account_moves",
  "shard_placement",
  "webhook_settings",
  "webhook_subscriptions",
  "webhook_inflight",
  "owners",
  "teams",
  "fault_rules",
  "account_quirks",
  "webhook_holds",
  "extension_settings",
] as const;

/**
 * The account's rows in control-plane tables, in the order a deletion removes them (the account's own row
 * last: it disappears from the directory only once nothing else of it is left). The export reads the same
 * list. A new control-plane table holding account rows is one line here.
 */
export const ACCOUNT_CONTROL_TABLES: AccountTable[] = [
  { ...byPortal("credentials"), secrets: ["token_hash", "family_id"] },
  { ...byPortal("auth_codes"), notExported: true },
  { ...byPortal("sessions"), notExported: true },
  { ...byPortal("users"), secrets: ["password_hash"] },
  // Owners (archived ones too: records name them) and teams are the account's, like its users.
  byPortal("owners"),
  byPortal("teams"),
  // The test kit's controls over the account: not its data, so not exported.
  { ...byPortal("fault_rules"), notExported: true },
  { ...byPortal("account_quirks"), notExported: true },
  // Derived from the account's timeline events (rebuilt by an import or a restore).
  { ...byPortal("timeline_event_holders"), notExported: true },
  byPortal("private_apps"),
  // The control plane's older delivery log (before it was stored with the accounts): a delivery made only of
  // the account's events goes, its attempts first. The developer's record of what was sent: not exported.
  { name: "webhook_attempts", where: `portal_id is null and delivery_id in (select d.id from webhook_deliveries d where ${LEGACY_ONLY_EVENTS_OF.replaceAll("portal_id", "d.portal_id")})`, notExported: true },
  { name: "webhook_deliveries", where: LEGACY_ONLY_EVENTS_OF, notExported: true },
  byPortal("installs"),
  byPortal("account_moves"),
  byPortal("accounts"),
];

/**
 * Tables derived from account tables by triggers, never copied: the FTS5 contact search index (and its
 * `contact_search_*` shadow tables), rebuilt on the target as crm_objects rows are inserted.
 */
export const DERIVED_TABLES = ["contact_search"] as const;
