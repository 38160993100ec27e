/**
 * @module App-level work across accounts: the same query on every shard, at most
 * `FANOUT_CONCURRENCY` at a time (a Worker invocation has 6 simultaneous connections: D1 and fetch alike).
 */
import type { Db } from "./client";
import { CONTROL_SHARD, shardDb, shardNames } from "./shards";

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

/** Runs `fn` on every account database with bounded concurrency; results in `accountDatabases` order. */
export async function onEveryShard<T>(env: Env, fn: (db: Db, shard: string) => Promise<T>): Promise<T[]> {
  return inPool(accountDatabases(env), FANOUT_CONCURRENCY, (shard) => fn(shardDb(env, shard), shard));
}
