/**
 * One Miniflare instance (no wrangler dev proxy, which adds several times the overhead and much of the
 * variance to local measurements) running:
 *  - `crm-edge`: the production bundle, with the bindings wrangler.toml declares, read by wrangler itself
 *    (unstable_getMiniflareWorkerOptions), so the queue consumers get their max_batch_size,
 *    max_batch_timeout 2, max_retries 5 and the dead-letter queue exactly as deployed; ADMIN_TOKEN set;
 *    ALLOW_LOOPBACK_OUTBOUND "true" so card data fetches can reach the local integrator;
 *  - `bench`: the bench-only Worker on the same D1 database, queue and Durable Objects, reached with the
 *    Host header `bench.local`. Miniflare sends a routed request straight to its Worker, so requests to
 *    the bench Worker skip the static-assets front (asset lookup, then the Worker) that the production
 *    Worker, the fallback, sits behind; giving the bench Worker `assets` does not change that.
 * D1 is migrated by applying migrations/*.sql in order through the D1 binding.
 */
import { ID_RANGE, seedSql } from "../../scripts/id-seed.mjs";
import { workerdPids } from "./cpu.mjs";
import fs from "node:fs";
import path from "node:path";
import { convertV4MiniflareOptions, Log, LogLevel, Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions, unstable_splitSqlQuery } from "wrangler";
import { ROOT } from "./build.mjs";

export const BENCH_HOST = "bench.local";

/**
 * The production Worker's options from wrangler.toml, in one of the two configurations the bench compares
 * (docs/explanation/scaling.md, "Measured (bench)"):
 *  - `shards: 0`, the single-database configuration: the shard bindings are left out, so every account
 *    lives in `DB` (the placement policy's fallback when a deployment declares no shard); the main figures
 *    run here, and the bench Worker's direct reads of `DB` see the account data;
 *  - `shards: n`, the sharded configuration: `DB` is the control plane and SHARD_1..n are shards (those
 *    wrangler.toml declares, plus local ones up to n: the code finds shards by their binding names).
 */
export function productionOptions({ shards = 0 } = {}) {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(path.join(ROOT, "wrangler.toml"));
  const d1 = workerOptions.d1Databases ?? {};
  const keep = Object.entries(d1).filter(([binding]) => !binding.startsWith("SHARD_") || Number(binding.slice(6)) <= shards);
  for (let n = 1; n <= shards; n++) if (!keep.some(([b]) => b === `SHARD_${n}`)) keep.push([`SHARD_${n}`, `bench-shard-${n}`]);
  workerOptions.d1Databases = Object.fromEntries(keep);
  // The bench runs the built bundle as one module: wrangler's rules for finding modules do not apply (and
  // Miniflare 5 refuses to convert them).
  delete workerOptions.modulesRules;
  return workerOptions;
}

const d1Id = (v) => (typeof v === "string" ? v : v.id);

/** Worker output lines are kept (not printed over the progress line); the bench reports how many were warnings. */
export function makeStdio(logFile) {
  const out = fs.createWriteStream(logFile);
  const counts = { lines: 0, retries: 0, errors: 0 };
  const consume = (stream) => {
    let buf = "";
    stream.on("data", (chunk) => {
      out.write(chunk);
      buf += chunk.toString();
      const lines = buf.split("\n");
      buf = lines.pop() ?? "";
      for (const line of lines) {
        counts.lines++;
        if (/retried in/.test(line)) counts.retries++;
        if (/error/i.test(line)) counts.errors++;
      }
    });
  };
  // Miniflare 5 parses workerd's output into structured log records and hands them here.
  const structured = ({ message }) => {
    out.write(`${message}\n`);
    for (const line of String(message).split("\n")) {
      counts.lines++;
      if (/retried in/.test(line)) counts.retries++;
      if (/error/i.test(line)) counts.errors++;
    }
  };
  return { counts, out, handle: (stdout, stderr) => (consume(stdout), consume(stderr)), structured, close: () => out.end() };
}

/**
 * Miniflare's log at INFO carries one line per delivered queue batch ("QUEUE crm-edge-sync 100/100
 * (42ms)"): kept as data, so the bench can say where the sync time goes (batch count, size, consumer time).
 */
