/**
 * @module The operator's view of shards and accounts: the shard list with what balancing needs, and the
 * paged account directory (placement itself: src/services/shards/placement.ts). All of it reads the control
 * plane only.
 */
import { and, asc, eq, gt, isNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { CONTROL_SHARD, shardBinding, shardDb, shardNames } from "../../db/shards";
import { FANOUT_CONCURRENCY, inPool } from "../../db/fanout";
import { accounts } from "../../db/tables/tenancy";
import { badRequest, notFound } from "../../lib/errors";
import { readMove, type MoveState } from "./move-state";
import { checkIds, MAX_IDS_PAGE } from "./id-check";
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
const sizesOf = (env: Env, names: string[]) => inPool(names, FANOUT_CONCURRENCY, (name) => sizeOf(env, name));

/** Databases per page of the listing: one size probe each, with the control-plane reads well under 50 D1 queries. */
export const MAX_SHARDS_PAGE = 40;

export interface ShardsPage {
  idCheck: boolean;
  limit?: number;
  /** The last database of the previous page. */
  after?: string;
}

/**
 * What an operator balances by (docs/explanation/scaling.md "Placement and balancing"): accounts and their
 * share, each database's size and share of D1's 10 GB, and its query load of the last minutes from the usage
 * metrics (src/services/shards/load.ts), when the operator lets the Worker read them. Placement itself uses
 * account counts only. With `idCheck`, each database's id check too (src/services/shards/id-check.ts).
 *
 * Paged over the databases (shards in order, then the control plane), `limit` at a time (at most
 * MAX_SHARDS_PAGE, or MAX_IDS_PAGE with the id check), so a request reads a bounded number of databases
 * whatever their number; `paging.next.after` names the page's last database. Account counts and shares are
 * of every database (one grouped control-plane read). A database that fails is listed as unavailable (and its
 * id check as null); the page goes on.
 */
export async function listShards(env: Env, db: Db, page: ShardsPage) {
  const [counts, closed] = await Promise.all([accountsPerShard(db), closedShards(db)]);
  const names = shardNames(env);
  // Accounts from before sharding live on the control plane until moved; the operator sees them too, and
  // the id check covers it always.
  const legacy = counts.get(CONTROL_SHARD) ?? 0;
  const all = legacy || page.idCheck ? [...names, CONTROL_SHARD] : names;
  const limit = Math.min(page.limit ?? (page.idCheck ? MAX_IDS_PAGE : MAX_SHARDS_PAGE), page.idCheck ? MAX_IDS_PAGE : MAX_SHARDS_PAGE);
  let start = 0;
  if (page.after !== undefined) {
    const at = all.indexOf(page.after);
    if (at < 0) {
      throw badRequest(`Invalid query: after: ${page.after} is not a database of this listing`, {
        errors: [{ message: `after must name a database of the listing (${all.length ? `${all[0]}…${all.at(-1)}` : "none"})`, in: "query", context: { propertyName: ["after"] } }],
      });
    }
    start = at + 1;
  }
  const listed = all.slice(start, start + limit);
  const [sizes, load, ids] = await Promise.all([sizesOf(env, listed), shardLoad(env), page.idCheck ? checkIds(env, listed) : null]);
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const { byShard, ...loadSource } = load;
  const last = listed.at(-1);
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
    ...(last !== undefined && start + limit < all.length ? { paging: { next: { after: last } } } : {}),
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
