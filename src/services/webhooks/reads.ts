/**
 * @module The app's delivery log as its developer reads it (`/webhooks/v3/{appId}/deliveries`,
 * docs/reference/webhooks.md "The delivery log"), over the databases that hold it (where.ts), as the app's
 * sync errors are read (src/services/ecomm/app-errors.ts): in windows of at most LOG_DATABASES_PER_PAGE
 * databases in database order, each read once per request, so a request costs at most that many D1 queries
 * plus the control plane's read, whatever the number of databases and installs.
 *
 * Order: newest first by (createdAt, id) within a window (each database's page is merged); with more
 * databases than one window holds, windows follow in database order. `paging.next.before` is a cursor naming
 * the window's first database and the key of the page's last row (or no key: the next window from its top);
 * a plain delivery id, as the control plane's older log gave, lists the first window's deliveries of smaller ids. A
 * database that fails is named in `unavailableShards` and skipped.
 */
import { and, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { FANOUT_CONCURRENCY, inPool } from "../../db/fanout";
import { rangeOwner } from "../../db/id-ranges";
import { webhookAttempts, webhookDeliveries, type DeliveryStatus } from "../../db/tables/webhooks";
import { badRequest, conflict, notFound } from "../../lib/errors";
import { reopenStatement, type AttemptRow, type DeliveryRow } from "./log";
import { appLogDatabases, byDatabaseOrder, logDb, servedHere } from "./where";

/** Databases read per request: with the control-plane read and the attempts' reads, within 50 D1 queries. */
export const LOG_DATABASES_PER_PAGE = 20;

type Key = [number, number];
interface Cursor {
  db: string;
  key?: Key;
  /** A plain delivery id given as `before`: the rows below it. */
  below?: number;
}

const b64 = (s: string) => btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
export const encodeBefore = (c: Cursor) => b64(JSON.stringify(c.key ? [c.db, ...c.key] : [c.db]));

function decodeBefore(s: string): Cursor {
  // A delivery id, as `paging.next.before` was before the log spanned databases: the first window's smaller
  // ids (every id of the older log is below every shard's range, so such a cursor skips no older row).
  if (/^\d{1,15}$/.test(s)) return { db: "", below: Number(s) };
  try {
    const c: unknown = JSON.parse(atob(s.replace(/-/g, "+").replace(/_/g, "/")));
    if (Array.isArray(c) && typeof c[0] === "string") {
      if (c.length === 1) return { db: c[0] };
      if (c.length === 3 && Number.isSafeInteger(c[1]) && Number.isSafeInteger(c[2])) return { db: c[0], key: [c[1] as number, c[2] as number] };
    }
  } catch {
    // falls through to the 400
  }
  throw badRequest("Invalid query: before: not a cursor from paging.next", {
    errors: [{ message: "before is not a cursor this API issued", in: "query", context: { propertyName: ["before"] } }],
  });
}

const keyOf = (r: DeliveryRow): Key => [r.createdAt, r.id];
/** Descending: negative when a comes first. */
const compare = (a: Key, b: Key) => b[0] - a[0] || b[1] - a[1];

/** Attempts of the page's deliveries on one database, one statement (ids bound, at most 100). */
const attemptsOf = (db: Db, ids: number[]) =>
  ids.length ? db.select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, ids)).orderBy(webhookAttempts.attemptNumber).all() : Promise.resolve([] as AttemptRow[]);

