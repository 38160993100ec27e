#!/usr/bin/env node
/**
 * `npm run bench` — the service measured against the platform's own primitives and limits, in one
 * Miniflare (bench/README.md explains every figure).
 *
 *   node bench/run.mjs            full run (about 15 minutes on 2 cores); writes bench/results.json and bench/ratios.svg
 *   node bench/run.mjs --quick    small sizes for CI (about 20 s): fails only on correctness (LWW oracle, 5xx), never
 *                                 on timings; its chart goes to bench/.build/ratios.svg, the committed one stays
 *   node bench/run.mjs --soak     the 60 s soak only; writes bench/results-soak.json
 *   --closed-readers               soak readers without the 100 ms pause (saturates workerd; see README)
 *   --shards-aa                    figure 7's A/A control: the second cluster is single-database too
 *   --only=ingest,e2e,webhooks,reads,activities,crm,cards,cron,testkit,growth,profile,bundle,shards,regression   a subset (debugging); `shards` runs
 *                                 figures 2–4 on the sharded cluster too (with e2e/reads/cards), then scale-out and
 *                                 the probes; `regression` the paired samples of suites/regression.mjs
 *
 * Exit code 1 when a correctness check fails: the final sync state differs from the last-write-wins
 * oracle, any 5xx answer, a card view without its five cards, a sweep that moved the wrong rows.
 * Missed timing targets are reported (table, results.json, chart) but do not fail the run.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildBenchWorker, buildProduction, BUILD_DIR, ROOT, writeHelloWorker } from "./lib/build.mjs";
import { BENCH_HOST, makeStdio, startCluster } from "./lib/cluster.mjs";
import { client } from "./lib/http.mjs";
import { done, status, step } from "./lib/progress.mjs";
import { markdownTable, printTable, ratiosSvg, writeJson } from "./lib/report.mjs";
import { ecommSetup, provisionTenant } from "./lib/seed.mjs";
import { waitUntil } from "./lib/sync-data.mjs";
import { bundle } from "./suites/bundle.mjs";
import { cards, startIntegrator, stopIntegrator } from "./suites/cards.mjs";
import { cron } from "./suites/cron.mjs";
import { e2e } from "./suites/e2e.mjs";
import { ingest } from "./suites/ingest.mjs";
import { printProfile, profile, rowsPerMessage } from "./suites/profile.mjs";
import { reads, seedReads } from "./suites/reads.mjs";
import { activities } from "./suites/activities.mjs";
import { wholeCrm } from "./suites/whole-crm.mjs";
import { soak } from "./suites/soak.mjs";
import { fineRegression } from "./suites/regression.mjs";
import { probes, regression, scaleOut, SHARDED_LABEL, SHARDS } from "./suites/shards.mjs";
import { webhooks } from "./suites/webhooks.mjs";
import { testkit } from "./suites/testkit.mjs";
import { growth } from "./suites/growth.mjs";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const soakMode = args.includes("--soak");
const closedReaders = args.includes("--closed-readers");
// A/A control for figure 7: the second cluster runs the single-database configuration too, so the
// "regression" rows measure what two Miniflare processes differ by with no code path between them.
const aaControl = args.includes("--shards-aa");
const only = args.find((a) => a.startsWith("--only="))?.slice(7).split(",");

const SIZES = {
  full: { runs: 5, ingestC1: 40, ingestC10: 40, e2eMessages: 5000, e2eObjects: 2000, e2eTimeoutMs: 120_000, contacts: 120, readsC1: 300, readsC10: 600, cardViews: 20, pendingDeals: 100_000, cronRuns: 5, soakSeconds: 60, soakObjects: 20_000, profileN: 200, profileBatches: 10, scaleContacts: 50, scaleMessages: 1000, scaleObjects: 400, scaleReads: 200, fenceRows: 2000, finePairs: 40, fineReadBlockC1: 60, fineReadBlockC10: 120, fineSyncPairs: 40, fineSyncMessages: 1000, fineSyncObjects: 400, fineCardViews: 5, shapeContacts: 10_000, restoreSamples: 40, kitPairs: 30, kitBlock: 20, growthSmall: 1_000, growthLarge: 100_000, growthPairs: 30, growthBlock: 20 },
  quick: { runs: 3, ingestC1: 5, ingestC10: 10, e2eMessages: 1000, e2eObjects: 400, e2eTimeoutMs: 60_000, contacts: 101, readsC1: 30, readsC10: 60, cardViews: 5, pendingDeals: 5000, cronRuns: 3, soakSeconds: 10, soakObjects: 2000, profileN: 20, profileBatches: 2, scaleContacts: 5, scaleMessages: 200, scaleObjects: 100, scaleReads: 20, fenceRows: 200, finePairs: 3, fineReadBlockC1: 10, fineReadBlockC10: 20, fineSyncPairs: 2, fineSyncMessages: 200, fineSyncObjects: 100, fineCardViews: 2, shapeContacts: 1000, restoreSamples: 5, kitPairs: 3, kitBlock: 6, growthSmall: 1_000, growthLarge: 10_000, growthPairs: 3, growthBlock: 6 },
};
const sizes = quick ? SIZES.quick : SIZES.full;
const want = (name) => (soakMode ? name === "soak" : name !== "soak" && (!only || only.includes(name)));

async function main() {
  fs.mkdirSync(BUILD_DIR, { recursive: true });
  const failures = [];
  let server5xx = 0;
  const results = [];
  let profiled;

  step("building: wrangler deploy --dry-run (production bundle) and the bench Worker (esbuild)");
  const build = buildProduction();
  const benchScript = await buildBenchWorker();
  const helloScript = writeHelloWorker();

  step("starting Miniflare (production bundle + bench Worker), migrating D1");
  const adminToken = crypto.randomBytes(24).toString("hex");
  const stdio = makeStdio(path.join(BUILD_DIR, "workerd.log"));
  const cluster = await startCluster({ prodScript: build.scriptPath, benchScript, adminToken, stdio });
  const http = client(cluster.url);
  const bench = client(cluster.url, { host: BENCH_HOST });
  // The sharded configuration runs beside the main (single-database) one, figure by figure, so the two
  // can be compared (docs/explanation/scaling.md, "Measured (bench)").
  let sharded;
  if (want("shards") || want("regression")) {
    step(`starting a second Miniflare: the sharded configuration (DB as control plane, ${SHARDS} shards)`);
    const c = await startCluster({ prodScript: build.scriptPath, benchScript, adminToken, stdio, shards: aaControl ? 0 : SHARDS, scratch: true }).catch(async (err) => {
      await cluster.mf.dispose();
      stdio.close();
      throw err;
    });
    sharded = { ...c, http: client(c.url), bench: client(c.url, { host: BENCH_HOST }), adminToken };
  }

  /** Waits until every message sent so far to `storeId` is applied (each message there is a new object). */
  const drainer = (accountDb, tenantOf) => {
    const drained = new Map();
    return async (storeId, added) => {
      const total = (drained.get(storeId) ?? 0) + added;
      drained.set(storeId, total);
      const at = await waitUntil(
        async () => {
          const { n } = await accountDb().prepare("select count(*) as n from ecomm_links where portal_id = ?1 and store_id = ?2 and processed_at is not null").bind(tenantOf().portalId, storeId).first();
          status(`consumer catching up: ${n}/${total}`);
          return n >= total;
        },
        { timeoutMs: 300_000, intervalMs: 100 },
      );
      if (at === null) ctx.fail(`the consumer did not apply all ${total} messages of store ${storeId}`);
    };
  };
  const ctx = {
    ...cluster,
    http,
    bench,
    sizes,
    helloScript,
    readerIntervalMs: closedReaders ? 0 : 100,
    fail: (msg) => {
      failures.push(msg);
      step(`FAILED: ${msg}`);
    },
    count5xx: (k) => (server5xx += k),
    drain: drainer(() => cluster.db, () => ctx.tenant),
  };

  try {
    step("seeding through the operator API: account, app, install, user; ecommerce settings and stores");
    const e2eStores = Array.from({ length: sizes.runs }, (_, i) => `e2e-${i + 1}`);
    ctx.tenant = await provisionTenant(http, adminToken, `bench${Date.now()}`);
    await ecommSetup(http, ctx.tenant, ["ingest", "reads", "sweep", "soak", ...e2eStores]);
    // The sharded configuration, measured in the same runs as figures 2–4 (bench/suites/shards.mjs).
    let also;
    if (sharded) {
      const tenant = await provisionTenant(sharded.http, adminToken, `bench-sharded${Date.now()}`, aaControl ? {} : { shard: "SHARD_1" });
      await ecommSetup(sharded.http, tenant, ["ingest", "reads", ...e2eStores]);
      const label = aaControl ? "A/A control (second single-database cluster)" : SHARDED_LABEL;
      also = { id: "sharded", label, http: sharded.http, tenant, accountDb: aaControl ? sharded.dbs.DB : sharded.dbs.SHARD_1, log: sharded.log, workerd: sharded.workerd };
    }
    const withAlso = { ...ctx, also: also ? [also] : [] };

    if (want("ingest")) {
      results.push(...(await ingest(ctx)));
      // The second cluster runs the ingest figure too, right after: it is figure 1 in that configuration,
      // and it warms that cluster's sync path (JIT, Durable Objects) as much as the main one's before the
      // paired figures (without it, the sharded e2e runs came out 9-11 % slower, 3 % in runs where
      // neither cluster had run ingest first).
      if (also) {
        const sctx = { ...ctx, ...sharded, tenant: also.tenant, drain: drainer(() => also.accountDb, () => also.tenant) };
        results.push(...(await ingest(sctx)).map((r) => ({ ...r, id: `sharded_${r.id}`, figure: `${also.label}: ${r.figure}` })));
      }
    }
    if (want("e2e")) results.push(...(await e2e(withAlso)));
    // Figure 8: the sync with one active app webhook subscription beside none (bench/suites/webhooks.mjs).
    if (want("webhooks")) results.push(...(await webhooks({ ...ctx, adminToken })));
    let seeded;
    const fine = Boolean(also) && want("regression");
    if (want("reads") || want("soak") || want("profile") || fine) seeded = await seedReads(ctx);
    if (also && (want("reads") || fine)) also.seeded = await seedReads({ ...ctx, http: also.http, tenant: also.tenant });
    if (want("reads")) {
      const r = await reads(withAlso, seeded);
      results.push(...r.throughput, ...r.d1);
    }
    // Figure 10: a contact page and a v4 associations page of a contact with 50 activities, each against its floor.
    if (want("activities")) results.push(...(await activities({ ...ctx, adminToken })));
    // Figures 11 and 12 (an account of their own): a DYNAMIC list's pages over 10,000 contacts and a v4 batch read of 100 records, each against its floor.
    if (want("crm")) results.push(...(await wholeCrm({ ...ctx, adminToken })));
    // One local integrator for the suites that view cards: their card definitions point at it.
    if (want("cards") || fine) ctx.integrator = withAlso.integrator = await startIntegrator();
    if (want("cards")) results.push(...(await cards(withAlso)));
    if (fine) results.push(...(await fineRegression(ctx, [{ label: "", http, tenant: ctx.tenant, accountDb: ctx.db, log: ctx.log, seeded }, also])));
    if (sharded && want("shards")) {
      results.push(...regression(results));
      const sctx = { ...ctx, ...sharded };
      if (!aaControl) results.push(...(await scaleOut(sctx)), ...(await probes(sctx)));
    }
    if (want("cron")) results.push(...(await cron(ctx)));
    // Figures 13–15: a 10,000-record fixture of the test kit against its 5 s target; a restore of a 1,000-record
    // snapshot against its floor; a STANDARD account's calls with and without the kit (extra clusters of their own).
    if (want("testkit")) results.push(...(await testkit({ ...ctx, adminToken, stdio, benchScript, prodScript: build.scriptPath })));
    // Figure 16: the reads of an account of 100,000 contacts against the same reads of one of 1,000.
    if (want("growth")) results.push(...(await growth({ ...ctx, adminToken })));
    if (want("soak")) results.push(...(await soak(ctx, seeded)));
    if (want("profile")) {
      profiled = await profile(ctx, seeded);
      results.push(rowsPerMessage(profiled));
    }
  } finally {
    if (ctx.integrator) await stopIntegrator(ctx.integrator);
    http.close();
    bench.close();
    await cluster.mf.dispose();
    if (sharded) {
      sharded.http.close();
      sharded.bench.close();
      await sharded.mf.dispose();
    }
    stdio.close();
  }
  // Start-up needs fresh Miniflare instances: measured after the main one is gone.
  if (want("bundle")) results.push(...(await bundle(ctx, build)));
  done();

  if (server5xx) failures.push(`${server5xx} responses were 5xx (or the connection failed)`);
  const meta = {
    mode: soakMode ? "soak" : quick ? "quick" : "full",
    date: new Date().toISOString(),
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    sizes,
    queue: cluster.queueConfig,
    workerLog: { lines: stdio.counts.lines, retryLines: stdio.counts.retries, errorLines: stdio.counts.errors, file: path.relative(ROOT, path.join(BUILD_DIR, "workerd.log")) },
    failures,
    server5xx,
  };
  console.log();
  printTable(results);
  console.log();
  if (profiled) {
    printProfile(profiled);
    console.log();
  }
  const out = path.join(ROOT, soakMode ? "bench/results-soak.json" : "bench/results.json");
  writeJson(out, { ...meta, results, profile: profiled });
  fs.writeFileSync(path.join(BUILD_DIR, soakMode ? "table-soak.md" : "table.md"), `${markdownTable(results)}\n`);
  // The committed chart is the full run's; quick and partial runs (CI) draw theirs under bench/.build.
  const chart = soakMode ? null : path.join(ROOT, quick || only ? "bench/.build/ratios.svg" : "bench/ratios.svg");
  if (chart) fs.writeFileSync(chart, ratiosSvg(results, `${meta.mode} run, ${meta.date.slice(0, 10)}, ${meta.machine}; medians of ${sizes.runs} runs`));
  console.log(`wrote ${path.relative(ROOT, out)}${chart ? ` and ${path.relative(ROOT, chart)}` : ""}; worker log: ${meta.workerLog.file} (${meta.workerLog.lines} lines, ${meta.workerLog.retryLines} retries)`);
  const missed = results.filter((r) => r.met === false).map((r) => r.figure);
  if (missed.length) console.log(`targets missed (reported, not failing): ${missed.join("; ")}`);
  if (failures.length) {
    console.log(`\nBENCH FAILED (correctness):\n - ${failures.join("\n - ")}`);
    process.exitCode = 1;
  } else console.log("correctness: final sync state equals the LWW oracle, no 5xx");
}

main().catch((err) => {
  done();
  console.error(err);
  process.exitCode = 1;
});
