/**
 * Figure 2 — sync end to end: N messages over M distinct objects, shuffled changedAt, sent as PUTs of 200
 * one after another; the clock runs from the first PUT until every object holds its last-write-wins winner.
 * The end is the moment the consumer batch that acknowledged the last of the messages was reported
 * (Miniflare logs each batch after its acks, and the consumer acks only after the commit), confirmed by
 * reading D1 through Miniflare's binding: every 50 ms until settled, then the oracle check. Timing the end
 * from the reads alone would add up to one read interval plus the read itself, and frequent reads
 * compete with the consumer for the same workerd thread. When messages were retried (acks never add up),
 * the end is the read that saw the state settled. Baseline: the same requests to the bench Worker,
 * which upserts the rows with raw `db.batch` (100 single-row LWW upserts per batch, the consumer's batch
 * size) into a plain table; its clock stops when the last request returns (the rows are then in D1). Each
 * run measures the baseline twice: the ratio of the two passes is the figure's A/A control (`aa`), the band
 * a ratio between two equal things spans on this machine in this run.
 * The final state must equal the oracle computed here from the messages sent; otherwise the bench fails.
 */
import { cpuNow, cpuSince } from "../lib/cpu.mjs";
import { aaBand, medianOf } from "../lib/stats.mjs";
import { settled, makeMessages, oracle, requests, verifyAgainstOracle, verifyBaseline, waitUntil } from "../lib/sync-data.mjs";
import { BRIDGE } from "../lib/seed.mjs";
import { status, step } from "../lib/progress.mjs";

/**
 * `ctx.also`: other configurations (the sharded one) measured in the same runs, each right after the main one,
 * against the same baseline: `{ id, label, http, tenant, accountDb, log }`.
 */
export async function e2e(ctx) {
  const { sizes } = ctx;
  const { e2eMessages: count, e2eObjects: objects } = sizes;
  const targets = [{ id: "", label: "", http: ctx.http, tenant: ctx.tenant, accountDb: ctx.db, log: ctx.log }, ...(ctx.also ?? [])];
  const runs = { baseline: [], aa: [], ...Object.fromEntries(targets.map((t) => [`service${t.id}`, []])) };
  for (let run = 1; run <= sizes.runs; run++) {
    const storeId = `e2e-${run}`;
    const messages = makeMessages({ count, objects, prefix: `e2e${run}` });
    const expected = oracle(messages);
    const reqs = requests(messages, storeId);

    // The baseline twice: the second pass is the A/A control, the noise of a ratio between equal things.
    const [first, second] = [await baselinePass(ctx, run, reqs, expected, count, "A"), await baselinePass(ctx, run, reqs, expected, count, "A/A")];
    runs.baseline.push(first);
    runs.aa.push(second.messagesPerSecond / first.messagesPerSecond);

    // With more than one configuration, the order alternates run by run, so neither always goes first.
    for (const target of run % 2 ? targets : [...targets].reverse()) runs[`service${target.id}`].push(await servicePass(ctx, target, { run, storeId, reqs, expected, count, objects }));
  }
  const b = medianOf(runs.baseline, ["ms", "messagesPerSecond"]);
  return targets.map((target) => {
    const s = medianOf(runs[`service${target.id}`], ["ms", "messagesPerSecond", "putMs"]);
    return {
      id: `${target.id ? `${target.id}_` : ""}sync_e2e`,
      figure: `${target.label ? `${target.label}: ` : ""}Sync end to end, ${count} msgs over ${objects} objects`,
      value: s,
      baseline: { name: "raw D1 db.batch upsert (100 rows/batch)", ...b },
      ratio: s.messagesPerSecond / b.messagesPerSecond,
      target: { ratio: E2E_TARGET },
      met: s.messagesPerSecond / b.messagesPerSecond >= E2E_TARGET,
      aa: aaBand(runs.aa),
      runs: { service: runs[`service${target.id}`], baseline: runs.baseline },
    };
  });
}

/** The figure's target: the service at ≥ 0.35 of raw db.batch upserts. */
export const E2E_TARGET = 0.35;