export async function listDeliveries(env: Env, control: Db, appId: number, q: { limit: number; before?: string; status?: DeliveryStatus }) {
  const cursor = q.before !== undefined ? decodeBefore(q.before) : undefined;
  const dbs = await appLogDatabases(env, control, appId);
  let start = 0;
  if (cursor && cursor.db !== "") {
    // The cursor's database holds no install of the app any more: the window starts at the next one in order.
    const at = dbs.findIndex((d) => byDatabaseOrder(d, cursor.db) >= 0);
    start = at < 0 ? dbs.length : at;
  }
  const window = dbs.slice(start, start + LOG_DATABASES_PER_PAGE);
  const key = cursor && (cursor.db === "" || cursor.db === window[0]) ? cursor.key : undefined;
  const d = webhookDeliveries;
  const filters: (SQL | undefined)[] = [
    eq(d.appId, appId),
    q.status ? eq(d.status, q.status) : undefined,
    servedHere("webhook_deliveries.portal_id"),
    key ? sql`(${d.createdAt}, ${d.id}) < (${key[0]}, ${key[1]})` : undefined,
    cursor?.below !== undefined && start === 0 ? sql`${d.id} < ${cursor.below}` : undefined,
  ];
  const unavailable: string[] = [];
  const pages = await inPool(window, FANOUT_CONCURRENCY, async (name) => {
    try {
      return await logDb(env, name)
        .select()
        .from(d)
        .where(and(...filters))
        .orderBy(desc(d.createdAt), desc(d.id))
        .limit(q.limit + 1)
        .all();
    } catch (err) {
      console.error(`delivery log of app ${appId}: database ${name} failed, skipped: ${err instanceof Error ? err.message : String(err)}`);
      unavailable.push(name);
      return [] as DeliveryRow[];
    }
  });
  // k-way merge of the databases' newest-first pages.
  const heads = pages.map(() => 0);
  const merged: { row: DeliveryRow; db: string }[] = [];
  while (merged.length < q.limit + 1) {
    let best = -1;
    for (let i = 0; i < pages.length; i++) {
      const row = pages[i]![heads[i]!];
      if (row && (best < 0 || compare(keyOf(row), keyOf(pages[best]![heads[best]!]!)) < 0)) best = i;
    }
    if (best < 0) break;
    merged.push({ row: pages[best]![heads[best]!++]!, db: window[best]! });
  }
  const page = merged.slice(0, q.limit);
  // The page's attempts, one statement per database it drew from (at most the window's).
  const byDb = new Map<string, number[]>();
  for (const { row, db } of page) byDb.set(db, [...(byDb.get(db) ?? []), row.id]);
  const attempts = (await inPool([...byDb], FANOUT_CONCURRENCY, ([db, ids]) => attemptsOf(logDb(env, db), ids))).flat();
  const last = page.at(-1);
  const nextWindow = dbs[start + LOG_DATABASES_PER_PAGE];
  const next: Cursor | undefined = merged.length > q.limit && last ? { db: window[0]!, key: keyOf(last.row) } : nextWindow ? { db: nextWindow } : undefined;
  return { rows: page.map((p) => p.row), attempts, next: next && encodeBefore(next), unavailable: unavailable.sort(byDatabaseOrder) };
}

/**
 * Finds the app's delivery: first on the database whose id range holds the id (where it was opened, unless its
 * account moved since), then on the app's other log databases, up to LOG_DATABASES_PER_PAGE in all.
 */
export async function findDelivery(env: Env, control: Db, appId: number, id: number): Promise<{ row: DeliveryRow; attempts: AttemptRow[]; db: string }> {
  const dbs = await appLogDatabases(env, control, appId);
  const origin = rangeOwner(id);
  const first = dbs.includes(origin) ? [origin] : [];
  const rest = dbs.filter((n) => n !== origin).slice(0, LOG_DATABASES_PER_PAGE - first.length);
  const read = async (name: string) => {
    const db = logDb(env, name);
    const [rows, attempts] = await db.batch([
      db.select().from(webhookDeliveries).where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.appId, appId), servedHere("webhook_deliveries.portal_id"))),
      db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, id)).orderBy(webhookAttempts.attemptNumber),
    ]);
    return rows[0] ? { row: rows[0], attempts, db: name } : undefined;
  };
  for (const group of [first, rest]) {
    const found = (await inPool(group, FANOUT_CONCURRENCY, read)).find((f) => f !== undefined);
    if (found) return found;
  }
  throw notFound(`Delivery ${id} not found`);
}

/** Marks an exhausted delivery pending again on its database; anything else is a 409 (it is still being delivered, or done). */
export async function reopenExhausted(env: Env, control: Db, appId: number, id: number, now: number): Promise<{ row: DeliveryRow; attempts: AttemptRow[] }> {
  const { row, db, attempts } = await findDelivery(env, control, appId, id);
  if (row.status !== "exhausted") throw conflict(`Delivery ${id} is ${row.status}; only an exhausted delivery can be re-sent`);
  const updated = await reopenStatement(logDb(env, db), appId, id, now).get();
  if (!updated) throw conflict(`Delivery ${id} is being re-sent already`);
  return { row: updated, attempts };
}
