/**
 * @module The steps of an account's deletion (docs/how-to/account-lifecycle.md), run by the account's
 * AccountMover Durable Object like a move, a bounded step per call, its progress kept in the object's
 * storage so an interrupted deletion resumes where it stopped:
 *
 *   marking  → the account is `deleting` in the control plane (done first by the DELETE request itself,
 *              repeated here): its credentials get 401, its public pages 404, its queued messages are
 *              dropped; every database fences the account, so no isolate can write to it any more;
 *   draining → waits out the credential cache and the account directory of every isolate;
 *   purging  → every account table (the move's list, src/db/account-tables.ts) on every database, in
 *              chunks; the search index and derived tables follow through their triggers;
 *   control  → the control plane's rows of the account (ACCOUNT_CONTROL_TABLES), the fences, and last
 *              the account itself: from then on it is a 404. The account's webhook delivery log is
 *              an account table (purged above); deliveries of the control plane's older log shared with
 *              other accounts stay, without the account's events (STRIP_LEGACY_DELIVERIES).
 *
 * Every database is purged, not only the account's shard: a past move leaves its fence on the source.
 * The account's portalId is never handed out again: accounts.portal_id is AUTOINCREMENT.
 */
import { eq } from "drizzle-orm";
import { CONTROL_SHARD, controlDb, shardBinding, shardNames } from "../../db/shards";
import { accounts, type DeletionState } from "../../db/tables/tenancy";
import { cacheTtlMs } from "../../lib/credential-cache";
import { DIRECTORY_TTL_MS } from "../../db/directory";
import { deleteChunks } from "./copy";
import { ACCOUNT_CONTROL_TABLES, ACCOUNT_TABLES, STRIP_LEGACY_DELIVERIES } from "../../db/account-tables";

export interface DeletionProgress {
  portalId: number;
  phase: DeletionState["state"];
  /** Index into the databases (purging), or into ACCOUNT_CONTROL_TABLES (control). */
  db: number;
  table: number;
  deleted: Record<string, number>;
  drainUntil?: number;
  failures?: number;
  startedAt: number;
}

/** Every database an account's rows can be on: the control plane and each shard. */
export const allDatabases = (env: Env) => [CONTROL_SHARD, ...shardNames(env)];

/**
 * Databases fenced (marking) or unfenced (control) per step: a step is one invocation of the object's alarm,
 * which D1 holds to 1,000 queries; 40 keeps it far below, whatever the number of shards.
 */
export const FENCES_PER_STEP = 40;

/**
 * One step; returns the progress to keep, or null once the account is gone. Every step is idempotent, so
 * repeating one after a crash changes nothing.
 */
export async function deletionStep(env: Env, p: DeletionProgress): Promise<DeletionProgress | null> {
  const dbs = allDatabases(env);
  switch (p.phase) {
    case "marking": {
      // The first step marks the account; each step fences the next FENCES_PER_STEP databases (p.db).
      if (p.db === 0) await controlDb(env).update(accounts).set({ status: "deleting" }).where(eq(accounts.portalId, p.portalId));
      const now = Date.now();
      const part = dbs.slice(p.db, p.db + FENCES_PER_STEP);
      for (const name of part) {
        await shardBinding(env, name)
          .prepare("insert into account_fences (portal_id, state, created_at) values (?, 'deleting', ?) on conflict (portal_id) do update set state = 'deleting', unlocked = 0")
          .bind(p.portalId, now)
          .run();
      }
      if (p.db + part.length < dbs.length) return { ...p, db: p.db + part.length };
      return { ...p, phase: "draining", db: 0, drainUntil: now + Math.max(cacheTtlMs(env), DIRECTORY_TTL_MS) + 1_000 };
    }
    case "draining":
      return { ...p, phase: "purging", db: 0, table: 0 };
    case "purging": {
      const name = dbs[p.db];
      if (name === undefined) return { ...p, phase: "control", db: 0, table: 0 };
      const table = ACCOUNT_TABLES[p.table];
      if (!table) return { ...p, db: p.db + 1, table: 0 };
      const n = await deleteChunks(shardBinding(env, name), [table], p.portalId);
      const deleted = n ? { ...p.deleted, [table.name]: (p.deleted[table.name] ?? 0) + n } : p.deleted;
      return n === 0 ? { ...p, deleted, table: p.table + 1 } : { ...p, deleted };
    }
    case "control": {
      const table = ACCOUNT_CONTROL_TABLES[p.table];
      if (table?.name === "accounts" && p.db < dbs.length) {
        // The fences go just before the account, FENCES_PER_STEP databases per step (p.db): nothing can write
        // any more, nobody resolves it. With them the companion marker of its home shard (its companion shard
        // was purged like every database).
        const part = dbs.slice(p.db, p.db + FENCES_PER_STEP);
        for (const name of part) {
          const d1 = shardBinding(env, name);
          await d1.batch([d1.prepare("delete from account_fences where portal_id = ?").bind(p.portalId), d1.prepare("delete from account_companions where portal_id = ?").bind(p.portalId)]);
        }
        return { ...p, db: p.db + part.length };
      }
      if (!table) return null;
      if (table.name === "webhook_attempts") {
        // Before the deliveries made only of the account's events go, the shared ones lose its events.
        const stripped = await env.DB.prepare(STRIP_LEGACY_DELIVERIES).bind(p.portalId).run();
        if (stripped.meta.changes) return p;
      }
      const n = await deleteChunks(env.DB, [table], p.portalId);
      const deleted = n ? { ...p.deleted, [table.name]: (p.deleted[table.name] ?? 0) + n } : p.deleted;
      return n === 0 ? { ...p, deleted, table: p.table + 1 } : { ...p, deleted };
    }
  }
}

/** The operator's view (accounts.deletion), written after every step until the account is gone. */
export async function recordDeletion(env: Env, p: DeletionProgress, error?: string): Promise<void> {
  const state: DeletionState = { state: p.phase, deleted: p.deleted, ...(error ? { error } : {}), startedAt: p.startedAt, updatedAt: Date.now() };
  await controlDb(env).update(accounts).set({ deletion: state }).where(eq(accounts.portalId, p.portalId));
}

/** Seconds before a failed step is tried again: 1, 2, 4 … up to a minute. */
export const retryDelayMs = (failures: number) => Math.min(60_000, 1_000 * 2 ** Math.max(0, failures - 1));
