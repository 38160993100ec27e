/**
 * @module The data steps of a move (issue 16 §2; docs/scaling.md "Moves"), on raw D1 bindings:
 * chunked copy, verification against the source, and chunked deletes. Every write runs in one batch that
 * unlocks the account's fence first and locks it again last (migrations/0008_fences.sql), so only the
 * mover's own statements pass a fence.
 */
import type { AccountTable } from "./tables";

/** D1 binds at most 100 parameters per statement. */
export const MAX_BOUND = 100;
/** Rows read from the source per copy step; each step is one read and one batch on the target. */
export const COPY_ROWS = 500;
export const DELETE_ROWS = 500;

const unlock = (d1: D1Database, portalId: number) => d1.prepare("update account_fences set unlocked = 1 where portal_id = ?").bind(portalId);
const lock = (d1: D1Database, portalId: number) => d1.prepare("update account_fences set unlocked = 0 where portal_id = ?").bind(portalId);

/** Runs writes as the mover: fence unlocked for the batch's duration only (one transaction). */
export async function asMover(d1: D1Database, portalId: number, writes: D1PreparedStatement[]) {
  return d1.batch([unlock(d1, portalId), ...writes, lock(d1, portalId)]);
}

/**
 * Copies the next chunk of the account's rows of `table` (rowid order, after `after`) to the target.
 * Inserts are split so no statement binds more than 100 values. Rows keep their ids; rows of another
 * database's range leave the target's id counters alone (src/db/id-ranges.ts), and the id-range triggers
 * let them in because the batch runs as the mover.
 */
export async function copyChunk(src: D1Database, dst: D1Database, table: AccountTable, portalId: number, after: number) {
  const rows = await src
    .prepare(`select rowid as __rowid, * from ${table.name} where (${table.where}) and rowid > ? order by rowid limit ${COPY_ROWS}`)
    .bind(portalId, after)
    .raw({ columnNames: true });
  const [header, ...data] = rows as unknown[][];
  if (!header || data.length === 0) return { copied: 0, last: after, done: true };
  const cols = (header as string[]).slice(1);
  const perStatement = Math.max(1, Math.floor(MAX_BOUND / cols.length));
  const writes: D1PreparedStatement[] = [];
  for (let i = 0; i < data.length; i += perStatement) {
    const chunk = data.slice(i, i + perStatement);
    const values = chunk.map(() => `(${cols.map(() => "?").join(", ")})`).join(", ");
    writes.push(dst.prepare(`insert into ${table.name} (${cols.map((c) => `"${c}"`).join(", ")}) values ${values}`).bind(...chunk.flatMap((r) => r.slice(1))));
  }
  await asMover(dst, portalId, writes);
  return { copied: data.length, last: Number(data.at(-1)![0]), done: data.length < COPY_ROWS };
}

/** A digest of the account's rows of `table`, in a stable order (all columns): equal on both sides or the move fails. */
export async function digest(d1: D1Database, table: AccountTable, portalId: number): Promise<{ rows: number; sha256: string }> {
  const cols = (await d1.prepare(`select name from pragma_table_info('${table.name}')`).all<{ name: string }>()).results.map((c) => `"${c.name}"`);
  let acc = "";
  let rows = 0;
  for (let offset = 0; ; offset += COPY_ROWS) {
    const page = await d1
      .prepare(`select json_array(${cols.join(", ")}) as r from ${table.name} where ${table.where} order by ${cols.join(", ")} limit ${COPY_ROWS} offset ${offset}`)
      .bind(portalId)
      .all<{ r: string }>();
    rows += page.results.length;
    const bytes = new TextEncoder().encode(acc + page.results.map((x) => x.r).join("\n"));
    acc = [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
    if (page.results.length < COPY_ROWS) break;
  }
  return { rows, sha256: acc };
}

/** Deletes the next chunk of the account's rows of `table` (as the mover); returns how many went. */
export async function deleteChunk(d1: D1Database, table: AccountTable, portalId: number): Promise<number> {
  const [, del] = await asMover(d1, portalId, [
    d1.prepare(`delete from ${table.name} where rowid in (select rowid from ${table.name} where ${table.where} limit ${DELETE_ROWS})`).bind(portalId),
  ]);
  return del?.meta.changes ?? 0;
}
