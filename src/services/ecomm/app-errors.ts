/**
 * @module An app's sync errors across every account that installed it (app-level reads across shards:
 * docs/explanation/scaling.md "App-level reads"). `GET /extensions/ecomm/v2/sync/errors/app/{appId}` with the
 * developer key reads only the shards that can hold the app's errors: those of the accounts where the app is
 * installed (one control-plane read over `installs`; uninstalling an app deletes its errors in that account,
 * see `deleteAppErrors`). The shards are taken in windows of at most `SHARDS_PER_PAGE`, in shard order; a
 * request reads one window, each of its shards at most once, so it costs at most SHARDS_PER_PAGE + 1 D1
 * queries (plus authentication) whatever the number of shards and installs.
 *
 * Within a window the shards' newest-first pages are merged (k-way) on one order key: (erroredAt, portalId,
 * storeId, objectType, externalId), descending. The key is unique (it extends the table's primary key) and
 * every account lives on one shard, so with up to SHARDS_PER_PAGE shards (one window) the order is the global
 * newest-first order. With more, the listing is newest first within each window, windows in shard order.
 *
 * Paging: `paging.next.link` carries `after=<cursor>`, naming the first shard of the window and the key of the
 * page's last row in it (or no key: the window's start); each shard then reads only `limit + 1` rows after
 * it. The legacy `page` offset works within the first window; past it (more than SHARDS_PER_PAGE shards) a
 * `page` other than 1 is a 400 that points to the cursor. A shard that fails is named in `unavailableShards`
 * and skipped; the others still answer. Rows of an account that is fenced on a shard for any reason but
 * "moving" (moved away and not purged, or a copy arriving) are not that shard's to report: they would
 * otherwise appear twice during a move.
 */
import { and, desc, eq, ne, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { ecommSyncErrors } from "../../db/tables/ecomm";
import { accounts, installs } from "../../db/tables/tenancy";
import { badRequest } from "../../lib/errors";
import { FANOUT_CONCURRENCY, inPool } from "../../db/fanout";
import { CONTROL_SHARD, isShard, shardDb, shardOrdinal } from "../../db/shards";
import type { ErrorsQuery } from "../../schemas/ecomm";
import { presentError } from "./status";

/** Shards read per request: with the control-plane read, well within 50 of D1's 1,000 queries per invocation. */
export const SHARDS_PER_PAGE = 40;

type ErrorRow = typeof ecommSyncErrors.$inferSelect;
type Key = [number, number, string, string, string];
/** Where a page starts: the window's first shard, and the key after which it continues (none: from the top). */
interface Cursor {
  shard: string;
  key?: Key;
}

const keyOf = (r: ErrorRow): Key => [r.erroredAt, r.portalId, r.storeId, r.objectType, r.externalId];

/** Descending order on the key: negative when a comes first. */
function compare(a: Key, b: Key): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i]! < b[i]!) return 1;
    if (a[i]! > b[i]!) return -1;
  }
  return 0;
}

const b64 = (s: string) => btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

export const encodeAfter = (c: Cursor) => b64(JSON.stringify(c.key ? [c.shard, ...c.key] : [c.shard]));

const isKey = (k: unknown[]): k is Key =>
  k.length === 5 && Number.isSafeInteger(k[0]) && Number.isSafeInteger(k[1]) && typeof k[2] === "string" && typeof k[3] === "string" && typeof k[4] === "string";

function decodeAfter(s: string): Cursor {
  try {
    const c: unknown = JSON.parse(atob(s.replace(/-/g, "+").replace(/_/g, "/")));
    // A cursor of the single global order (before windows): the first window, after that key.
    if (Array.isArray(c) && isKey(c)) return { shard: "", key: c };
    if (Array.isArray(c) && typeof c[0] === "string") {
      const rest = c.slice(1);
      if (rest.length === 0) return { shard: c[0] };
      if (isKey(rest)) return { shard: c[0], key: rest };
    }
  } catch {
    // falls through to the 400
  }
  throw badRequest("Invalid query: after: not a cursor from paging.next", {
    errors: [{ message: "after is not a cursor this API issued", in: "query", context: { propertyName: ["after"] } }],
  });
}

/**
 * The shards holding accounts where the app is installed, in shard order (the control plane, for accounts
 * placed before sharding, first): one read over the installs_app index. Shards no longer configured are left out.
 */
export async function appShards(env: Env, control: Db, appId: number): Promise<string[]> {
  const rows = await control
    .selectDistinct({ shard: accounts.shard })
    .from(installs)
    .innerJoin(accounts, eq(accounts.portalId, installs.portalId))
    .where(and(eq(installs.appId, appId), ne(accounts.status, "deleting")))
    .all();
  const names = rows.map((r) => r.shard ?? CONTROL_SHARD).filter((n) => n === CONTROL_SHARD || isShard(env, n));
  return names.sort((a, b) => shardOrdinal(a) - shardOrdinal(b) || a.localeCompare(b));
}

