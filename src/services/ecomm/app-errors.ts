/**
 * @module An app's sync errors across every account that installed it (app-level reads fan out to every
 * shard: docs/explanation/scaling.md). `GET /extensions/ecomm/v2/sync/errors/app/{appId}` with the
 * developer key asks every shard, at most 6 at a time, and merges their newest-first pages (k-way merge)
 * on one global order key: (erroredAt, portalId, storeId, objectType, externalId), descending. The key is unique (it extends the
 * table's primary key) and every account lives on one shard, so the order is the same whatever the shards.
 *
 * Paging: `paging.next.link` carries `after=<cursor>`, the key of the page's last row; each shard then
 * reads only `limit + 1` rows after it, however deep the page. The legacy `page` offset still works (each
 * shard then reads offset + limit rows). Rows of an account that is fenced on a shard for any reason but
 * "moving" (moved away and not purged, or a copy arriving) are not that shard's to report: they would
 * otherwise appear twice during a move.
 */
import { and, desc, eq, sql, type SQL } from "drizzle-orm";
import { ecommSyncErrors } from "../../db/tables/ecomm";
import { badRequest } from "../../lib/errors";
import { onEveryShard } from "../../db/fanout";
import type { ErrorsQuery } from "../../schemas/ecomm";
import { presentError } from "./status";

type ErrorRow = typeof ecommSyncErrors.$inferSelect;
type Key = [number, number, string, string, string];

const keyOf = (r: ErrorRow): Key => [r.erroredAt, r.portalId, r.storeId, r.objectType, r.externalId];

/** Descending order on the global key: negative when a comes first. */
function compare(a: Key, b: Key): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i]! < b[i]!) return 1;
    if (a[i]! > b[i]!) return -1;
  }
  return 0;
}

export const encodeAfter = (k: Key) => btoa(JSON.stringify(k)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

function decodeAfter(s: string): Key {
  try {
    const k: unknown = JSON.parse(atob(s.replace(/-/g, "+").replace(/_/g, "/")));
    if (
      Array.isArray(k) && k.length === 5 && Number.isSafeInteger(k[0]) && Number.isSafeInteger(k[1]) &&
      typeof k[2] === "string" && typeof k[3] === "string" && typeof k[4] === "string"
    ) return k as Key;
  } catch {
    // falls through to the 400
  }
  throw badRequest("Invalid query: after: not a cursor from paging.next", {
    errors: [{ message: "after is not a cursor this API issued", in: "query", context: { propertyName: ["after"] } }],
  });
}

export async function listAppErrors(env: Env, appId: number, q: ErrorsQuery & { after?: string }, url: URL) {
  const after = q.after ? decodeAfter(q.after) : undefined;
  const skip = after ? 0 : q.page - 1;
  const want = skip + q.limit + 1;
  const e = ecommSyncErrors;
  const filters: (SQL | undefined)[] = [
    eq(e.appId, appId),
    q.includeResolved ? undefined : eq(e.status, "OPEN"),
    q.objectType ? eq(e.objectType, q.objectType) : undefined,
    q.errorType ? eq(e.type, q.errorType) : undefined,
    sql`${e.portalId} not in (select portal_id from account_fences where state != 'moving')`,
    after ? sql`(${e.erroredAt}, ${e.portalId}, ${e.storeId}, ${e.objectType}, ${e.externalId}) < (${after[0]}, ${after[1]}, ${after[2]}, ${after[3]}, ${after[4]})` : undefined,
  ];
  const pages = await onEveryShard(env, (db) =>
    db
      .select()
      .from(e)
      .where(and(...filters))
      .orderBy(desc(e.erroredAt), desc(e.portalId), desc(e.storeId), desc(e.objectType), desc(e.externalId))
      .limit(want)
      .all(),
  );
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
  const body: { results: ReturnType<typeof presentError>[]; paging?: { next: { page: string; link: string } } } = { results: page.map(presentError) };
  const last = page.at(-1);
  if (merged.length > skip + q.limit && last) {
    const next = String(skip + q.limit + 1);
    const link = new URL(url);
    link.searchParams.delete("hapikey"); // never echo a credential
    link.searchParams.delete("page");
    link.searchParams.set("after", encodeAfter(keyOf(last)));
    body.paging = { next: { page: next, link: link.toString() } };
  }
  return body;
}
