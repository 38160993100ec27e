/**
 * @module Composition root: wires fetch, queue and scheduled handlers and re-exports the Durable Objects.
 */
import { runCron } from "./cron";
import { handleQueue } from "./queue/consumer";
import { pagesHostAnswer } from "./lib/public-pages";
import { withSecurityHeaders } from "./lib/security-headers";
import { buildRouter } from "./router";

export { SyncOrder } from "./durable-objects/sync-order";
export { RateLimiter } from "./durable-objects/rate-limiter";
export { AccountMover } from "./durable-objects/account-mover/index";

const router = buildRouter();

export default {
  // The files of public/ are Workers static assets (wrangler.toml [assets], headers from public/_headers):
  // they never reach this handler. The security headers of every other answer are set once, here
  // (src/lib/security-headers.ts); public blog pages move to their own host when PUBLIC_PAGES_ORIGIN is set.
  fetch: async (request, env, ctx) => withSecurityHeaders(request, pagesHostAnswer(request, env) ?? (await router.fetch(request, env, ctx))),
  queue: (batch, env, ctx) => handleQueue(batch, env, ctx),
  // The tick only enqueues the maintenance jobs; the queue handler above runs them (src/cron/index.ts).
  scheduled: async (controller, env, ctx) => {
    await runCron(controller, env, ctx);
  },
} satisfies ExportedHandler<Env>;