/** One baseline pass: the raw upserts of every request, from an empty table; checked against the oracle. */
async function baselinePass(ctx, run, reqs, expected, count, label) {
  const { bench, db, sizes } = ctx;
  step(`sync end to end run ${run}/${sizes.runs}: baseline ${label} (raw db.batch upserts of ${count} rows)`);
  await db.prepare("delete from bench_baseline").run();
  const started = performance.now();
  for (const [i, body] of reqs.entries()) {
    const res = await bench.request("POST", "/__bench/baseline/upsert", { body: JSON.stringify(body) });
    if (res.status !== 204) throw new Error(`baseline upsert -> ${res.status} ${res.text}`);
    status(`baseline request ${i + 1}/${reqs.length}`);
  }
  const ms = performance.now() - started;
  const problems = await verifyBaseline(db, expected);
  if (problems.length) ctx.fail(`baseline state differs from the oracle: ${problems.slice(0, 3).join("; ")}`);
  return { ms, messagesPerSecond: count / (ms / 1000) };
}

export async function servicePass(ctx, { label, http, tenant, accountDb, log }, { run, storeId, reqs, expected, count, objects }) {
  const { sizes } = ctx;
  const name = label ? `${label}: ` : "";
  step(`${name}sync end to end run ${run}/${sizes.runs}: service (${reqs.length} PUTs, ${count} messages over ${objects} objects)`);
  const cpu = cpuNow();
  const started = performance.now();
  for (const [i, body] of reqs.entries()) {
    const res = await http.request("PUT", `${BRIDGE}/sync/messages`, { token: tenant.oauth, body: JSON.stringify(body) });
    if (res.status !== 204) ctx.fail(`sync PUT -> ${res.status} ${res.text.slice(0, 200)}`);
    if (res.status >= 500) ctx.count5xx(1);
    status(`PUT ${i + 1}/${reqs.length}`);
  }
  const putsDoneAt = performance.now();
  const polls = [];
  const settledAt = await waitUntil(
    async () => {
      const t0 = performance.now();
      const { n, done } = await settled(accountDb, tenant.portalId, storeId, expected);
      polls.push(performance.now() - t0);
      status(`settled ${n}/${expected.size} objects`);
      return done;
    },
    { timeoutMs: sizes.e2eTimeoutMs, intervalMs: 50 },
  );
  const used = cpuSince(cpu);
  const problems = await verifyAgainstOracle(accountDb, tenant.portalId, storeId, expected);
  if (settledAt === null || problems.length) ctx.fail(`${name}sync end to end run ${run}: final state differs from the LWW oracle (${problems.length} objects): ${problems.slice(0, 5).join("; ")}`);
  const consumer = log.summary("crm-edge-sync", started);
  const lastAck = log.lastAckAt("crm-edge-sync", started, count);
  const endedAt = settledAt === null ? performance.now() : lastAck !== null && lastAck <= settledAt ? lastAck : settledAt;
  const ms = endedAt - started;
  if (process.env.BENCH_DEBUG) console.error(`polls: ${polls.length}, mean ${(polls.reduce((a, b) => a + b, 0) / polls.length).toFixed(1)} ms`);
  if (process.env.BENCH_DEBUG) console.error(log.batches.filter((b) => b.at >= started).map((b) => `${(b.at - started).toFixed(0)}:${b.queue.slice(-3)}:${b.acked}/${b.size}:${b.ms}`).join(" "));
  step(`  ${(ms / 1000).toFixed(2)} s: PUTs took ${((putsDoneAt - started) / 1000).toFixed(2)} s; consumer ${consumer.batches} batches (mean ${consumer.meanBatchSize.toFixed(0)} msgs, ${consumer.meanBatchMs.toFixed(0)} ms), busy ${(consumer.consumerMs / 1000).toFixed(2)} s; CPU workerd ${used.workerdMs ?? "?"} ms, bench ${used.nodeMs} ms`);
  return { ms, messagesPerSecond: count / (ms / 1000), putMs: putsDoneAt - started, endedBy: endedAt === lastAck ? "last ack" : "read", oracleMismatches: problems.length, consumer, cpu: used };
}
