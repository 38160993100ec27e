/**
 * @module App-level work across accounts (issue 16 §1): the same query on every shard, at most
 * `FANOUT_CONCURRENCY` at a time (D1 allows 6 simultaneous connections per invocation).
 */
import type { Db } from "../db/client";
import { CONTROL_SHARD, shardDb, shardNames } from "../db/shards";

export const FANOUT_CONCURRENCY = 6;

/**
 * Every database that can hold account data: each shard, and the control plane itself (accounts placed
 * before sharding keep their data there until moved; see docs/explanation/scaling.md).
 */
export function accountDatabases(env: Env): string[] {
  return [...shardNames(env), CONTROL_SHARD];
}

/** Runs `fn` on every account database with bounded concurrency; results in `accountDatabases` order. */
export async function onEveryShard<T>(env: Env, fn: (db: Db, shard: string) => Promise<T>): Promise<T[]> {
  const shards = accountDatabases(env);
  const out = new Array<T>(shards.length);
  let next = 0;
  async function worker() {
    while (next < shards.length) {
      const i = next++;
      out[i] = await fn(shardDb(env, shards[i]!), shards[i]!);
    }
  }
  await Promise.all(Array.from({ length: Math.min(FANOUT_CONCURRENCY, shards.length) }, worker));
  return out;
}
