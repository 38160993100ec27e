/**
 * Starts the real Worker for Node-side tests (npm clients, browser): wrangler's unstable_startWorker on
 * 127.0.0.1 with a fresh local state directory migrated by `npm run migrate -- --local` (the control plane
 * and every shard), the test operator token, and loopback outbound allowed (the local integrator lives on 127.0.0.1).
 * Wrangler logs at "warn" (or at WRANGLER_LOG when set): its banner, binding table, one line per request and
 * per queue batch, and the Worker's own console.log lines (the structured request log), stay out of the
 * test output; the Worker's warnings and errors, and wrangler's, still show.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { unstable_startWorker } from "wrangler";
import "./types";

export const NODE_ADMIN_TOKEN = "node-admin-token";

export default async function setup(project: TestProject) {
  // `npm run migrate -- --local` runs once, into a directory nothing starts a Worker on: each Worker of the
  // run (this one, and the `wrangler dev` ones of test/node/wrangler-dev.ts) starts on a copy of it, so every
  // Worker starts on freshly migrated databases without migrating again.
  const migrated = mkdtempSync(join(tmpdir(), "crm-edge-migrated-"));
  const migrate = spawnSync("node", ["scripts/migrate.mjs", "--local", "--persist-to", migrated], {
    env: { ...process.env, CI: "true" },
    encoding: "utf8",
  });
  if (migrate.status !== 0) throw new Error(`migrations failed: ${migrate.stderr}`);
  const persist = mkdtempSync(join(tmpdir(), "crm-edge-node-"));
  cpSync(migrated, persist, { recursive: true });
  // Wrangler's log level for the Worker below. `dev.logLevel` governs what wrangler logs while it runs; the
  // log wrangler hands to Miniflare (its queue deliveries, asset rules) takes its level from WRANGLER_LOG
  // when the Worker is created, so that is set for the start too. A WRANGLER_LOG of your own wins.
  const ownLevel = process.env.WRANGLER_LOG;
  const logLevel = (ownLevel ?? "warn") as "warn";
  process.env.WRANGLER_LOG = logLevel;
  const started = unstable_startWorker({
    config: "wrangler.toml",
    bindings: {
      ADMIN_TOKEN: { type: "secret_text", value: NODE_ADMIN_TOKEN },
      ALLOW_LOOPBACK_OUTBOUND: { type: "plain_text", value: "true" },
      // App webhooks: a failed delivery is retried at once, so an exhausted one takes seconds (contract test).
      WEBHOOK_RETRY_BASE_SECONDS: { type: "plain_text", value: "0" },
    },
    // testScheduled: GET /__scheduled runs the crons, as `npm run dev` allows (test/node/demo.test.ts).
    dev: { server: { hostname: "127.0.0.1", port: 0 }, inspector: false, persist, testScheduled: true, logLevel },
  });
  const worker = await started.finally(() => {
    if (ownLevel === undefined) delete process.env.WRANGLER_LOG;
  });
  await worker.ready;
  const url = (await worker.url).toString().replace(/\/$/, "");
  project.provide("workerUrl", url);
  project.provide("adminToken", NODE_ADMIN_TOKEN);
  project.provide("migratedState", migrated);
  return async () => {
    await worker.dispose();
    rmSync(persist, { recursive: true, force: true });
    rmSync(migrated, { recursive: true, force: true });
  };
}
