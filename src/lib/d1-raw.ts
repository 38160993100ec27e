/**
 * @module Raw SQL statements for D1's own batch. drizzle-orm 0.45 cannot put a parameterised `db.run(sql)`
 * in `db.batch` (its SQLiteRaw has no prepared statement to bind), so hand-written statements (json_each
 * bulk writes, UPDATE ... FROM) are rendered with drizzle's dialect and sent to the D1 binding's batch,
 * which is the same single transaction.
 */
import type { SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import type { Db } from "../db/client";

const dialect = new SQLiteAsyncDialect();

export function rawStatement(db: Db, query: SQL): D1PreparedStatement {
  const q = dialect.sqlToQuery(query);
  return db.$client.prepare(q.sql).bind(...q.params);
}

/** Runs the statements as one D1 batch (all or nothing). */
export const runRawBatch = (db: Db, statements: D1PreparedStatement[]) => db.$client.batch(statements);

/** A drizzle query builder as a D1 statement, its values mapped to the driver's as drizzle would. */
export function builderStatement(db: Db, builder: { toSQL(): { sql: string; params: unknown[] } }): D1PreparedStatement {
  const q = builder.toSQL();
  return db.$client.prepare(q.sql).bind(...q.params);
}