/** Uninstalling an app deletes its sync errors in that account: the app no longer reaches it (an uninstall hook). */
export const deleteAppErrors = (db: Db, { portalId, appId }: { portalId: number; appId: number }): BatchItem<"sqlite">[] => [
  db.delete(ecommSyncErrors).where(and(eq(ecommSyncErrors.portalId, portalId), eq(ecommSyncErrors.appId, appId))),
];

export async function listAppErrors(env: Env, control: Db, appId: number, q: ErrorsQuery & { after?: string }, url: URL) {
  const cursor = q.after ? decodeAfter(q.after) : undefined;
  const shards = await appShards(env, control, appId);
  let start = 0;
  if (cursor?.shard === "") start = 0;
  else if (cursor) {
    // A shard of the cursor that no longer holds an install: the window starts at the next one in order.
    const at = shards.findIndex((s) => shardOrdinal(s) > shardOrdinal(cursor.shard) || s === cursor.shard);
    start = at < 0 ? shards.length : at;
  } else if (q.page > 1 && shards.length > SHARDS_PER_PAGE) {
    throw badRequest(`Invalid query: page: the app's errors span more than ${SHARDS_PER_PAGE} shards; follow paging.next.link (after) instead of page offsets`, {
      errors: [{ message: "page offsets reach only the first shards; use the after cursor of paging.next.link", in: "query", context: { propertyName: ["page"] } }],
    });
  }
  const window = shards.slice(start, start + SHARDS_PER_PAGE);
  const key = cursor && (cursor.shard === "" || cursor.shard === window[0]) ? cursor.key : undefined;
  const skip = key || cursor ? 0 : q.page - 1;
  const want = skip + q.limit + 1;
  const e = ecommSyncErrors;
  const filters: (SQL | undefined)[] = [
    eq(e.appId, appId),
    q.includeResolved ? undefined : eq(e.status, "OPEN"),
    q.objectType ? eq(e.objectType, q.objectType) : undefined,
    q.errorType ? eq(e.type, q.errorType) : undefined,
    sql`${e.portalId} not in (select portal_id from account_fences where state != 'moving')`,
    key ? sql`(${e.erroredAt}, ${e.portalId}, ${e.storeId}, ${e.objectType}, ${e.externalId}) < (${key[0]}, ${key[1]}, ${key[2]}, ${key[3]}, ${key[4]})` : undefined,
  ];
  const unavailable: string[] = [];
  const pages = await inPool(window, FANOUT_CONCURRENCY, async (name) => {
    try {
      return await shardDb(env, name)
        .select()
        .from(e)
        .where(and(...filters))
        .orderBy(desc(e.erroredAt), desc(e.portalId), desc(e.storeId), desc(e.objectType), desc(e.externalId))
        .limit(want)
        .all();
    } catch (err) {
      console.error(`app errors of app ${appId}: shard ${name} failed, skipped: ${err instanceof Error ? err.message : String(err)}`);
      unavailable.push(name);
      return [];
    }
  });
  // k-way merge of the sorted shard pages: repeatedly take the head that comes first.
  const heads = pages.map(() => 0);
  const merged: ErrorRow[] = [];
  while (merged.length < want) {
    let best = -1;
    for (let i = 0; i < pages.length; i++) {
      const row = pages[i]![heads[i]!];
      if (row && (best < 0 || compare(keyOf(row), keyOf(pages[best]![heads[best]!]!)) < 0)) best = i;
    }
    if (best < 0) break;
    merged.push(pages[best]![heads[best]!++]!);
  }
  const page = merged.slice(skip, skip + q.limit);
  const last = page.at(-1);
  const nextWindow = shards[start + SHARDS_PER_PAGE];
  // More in this window: continue after the last row; else the next window from its top.
  const next: Cursor | undefined =
    merged.length > skip + q.limit && last ? { shard: window[0]!, key: keyOf(last) } : nextWindow ? { shard: nextWindow } : undefined;
  const body: {
    results: ReturnType<typeof presentError>[];
    paging?: { next: { page: string; link: string } };
    unavailableShards?: string[];
  } = { results: page.map(presentError) };
  if (next) {
    const link = new URL(url);
    link.searchParams.delete("hapikey"); // never echo a credential
    link.searchParams.delete("page");
    link.searchParams.set("after", encodeAfter(next));
    body.paging = { next: { page: String(skip + page.length + 1), link: link.toString() } };
  }
  if (unavailable.length) body.unavailableShards = unavailable.sort((a, b) => shardOrdinal(a) - shardOrdinal(b));
  return body;
}
