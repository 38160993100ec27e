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
import { copyChunks, deleteChunks, digestAll } from "./copy";
import { ACCOUNT_TABLES } from "../../db/account-tables";

export interface MovePlan {
  portalId: number;
  source: string;
  target: string;
}

export interface Progress extends MovePlan {
  phase: MovePhase;
  table: number;
  after: number;
  copied: Record<string, number>;
  drainUntil?: number;
  purgeFailures?: number;
}

/** Records the move's phase for the operator (control plane account_moves). */
export type RecordMove = (phase: MovePhase, copied: Record<string, number>) => Promise<void>;

/** Runs one bounded step of `p`; returns the progress after it, undefined once the move is done. Throws on failure. */
export async function moveStep(env: Env, p: Progress, record: RecordMove): Promise<Progress | undefined> {
  const src = shardBinding(env, p.source);
  const dst = shardBinding(env, p.target);
  const advance = async (phase: MovePhase) => {
    const next = { ...p, phase, table: 0, after: 0 };
    await record(phase, next.copied);
    return next;
  };
  switch (p.phase) {
    case "fencing": {
      const now = Date.now();
      await dst.batch([
        dst.prepare("insert into account_fences (portal_id, state, created_at) values (?, 'incoming', ?) on conflict (portal_id) do update set state = 'incoming', unlocked = 0").bind(p.portalId, now),
      ]);
      while ((await deleteChunks(dst, ACCOUNT_TABLES, p.portalId)) > 0);
      await src.prepare("insert into account_fences (portal_id, state, created_at) values (?, 'moving', ?) on conflict (portal_id) do update set state = 'moving', unlocked = 0").bind(p.portalId, now).run();
      return advance("copying");
    }
    case "copying": {
      if (p.table >= ACCOUNT_TABLES.length) return advance("verifying");
      const r = await copyChunks(src, dst, ACCOUNT_TABLES, p.table, p.portalId, p.after);
      const copied = { ...p.copied };
      for (const [name, n] of Object.entries(r.copied)) copied[name] = (copied[name] ?? 0) + n;
      await record("copying", copied);
      return { ...p, copied, table: r.table, after: r.after };
    }
    case "verifying": {
      const [ours, theirs] = await Promise.all([digestAll(src, ACCOUNT_TABLES, p.portalId), digestAll(dst, ACCOUNT_TABLES, p.portalId)]);
      ACCOUNT_TABLES.forEach((t, i) => {
        const [a, b] = [ours[i]!, theirs[i]!];
        if (a.rows !== b.rows || a.sha256 !== b.sha256) throw new Error(`verification failed on ${t.name}: source ${a.rows} rows, target ${b.rows} rows, digests ${a.sha256 === b.sha256 ? "equal" : "differ"}`);
      });
      return advance("switching");
    }
    case "switching": {
      await dst.prepare("delete from account_fences where portal_id = ?").bind(p.portalId).run();
      await controlDb(env).update(accounts).set({ shard: p.target === "DB" ? null : p.target }).where(eq(accounts.portalId, p.portalId));
      await src.prepare("update account_fences set state = 'moved', unlocked = 0 where portal_id = ?").bind(p.portalId).run();
      return { ...(await advance("draining")), drainUntil: Date.now() + cacheTtlMs(env) + 1_000 };
    }
    case "draining":
      return advance("purging");
    case "purging": {
      if ((await deleteChunks(src, ACCOUNT_TABLES, p.portalId)) > 0) return p;
      await record("done", p.copied);
      return undefined;
    }
    default:
      return undefined;
  }
}
