/**
 * A small simulation of Cloudflare Queues' delivery (at least once, unordered) around the real consumer:
 * batches go to `worker.queue(createMessageBatch(...))`, `getQueueResult` says what the consumer acked and
 * retried, and the simulation redelivers as the queue would: retried messages, and every message not explicitly acked
 * when the handler threw, come back with attempts + 1; after `maxRetries` retries a message goes to the
 * dead-letter list instead. The queue keeps no order, so each batch is a random pick of what is pending.
 */
import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import worker from "../../src/index";
import { InjectedFault } from "./fault-injector";

/** wrangler.toml: max_batch_size of both consumers. */
export const MAX_BATCH = 100;
/** wrangler.toml: max_retries of the sync queue (6 deliveries in all) and of the dead-letter queue. */
export const SYNC_MAX_RETRIES = 5;
export const DLQ_MAX_RETRIES = 10;

/** Deterministic PRNG (mulberry32), so a failing run is reproduced from its printed seed. */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    chance: (p: number) => next() < p,
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!,
    shuffle<T>(xs: T[]): T[] {
      for (let i = xs.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [xs[i], xs[j]] = [xs[j]!, xs[i]!];
      }
      return xs;
    },
  };
}
export type Rng = ReturnType<typeof rng>;

/** One message in the simulated queue: `qid` is the queue's message id, `body` what was sent. */
export interface Queued<B = unknown> {
  qid: string;
  body: B;
  attempts: number;
}

export interface DrainLog<B> {
  invocations: number;
  /** Invocations whose handler threw (an injected crash). */
  crashed: number;
  deliveries: number;
  /** Queue message id -> times acked (explicitly, or implicitly by a handler that returned). */
  acks: Map<string, number>;
  /** Acks the consumer did not make explicitly (the handler returned without settling the message). */
  implicitAcks: number;
  /** Queue message id -> times the consumer called retry() on it. */
  retries: Map<string, number>;
  /** Messages whose retries ran out, in the order they left. */
  dead: Queued<B>[];
}

interface QueueResult {
  ackAll: boolean;
  retryBatch: { retry: boolean };
  explicitAcks: string[];
  retryMessages: { msgId: string }[];
}

/** Delivers everything in `pending` until each message is acked or dead-lettered. Bounded by `maxInvocations`. */
export async function drain<B>(
  queue: string,
  pending: Queued<B>[],
  opts: {
    rng: Rng;
    maxRetries: number;
    maxInvocations?: number;
    /** Deliver everything pending in each batch (up to 100). */
    whole?: boolean;
    /** The most messages a batch holds (default MAX_BATCH). */
    maxBatch?: number;
  },
): Promise<DrainLog<B>> {
  const log: DrainLog<B> = { invocations: 0, crashed: 0, deliveries: 0, acks: new Map(), implicitAcks: 0, retries: new Map(), dead: [] };
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  const queued = [...pending];
  const limit = opts.maxInvocations ?? 1000;
  while (queued.length) {
    if (log.invocations >= limit) throw new Error(`queue ${queue} not drained after ${limit} invocations (${queued.length} left)`);
    if (!opts.whole) opts.rng.shuffle(queued);
    const most = opts.maxBatch ?? MAX_BATCH;
    const size = opts.whole ? most : 1 + opts.rng.int(Math.min(most, queued.length));
    const picked = queued.splice(0, size);
    const batch = createMessageBatch(
      queue,
      picked.map((m) => ({ id: m.qid, timestamp: new Date(), attempts: m.attempts, body: m.body })),
    );
    const ctx = createExecutionContext();
    let crashed = false;
    try {
      await worker.queue(batch, env, ctx);
    } catch (err) {
      if (!(err instanceof InjectedFault)) throw err; // anything else is a real failure of the consumer
      crashed = true;
    }
    const result = (await getQueueResult(batch, ctx)) as QueueResult;
    log.invocations++;
    log.deliveries += picked.length;
    if (crashed) log.crashed++;
    const acked = new Set(result.explicitAcks);
    const retried = new Set(result.retryMessages.map((r) => r.msgId));
    for (const m of picked) {
      if (retried.has(m.qid)) bump(log.retries, m.qid);
      const again = !acked.has(m.qid) && !result.ackAll && (retried.has(m.qid) || result.retryBatch.retry || crashed);
      if (!again) {
        bump(log.acks, m.qid);
        if (!acked.has(m.qid) && !result.ackAll) log.implicitAcks++;
      } else if (m.attempts > opts.maxRetries) {
        log.dead.push(m);
      } else {
        queued.push({ ...m, attempts: m.attempts + 1 });
      }
    }
  }
  return log;
}
