/**
 * Where the time goes (not a figure with a target; it explains the figures): measured inside workerd by
 * the bench Worker, so HTTP and the Node client are not part of it.
 *  - primitives: one D1 round trip, a RateLimiter call, a SyncOrder decision of 100 messages, a
 *    sendBatch of 100, each timed alone;
 *  - requests: each read route and a 200-message sync PUT as deployed, without the rate-limiter call,
 *    and without any I/O (D1 answers replayed, no queue): the last is the Worker's own CPU;
 *  - consumer: the sync consumer's steps on batches of 100 messages (new objects and updates), and its
 *    D1 statements and rows per batch next to the raw baseline's batch of 100 upserts.
 */
import { BRIDGE } from "../lib/seed.mjs";
import { median } from "../lib/stats.mjs";
import { step } from "../lib/progress.mjs";

const medians = (runs) => Object.fromEntries(Object.keys(runs[0]).map((k) => [k, median(runs.map((r) => r[k]))]));

async function ok(res, what) {
  if (res.status !== 200) throw new Error(`${what} -> ${res.status} ${res.text.slice(0, 300)}`);
  return res.json;
}

export async function profile(ctx, seeded) {
  const { bench, tenant, sizes } = ctx;
  step("profile: platform primitives, request breakdown and consumer steps, timed inside workerd");
  const runs = [];
  for (let i = 0; i < sizes.runs; i++) runs.push(await ok(await bench.json("GET", `/__bench/profile?n=${sizes.profileN}`), "profile"));
  const primitives = medians(runs);

  const messages = Array.from({ length: 200 }, (_, i) => ({ externalObjectId: `prof-put-${i}`, action: "UPSERT", changedAt: 1 + i, properties: { title: `t${i}`, price: String(i) } }));
  const targets = [
    { name: "GET /healthz", method: "GET", path: "/healthz" },
    { name: "v1 contact list, count=100", method: "GET", path: "/contacts/v1/lists/all/contacts/all?count=100" },
    { name: "sync status", method: "GET", path: `${BRIDGE}/sync/status/reads/PRODUCT/r-1` },
    { name: "blog post by id", method: "GET", path: `/content/api/v2/blog-posts/${seeded.postId}` },
    { name: "sync PUT, 200 messages", method: "PUT", path: `${BRIDGE}/sync/messages`, body: { storeId: "reads", objectType: "PRODUCT", messages }, n: Math.ceil(sizes.profileN / 10) },
  ];
  const requests = [];
  for (const t of targets) {
    const r = [];
    for (let i = 0; i < sizes.runs; i++) {
      r.push(await ok(await bench.json("POST", "/__bench/profile-request", { token: tenant.oauth, body: { method: t.method, path: t.path, body: t.body, n: t.n ?? sizes.profileN } }), `profile ${t.name}`));
    }
    requests.push({ name: t.name, ...medians(r) });
  }

  const c = [];
  for (let i = 0; i < sizes.runs; i++) c.push(await ok(await bench.json("GET", `/__bench/profile-consumer?portalId=${tenant.portalId}&storeId=reads&batches=${sizes.profileBatches}`), "profile consumer"));
  const consumer = { fresh: medians(c.map((x) => x.fresh)), update: medians(c.map((x) => x.update)) };

  // D1 work per 100 messages: the consumer (new objects, then updates) against the e2e baseline's batch.
  const counted = await ok(await bench.json("GET", `/__bench/profile-consumer?portalId=${tenant.portalId}&storeId=reads&batches=2&counting=1`), "profile consumer counts");
  const rows = Array.from({ length: 100 }, (_, i) => ({ externalObjectId: `prof-base-${i}`, changedAt: 1, properties: { title: `t${i}` } }));
  const base = await ok(await bench.json("POST", "/__bench/baseline/upsert?counted=1", { body: { messages: rows } }), "baseline counts");
  const d1PerBatch = { ...counted.d1PerBatch, baseline: { statements: base.statements, rowsRead: base.rowsRead, rowsWritten: base.rowsWritten } };
  return { primitives, requests, consumer, d1PerBatch };
}

export function printProfile(p) {
  const f = (v) => `${v.toFixed(2)} ms`;
  console.log("Where the time goes (inside workerd, mean per call, median of runs):");
  console.log(`  primitives: ${Object.entries(p.primitives).map(([k, v]) => `${k} ${f(v)}`).join(", ")}`);
  for (const r of p.requests) console.log(`  ${r.name.padEnd(28)} deployed ${f(r.deployed)} | without the rate-limiter call ${f(r.noRateLimiterCall)} | without any I/O ${f(r.noIo)}`);
  for (const [mode, s] of Object.entries(p.consumer))
    console.log(`  consumer batch of 100 (${mode}): ${Object.entries(s).map(([k, v]) => `${k} ${f(v)}`).join(", ")}`);
  for (const [mode, c] of Object.entries(p.d1PerBatch))
    console.log(`  D1 per 100 messages (${mode === "baseline" ? "raw baseline" : `consumer, ${mode}`}): ${c.statements} statements, ${c.rowsRead} rows read, ${c.rowsWritten} rows written`);
}

/** The target of D1 rows read per synced message, for new objects and for updates alike. */
export const ROWS_PER_MESSAGE_TARGET = 10;

/** D1 rows read per synced message (the consumer's counted batches of 100) as a figure with its target. */
export function rowsPerMessage(p) {
  const fresh = p.d1PerBatch.fresh.rowsRead / 100;
  const update = p.d1PerBatch.update.rowsRead / 100;
  return {
    id: "sync_rows_read",
    figure: "D1 rows read per synced message (consumer batches of 100 products)",
    value: { fresh, update, statementsFresh: p.d1PerBatch.fresh.statements, statementsUpdate: p.d1PerBatch.update.statements },
    baseline: { name: "raw upsert of the baseline table", rowsRead: p.d1PerBatch.baseline.rowsRead / 100 },
    target: { rowsRead: ROWS_PER_MESSAGE_TARGET },
    met: Math.max(fresh, update) <= ROWS_PER_MESSAGE_TARGET,
  };
}
