/**
 * @module The operator's view of shards and accounts: the shard list with what balancing needs, and the
 * paged account directory (placement itself: src/services/shards/placement.ts). All of it reads the control
 * plane only.
 */
import { and, asc, eq, gt, isNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { CONTROL_SHARD, shardBinding, shardDb, shardNames } from "../../db/shards";
import { FANOUT_CONCURRENCY } from "../../db/fanout";
import { accounts } from "../../db/tables/tenancy";
import { badRequest, notFound } from "../../lib/errors";
import { readMove, type MoveState } from "./move-state";
import { checkIds } from "./id-check";
import { shardLoad } from "./load";
import { accountsPerShard, closedShards } from "./placement";

export function requireShardName(env: Env, shard: string, where: "body" | "query" = "body"): string {
  if (!shardNames(env).includes(shard)) {
    throw badRequest(`Unknown shard ${shard}; configured shards: ${shardNames(env).join(", ") || "none"}`, {
      errors: [{ message: `shard ${shard} is not a configured shard`, in: where, context: { propertyName: ["shard"] } }],
    });
  }
  return shard;
}

/** D1's hard limit on one database's size (10 GB on the paid plan); it cannot be raised. */
export const D1_MAX_BYTES = 10 * 1024 ** 3;

/**
 * A database's size in bytes, from D1's own `meta.size_after` of a statement that reads nothing; null when
 * the shard cannot be reached (an outage shows as `available: false`, never as a failed listing).
 */
async function sizeOf(env: Env, name: string): Promise<number | null> {
  try {
    shardDb(env, name); // the fault seam's outage point, as for any request to the shard
    const res = await shardBinding(env, name).prepare("SELECT 1").run();
    return typeof res.meta.size_after === "number" ? res.meta.size_after : null;
  } catch {
    return null;
  }
}

/** Sizes of `names`, at most FANOUT_CONCURRENCY at a time. */
async function sizesOf(env: Env, names: string[]): Promise<(number | null)[]> {
  const out = new Array<number | null>(names.length).fill(null);
  let next = 0;
  const worker = async () => {
    while (next < names.length) {
      const i = next++;
      out[i] = await sizeOf(env, names[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(FANOUT_CONCURRENCY, names.length) }, worker));
  return out;
}

/**
 * What an operator balances by (docs/explanation/scaling.md "Placement and balancing"): accounts and their
 * share, each database's size and share of D1's 10 GB, and its query load of the last minutes from the usage
 * metrics (src/services/shards/load.ts), when the operator lets the Worker read them. Placement itself uses
 * account counts only. With `idCheck`, each database's id check too (src/services/shards/id-check.ts).
 */
export async function listShards(env: Env, db: Db, idCheck = false) {
  const [counts, closed] = await Promise.all([accountsPerShard(db), closedShards(db)]);
  const names = shardNames(env);
  // Accounts from before sharding live on the control plane until moved; the operator sees them too, and
  // the id check covers it always.
  const legacy = counts.get(CONTROL_SHARD) ?? 0;
  const listed = legacy || idCheck ? [...names, CONTROL_SHARD] : names;
  const [sizes, load, ids] = await Promise.all([sizesOf(env, listed), shardLoad(env), idCheck ? checkIds(env) : null]);
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const { byShard, ...loadSource } = load;
  return {
    load: loadSource,
    results: listed.map((name, i) => {
      const n = counts.get(name) ?? 0;
      const size = sizes[i] ?? null;
      return {
        name,
        accounts: n,
        share: total ? n / total : 0,
        open: name !== CONTROL_SHARD && !closed.has(name),
        placement: name !== CONTROL_SHARD && !closed.has(name),
        available: size !== null,
        sizeBytes: size,
        storageShare: size === null ? null : size / D1_MAX_BYTES,
        load: load.available ? (byShard.get(name) ?? { requests: 0, d1Statements: 0, d1StatementsPerSecond: 0, syncMessages: 0 }) : null,
        ...(ids ? { ids: ids.get(name) ?? null } : {}),
      };
    }),
  };
}

export type AccountRow = typeof accounts.$inferSelect;

export const presentAccount = (a: AccountRow, move?: MoveState | null) => ({
  portalId: a.portalId,
  name: a.name,
  addons: a.addons,
  shard: a.shard ?? CONTROL_SHARD,
  ...(a.companion ? { companion: a.companion } : {}),
  rateLimit: a.rateLimit,
  createdAt: a.createdAt,
  status: a.status,
  timeZone: a.timeZone,
  companyCurrency: a.companyCurrency,
  additionalCurrencies: a.additionalCurrencies,
  accountType: a.accountType,
  ...(move ? { move } : {}),
  ...(a.deletion ? { deletion: a.deletion } : {}),
});

export async function getAccount(db: Db, portalId: number) {
  const row = await db.select().from(accounts).where(eq(accounts.portalId, portalId)).get();
  if (!row) throw notFound(`Account ${portalId} not found`);
  return presentAccount(row, await readMove(db, portalId));
}

/** Paged by portalId (`after` = the last portalId of the previous page); optionally one shard's accounts. */
export async function listAccounts(db: Db, q: { limit: number; after?: number; shard?: string }) {
  const shardFilter = q.shard === undefined ? undefined : q.shard === CONTROL_SHARD ? isNull(accounts.shard) : eq(accounts.shard, q.shard);
  const rows = await db
    .select()
    .from(accounts)
    .where(and(shardFilter, q.after !== undefined ? gt(accounts.portalId, q.after) : undefined))
    .orderBy(asc(accounts.portalId))
    .limit(q.limit + 1)
    .all();
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return {
    results: page.map((r) => presentAccount(r)),
    ...(rows.length > q.limit && last ? { paging: { next: { after: String(last.portalId) } } } : {}),
  };
}
