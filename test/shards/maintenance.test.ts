/**
 * Maintenance through the queue: the cron tick only enqueues one message per database and job (no D1
 * query, sendBatch calls of up to 100), whatever the number of shards; the maintenance queue's consumer
 * runs one job on one database per message, each within its D1 budget; a database whose job throws is
 * retried and dead-lettered by itself, naming its job and database, while the others' jobs run.
 */
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { runCron } from "../../src/cron";
import { makeDb } from "../../src/db/client";
import { MAINTENANCE_JOB_NAMES, MAX_JOB_STATEMENTS, maintenanceJobs } from "../../src/services/maintenance/jobs";
import type { MaintenanceMessage } from "../../src/services/maintenance/message";
import { call, tenant } from "../helpers/api";
import { countingD1 } from "../helpers/counting-d1";
import { settledRuns, until, watchConsole } from "../helpers/maintenance";
import { SHARDS, sleep } from "../helpers/shards";
import { armFaults, disarmFaults } from "../reliability/fault-injector";
import { createPost, publish, V2 } from "../blog/helpers";

afterEach(() => disarmFaults());

const DATABASES = ["DB", ...SHARDS];
/** The budget a whole tick is held to ("a handful" of D1 queries; it needs none). */
const TICK_BUDGET = 50;

/** A queue that records every sendBatch call (and how many ran at once), then hands it to `inner` if given. */
function recordingQueue(inner?: Queue) {
  const calls: MessageSendRequest<MaintenanceMessage>[][] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const queue = {
    send: () => Promise.reject(new Error("the tick sends with sendBatch only")),
    sendBatch: async (messages: Iterable<MessageSendRequest<MaintenanceMessage>>, options?: QueueSendBatchOptions) => {
      const list = [...messages];
      calls.push(list);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        // A real send takes a round trip: long enough here for concurrent calls to overlap.
        await sleep(5);
        if (inner) await inner.sendBatch(list, options);
      } finally {
        inFlight--;
      }
    },
  } as unknown as Queue;
  return { queue, calls, maxInFlight: () => maxInFlight, bodies: () => calls.flat().map((m) => m.body) };
}

/** `env` with each named database replaced by a counting client over its own database. */
function countedEnv(bindings: Record<string, D1Database>, queue: Queue) {
  const counted = Object.fromEntries(Object.entries(bindings).map(([name, d1]) => [name, countingD1(d1)]));
  const statements = () => Object.values(counted).reduce((n, d1) => n + d1.counts.statements, 0);
  return { env: { ...env, ...counted, MAINTENANCE_QUEUE: queue } as Env, statements };
}

const pairs = (bodies: MaintenanceMessage[]) => bodies.map((b) => `${b.job}@${b.shard}`).sort();
const allPairs = (databases: string[]) => MAINTENANCE_JOB_NAMES.flatMap((job) => databases.map((db) => `${job}@${db}`)).sort();

describe("the cron tick", () => {
  it("enqueues one message per database and job with no D1 query; the real queue runs every one of them", async () => {
    const at = Date.now() + Math.floor(Math.random() * 1_000);
    const recorder = recordingQueue(env.MAINTENANCE_QUEUE);
    const { env: counted, statements } = countedEnv({ DB: env.DB, SHARD_1: env.SHARD_1, SHARD_2: env.SHARD_2 }, recorder.queue);
    const watch = watchConsole();
    try {
      const ctx = createExecutionContext();
      await worker.scheduled(createScheduledController({ scheduledTime: at, cron: "* * * * *" }), counted, ctx);
      await waitOnExecutionContext(ctx);
      expect(statements()).toBe(0);
      expect(statements()).toBeLessThanOrEqual(TICK_BUDGET);
      expect(recorder.calls.map((c) => c.length)).toEqual([9]);
      expect(pairs(recorder.bodies())).toEqual(allPairs(DATABASES));
      expect(recorder.bodies().every((b) => b.v === 1 && b.scheduledTime === at)).toBe(true);
      // The consumer (the Worker's queue handler, with the real bindings) runs each message once.
      await until(() => settledRuns(watch.runs, at).length >= 9, () => `9 runs of the tick, saw ${JSON.stringify(settledRuns(watch.runs, at))}`);
      const runs = settledRuns(watch.runs, at);
      expect(runs.map((r) => `${r.job}@${r.shard}`).sort()).toEqual(allPairs(DATABASES));
      expect(runs.every((r) => r.outcome === "ok")).toBe(true);
    } finally {
      watch.stop();
    }
  });

  it("with 500 shards: 1,503 messages in 16 sendBatch calls of at most 100, at most 6 at once, and still no D1 query", async () => {
    // The 500 local databases vitest.config.ts declares for this test, handed to the tick as SHARD_1..SHARD_500
    // (the Worker discovers shards by their binding names), each through a counting client.
    const many = Object.keys(env).filter((k) => /^TEST_MANY_\d+$/.test(k));
    expect(many).toHaveLength(500);
    const bindings: Record<string, D1Database> = { DB: env.DB };
    for (const name of many) bindings[`SHARD_${name.slice("TEST_MANY_".length)}`] = (env as unknown as Record<string, D1Database>)[name]!;
    // Without the real SHARD_1 and SHARD_2 of the test configuration: SHARD_1/SHARD_2 are the counted many ones.
    const recorder = recordingQueue();
    const { env: counted, statements } = countedEnv(bindings, recorder.queue);
    const result = await runCron(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), counted, createExecutionContext());
    expect(result).toEqual({ databases: 501, messages: 1503, sendBatches: 16, failedBatches: 0 });
    expect(statements()).toBe(0);
    expect(recorder.calls).toHaveLength(16);
    expect(Math.max(...recorder.calls.map((c) => c.length))).toBe(100);
    expect(recorder.maxInFlight()).toBeGreaterThan(1);
    expect(recorder.maxInFlight()).toBeLessThanOrEqual(6);
    const databases = ["DB", ...Array.from({ length: 500 }, (_, i) => `SHARD_${i + 1}`)];
    expect(pairs(recorder.bodies())).toEqual(allPairs(databases));
  });

  it("a failing sendBatch does not stop the others; the tick reports it and fails", async () => {
    let n = 0;
    const recorder = recordingQueue();
    const flaky = { sendBatch: (m: Iterable<MessageSendRequest>) => (n++ === 0 ? Promise.reject(new Error("queue unavailable")) : recorder.queue.sendBatch(m)) } as unknown as Queue;
    const many: Record<string, D1Database> = {};
    for (let i = 1; i <= 100; i++) many[`SHARD_${i}`] = (env as unknown as Record<string, D1Database>)[`TEST_MANY_${i}`]!;
    const { env: counted } = countedEnv(many, flaky);
    await expect(runCron(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), counted, createExecutionContext())).rejects.toThrow(
      /1 of 4 maintenance sendBatch call\(s\) failed: queue unavailable/,
    );
    expect(recorder.calls).toHaveLength(3);
  });
});

