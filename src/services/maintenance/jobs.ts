/**
 * @module The maintenance jobs: bounded sweeps that run on every database holding account data (each shard
 * and the control plane), once per cron tick and database (docs/explanation/scaling.md, "Maintenance").
 * The tick only enqueues `{job, shard}` messages (tick.ts); the maintenance queue's consumer runs one job
 * on one database per message (consumer.ts).
 *
 * Each job is bounded per run, and whatever is left waits for the next tick, as before the queue. A run
 * stays within a few D1 statements (MAX_JOB_STATEMENTS is the budget the tests hold each job to), so a
 * consumer batch of MAINTENANCE_BATCH_SIZE messages stays far below D1's 1,000 queries per invocation.
 */
import type { Db } from "../../db/client";
import { publishDuePosts } from "../blog/posts";
import { abandonCheckouts } from "../ecomm/abandon";
import { drainOutbox } from "../webhooks/drain";
import { PURGE_JOB, purgeTypeEvents } from "../timeline/types";
import { RELEASE_JOB, releaseHeldJob } from "../webhooks/hold";

/** One run of a job on one database, at `now` (the tick's scheduled time). */
export type MaintenanceJob = (db: Db, now: number, env: Env) => Promise<unknown>;

/** Scheduled blog posts published per run and database (oldest due first); the next tick takes the rest. */
export const PUBLISH_BATCH = 200;

/**
 * D1 statements one job may issue on one database in one run. The jobs make 1–2 (the publishing
 * UPDATE; the abandonment's batch of two; the outbox claim): a job that needs more must bound itself per
 * message and enqueue a follow-up for the rest.
 */
export const MAX_JOB_STATEMENTS = 50;

export const maintenanceJobs = {
  /** Blog posts whose publish_date has come: one UPDATE … RETURNING. */
  "publish-scheduled-posts": (db, now) => publishDuePosts(db, now, PUBLISH_BATCH),
  /** Deals 24 hours in checkout_pending become checkout_abandoned: one batch of two statements. */
  abandonCheckouts: (db, now) => abandonCheckouts(db, now),
  /** App webhooks: events a drain right after their write did not send (it crashed, or its isolate died). One claim statement, then sendBatch calls. */
  "webhook-outbox": (db, now, env) => drainOutbox(db, env.WEBHOOK_QUEUE, now),
} satisfies Record<string, MaintenanceJob>;

export type MaintenanceJobName = keyof typeof maintenanceJobs;

export const MAINTENANCE_JOB_NAMES = Object.keys(maintenanceJobs) as MaintenanceJobName[];

export function isMaintenanceJob(name: string): name is MaintenanceJobName {
  return Object.hasOwn(maintenanceJobs, name);
}

/** A job a request sends for one database and one subject (the message's `subject`); the tick never sends it. */
export type TargetedJob = (db: Db, now: number, env: Env, shard: string, subject: number) => Promise<unknown>;

/**
 * Work a request hands to the maintenance queue, one message per database, when doing it in place would
 * reach more databases than one invocation should (docs/explanation/scaling.md "App-level reads"): each
 * message stays within MAX_JOB_STATEMENTS and sends itself again while work is left.
 */
export const targetedJobs: Record<string, TargetedJob> = {
  /** A deleted timeline event type's events on one shard, PURGE_BATCH per message. */
  [PURGE_JOB]: (db, now, env, shard, subject) => purgeTypeEvents(db, env, shard, subject, now),
  /** A released app's held webhook deliveries on one database, RELEASE_BATCH per message. */
  [RELEASE_JOB]: (db, now, env, shard, subject) => releaseHeldJob(db, env, shard, subject, now),
};

export const isTargetedJob = (name: string) => Object.hasOwn(targetedJobs, name);
