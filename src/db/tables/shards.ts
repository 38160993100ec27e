/**
 * @module Shard-side bookkeeping of account moves (docs/explanation/scaling.md "Fencing"). The table exists
 * in every database (one schema everywhere) but only matters on a shard: a row fences the account there.
 * The fence triggers (drizzle-kit --custom migrations: migrations/0008_fences.sql and later ones) refuse
 * every insert, update and delete of the account's rows while it is fenced, so no isolate, however stale
 * its directory entry, can write to a shard the account is leaving or has left.
 */
import { sql } from "drizzle-orm";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const FENCE_STATES = ["moving", "moved", "incoming", "deleting"] as const;
export type FenceState = (typeof FENCE_STATES)[number];

export const accountFences = sqliteTable("account_fences", {
  portalId: integer("portal_id").primaryKey(),
  /**
   * moving: on the source while the copy runs (writes get a retryable 503); moved: on the source once the
   * account lives elsewhere; incoming: on the target while the copy arrives (hidden from fan-out reads);
   * deleting: while the account's deletion purges it (src/durable-objects/account-mover/delete.ts).
   */
  state: text("state", { enum: FENCE_STATES }).notNull(),
  createdAt: integer("created_at").notNull(),
  /**
   * 1 only inside the mover's own batches (set first, cleared last, one transaction): lets the purge of a
   * moved account and the lifting of a fence through while every other writer stays refused.
   */
  unlocked: integer("unlocked").notNull().default(0),
});

/**
 * On an account's home shard, once its companion tables live on a companion shard: the trigger of
 * migrations/0035_companions.sql refuses every write of the account's rows of those tables here
 * (ACCOUNT_FENCED → 503, the caller's caches forgotten), so an isolate whose cached principal does not yet
 * name the companion cannot write events where no read will look. The mover's batches pass with `unlocked`.
 */
export const accountCompanions = sqliteTable("account_companions", {
  portalId: integer("portal_id").primaryKey(),
  /** Where the companion tables live (for an operator reading the shard; the control plane decides). */
  shard: text("shard").notNull(),
  createdAt: integer("created_at").notNull(),
  unlocked: integer("unlocked").notNull().default(0),
});

export const MOVE_PHASES = ["fencing", "copying", "verifying", "switching", "draining", "purging", "done", "failed"] as const;
export type MovePhase = (typeof MOVE_PHASES)[number];

/**
 * Control plane: the state of each account's latest move between shards, written by the account's
 * AccountMover Durable Object at every step and shown as `move` by `GET /admin/v1/accounts/{portalId}`
 * until the move is done. A failed move stays, with its reason, until the next move replaces it.
 */
export const MOVE_KINDS = ["home", "companion"] as const;
export type MoveKind = (typeof MOVE_KINDS)[number];

export const accountMoves = sqliteTable("account_moves", {
  portalId: integer("portal_id").primaryKey(),
  /**
   * home: the account's shard moves (every account table but the companion ones it keeps elsewhere);
   * companion: its companion tables move, from its shard or its companion shard, to a companion shard.
   */
  kind: text("kind", { enum: MOVE_KINDS }).notNull().default("home"),
  source: text("source").notNull(),
  target: text("target").notNull(),
  phase: text("phase", { enum: MOVE_PHASES }).notNull(),
  /** Rows copied so far, by table. */
  copied: text("copied", { mode: "json" }).$type<Record<string, number>>().notNull().default(sql`'{}'`),
  error: text("error"),
  startedAt: integer("started_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * Per database: the last id each id table handed out (src/db/id-ranges.ts). Inserts into an id table take
 * `seq + 1` (newId) instead of AUTOINCREMENT, whose next id is the table's largest id, foreign ones included;
 * the triggers of migrations/0010_id_sequences.sql move `seq` on every insert within the database's range
 * [base + 1, base + 10^11) and refuse an insert outside it unless the mover is copying an account in. `seq`
 * never goes down, so an id is never handed out twice, even after its row has moved away.
 */
export const idSequences = sqliteTable("id_sequences", {
  name: text("name").primaryKey(),
  base: integer("base").notNull(),
  seq: integer("seq").notNull(),
});

/**
 * Control plane: placement control (docs/explanation/scaling.md "Placement"). A shard an operator closed
 * (`PATCH /admin/v1/shards/{name}` with `open: false`) gets no new accounts from the placement policy; a
 * shard without a row is open. Only the control plane's table is used; the shards have it empty.
 */
export const shardPlacement = sqliteTable("shard_placement", {
  shard: text("shard").primaryKey(),
  open: integer("open", { mode: "boolean" }).notNull(),
  updatedAt: integer("updated_at").notNull(),
});
