/**
 * @module AccountMover: moves one account from its shard to another (docs/explanation/scaling.md "Moves").
 * One object per account (named by portalId). It runs by itself on alarms, a bounded step per alarm,
 * keeping its progress in its own storage, so a crash or redeploy resumes where it stopped:
 *
 *   fencing   → the source refuses the account's writes ("moving": 503 + Retry-After), the target
 *               is marked "incoming" (hidden from fan-out reads) and cleared of any leftover rows;
 *   copying   → every account table, in chunks within D1's limits (100 bound values per statement);
 *   verifying → per table, row count and a digest of every row, source against target;
 *   switching → the target's fence lifted, the directory (control plane) names the target, the source
 *               fence becomes "moved": from here no write can land on the source, whatever an isolate
 *               has cached;
 *   draining  → waits out the credential-cache TTL, after which no isolate reads the source either;
 *   purging   → the source's rows deleted in chunks; then done.
 *
 * A failure before the switch removes the partial copy, lifts both fences and records why (phase
 * "failed"): the account stays whole on its source. After the switch a failing purge is retried later.
 *
 * The same object runs the account's deletion (src/durable-objects/account-mover/delete.ts), with the same alarms and
 * chunked deletes; a move and a deletion of one account never run together.
 */
import { DurableObject } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { controlDb, shardBinding } from "../../db/shards";
import { accountMoves, type MovePhase } from "../../db/tables/shards";
import { deleteChunks } from "./copy";
import { moveStep, moveTables, type MovePlan, type Progress } from "./run";
import { deletionStep, recordDeletion, retryDelayMs, type DeletionProgress } from "./delete";

export type { MovePlan };

/** Wall time one alarm may spend before it hands over to the next (keeps each invocation short). */
const STEP_BUDGET_MS = 2_000;
const PURGE_RETRY_MS = 30_000;

export class AccountMover extends DurableObject<Env> {
  private get progress(): Progress | undefined {
    return this.ctx.storage.kv.get<Progress>("move");
  }

  private set progress(p: Progress | undefined) {
    if (p) this.ctx.storage.kv.put("move", p);
    else this.ctx.storage.kv.delete("move");
  }

  private get deletion(): DeletionProgress | undefined {
    return this.ctx.storage.kv.get<DeletionProgress>("deletion");
  }

  private set deletion(p: DeletionProgress | undefined) {
    if (p) this.ctx.storage.kv.put("deletion", p);
    else this.ctx.storage.kv.delete("deletion");
  }

  /** Starts a move; refuses (false) while another move or a deletion of the account runs. */
  async start(plan: MovePlan): Promise<boolean> {
    if (this.progress || this.deletion) return false;
    this.progress = { ...plan, phase: "fencing", table: 0, after: 0, copied: {} };
    await this.record("fencing", {});
    await this.ctx.storage.setAlarm(Date.now());
    return true;
  }

  /**
   * Starts the account's deletion, or makes sure the one already started runs (true); refuses (false)
   * while a move of the account runs.
   */
  async startDeletion(portalId: number, startedAt: number): Promise<boolean> {
    if (this.progress) return false;
    if (!this.deletion) this.deletion = { portalId, phase: "marking", db: 0, table: 0, deleted: {}, startedAt };
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now());
    return true;
  }

  override async alarm(): Promise<void> {
    if (this.deletion) return this.runDeletion();
    const started = Date.now();
    while (this.progress && Date.now() - started < STEP_BUDGET_MS) {
      const p = this.progress;
      if (p.phase === "draining" && Date.now() < p.drainUntil!) {
        await this.ctx.storage.setAlarm(p.drainUntil!);
        return;
      }
      try {
        this.progress = await moveStep(this.env, p, (phase, copied) => this.record(phase, copied));
      } catch (err) {
        await this.fail(p, err);
        return;
      }
    }
    if (this.progress) await this.ctx.storage.setAlarm(Date.now());
  }

  /** Deletion steps for one alarm's budget; a failed step is retried with backoff, never given up. */
  private async runDeletion(): Promise<void> {
    const started = Date.now();
    for (let p = this.deletion; p; p = this.deletion) {
      if (Date.now() - started >= STEP_BUDGET_MS) break;
      if (p.phase === "draining" && Date.now() < p.drainUntil!) {
        await this.ctx.storage.setAlarm(p.drainUntil!);
        return;
      }
      try {
        const next = await deletionStep(this.env, p);
        if (!next) {
          this.deletion = undefined;
          console.log(`account ${p.portalId} deleted: ${JSON.stringify(p.deleted)}`);
          return;
        }
        this.deletion = { ...next, failures: 0 };
        // Written when there is news: a new phase, more rows gone, or a past error to clear.
        if (next.phase !== p.phase || next.deleted !== p.deleted || p.failures) await recordDeletion(this.env, next);
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        const failures = (p.failures ?? 0) + 1;
        console.error(`deletion of account ${p.portalId} failed in ${p.phase} (attempt ${failures}, will retry): ${why}`);
        this.deletion = { ...p, failures };
        await recordDeletion(this.env, p, `${p.phase}: ${why}; retrying`).catch(() => undefined);
        await this.ctx.storage.setAlarm(Date.now() + retryDelayMs(failures));
        return;
      }
    }
    if (this.deletion) await this.ctx.storage.setAlarm(Date.now());
  }

  /** Before the switch: undo and report. After it: the move stands; the purge is retried later. */
  private async fail(p: Progress, err: unknown): Promise<void> {
    const why = err instanceof Error ? err.message : String(err);
    console.error(`move of account ${p.portalId} ${p.source} → ${p.target} failed in ${p.phase}: ${why}`);
    if (p.phase === "draining" || p.phase === "purging") {
      p.purgeFailures = (p.purgeFailures ?? 0) + 1;
      this.progress = p;
      await this.record(p.phase, p.copied, `purge of the source failed (will retry): ${why}`).catch(() => undefined);
      await this.ctx.storage.setAlarm(Date.now() + PURGE_RETRY_MS);
      return;
    }
    try {
      const src = shardBinding(this.env, p.source);
      const dst = shardBinding(this.env, p.target);
      while ((await deleteChunks(dst, moveTables(p), p.portalId)) > 0);
      await dst.prepare("delete from account_fences where portal_id = ?").bind(p.portalId).run();
      await src.prepare("delete from account_fences where portal_id = ? and state = 'moving'").bind(p.portalId).run();
    } catch (undoErr) {
      // The undo itself failed: keep the state and try again shortly; the source is still fenced.
      await this.record(p.phase, p.copied, `failed: ${why}; undo failed, retrying: ${undoErr instanceof Error ? undoErr.message : String(undoErr)}`).catch(() => undefined);
      await this.ctx.storage.setAlarm(Date.now() + PURGE_RETRY_MS);
      return;
    }
    await this.record("failed", p.copied, `${p.phase}: ${why}`);
    this.progress = undefined;
  }

  /** The operator's view of the move (control plane, account_moves), written at every step. */
  private async record(phase: MovePhase, copied: Record<string, number>, error?: string): Promise<void> {
    const p = this.progress;
    if (!p) return;
    await controlDb(this.env)
      .update(accountMoves)
      .set({ phase, copied, error: error ?? null, updatedAt: Date.now() })
      .where(eq(accountMoves.portalId, p.portalId));
  }
}
