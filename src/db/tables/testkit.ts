/**
 * @module The test kit's controls over a test account (docs/reference/testkit.md): fault rules, on the control
 * plane beside the account's credentials, since they act on its API calls before any shard is read; and
 * snapshots, on the account's shard beside the rows they copy, so that taking and restoring one is a
 * statement per table inside the database. Both are controls, not the account's data: the export leaves
 * them out, and a reset keeps them.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** One rule of `PUT /admin/v1/accounts/{id}/faults`, in the order the operator gave them (the first match wins). */
export const faultRules = sqliteTable(
  "fault_rules",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    portalId: integer("portal_id").notNull(),
    position: integer("position").notNull(),
    /** What a call must be to match: a method, a glob over the path, a credential kind; null matches any. */
    method: text("method"),
    path: text("path"),
    credential: text("credential"),
    /** The fault's status (429, 500, 502, 503, 504) and a 429's policy; null status: the call is only delayed. */
    status: integer("status"),
    policyName: text("policy_name"),
    /** The share of matching calls that get the fault; null: every one. */
    probability: real("probability"),
    seed: integer("seed"),
    /** Faults left to give; null: no end. */
    timesLeft: integer("times_left"),
    latencyMs: integer("latency_ms").notNull().default(0),
    /** Matching calls so far: with a seed, the n-th one's fate depends on the seed and n only. */
    calls: integer("calls").notNull().default(0),
    faults: integer("faults").notNull().default(0),
    createdAt: integer("created_at").notNull().default(sql`(cast(unixepoch('subsecond') * 1000 as integer))`),
  },
  (t) => [index("fault_rules_portal").on(t.portalId, t.position)],
);

/** A named snapshot of a test account's data (`POST /admin/v1/accounts/{id}/snapshots`). */
export const snapshots = sqliteTable(
  "snapshots",
  {
    portalId: integer("portal_id").notNull(),
    name: text("name").notNull(),
    /** Rows copied, by table. */
    counts: text("counts", { mode: "json" }).$type<Record<string, number>>().notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.portalId, t.name] })],
);

/** The rows of a snapshot: each a JSON array of its table's columns, in the table's column order. */
export const snapshotRows = sqliteTable(
  "snapshot_rows",
  {
    portalId: integer("portal_id").notNull(),
    snapshot: text("snapshot").notNull(),
    tableName: text("table_name").notNull(),
    row: text("row").notNull(),
  },
  (t) => [index("snapshot_rows_table").on(t.portalId, t.snapshot, t.tableName)],
);

/**
 * An app's webhook hold (`PATCH /admin/v1/apps/{id}/webhooks {"held": true}`): while the row exists, the
 * app's deliveries of test accounts' events wait in the delivery log as `held` (src/services/webhooks/hold.ts).
 * Its own table beside the app's settings, not a settings column: the developer's `PUT` and `DELETE` of the
 * settings neither lift nor drop the operator's hold.
 */
export const webhookHolds = sqliteTable("webhook_holds", {
  appId: integer("app_id").primaryKey(),
  heldAt: integer("held_at").notNull(),
});

/**
 * A test account's quirk switches (`PATCH /admin/v1/accounts/{id}/quirks`): behaviours of the real service a
 * test can turn on. Read with the account's credential (src/http/auth.ts), so no call reads them again.
 */
export const accountQuirks = sqliteTable("account_quirks", {
  portalId: integer("portal_id").primaryKey(),
  /** A record is absent from search until this long after its last write (0: at once). */
  searchLagMs: integer("search_lag_ms").notNull().default(0),
  /**
   * The account's clock (`/admin/v1/accounts/{id}/clock`): how far its time runs ahead of real time, in ms
   * (0: real time). Read with the credential, as the switches above, so a call costs nothing more.
   */
  clockOffsetMs: integer("clock_offset_ms").notNull().default(0),
  updatedAt: integer("updated_at").notNull(),
});
