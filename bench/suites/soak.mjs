/**
 * Soak (`npm run bench -- --soak`): for 60 s, a PUT of 200 sync messages every 100 ms (10
 * requests/s, open loop: a slow answer does not delay the next send) over a pool of objects with
 * distinct changedAt, while 10 readers loop over the contact list, a sync status and a blog post, each
 * starting a read every 100 ms (100 reads/s in all; `--closed-readers` drops the pause, see README).
 * Checked: zero 5xx (writers and readers), zero lost messages (every object ends in the last-write-wins
 * state of the messages the service accepted with 204), and the queue drained within 2 × max_batch_timeout
 * after the last PUT was answered. A writer re-sends a 429/503 after Retry-After, as clients should.
 */
import { percentile } from "../lib/stats.mjs";
import { countReached, makeMessages, oracle, verifyAgainstOracle, waitUntil, OBJECT_TYPE } from "../lib/sync-data.mjs";
import { BRIDGE } from "../lib/seed.mjs";
import { status, step } from "../lib/progress.mjs";

export async function soak(ctx, seeded) {
  const { http, db, tenant, sizes, queueConfig } = ctx;
  const storeId = "soak";
  const seconds = sizes.soakSeconds;
  const rate = 10;
  const total = seconds * rate;
  /** Winners among accepted messages; every message of a refused request by `${id}@${changedAt}`. */
  const expected = new Map();
  const refused = new Map();
  let refusedPuts = 0;
  const writes = { latencies: [], statuses: {}, failures: 0, errors: [] };
  const reads = { latencies: [], statuses: {}, failures: 0, errors: [] };
  const readPaths = [`/contacts/v1/lists/all/contacts/all?count=100`, `${BRIDGE}/sync/status/reads/PRODUCT/r-1`, `/content/api/v2/blog-posts/${seeded.postId}`];
  const tally = (into, res) => {
    into.latencies.push(res.ms);
    into.statuses[res.status] = (into.statuses[res.status] ?? 0) + 1;
  };

  step(`soak: ${seconds} s of ${rate} PUT/s × 200 messages over ${sizes.soakObjects} objects, with 10 concurrent readers (${ctx.readerIntervalMs ? `one read each per ${ctx.readerIntervalMs} ms` : "closed loop"})`);
  let stop = false;
  const readers = Array.from({ length: 10 }, async (_, r) => {
    for (let i = r; !stop; i++) {
      const startedAt = performance.now();
      try {
        tally(reads, await http.request("GET", readPaths[i % readPaths.length], { token: tenant.oauth }));
      } catch (err) {
        reads.failures++;
        reads.errors.push(String(err?.code ?? err));
      }
      const pause = ctx.readerIntervalMs - (performance.now() - startedAt);
      if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
    }
  });
  /**
   * A writer behaves like a HubSpot client: a 429 or 503 is sent again after its Retry-After (at most 5
   * tries). Every refusal still counts as a 5xx/429 in the report; retrying makes "lost" mean what it
   * should: a message the service accepted (204) that never reached its object.
   */
  let retried = 0;
  async function sendWithRetries(messages) {
    const body = JSON.stringify({ storeId, objectType: OBJECT_TYPE, messages });
    for (let attempt = 1; ; attempt++) {
      let res;
      try {
        res = await http.request("PUT", `${BRIDGE}/sync/messages`, { token: tenant.oauth, body });
      } catch (err) {
        writes.failures++;
        writes.errors.push(String(err?.code ?? err));
        return;
      }
      tally(writes, res);
      if ((res.status !== 503 && res.status !== 429) || attempt === 5) {
        if (res.status === 204) oracle(messages, expected);
        else {
          refusedPuts++;
          for (const m of messages) refused.set(`${m.externalObjectId}@${m.changedAt}`, m);
        }
        return;
      }
      retried++;
      await new Promise((resolve) => setTimeout(resolve, Number(res.headers["retry-after"] ?? 1) * 1000));
    }
  }
  const started = performance.now();
  const inflight = new Set();
  for (let i = 0; i < total; i++) {
    const due = started + i * (1000 / rate);
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    // Objects are drawn at random from the pool: the oracle alone says which message wins.
    const messages = makeMessages({ count: 200, objects: sizes.soakObjects, prefix: "soak", seqStart: i * 200, base: 1_800_000_000_000, everyObject: false });
    const p = sendWithRetries(messages).finally(() => inflight.delete(p));
    inflight.add(p);
    status(`sent ${i + 1}/${total} PUTs, ${inflight.size} in flight, ${reads.latencies.length} reads`);
  }
  await Promise.all(inflight);
  const loadStoppedAt = performance.now();
  stop = true;
  await Promise.all(readers);
  const sendSeconds = (loadStoppedAt - started) / 1000;

  step(`soak: load stopped after ${sendSeconds.toFixed(1)} s; waiting for the queue to drain (${expected.size} objects)`);
  const drainLimitMs = 2 * queueConfig.maxBatchTimeout * 1000;
  const settledAt = await waitUntil(
    async () => {
      const n = await countReached(db, tenant.portalId, storeId, expected);
      status(`settled ${n}/${expected.size} objects, ${((performance.now() - loadStoppedAt) / 1000).toFixed(1)} s after the load`);
      return n === expected.size;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  const drainMs = settledAt === null ? null : settledAt - loadStoppedAt;
  const problems = await verifyAgainstOracle(db, tenant.portalId, storeId, expected, { refused });
  const count5xx = (t) => Object.entries(t.statuses).filter(([s]) => Number(s) >= 500).reduce((n, [, v]) => n + v, 0) + t.failures;
  const writes5xx = count5xx(writes);
  const reads5xx = count5xx(reads);
  ctx.count5xx(writes5xx + reads5xx);
  if (problems.length) ctx.fail(`soak: ${problems.length} objects differ from the LWW oracle: ${problems.slice(0, 5).join("; ")}`);
  if (refusedPuts) ctx.fail(`soak: ${refusedPuts} PUTs were still refused after 5 tries (their messages are not counted as lost)`);
  if (writes.failures) ctx.fail(`soak: ${writes.failures} PUTs failed to connect: ${writes.errors.slice(0, 3).join(", ")}`);
  return [
    {
      id: "soak",
      figure: `Soak: ${seconds} s, ${rate} PUT/s × 200 msgs, 10 readers${ctx.readerIntervalMs ? "" : " (closed loop)"}`,
      value: {
        readerIntervalMs: ctx.readerIntervalMs,
        putsSent: total,
        putsRetried: retried,
        putsRefused: refusedPuts,
        messagesSent: total * 200,
        objects: expected.size,
        putRps: total / sendSeconds,
        putP50: percentile(writes.latencies, 50),
        putP99: percentile(writes.latencies, 99),
        readRps: reads.latencies.length / sendSeconds,
        readP50: percentile(reads.latencies, 50),
        readP99: percentile(reads.latencies, 99),
        writes5xx,
        reads5xx,
        lostOrWrongObjects: problems.length,
        drainMs,
      },
      baseline: { name: "drain limit: 2 × max_batch_timeout", drainMs: drainLimitMs },
      ratio: drainMs === null ? 0 : drainLimitMs / Math.max(drainMs, 1),
      target: { drainMs: drainLimitMs, server5xx: 0, lost: 0 },
      met: drainMs !== null && drainMs <= drainLimitMs && writes5xx + reads5xx === 0 && problems.length === 0,
      statuses: { writes: writes.statuses, reads: reads.statuses },
      connectionErrors: { writes: writes.errors, reads: reads.errors },
    },
  ];
}
