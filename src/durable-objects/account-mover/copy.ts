/**
 * @module The data steps of a move (docs/explanation/scaling.md "Moves"), on raw D1 bindings:
 * chunked copy, verification against the source, and chunked deletes. Every write runs in one batch that
 * unlocks the account's fence first and locks it again last (migrations/0008_fences.sql), so only the
 * mover's own statements pass a fence.
 */
import type { AccountTable } from "../../db/account-tables";
import { MAX_BOUND } from "../../db/d1-raw";

/** Rows read from the source per copy step; each step is one read and one batch on the target. */
export const COPY_ROWS = 500;
export const DELETE_ROWS = 500;

// The fence and, on a home shard whose companion tables live elsewhere, the companion marker
// (migrations/0035_companions.sql): both guard the account's rows, both let the mover through.
const setUnlocked = (d1: D1Database, portalId: number, v: 0 | 1) => [
  d1.prepare(`update account_fences set unlocked = ${v} where portal_id = ?`).bind(portalId),
  d1.prepare(`update account_companions set unlocked = ${v} where portal_id = ?`).bind(portalId),
];
const GUARDS = 2;

/** Runs writes as the mover: fence unlocked for the batch's duration only (one transaction). Results of `writes` only. */
export async function asMover(d1: D1Database, portalId: number, writes: D1PreparedStatement[]) {
  const res = await d1.batch([...setUnlocked(d1, portalId, 1), ...writes, ...setUnlocked(d1, portalId, 0)]);
  return res.slice(GUARDS, -GUARDS);
}

/** Inserts of `rows` (column → value, rowid first) into `table`, none binding more than 100 values. */
function insertStatements(dst: D1Database, table: AccountTable, rows: Record<string, unknown>[]): D1PreparedStatement[] {
  const cols = Object.keys(rows[0]!).filter((c) => c !== "__rowid");
  const perStatement = Math.max(1, Math.floor(MAX_BOUND / cols.length));
  const writes: D1PreparedStatement[] = [];
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement);
    const values = chunk.map(() => `(${cols.map(() => "?").join(", ")})`).join(", ");
    writes.push(dst.prepare(`insert into ${table.name} (${cols.map((c) => `"${c}"`).join(", ")}) values ${values}`).bind(...chunk.flatMap((r) => cols.map((c) => r[c]))));
  }
  return writes;
}

/**
 * Copies the next chunk of the account's rows to the target: of `tables[from]` (rowid order, after `after`)
 * and of every later table, read in one batch and written in one batch, up to the first table with more
 * than a chunk left (COPY_ROWS rows per table at most). Returns the rows copied per table and where the next
 * step starts (`table` = tables.length when all are copied). Rows keep their ids; rows of another
 * database's range leave the target's id counters alone (src/db/id-ranges.ts), and the id-range triggers
 * let them in because the batch runs as the mover.
 */
export async function copyChunks(src: D1Database, dst: D1Database, tables: AccountTable[], from: number, portalId: number, after: number) {
  const reads = tables
    .slice(from)
    .map((t, i) => src.prepare(`select rowid as __rowid, * from ${t.name} where (${t.where}) and rowid > ? order by rowid limit ${COPY_ROWS}`).bind(portalId, i === 0 ? after : 0));
  const pages = await src.batch<Record<string, unknown>>(reads);
  const copied: Record<string, number> = {};
  const writes: D1PreparedStatement[] = [];
  let next = { table: tables.length, after: 0 };
  for (const [i, page] of pages.entries()) {
    const table = tables[from + i]!;
    const rows = page.results;
    if (rows.length) {
      writes.push(...insertStatements(dst, table, rows));
      copied[table.name] = rows.length;
    }
    if (rows.length === COPY_ROWS) {
      next = { table: from + i, after: Number(rows.at(-1)!.__rowid) };
      break;
    }
  }
  if (writes.length) await asMover(dst, portalId, writes);
  return { copied, ...next };
}

/** Column lists by table (one schema on every database), read once per isolate. */
const columnCache = new Map<string, string[]>();

export async function columnsOf(d1: D1Database, tables: AccountTable[]): Promise<string[][]> {
  const missing = tables.filter((t) => !columnCache.has(t.name));
  if (missing.length) {
    const res = await d1.batch<{ name: string }>(missing.map((t) => d1.prepare(`select name from pragma_table_info('${t.name}')`)));
    missing.forEach((t, i) => columnCache.set(t.name, res[i]!.results.map((c) => `"${c.name}"`)));
  }
  return tables.map((t) => columnCache.get(t.name)!);
}

const digestPage = (d1: D1Database, table: AccountTable, cols: string[], portalId: number, offset: number) =>
  d1.prepare(`select json_array(${cols.join(", ")}) as r from ${table.name} where ${table.where} order by ${cols.join(", ")} limit ${COPY_ROWS} offset ${offset}`).bind(portalId);

async function hashOn(acc: string, rows: { r: string }[]): Promise<string> {
  const bytes = new TextEncoder().encode(acc + rows.map((x) => x.r).join("\n"));
  return [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * A digest of the account's rows of each table, in a stable order (all columns): equal on both sides or the
 * move fails. The first page of every table is read in one batch; only tables with more rows read on.
 */
export async function digestAll(d1: D1Database, tables: AccountTable[], portalId: number): Promise<{ rows: number; sha256: string }[]> {
  const cols = await columnsOf(d1, tables);
  const first = await d1.batch<{ r: string }>(tables.map((t, i) => digestPage(d1, t, cols[i]!, portalId, 0)));
  return Promise.all(
    tables.map(async (t, i) => {
      let page = first[i]!.results;
      let rows = page.length;
      let acc = await hashOn("", page);
      for (let offset = COPY_ROWS; page.length === COPY_ROWS; offset += COPY_ROWS) {
        page = (await digestPage(d1, t, cols[i]!, portalId, offset).all<{ r: string }>()).results;
        rows += page.length;
        acc = await hashOn(acc, page);
      }
      return { rows, sha256: acc };
    }),
  );
}

/** Deletes the next chunk of the account's rows of every table (as the mover, one batch); returns how many went. */
export async function deleteChunks(d1: D1Database, tables: AccountTable[], portalId: number): Promise<number> {
  const res = await asMover(
    d1,
    portalId,
    tables.map((t) => d1.prepare(`delete from ${t.name} where rowid in (select rowid from ${t.name} where ${t.where} limit ${DELETE_ROWS})`).bind(portalId)),
  );
  return res.reduce((n, r) => n + (r.meta.changes ?? 0), 0);
}