export class BatchLog extends Log {
  batches = [];
  constructor(out) {
    super(LogLevel.INFO);
    this.out = out;
  }
  log(message) {
    const plain = message.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), ""); // ANSI colours
    this.out?.write(`${plain}\n`);
    const m = /QUEUE (\S+) (\d+)\/(\d+)(?: \((\d+)ms\))?/.exec(plain);
    if (m) this.batches.push({ queue: m[1], acked: Number(m[2]), size: Number(m[3]), ms: Number(m[4] ?? 0), at: performance.now() });
  }
  /** When the batches since `since` had acked `total` messages (performance.now()), or null if they never did. */
  lastAckAt(queue, since, total) {
    let acked = 0;
    for (const b of this.batches) {
      if (b.queue !== queue || b.at < since) continue;
      acked += b.acked;
      if (acked >= total) return acked === total ? b.at : null;
    }
    return null;
  }
  /** Consumer batches of a queue delivered since `since` (performance.now()). */
  summary(queue, since = 0) {
    const b = this.batches.filter((x) => x.queue === queue && x.at >= since);
    const ms = b.reduce((s, x) => s + x.ms, 0);
    return { batches: b.length, messages: b.reduce((s, x) => s + x.size, 0), acked: b.reduce((s, x) => s + x.acked, 0), consumerMs: ms, meanBatchMs: b.length ? ms / b.length : 0, meanBatchSize: b.length ? b.reduce((s, x) => s + x.size, 0) / b.length : 0 };
  }
}

/**
 * `shards` picks the configuration (productionOptions); `scratch` adds a migrated database that only the
 * bench Worker binds (`BENCH_SCRATCH`), for probes that alter its schema. Returns the control plane's
 * binding as `db` and every database by binding name in `dbs`.
 */
export async function startCluster({ prodScript, benchScript, adminToken, stdio, shards = 0, scratch = false }) {
  const prod = productionOptions({ shards });
  const vars = { ADMIN_TOKEN: adminToken, ALLOW_LOOPBACK_OUTBOUND: "true" };
  const ids = Object.fromEntries(Object.entries(prod.d1Databases).map(([b, v]) => [b, d1Id(v)]));
  const log = new BatchLog(stdio?.out);
  // This cluster's workerd is the child that appears while it starts (clusters start one at a time).
  const before = new Set(workerdPids());
  // wrangler hands out worker options in Miniflare 4's shape; Miniflare 5 converts them.
  const mf = new Miniflare(convertV4MiniflareOptions({
    log,
    port: 0, // two clusters may run side by side
    // Miniflare otherwise posts a log line per request to Node from workerd: not part of the Worker.
    logRequests: false,
    handleRuntimeStdio: stdio?.handle,
    handleStructuredLogs: stdio?.structured ?? (() => {}),
    workers: [
      { ...prod, name: "crm-edge", modules: true, scriptPath: prodScript, bindings: { ...prod.bindings, ...vars } },
      {
        name: "bench",
        modules: true,
        scriptPath: benchScript,
        compatibilityDate: prod.compatibilityDate,
        compatibilityFlags: prod.compatibilityFlags,
        routes: [`${BENCH_HOST}/*`],
        bindings: { ...prod.bindings, ...vars },
        d1Databases: { ...ids, ...(scratch ? { BENCH_SCRATCH: "bench-scratch" } : {}) },
        queueProducers: { ...prod.queueProducers, BENCH_SINK: { queueName: "crm-edge-bench-sink" } },
        queueConsumers: { "crm-edge-bench-sink": { maxBatchSize: 100, maxBatchTimeout: 2 } },
        durableObjects: Object.fromEntries(Object.entries(prod.durableObjects).map(([k, v]) => [k, { ...v, scriptName: "crm-edge" }])),
      },
    ],
  }));
  // A cluster that fails to start is disposed here: a running workerd would keep the bench from exiting.
  try {
    const url = await mf.ready;
    const dbs = {};
    for (const binding of Object.keys(ids)) {
      dbs[binding] = await mf.getD1Database(binding, "crm-edge");
      await migrate(dbs[binding], binding);
    }
    if (scratch) await migrate(await mf.getD1Database("BENCH_SCRATCH", "bench"));
    const db = dbs.DB;
    await db.prepare("CREATE TABLE IF NOT EXISTS bench_baseline (external_id TEXT PRIMARY KEY, changed_at INTEGER NOT NULL, properties TEXT NOT NULL)").run();
    const workerd = workerdPids().filter((p) => !before.has(p));
    return { mf, url: url.href, db, dbs, log, queueConfig: prod.queueConsumers["crm-edge-sync"], workerd };
  } catch (err) {
    await mf.dispose().catch(() => undefined);
    throw err;
  }
}

/** As `npm run migrate` does: the migrations, then the database's id counters (`binding` names its range). */
export async function migrate(db, binding) {
  const dir = path.join(ROOT, "migrations");
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".sql")).sort()) {
    const statements = unstable_splitSqlQuery(fs.readFileSync(path.join(dir, file), "utf8"));
    await db.batch(statements.map((s) => db.prepare(s)));
  }
  if (!binding) return;
  const ordinal = binding.startsWith("SHARD_") ? Number(binding.slice("SHARD_".length)) : 0;
  await db.batch(unstable_splitSqlQuery(seedSql(ordinal * ID_RANGE)).map((s) => db.prepare(s)));
}
