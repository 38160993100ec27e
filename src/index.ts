/**
 * @module Composition root: wires fetch, queue and scheduled handlers and re-exports the Durable Objects.
 */
import { runCron } from "./cron";
import { handleQueue } from "./queue/consumer";
import { buildRouter } from "./router";

export { SyncOrder } from "./durable-objects/sync-order";
export { RateLimiter } from "./durable-objects/rate-limiter";
export { AccountMover } from "./durable-objects/account-mover";

const router = buildRouter();

export default {
  // The files of public/ are Workers static assets (wrangler.toml [assets]): they never reach this handler.
  fetch: (request, env, ctx) => router.fetch(request, env, ctx),
  queue: (batch, env, ctx) => handleQueue(batch, env, ctx),
  scheduled: (controller, env, ctx) => runCron(controller, env, ctx),
} satisfies ExportedHandler<Env>;
