/**
 * Figure 6 — the bundle and start-up. Size: `Total Upload … / gzip …` printed by `wrangler deploy
 * --dry-run`, against the platform's compressed-size limits (3 MB free, 10 MB paid). Start-up: a fresh
 * Miniflare per run; time from `new Miniflare()` to the first response of GET /healthz, and the part after
 * `ready` (the first request). Baseline: a hello-world Worker with the same bindings (D1, queues, Durable
 * Objects), measured the same way; the difference is what this Worker's code costs to load and evaluate.
 * The platform limit on global-scope start-up is 1 s.
 */
import fs from "node:fs";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { productionOptions } from "../lib/cluster.mjs";
import { client } from "../lib/http.mjs";
import { median } from "../lib/stats.mjs";
import { step } from "../lib/progress.mjs";

/**
 * The script is handed over as one explicit ES module, so Miniflare does not parse it in Node to collect
 * imports (with `scriptPath` alone it runs a JavaScript parser over the 1.4 MB bundle, which is not the
 * Worker's start-up); what remains is workerd loading the config, compiling and evaluating the module.
 */
const asModule = (scriptPath) => ({ modules: [{ type: "ESModule", path: scriptPath, contents: fs.readFileSync(scriptPath, "utf8") }] });

async function startOnce(workerOptions) {
  const started = performance.now();
  const mf = new Miniflare(convertV4MiniflareOptions({ workers: [workerOptions], handleRuntimeStdio: () => {}, handleStructuredLogs: () => {} }));
  const url = await mf.ready;
  const readyAt = performance.now();
  const c = client(url.href);
  const res = await c.request("GET", "/healthz");
  const firstAt = performance.now();
  c.close();
  await mf.dispose();
  if (res.status !== 204) throw new Error(`start-up probe -> ${res.status}`);
  return { totalMs: firstAt - started, firstRequestMs: firstAt - readyAt };
}

export async function bundle(ctx, build) {
  const prod = productionOptions();
  const runs = { service: [], baseline: [] };
  for (let run = 1; run <= ctx.sizes.runs; run++) {
    step(`start-up run ${run}/${ctx.sizes.runs}: fresh Miniflare, production bundle and hello world`);
    runs.service.push(await startOnce({ ...prod, name: "crm-edge", ...asModule(build.scriptPath), bindings: { ...prod.bindings, ADMIN_TOKEN: "x" } }));
    runs.baseline.push(await startOnce({ ...prod, name: "crm-edge", ...asModule(ctx.helloScript), bindings: { ...prod.bindings, ADMIN_TOKEN: "x" } }));
  }
  const v = { totalMs: median(runs.service.map((r) => r.totalMs)), firstRequestMs: median(runs.service.map((r) => r.firstRequestMs)) };
  const b = { totalMs: median(runs.baseline.map((r) => r.totalMs)), firstRequestMs: median(runs.baseline.map((r) => r.firstRequestMs)) };
  return [
    {
      id: "bundle_size",
      figure: "Bundle size (wrangler deploy --dry-run)",
      value: { uploadKiB: build.uploadKiB, gzipKiB: build.gzipKiB },
      baseline: { name: "platform limit, compressed: 3 MB free / 10 MB paid", gzipKiB: 3 * 1024 },
      ratio: (3 * 1024) / build.gzipKiB,
    },
    {
      id: "startup",
      figure: "Start-up: new Miniflare → first response",
      value: { ...v, scriptCostMs: v.totalMs - b.totalMs },
      baseline: { name: "hello-world Worker with the same bindings", ...b },
      ratio: b.totalMs / v.totalMs,
      runs,
    },
  ];
}
