/**
 * @module Scheduled work: each job runs on every tick of the one cron trigger (wrangler.toml), on every
 * database that holds account data (each shard and the control plane), each bounded per run.
 */
import type { Db } from "../db/client";
import { shardDb } from "../db/shards";
import { accountDatabases } from "../db/fanout";
import { publishScheduledPosts } from "./publish-scheduled-posts";
import { abandonCheckouts } from "../services/ecomm/abandon";
import { drainOutbox } from "../services/webhooks/drain";
import { logLine, type CronLine } from "../lib/observability";

export type CronJob = (db: Db, now: number, env: Env) => Promise<unknown>;

export const cronJobs: Record<string, CronJob> = {
  "publish-scheduled-posts": publishScheduledPosts,
  abandonCheckouts: (db, now) => abandonCheckouts(db, now),
  // App webhooks: events a drain right after their write did not send (it crashed, or its isolate died).
  "webhook-outbox": (db, now, env) => drainOutbox(db, env.WEBHOOK_QUEUE, now),
};

/**
 * Every job on every shard, independently: one failing job, or one failing shard, does not stop the
 * others, and each failure is logged with its job and shard. Returns what each run returned or why it failed.
 */
export async function runJobs(env: Env, now: number, jobs: Record<string, CronJob> = cronJobs) {
  const runs = accountDatabases(env).flatMap((shard) => Object.entries(jobs).map(([name, job]) => ({ shard, name, job })));
  const results = await Promise.allSettled(
    runs.map(({ shard, job }) => {
      const startedAt = Date.now();
      return Promise.resolve()
        .then(() => job(shardDb(env, shard), now, env))
        .then((value) => ({ value, durationMs: Date.now() - startedAt }));
    }),
  );
  return runs.map(({ shard, name }, i) => {
    const r = results[i]!;
    if (r.status === "rejected") console.error(`cron job ${name} failed on ${shard}: ${String(r.reason)}`);
    return r.status === "fulfilled"
      ? { shard, name, ok: true, value: r.value.value as unknown, durationMs: r.value.durationMs }
      : { shard, name, ok: false, value: undefined, durationMs: null };
  });
}

/**
 * Runs every job on every shard; one log line per run names each job's outcome on each database (the
 * `cron` line of docs/reference/operations.md).
 */
export async function runCron(controller: ScheduledController, env: Env, _ctx: ExecutionContext): Promise<void> {
  const now = controller.scheduledTime;
  const startedAt = Date.now();
  const jobs: CronLine["jobs"] = {};
  for (const run of await runJobs(env, now)) {
    const job = (jobs[run.name] ??= { ok: true, shards: {} });
    job.ok &&= run.ok;
    job.shards[run.shard] = run.ok ? { ok: true, durationMs: run.durationMs ?? 0, result: run.value } : { ok: false, durationMs: 0 };
  }
  logLine({ type: "cron", cron: controller.cron, scheduledTime: now, durationMs: Date.now() - startedAt, jobs });
}
