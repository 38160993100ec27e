/**
 * Figure 1 — sync ingest: PUT /extensions/ecomm/v2/sync/messages with 200 messages, at concurrency 1 and
 * 10. Baseline: the bench Worker parsing the same body and handing it to Queues with sendBatch (100 per
 * call), with no authentication, validation or store check — the raw platform primitive the route wraps.
 * Each run uses fresh object ids; after each run the bench waits until the consumer has applied every
 * message, so runs do not inherit a backlog. A run sends at most 8,000 messages: Miniflare's local queue
 * broker fails sends once 10,000 messages wait in it (https://github.com/cloudflare/workers-sdk/issues/15670;
 * see bench/README.md).
 */
import { load } from "../lib/http.mjs";
import { medianOf } from "../lib/stats.mjs";
import { makeMessages, OBJECT_TYPE } from "../lib/sync-data.mjs";
import { BRIDGE } from "../lib/seed.mjs";
import { status, step } from "../lib/progress.mjs";

export async function ingest(ctx) {
  const { http, bench, tenant, sizes } = ctx;
  const out = [];
  let seq = 0;
  for (const concurrency of [1, 10]) {
    const count = concurrency === 1 ? sizes.ingestC1 : sizes.ingestC10;
    const runs = { service: [], baseline: [] };
    for (let run = 1; run <= sizes.runs; run++) {
      const prefix = `ing${concurrency}r${run}`;
      const bodies = Array.from({ length: count }, (_, i) => ({
        storeId: "ingest",
        objectType: OBJECT_TYPE,
        messages: makeMessages({ count: 200, objects: 200, prefix: `${prefix}q${i}`, seqStart: (seq += 200) }),
      }));
      step(`sync ingest c=${concurrency} run ${run}/${sizes.runs}: ${count} × PUT of 200 messages, then the raw enqueue baseline`);
      const service = await load({
        http,
        concurrency,
        count,
        make: (i) => ["PUT", `${BRIDGE}/sync/messages`, { token: tenant.oauth, body: JSON.stringify(bodies[i]) }],
        onProgress: (d, n) => status(`service ${d}/${n}`),
      });
      const baseline = await load({
        http: bench,
        concurrency,
        count,
        make: (i) => ["PUT", "/__bench/baseline/enqueue", { body: JSON.stringify(bodies[i]) }],
        onProgress: (d, n) => status(`baseline ${d}/${n}`),
      });
      if (service.statuses[204] !== count) ctx.fail(`sync ingest c=${concurrency}: statuses ${JSON.stringify(service.statuses)}`);
      if (baseline.statuses[204] !== count) throw new Error(`raw enqueue baseline c=${concurrency}: statuses ${JSON.stringify(baseline.statuses)}`);
      ctx.count5xx(service.serverErrors);
      runs.service.push(service);
      runs.baseline.push(baseline);
      await ctx.drain("ingest", count * 200);
    }
    const s = medianOf(runs.service, ["rps", "p50", "p99"]);
    const b = medianOf(runs.baseline, ["rps", "p50", "p99"]);
    out.push({
      id: `ingest_c${concurrency}`,
      figure: `Sync ingest, 200 msgs/request, c=${concurrency}`,
      value: s,
      baseline: { name: "raw parse + Queue.sendBatch", ...b },
      ratio: s.rps / b.rps,
      messagesPerSecond: s.rps * 200,
      runs,
    });
  }
  return out;
}
