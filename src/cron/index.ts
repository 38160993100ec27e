/** @module Scheduled work: each job runs on every tick of the one cron trigger (wrangler.toml). */
import { publishScheduledPosts } from "./publish-scheduled-posts";
import { abandonCheckouts } from "./abandon-checkouts";

export type CronJob = (env: Env, now: number) => Promise<unknown>;

/** Jobs run independently: one failing job does not stop the others, and the failure is logged. */
export const cronJobs: Record<string, CronJob> = {
  "publish-scheduled-posts": publishScheduledPosts,
  abandonCheckouts,
};

export async function runCron(controller: ScheduledController, env: Env, _ctx: ExecutionContext): Promise<void> {
  const now = controller.scheduledTime;
  const results = await Promise.allSettled(Object.entries(cronJobs).map(async ([name, job]) => [name, await job(env, now)] as const));
  for (const r of results) if (r.status === "rejected") console.error(`cron job failed: ${String(r.reason)}`);
}
