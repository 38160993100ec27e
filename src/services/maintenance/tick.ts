/**
 * @module The cron tick: one maintenance message per database and job, sent to the maintenance queue in
 * sendBatch calls of up to 100 messages (docs/explanation/scaling.md, "Maintenance"). The list of databases
 * comes from the Worker's bindings (`SHARD_<n>` and `DB`), so the tick makes no D1 query at all, however
 * many shards the deployment declares; the jobs run in the queue's consumer, one job on one database per
 * message, each in an invocation with its own D1 limits.
 */
import { accountDatabases, FANOUT_CONCURRENCY, inPool } from "../../db/fanout";
import { chunks } from "../../db/d1-raw";
import { MAX_SEND_BATCH_MESSAGES } from "../../lib/queue-limits";
import { MAINTENANCE_JOB_NAMES, type MaintenanceJobName } from "./jobs";
import { MAINTENANCE_MESSAGE_VERSION, type MaintenanceMessage } from "./message";

export interface TickResult {
  /** Databases the jobs were enqueued for (every shard and `DB`). */
  databases: number;
  /** Messages sent (databases × jobs), and the sendBatch calls that sent them. */
  messages: number;
  sendBatches: number;
  /** sendBatch calls that failed (their messages are not sent; the next tick enqueues the same work). */
  failedBatches: number;
}

/** The messages of one tick, job by job, each over every database in order. */
export function tickMessages(env: Env, scheduledTime: number, jobs: readonly MaintenanceJobName[] = MAINTENANCE_JOB_NAMES): MaintenanceMessage[] {
  const databases = accountDatabases(env);
  return jobs.flatMap((job) => databases.map((shard) => ({ v: MAINTENANCE_MESSAGE_VERSION, job, shard, scheduledTime })));
}

/**
 * Enqueues every job on every database. The sendBatch calls run at most FANOUT_CONCURRENCY at a time (an
 * invocation has 6 simultaneous connections); one that fails does not stop the others, and the tick
 * throws after all were tried, naming how many failed, so the cron run is reported failed.
 */
export async function enqueueTick(env: Env, scheduledTime: number, jobs?: readonly MaintenanceJobName[]): Promise<TickResult> {
  const messages = tickMessages(env, scheduledTime, jobs);
  const batches = chunks(messages, MAX_SEND_BATCH_MESSAGES);
  const errors: unknown[] = [];
  await inPool(batches, FANOUT_CONCURRENCY, (batch) =>
    env.MAINTENANCE_QUEUE.sendBatch(batch.map((body) => ({ body, contentType: "json" as const }))).catch((err: unknown) => {
      errors.push(err);
    }),
  );
  const result = { databases: accountDatabases(env).length, messages: messages.length, sendBatches: batches.length, failedBatches: errors.length };
  if (errors.length) {
    const first = errors[0] instanceof Error ? errors[0].message : String(errors[0]);
    throw Object.assign(new Error(`${errors.length} of ${batches.length} maintenance sendBatch call(s) failed: ${first}`), { result });
  }
  return result;
}
