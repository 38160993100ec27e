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

/** One side's digest of a table so far: rows read and the chained SHA-256 of their pages. */
export interface Digest {
  rows: number;
  sha256: string;
}

/** Where a verification stands: the tables still to finish (indexes), and the first one's digests so far. */
export interface VerifyState {
  pending: number[];
  ours: Digest;
  theirs: Digest;
}

const mismatch = (t: AccountTable, a: Digest, b: Digest) =>
  new Error(`verification failed on ${t.name}: source ${a.rows} rows, target ${b.rows} rows, digests ${a.sha256 === b.sha256 ? "equal" : "differ"}`);

/**
 * One bounded step of the verification: the account's rows of each table, in a stable order (all columns),
 * digested page by page on both sides (SHA-256 chained over the pages), must be equal, or the move fails.
 * The first step reads the first page of every table in one batch per side and settles the tables that fit
 * in it; each later step reads one more page of the first unsettled table on each side: two D1 calls, so a
 * table of any size is verified over as many steps, never in one invocation. Returns the state after the
 * step, or null when every table is verified.
 */
export async function verifyStep(src: D1Database, dst: D1Database, tables: AccountTable[], portalId: number, state: VerifyState | null): Promise<VerifyState | null> {
  const cols = await columnsOf(src, tables);
  if (!state) {
    const [ours, theirs] = await Promise.all([src, dst].map((d1) => d1.batch<{ r: string }>(tables.map((t, i) => digestPage(d1, t, cols[i]!, portalId, 0)))));
    const pending: number[] = [];
    let first: { ours: Digest; theirs: Digest } | null = null;
    for (const [i, t] of tables.entries()) {
      const [a, b] = [ours![i]!.results, theirs![i]!.results];
      const da = { rows: a.length, sha256: await hashOn("", a) };
      const db = { rows: b.length, sha256: await hashOn("", b) };
      if (da.rows !== db.rows || da.sha256 !== db.sha256) throw mismatch(t, da, db);
      if (a.length < COPY_ROWS) continue;
      pending.push(i);
      first ??= { ours: da, theirs: db };
    }
    return first ? { pending, ...first } : null;
  }
  const i = state.pending[0]!;
  const t = tables[i]!;
  const offset = state.ours.rows;
  const [a, b] = await Promise.all([src, dst].map(async (d1) => (await digestPage(d1, t, cols[i]!, portalId, offset).all<{ r: string }>()).results));
  const ours = { rows: state.ours.rows + a!.length, sha256: await hashOn(state.ours.sha256, a!) };
  const theirs = { rows: state.theirs.rows + b!.length, sha256: await hashOn(state.theirs.sha256, b!) };
  if (ours.rows !== theirs.rows || ours.sha256 !== theirs.sha256) throw mismatch(t, ours, theirs);
  if (a!.length === COPY_ROWS) return { ...state, ours, theirs };
  const rest = state.pending.slice(1);
  if (rest.length === 0) return null;
  // The next unsettled table's first page was digested in the first step: read it again from the start.
  const again = rest[0]!;
  const [fa, fb] = await Promise.all([src, dst].map(async (d1) => (await digestPage(d1, tables[again]!, cols[again]!, portalId, 0).all<{ r: string }>()).results));
  return { pending: rest, ours: { rows: fa!.length, sha256: await hashOn("", fa!) }, theirs: { rows: fb!.length, sha256: await hashOn("", fb!) } };
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
