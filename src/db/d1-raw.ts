/**
 * @module Raw SQL statements for D1's own batch. drizzle-orm 0.45 cannot put a parameterised `db.run(sql)`
 * in `db.batch` (its SQLiteRaw has no prepared statement to bind), so hand-written statements (json_each
 * bulk writes, UPDATE ... FROM) are rendered with drizzle's dialect and sent to the D1 binding's batch,
 * which is the same single transaction.
 */
import { SQL, sql } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import type { Db } from "./client";

const dialect = new SQLiteAsyncDialect();

/**
 * A statement already rendered: its text with `?` placeholders and the values they bind, in order. The sync
 * consumer's per-batch statements are built this way: drizzle's `sql` fragments, nested per row and rendered
 * by the dialect, cost more Worker CPU than D1 spends running them (about 1.5 ms per batch of 100).
 */
export interface BoundQuery {
  sql: string;
  params: unknown[];
}

/** The text and bound values of a drizzle `sql` query, or of a query already rendered. */
export const queryOf = (query: SQL | BoundQuery): BoundQuery => (query instanceof SQL ? dialect.sqlToQuery(query) : query);

export function rawStatement(db: Db, query: SQL | BoundQuery): D1PreparedStatement {
  const q = queryOf(query);
  return db.$client.prepare(q.sql).bind(...q.params);
}

/** A raw query's rows as arrays of column values, in the order its SELECT lists them (D1's `raw()`). */
export function rawRows<T extends unknown[]>(db: Db, query: SQL | BoundQuery): Promise<T[]> {
  const q = queryOf(query);
  return db.$client.prepare(q.sql).bind(...q.params).raw<T>();
}

/** Runs the statements as one D1 batch (all or nothing). */
export const runRawBatch = (db: Db, statements: D1PreparedStatement[]) => db.$client.batch(statements);

/** A drizzle query builder as a D1 statement, its values mapped to the driver's as drizzle would. */
export function builderStatement(db: Db, builder: { toSQL(): { sql: string; params: unknown[] } }): D1PreparedStatement {
  const q = builder.toSQL();
  return db.$client.prepare(q.sql).bind(...q.params);
}

/**
 * A parameterised raw query as an item of drizzle's `db.batch`, so it shares the batch's round trip with
 * typed queries. drizzle 0.45's batch prepares each item through `_prepare()` and binds `getQuery().params`
 * to its `stmt`, then maps the D1 result with `mapResult`; this item provides exactly those (its own raw
 * `db.all(sql)` has no statement to bind). Rows come back as D1 returns them: column names as written.
 */
export function rawBatchItem<T>(db: Db, query: SQL | BoundQuery): Promise<T[]> {
  const q = queryOf(query);
  const stmt = db.$client.prepare(q.sql);
  const prepared = { getQuery: () => q, stmt, mapResult: (result: D1Result<T>) => result.results };
  return { _prepare: () => prepared } as unknown as Promise<T[]>;
}

/** D1 binds at most this many values to one statement. */
export const MAX_BOUND = 100;

/** `items` in groups of at most `size` (bound lists within MAX_BOUND). */
export function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * A number written into the SQL text instead of bound: D1 binds at most 100 values per statement, and the
 * multi-row statements of the sync bind only their strings. Only finite numbers, so nothing else can reach
 * the text this way.
 */
export function sqlNumber(n: number): SQL {
  return sql.raw(numberText(n));
}

/** A finite number as SQL text (sqlNumber, for statements rendered by hand: BoundQuery). */
export function numberText(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`not a finite number: ${n}`);
  return String(n);
}
