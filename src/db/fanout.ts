/**
 * @module App-level work across databases, at most `FANOUT_CONCURRENCY` at a time (a Worker invocation has 6
 * simultaneous connections: D1 and fetch alike). Nothing asks every shard in one invocation (D1 allows 1,000
 * queries per invocation): callers bound the databases they visit, page over them, or hand one message per
 * database to the maintenance queue (docs/explanation/scaling.md "App-level reads and writes").
 */
import { CONTROL_SHARD, shardNames } from "./shards";

export const FANOUT_CONCURRENCY = 6;

/**
 * Every database that can hold account data: each shard, and the control plane itself (accounts whose
 * `shard` is null, placed while the deployment declared no shard, keep their data there until moved; see
 * docs/explanation/scaling.md).
 */
export function accountDatabases(env: Env): string[] {
  return [...shardNames(env), CONTROL_SHARD];
}

/** Runs `fn` on every item, at most `size` at a time; results in `items` order. */
export async function inPool<T, R>(items: readonly T[], size: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  async function worker() {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  }
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
  return out;
}