describe("the maintenance jobs", () => {
  it("each job on each database stays within its D1 budget (counted on the database itself)", async () => {
    const now = Date.now();
    for (const db of DATABASES) {
      for (const job of MAINTENANCE_JOB_NAMES) {
        const d1 = countingD1((env as unknown as Record<string, D1Database>)[db]!);
        await maintenanceJobs[job](makeDb(d1), now, env);
        expect(d1.counts.statements, `${job} on ${db}`).toBeLessThanOrEqual(MAX_JOB_STATEMENTS);
        // One statement each, two for the abandonment's batch.
        expect(d1.counts.statements, `${job} on ${db}`).toBe(job === "abandonCheckouts" ? 2 : 1);
      }
    }
  });

  it("a shard whose job throws: retried, then dead-lettered naming job and shard; the other databases' jobs run", async () => {
    const up = await tenant({ shard: "SHARD_1" });
    const down = await tenant({ shard: "SHARD_2" });
    const due = Date.now() + 4 * 60 * 60_000 + Math.floor(Math.random() * 60_000);
    const ok = await createPost(up, { publish_date: due });
    const held = await createPost(down, { publish_date: due });
    await publish(up, ok.id);
    await publish(down, held.id);
    armFaults((point, ids) => {
      if (point === "shard:open" && ids.includes("SHARD_2")) throw new Error("injected outage of SHARD_2");
    });
    const watch = watchConsole();
    try {
      const ctx = createExecutionContext();
      await worker.scheduled(createScheduledController({ scheduledTime: due, cron: "* * * * *" }), env, ctx);
      await waitOnExecutionContext(ctx);
      const deadLetters = () => watch.errors.filter((l) => l.startsWith("dead letter: maintenance job") && l.includes(`(tick at ${due} ms)`));
      await until(
        () => deadLetters().length >= 3 && settledRuns(watch.runs, due).length >= 6,
        () => `3 dead letters and 6 runs; saw ${JSON.stringify(deadLetters())} and ${JSON.stringify(settledRuns(watch.runs, due))}`,
        40_000,
      );
      expect(deadLetters().sort()).toEqual(MAINTENANCE_JOB_NAMES.map((job) => `dead letter: maintenance job ${job} on SHARD_2 (tick at ${due} ms) failed on every attempt`).sort());
      // Every other database ran every job once, at the first try.
      const runs = settledRuns(watch.runs, due);
      expect(runs.map((r) => `${r.job}@${r.shard}`).sort()).toEqual(allPairs(["DB", "SHARD_1"]));
      expect(runs.every((r) => r.outcome === "ok")).toBe(true);
      // SHARD_2's jobs were tried four times each (max_retries = 3), each failure logged with job and shard.
      const retries = watch.runs.filter((r) => r.scheduledTime === due && r.outcome === "retry");
      expect(retries.every((r) => r.shard === "SHARD_2")).toBe(true);
      for (const job of MAINTENANCE_JOB_NAMES) {
        expect(retries.filter((r) => r.job === job)).toHaveLength(4);
        expect(watch.errors.filter((l) => l.startsWith(`maintenance job ${job} failed on SHARD_2 (attempt `))).toHaveLength(4);
      }
    } finally {
      watch.stop();
    }
    disarmFaults();
    expect((await call("GET", `${V2}/blog-posts/${ok.id}`, { token: up.oauth })).json).toMatchObject({ state: "PUBLISHED", published_at: due });
    expect((await call("GET", `${V2}/blog-posts/${held.id}`, { token: down.oauth })).json.state).toBe("SCHEDULED");
  }, 60_000);
});
