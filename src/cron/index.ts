/**
 * @module The cron trigger (wrangler.toml, every minute): the tick only enqueues, one maintenance message
 * per database (each shard and the control plane) and job; the maintenance queue's consumer runs them
 * (src/services/maintenance/, docs/explanation/scaling.md "Maintenance"). The tick needs no D1 query, so
 * its cost does not grow with the data, and one invocation's limits never cap the number of shards.
 */
import { enqueueTick, type TickResult } from "../services/maintenance/tick";
import { MAINTENANCE_JOB_NAMES } from "../services/maintenance/jobs";
import { logLine } from "../lib/observability";

/** Enqueues this tick's jobs; one `cron` log line says how many messages it sent (docs/reference/operations.md). */
export async function runCron(controller: ScheduledController, env: Env, _ctx: ExecutionContext): Promise<TickResult> {
  const scheduledTime = controller.scheduledTime;
  const startedAt = Date.now();
  let result: TickResult = { databases: 0, messages: 0, sendBatches: 0, failedBatches: 0 };
  let ok = false;
  try {
    result = await enqueueTick(env, scheduledTime);
    ok = true;
    return result;
  } catch (err) {
    result = (err as { result?: TickResult }).result ?? result;
    console.error(`cron tick failed to enqueue its maintenance jobs: ${err instanceof Error ? err.message : String(err)}`);
    throw err;
  } finally {
    logLine({ type: "cron", cron: controller.cron, scheduledTime, durationMs: Date.now() - startedAt, ok, jobs: MAINTENANCE_JOB_NAMES, ...result });
  }
}
