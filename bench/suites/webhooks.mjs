/**
 * Figure 8 — sync end to end with app webhooks: figure 2's service pass (suites/e2e.mjs) for an account
 * whose installed app has webhook settings and one active subscription (`product.creation`: every new
 * object of the pass emits an event, written in the sync's own D1 batch and drained to the webhook queue
 * after it), beside the same pass for an account without webhooks, in the same runs, alternating which goes
 * first. The figure is the ratio of the two throughputs; target ≥ 0.9. A third account without webhooks is
 * the A/A control (its ratio to the first is noise alone). Each pass with webhooks is followed by an
 * untimed wait until its events reached the receiver, so no pass runs beside another's deliveries: a pass
 * is charged with the deliveries that run during it, never with those of the pass before. The receiver is a local Node server in a
 * process of its own (lib/receiver.mjs) that answers 200 at once and counts the events; correctness: every object's creation event arrives.
 */
import { startReceiver } from "../lib/receiver.mjs";
import { aaBand, medianOf } from "../lib/stats.mjs";
import { makeMessages, oracle, requests, waitUntil } from "../lib/sync-data.mjs";
import { ecommSetup, provisionTenant } from "../lib/seed.mjs";
import { status, step } from "../lib/progress.mjs";
import { servicePass } from "./e2e.mjs";

async function ok(res, what) {
  if (res.status >= 300) throw new Error(`${what} -> ${res.status} ${res.text}`);
  return res.json;
}

/** Waits until the receiver has counted `n` events in all; a shortfall after two minutes fails the run. */
async function allArrived(ctx, receiver, n) {
  const arrived = await waitUntil(
    async () => {
      status(`webhook events received ${receiver.seen.events}/${n}`);
      return receiver.seen.events >= n;
    },
    { timeoutMs: 120_000, intervalMs: 20 },
  );
  if (arrived === null) ctx.fail(`webhooks: only ${receiver.seen.events} of ${n} creation events reached the receiver`);
}

/** `ctx.adminToken` provisions the two accounts. */
export async function webhooks(ctx) {
  const { sizes, http: c } = ctx;
  const { e2eMessages: count, e2eObjects: objects } = sizes;
  const receiver = await startReceiver();
  try {
    const stores = Array.from({ length: sizes.runs }, (_, i) => `wh-${i + 1}`);
    const plain = await provisionTenant(c, ctx.adminToken, `bench-nohooks${Date.now()}`);
    const control = await provisionTenant(c, ctx.adminToken, `bench-aa${Date.now()}`);
    const hooked = await provisionTenant(c, ctx.adminToken, `bench-hooks${Date.now()}`);
    for (const t of [plain, control, hooked]) await ecommSetup(c, t, stores);
    const dev = (method, path, body) => c.json(method, `/webhooks/v3/${hooked.appId}${path}`, { token: hooked.developerKey, body }).then((r) => ok(r, `${method} ${path}`));
    await dev("PUT", "/settings", { targetUrl: receiver.url, throttling: { maxConcurrentRequests: 10 } });
    await dev("POST", "/subscriptions", { eventType: "product.creation", active: true });

    // "control": a second account without webhooks, the A/A control of the ratio.
    const targets = [
      { id: "without", label: "", http: c, tenant: plain, accountDb: ctx.db, log: ctx.log },
      { id: "with", label: "with webhooks", http: c, tenant: hooked, accountDb: ctx.db, log: ctx.log },
      { id: "control", label: "A/A control, without webhooks", http: c, tenant: control, accountDb: ctx.db, log: ctx.log },
    ];
    const runs = { without: [], with: [], control: [] };
    let expected = 0;
    for (let run = 1; run <= sizes.runs; run++) {
      const storeId = stores[run - 1];
      // The order rotates run by run, so no pass always goes first.
      for (const target of [...targets.slice((run - 1) % 3), ...targets.slice(0, (run - 1) % 3)]) {
        // Each account gets its own messages (objects new to it), the same shape and size.
        const messages = makeMessages({ count, objects, prefix: `wh${run}${target.id}` });
        const pass = { run, storeId, reqs: requests(messages, storeId), expected: oracle(messages), count, objects };
        const result = await servicePass(ctx, target, pass);
        if (target.id === "with") {
          // The pass's events reach the receiver before the next pass starts, so no pass is measured while
          // another's deliveries run (untimed; the delay after the sync settled is reported with the run).
          const settledAt = performance.now();
          expected += objects;
          await allArrived(ctx, receiver, expected);
          result.deliveredAfterMs = performance.now() - settledAt;
          step(`  its ${objects} events arrived ${(result.deliveredAfterMs / 1000).toFixed(2)} s after the sync settled`);
        }
        runs[target.id].push(result);
      }
    }
    const without = medianOf(runs.without, ["ms", "messagesPerSecond"]);
    const withHooks = medianOf(runs.with, ["ms", "messagesPerSecond"]);
    const ratio = withHooks.messagesPerSecond / without.messagesPerSecond;
    return [
      {
        id: "sync_e2e_webhooks",
        figure: `Sync end to end with one active webhook subscription, ${count} msgs over ${objects} objects`,
        value: { ...withHooks, events: receiver.seen.events, posts: receiver.seen.posts, deliveredAfterMs: medianOf(runs.with, ["deliveredAfterMs"]).deliveredAfterMs },
        baseline: { name: "the same pass, account without webhooks", ...without },
        ratio,
        target: { ratio: 0.9 },
        met: ratio >= 0.9,
        aa: aaBand(runs.control.map((r, i) => r.messagesPerSecond / runs.without[i].messagesPerSecond)),
        runs,
      },
    ];
  } finally {
    await receiver.close();
  }
}
