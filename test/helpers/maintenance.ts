/**
 * @module Cron ticks in tests: the tick only enqueues maintenance messages (src/cron/index.ts); the real
 * maintenance queue delivers them to the Worker's queue handler, which runs in this isolate. `tick` fires
 * the scheduled handler and waits until the consumer has reported a run of every message of that tick
 * (its `queue_batch` log lines carry each run with the tick's scheduledTime), so a test can check the
 * jobs' effects, or their absence, right after it.
 */
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../src/index";
import { accountDatabases } from "../../src/db/fanout";
import { MAINTENANCE_JOB_NAMES } from "../../src/services/maintenance/jobs";
import type { MaintenanceRun } from "../../src/lib/observability";
import { sleep } from "./shards";

export const MAINTENANCE_QUEUE = "crm-edge-maintenance";

export interface ConsoleWatch {
  /** Every maintenance run reported since the watch began. */
  runs: MaintenanceRun[];
  /** Every console.error line since the watch began. */
  errors: string[];
  stop(): void;
}

/**
 * Sees console.log and console.error lines as they are written, then hands each to what was there before
 * (a test's own spy, or the console), so it can be used while a test spies on the console itself.
 */
export function watchConsole(): ConsoleWatch {
  const { log, error } = console;
  const watch: ConsoleWatch = {
    runs: [],
    errors: [],
    stop: () => {
      console.log = log;
      console.error = error;
    },
  };
  console.log = (...args: unknown[]) => {
    const text = args.map(String).join(" ");
    if (text.startsWith('{"type":"queue_batch"')) {
      const line = JSON.parse(text) as { queue: string; runs?: MaintenanceRun[] };
      if (line.queue === MAINTENANCE_QUEUE && line.runs) watch.runs.push(...line.runs);
    }
    log.apply(console, args);
  };
  console.error = (...args: unknown[]) => {
    watch.errors.push(args.map(String).join(" "));
    error.apply(console, args);
  };
  return watch;
}

/** Polls until `done` holds (every 50 ms), or throws with `what` after `timeoutMs`. */
export async function until(done: () => boolean, what: () => string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await sleep(50);
  }
}

/** The runs of the tick at `scheduledTime` that settled their message (acked or dropped; not a retry). */
export const settledRuns = (runs: MaintenanceRun[], scheduledTime: number) => runs.filter((r) => r.scheduledTime === scheduledTime && r.outcome !== "retry");

/**
 * One cron tick at `scheduledTime` through the Worker's scheduled handler, then the maintenance queue's
 * work of that tick: resolves once every job has run on every database. Use a scheduledTime no other
 * tick of the run uses (the runs are told apart by it).
 */
export async function tick(scheduledTime: number, timeoutMs = 20_000): Promise<MaintenanceRun[]> {
  const expected = accountDatabases(env).length * MAINTENANCE_JOB_NAMES.length;
  const watch = watchConsole();
  try {
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime, cron: "* * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    await until(
      () => settledRuns(watch.runs, scheduledTime).length >= expected,
      () => `${expected} maintenance runs of the tick at ${scheduledTime}; saw ${JSON.stringify(settledRuns(watch.runs, scheduledTime))}`,
      timeoutMs,
    );
    return settledRuns(watch.runs, scheduledTime);
  } finally {
    watch.stop();
  }
}
