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
import { ACCOUNT_CONTROL_TABLES } from "../../db/account-tables";

export type { MovePlan };

/** Wall time one alarm may spend before it hands over to the next (keeps each invocation short). */
const STEP_BUDGET_MS = 2_000;
/**
 * Move steps one alarm runs at most. D1 holds an invocation to 1,000 queries, counted as calls (a batch is
 * one); a move step makes at most 4: a copy step reads a batch of chunks, writes them in a batch and
 * records its progress; a verification step reads a page on each side (the first, a batch on each side);
 * fencing, switching and purging make one to four. So an alarm stays under about 50 calls whatever the
 * account's size.
 */
const MOVE_STEPS_PER_ALARM = 10;
/**
 * Deletion steps one alarm runs at most: an alarm is one invocation, which D1 holds to 1,000 queries. A step
 * makes at most 3 statements (one table chunk: a batch of three) plus the progress record, or fences
 * FENCES_PER_STEP databases, which ends the alarm; so an alarm stays under about 50 queries whatever the
 * number of shards.
 */
const DELETION_STEPS_PER_ALARM = 10;
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
    let steps = 0;
    while (this.progress && Date.now() - started < STEP_BUDGET_MS && steps++ < MOVE_STEPS_PER_ALARM) {
      const p = this.progress;
      if (p.undo !== undefined) {
        if (!(await this.undoStep(p))) return;
        continue;
      }
      if (p.phase === "draining" && Date.now() < p.drainUntil!) {
        await this.ctx.storage.setAlarm(p.drainUntil!);
        return;
      }
      try {
        this.progress = await moveStep(this.env, p, (phase, copied) => this.record(phase, copied));
      } catch (err) {
        if (!(await this.fail(p, err))) return;
      }
    }
    if (this.progress) await this.ctx.storage.setAlarm(Date.now());
  }

  /** Deletion steps for one alarm's budget; a failed step is retried with backoff, never given up. */
  private async runDeletion(): Promise<void> {
    const started = Date.now();
    let steps = 0;
    for (let p = this.deletion; p; p = this.deletion) {
      if (Date.now() - started >= STEP_BUDGET_MS || steps++ >= DELETION_STEPS_PER_ALARM) break;
      // A step that fences or unfences databases is an alarm of its own (up to FENCES_PER_STEP statements).
      const fencing = p.phase === "marking" || (p.phase === "control" && ACCOUNT_CONTROL_TABLES[p.table]?.name === "accounts");
      if (fencing && steps > 1) break;
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
        if (fencing) break;
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

  /**
   * Before the switch: undo (a chunk per step, from the next step on) and report. After it: the move stands;
   * the purge is retried later. True when the alarm may run on.
   */
  private async fail(p: Progress, err: unknown): Promise<boolean> {
    const why = err instanceof Error ? err.message : String(err);
    console.error(`move of account ${p.portalId} ${p.source} → ${p.target} failed in ${p.phase}: ${why}`);
    if (p.phase === "draining" || p.phase === "purging") {
      p.purgeFailures = (p.purgeFailures ?? 0) + 1;
      this.progress = p;
      await this.record(p.phase, p.copied, `purge of the source failed (will retry): ${why}`).catch(() => undefined);
      await this.ctx.storage.setAlarm(Date.now() + PURGE_RETRY_MS);
      return false;
    }
    this.progress = { ...p, undo: why };
    return true;
  }

  /**
   * One step of undoing a failed move: a chunk of the partial copy deleted from the target; once none is
   * left, both fences lifted and the failure recorded. The source stays fenced until then. False when the
   * undo itself failed: it is tried again shortly.
   */
  private async undoStep(p: Progress): Promise<boolean> {
    try {
      const src = shardBinding(this.env, p.source);
      const dst = shardBinding(this.env, p.target);
      if ((await deleteChunks(dst, moveTables(p), p.portalId)) > 0) return true;
      await dst.prepare("delete from account_fences where portal_id = ?").bind(p.portalId).run();
      await src.prepare("delete from account_fences where portal_id = ? and state = 'moving'").bind(p.portalId).run();
    } catch (undoErr) {
      await this.record(p.phase, p.copied, `failed: ${p.undo}; undo failed, retrying: ${undoErr instanceof Error ? undoErr.message : String(undoErr)}`).catch(() => undefined);
      await this.ctx.storage.setAlarm(Date.now() + PURGE_RETRY_MS);
      return false;
    }
    await this.record("failed", p.copied, `${p.phase}: ${p.undo}`);
    this.progress = undefined;
    return true;
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
