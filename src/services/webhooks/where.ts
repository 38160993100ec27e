/**
 * @module Where the delivery log lives (docs/reference/webhooks.md "The delivery log"). A delivery carries one
 * account's events and its rows are stored with that account: on its companion shard when it has one, else
 * on its shard (`DB` for an account placed on the control plane). The app's log is read over the databases of
 * the app's installs, plus the control plane, which keeps the rows written before the log moved to the
 * accounts' databases (deliveries then mixed accounts; their `portal_id` is null).
 */
import { and, eq, ne, sql } from "drizzle-orm";
import type { Db, StatementMeter } from "../../db/client";
import { CONTROL_SHARD, isShard, shardDb, shardOrdinal } from "../../db/shards";
import { accounts, installs } from "../../db/tables/tenancy";

/** The database of an account's delivery log, as a column of a statement over `accounts` (alias `ac`, or the table). */
export const logDatabaseSql = (alias = "accounts") => `coalesce(${alias}.companion, ${alias}.shard, '${CONTROL_SHARD}')`;

/** The handle of a log database by name (`DB` = the control plane). */
export const logDb = (env: Env, name: string, meter?: StatementMeter): Db => shardDb(env, name === CONTROL_SHARD ? null : name, meter);

/** The log databases of accounts (deleting and unknown ones left out), in one control-plane statement per 90 accounts. */
export async function logDatabasesOf(control: Db, portalIds: number[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  const ids = [...new Set(portalIds)];
  for (let i = 0; i < ids.length; i += 90) {
    const rows = await control.all<{ portal_id: number; db: string }>(sql`select portal_id, ${sql.raw(logDatabaseSql())} as db from accounts
      where status <> 'deleting' and portal_id in (select value from json_each(${JSON.stringify(ids.slice(i, i + 90))}))`);
    for (const r of rows) out.set(r.portal_id, r.db);
  }
  return out;
}

export const byDatabaseOrder = (a: string, b: string) => shardOrdinal(a) - shardOrdinal(b) || a.localeCompare(b);

/**
 * The databases that can hold the app's deliveries, in database order (the control plane first): those of its
 * installs' delivery logs, and the control plane (its older rows). One read over the installs_app index.
 */
export async function appLogDatabases(env: Env, control: Db, appId: number): Promise<string[]> {
  const rows = await control
    .selectDistinct({ db: sql<string>`${sql.raw(logDatabaseSql())}` })
    .from(installs)
    .innerJoin(accounts, eq(accounts.portalId, installs.portalId))
    .where(and(eq(installs.appId, appId), ne(accounts.status, "deleting")))
    .all();
  const names = new Set([CONTROL_SHARD, ...rows.map((r) => r.db).filter((n) => n === CONTROL_SHARD || isShard(env, n))]);
  return [...names].sort(byDatabaseOrder);
}

/**
 * Rows of an account that the database holds but does not serve: fenced for any reason but "moving" (moved
 * away and not purged yet, or a copy arriving), or left on a home shard whose companion marker says the
 * account's log lives elsewhere now (until the move's purge). Listing them would show a moving account's
 * deliveries twice.
 */
export const servedHere = (portal: string) =>
  sql.raw(`(${portal} is null or (${portal} not in (select portal_id from account_fences where state != 'moving') and ${portal} not in (select portal_id from account_companions)))`);
