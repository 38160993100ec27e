/**
 * @module One step of a move (docs/explanation/scaling.md "Moves"), as the AccountMover Durable Object runs
 * it on its alarms: the phases fencing → copying → verifying → switching → draining → purging. The object
 * keeps the progress, waits out the drain and undoes a failed move (src/durable-objects/account-mover/index.ts).
 */
import { eq } from "drizzle-orm";
import { controlDb, shardBinding } from "../../db/shards";
import type { MovePhase } from "../../db/tables/shards";
import { accounts } from "../../db/tables/tenancy";
import { cacheTtlMs } from "../../lib/credential-cache";
import { copyChunks, deleteChunks, verifyStep, type VerifyState } from "./copy";
import { ACCOUNT_TABLES, COMPANION_TABLES, HOME_TABLES, type AccountTable } from "../../db/account-tables";

export interface MovePlan {
  portalId: number;
  source: string;
  target: string;
  /**
   * home (the default): the account's shard moves. companion: its companion tables move, from its shard
   * (placing them apart) or from its companion shard, to `target` (docs/explanation/scaling.md "Accounts
   * larger than one database").
   */
  kind?: "home" | "companion";
  /** The account's shard: for a companion move, where its companion marker lives; for a home move, its source. */
  home?: string;
  /** A home move of an account whose companion tables live on `companion`: they stay there. */
  companion?: string | null;
}

/** The tables a move copies, verifies and purges. */
export function moveTables(plan: MovePlan): AccountTable[] {
  if (plan.kind === "companion") return COMPANION_TABLES;
  return plan.companion ? HOME_TABLES : ACCOUNT_TABLES;
}

export interface Progress extends MovePlan {
  phase: MovePhase;
  table: number;
  after: number;
  copied: Record<string, number>;
  /** Set when the move failed before its switch: why; the steps from then on undo it. */
  undo?: string;
  /** The verification's state between its steps (absent before its first). */
  verify?: VerifyState;
  drainUntil?: number;
  purgeFailures?: number;
}

/** Records the move's phase for the operator (control plane account_moves). */
export type RecordMove = (phase: MovePhase, copied: Record<string, number>) => Promise<void>;

/** Runs one bounded step of `p`; returns the progress after it, undefined once the move is done. Throws on failure. */
export async function moveStep(env: Env, p: Progress, record: RecordMove): Promise<Progress | undefined> {
  const src = shardBinding(env, p.source);
  const dst = shardBinding(env, p.target);
  const tables = moveTables(p);
  const advance = async (phase: MovePhase) => {
    const next = { ...p, phase, table: 0, after: 0, verify: undefined };
    await record(phase, next.copied);
    return next;
  };
  switch (p.phase) {
    case "fencing": {
      const now = Date.now();
      await dst.batch([
        dst.prepare("insert into account_fences (portal_id, state, created_at) values (?, 'incoming', ?) on conflict (portal_id) do update set state = 'incoming', unlocked = 0").bind(p.portalId, now),
      ]);
      // Leftover rows on the target (an earlier failed move) go a chunk per step; the fence above is idempotent.
      if ((await deleteChunks(dst, tables, p.portalId)) > 0) return p;
      await src.prepare("insert into account_fences (portal_id, state, created_at) values (?, 'moving', ?) on conflict (portal_id) do update set state = 'moving', unlocked = 0").bind(p.portalId, now).run();
      return advance("copying");
    }
    case "copying": {
      if (p.table >= tables.length) return advance("verifying");
      const r = await copyChunks(src, dst, tables, p.table, p.portalId, p.after);
      const copied = { ...p.copied };
      for (const [name, n] of Object.entries(r.copied)) copied[name] = (copied[name] ?? 0) + n;
      await record("copying", copied);
      return { ...p, copied, table: r.table, after: r.after };
    }
    case "verifying": {
      const verify = await verifyStep(src, dst, tables, p.portalId, p.verify ?? null);
      return verify ? { ...p, verify } : advance("switching");
    }
    case "switching": {
      if (p.kind === "companion") {
        await switchCompanion(env, p, src, dst);
        return { ...(await advance("draining")), drainUntil: Date.now() + cacheTtlMs(env) + 1_000 };
      }
      // The new shard refuses, as the old one did, writes of the companion tables that live elsewhere.
      await dst.batch([
        dst.prepare("delete from account_fences where portal_id = ?").bind(p.portalId),
        ...(p.companion ? [companionMarker(dst, p.portalId, p.companion)] : []),
      ]);
      await controlDb(env).update(accounts).set({ shard: p.target === "DB" ? null : p.target }).where(eq(accounts.portalId, p.portalId));
      await src.prepare("update account_fences set state = 'moved', unlocked = 0 where portal_id = ?").bind(p.portalId).run();
      return { ...(await advance("draining")), drainUntil: Date.now() + cacheTtlMs(env) + 1_000 };
    }
    case "draining":
      return advance("purging");
    case "purging": {
      if ((await deleteChunks(src, tables, p.portalId)) > 0) return p;
      await record("done", p.copied);
      return undefined;
    }
    default:
      return undefined;
  }
}

const companionMarker = (d1: D1Database, portalId: number, shard: string) =>
  d1
    .prepare("insert into account_companions (portal_id, shard, created_at) values (?, ?, ?) on conflict (portal_id) do update set shard = excluded.shard, unlocked = 0")
    .bind(portalId, shard, Date.now());

/**
 * The switch of a companion move: the target serves the companion tables, the directory names it, and
 * the source refuses the account's writes of them from now on. Placed from the home shard, the source keeps
 * the account's other tables: its fence is lifted and the companion marker
 * (migrations/0035_companions.sql) refuses only the companion tables' writes, in one batch. From an
 * earlier companion shard, that shard keeps nothing of the account: its fence becomes "moved", and the home
 * shard's marker names the new companion. A former home of the account taking the companion tables loses its
 * marker.
 */
async function switchCompanion(env: Env, p: Progress, src: D1Database, dst: D1Database) {
  // The target may be a former home of the account, whose marker would refuse the events it now holds.
  await dst.batch([dst.prepare("delete from account_fences where portal_id = ?").bind(p.portalId), dst.prepare("delete from account_companions where portal_id = ?").bind(p.portalId)]);
  await controlDb(env).update(accounts).set({ companion: p.target }).where(eq(accounts.portalId, p.portalId));
  if (p.source === p.home) {
    await src.batch([companionMarker(src, p.portalId, p.target), src.prepare("delete from account_fences where portal_id = ? and state = 'moving'").bind(p.portalId)]);
  } else {
    await src.prepare("update account_fences set state = 'moved', unlocked = 0 where portal_id = ?").bind(p.portalId).run();
    const home = shardBinding(env, p.home ?? "DB");
    await home.prepare("update account_companions set shard = ? where portal_id = ?").bind(p.target, p.portalId).run();
  }
}
