/**
 * @module The maintenance queue's consumers (docs/explanation/scaling.md, "Maintenance"): one job on one
 * database per message, the messages of a batch side by side (at most FANOUT_CONCURRENCY at a time, an
 * invocation's simultaneous connections), each settled by itself: a job that throws retries its own
 * message only, and after the queue's retries the message goes to the dead-letter queue, whose consumer
 * logs the job and database it names. A failing database never holds up another's jobs.
 */
import type { StatementMeter } from "../../db/client";
import { FANOUT_CONCURRENCY, inPool } from "../../db/fanout";
import { CONTROL_SHARD, isShard, shardDb } from "../../db/shards";
import type { MaintenanceRun } from "../../lib/observability";
import { isMaintenanceJob, isTargetedJob, maintenanceJobs, targetedJobs } from "./jobs";
import { maintenanceMessage } from "./message";

const why = (err: unknown) => (err instanceof Error ? err.message : String(err));
const preview = (body: unknown) => JSON.stringify(body)?.slice(0, 300) ?? "";

export interface MaintenanceBatchResult {
  outcomes: Record<string, number>;
  runs: MaintenanceRun[];
}

/** One message: its job on its database, then ack; a throw retries it. Never throws itself. */
async function runOne(msg: Message<unknown>, env: Env, meter: StatementMeter): Promise<MaintenanceRun | null> {
  const parsed = maintenanceMessage.safeParse(msg.body);
  if (!parsed.success) {
    console.error(`maintenance message ${msg.id} is not a v1 maintenance message; dropped: ${preview(msg.body)}`);
    msg.ack();
    return null;
  }
  const { job, shard, scheduledTime, subject } = parsed.data;
  const known = isMaintenanceJob(job) || (isTargetedJob(job) && subject !== undefined);
  // A job or a shard removed from the deployment since the tick: retrying cannot help, so the message is dropped.
  if (!known || (shard !== CONTROL_SHARD && !isShard(env, shard))) {
    console.error(`maintenance job ${job} on ${shard}: ${known ? "no such database in this deployment" : "no such job"}; dropped`);
    msg.ack();
    return { job, shard, scheduledTime, outcome: "dropped", durationMs: 0, d1Statements: 0 };
  }
  const own: StatementMeter = { statements: 0 };
  const startedAt = Date.now();
  try {
    const db = shardDb(env, shard, own);
    const result = isMaintenanceJob(job) ? await maintenanceJobs[job](db, scheduledTime, env) : await targetedJobs[job]!(db, scheduledTime, env, shard, subject!);
    msg.ack();
    return { job, shard, scheduledTime, outcome: "ok", durationMs: Date.now() - startedAt, d1Statements: own.statements, result };
  } catch (err) {
    console.error(`maintenance job ${job} failed on ${shard} (attempt ${msg.attempts}; the queue retries it, then dead-letters it): ${why(err)}`);
    msg.retry();
    return { job, shard, scheduledTime, outcome: "retry", durationMs: Date.now() - startedAt, d1Statements: own.statements };
  } finally {
    meter.statements += own.statements;
  }
}

export async function consumeMaintenanceBatch(batch: MessageBatch<unknown>, env: Env, meter: StatementMeter): Promise<MaintenanceBatchResult> {
  const runs = (await inPool(batch.messages, FANOUT_CONCURRENCY, (msg) => runOne(msg, env, meter))).filter((r) => r !== null);
  const outcomes: Record<string, number> = {};
  for (const r of runs) outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
  const invalid = batch.messages.length - runs.length;
  if (invalid) outcomes.dropped = (outcomes.dropped ?? 0) + invalid;
  return { outcomes, runs };
}

/**
 * Dead letters: a job that failed on every delivery. Logged with its job and database and acked; the next
 * tick enqueues the same job on that database again (the jobs are sweeps: nothing waits in the letter).
 */
export function consumeMaintenanceDeadLetters(batch: MessageBatch<unknown>): Record<string, number> {
  for (const msg of batch.messages) {
    const parsed = maintenanceMessage.safeParse(msg.body);
    if (parsed.success) {
      const { job, shard, scheduledTime } = parsed.data;
      console.error(`dead letter: maintenance job ${job} on ${shard} (tick at ${scheduledTime} ms) failed on every attempt`);
    } else {
      console.error(`dead letter: maintenance message ${msg.id} is not a v1 maintenance message: ${preview(msg.body)}`);
    }
    msg.ack();
  }
  return { recorded: batch.messages.length };
}
