/**
 * @module Where new accounts go (docs/explanation/scaling.md "Placement and balancing"): the placement policy, and
 * the operator's control over it (closing a shard to new accounts, reopening it). Reads the control plane only.
 */
import { count, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { CONTROL_SHARD, shardNames } from "../../db/shards";
import { shardPlacement } from "../../db/tables/shards";
import { accounts } from "../../db/tables/tenancy";
import { conflict, notFound } from "../../lib/errors";

/** Accounts per shard (null: the control plane), grouped over the accounts_shard index; unexecuted, for batches. */
export const accountsPerShardQuery = (db: Db) => db.select({ shard: accounts.shard, n: count() }).from(accounts).groupBy(accounts.shard);

/** Accounts per shard name (null → "DB"), in one grouped read over the accounts_shard index. */
export async function accountsPerShard(db: Db): Promise<Map<string, number>> {
  const rows = await accountsPerShardQuery(db).all();
  return new Map(rows.map((r) => [r.shard ?? CONTROL_SHARD, r.n]));
}

const closedShardsQuery = (db: Db) => db.select({ shard: shardPlacement.shard }).from(shardPlacement).where(eq(shardPlacement.open, false));

/** The shards an operator has closed to new accounts. */
export async function closedShards(db: Db): Promise<Set<string>> {
  return new Set((await closedShardsQuery(db).all()).map((r) => r.shard));
}

/**
 * The placement weights of the open shards, in their order: a shard's weight is how many accounts it has
 * fewer than the fullest open shard, plus the average number of accounts per open shard (at least 1).
 * Equal shards weigh the same. An emptier shard weighs more, but never more than about twice a full
 * one's share of new accounts while there are several shards: a new empty shard fills gradually beside
 * the others instead of taking every new account (with 1 full and 1 empty shard, it takes 3 in 4).
 */
export function placementWeights(counts: number[]): number[] {
  if (!counts.length) return [];
  const max = Math.max(...counts);
  const mean = counts.reduce((a, b) => a + b, 0) / counts.length;
  const base = Math.max(mean, 1);
  return counts.map((c) => max - c + base);
}

/** Index chosen with probability proportional to its weight; `random` is in [0, 1). */
export function weightedChoice(weights: number[], random: number): number {
  const total = weights.reduce((a, b) => a + b, 0);
  let left = random * total;
  for (let i = 0; i < weights.length; i++) {
    left -= weights[i]!;
    if (left < 0) return i;
  }
  return weights.length - 1;
}

/**
 * The placement policy: a weighted random choice among the open shards (placementWeights), from account
 * counts only (one grouped read over the accounts_shard index, and the closed shards, in one batch).
 * Without shards (a deployment that declares none) the control plane itself holds the account: null.
 * Every shard closed is a 409: the operator reopens one, or names the shard.
 */
export async function placeAccount(env: Env, db: Db, random: () => number = Math.random): Promise<string | null> {
  const names = shardNames(env);
  if (!names.length) return null;
  const [closedRows, countRows] = await db.batch([closedShardsQuery(db), accountsPerShardQuery(db)]);
  const closed = new Set(closedRows.map((r) => r.shard));
  const open = names.filter((n) => !closed.has(n));
  if (!open.length) {
    throw conflict("Every shard is closed to new accounts: reopen one (PATCH /admin/v1/shards/{name} with open: true) or name the shard.");
  }
  const counts = new Map(countRows.map((r) => [r.shard, r.n]));
  return open[weightedChoice(placementWeights(open.map((n) => counts.get(n) ?? 0)), random())]!;
}

/**
 * Opens or closes a configured shard to new accounts; the accounts already on it are untouched. Unknown
 * shards (the control plane `DB` included: it never takes new accounts) are a 404.
 */
export async function setShardOpen(env: Env, db: Db, name: string, open: boolean, now: number) {
  if (!shardNames(env).includes(name)) {
    throw notFound(`Shard ${name} not found; configured shards: ${shardNames(env).join(", ") || "none"}`);
  }
  await db
    .insert(shardPlacement)
    .values({ shard: name, open, updatedAt: now })
    .onConflictDoUpdate({ target: shardPlacement.shard, set: { open, updatedAt: now } })
    .run();
  const counts = await accountsPerShard(db);
  return { name, open, accounts: counts.get(name) ?? 0, updatedAt: now };
}
