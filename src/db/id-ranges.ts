/**
 * @module Disjoint id ranges per database (docs/explanation/scaling.md "Ids"). An account that moves keeps
 * its ids, so no two databases may ever hand out the same id. `SHARD_<n>` numbers from n × 10^11 + 1 (n ≤ 9999
 * keeps every id within 15 digits, the API's id limit); the control plane `DB` from 1.
 *
 * Ids do not come from AUTOINCREMENT: SQLite takes its next id from the larger of sqlite_sequence and the
 * table's largest id, so once the mover copies in rows of a higher range, AUTOINCREMENT hands out ids of
 * that range. Every insert into an id table takes `newId(table)` instead: one more than the database's own
 * counter (id_sequences, src/db/tables/shards.ts), which triggers move on every insert within the range and
 * never down. Rows copied in from another range leave it alone, and an insert outside the range is refused
 * (ID_OUT_OF_RANGE) unless the mover is copying an account in (migrations/0010_id_sequences.sql).
 *
 * `seedStatements` start a database's counters (run by `npm run migrate` and the test setup after the
 * migrations). scripts/id-seed.mjs keeps a copy of ID_TABLES and of the seed for Node: change both together.
 */
import { sql, type SQL } from "drizzle-orm";
import { shardOrdinal } from "./shards";

export const ID_RANGE = 100_000_000_000;
export const MAX_SHARD_ORDINAL = 9999;

/** Account tables with a per-database id, with that column. */
export const ID_TABLES = {
  crm_objects: "id",
  blogs: "id",
  blog_authors: "id",
  blog_topics: "id",
  blog_posts: "id",
  smtp_tokens: "id",
  ecomm_links: "id",
  ecomm_imports: "id",
  timeline_events: "row_id",
  webhook_outbox: "id",
  sent_emails: "id",
  pipelines: "id",
  pipeline_stages: "id",
  pipeline_audits: "id",
  crm_schemas: "id",
  lists: "id",
  webhook_deliveries: "id",
} as const satisfies Record<string, string>;
export type IdTable = keyof typeof ID_TABLES;

export const isIdTable = (name: string): name is IdTable => Object.hasOwn(ID_TABLES, name);

/** The last id before a database's range (`DB` and names without a number: 0). */
export const idBase = (database: string) => shardOrdinal(database) * ID_RANGE;

/** Whether `id` lies in the range of `database`. */
export const inRange = (database: string, id: number) => id > idBase(database) && id < idBase(database) + ID_RANGE;

/** The database whose range holds `id` (`SHARD_<n>`, or `DB` for the first range). */
export const rangeOwner = (id: number) => {
  const n = Math.floor((id - 1) / ID_RANGE);
  return n === 0 ? "DB" : `SHARD_${n}`;
};

/**
 * The id of a new row of `table`: the database's counter plus one, or plus `1 + offset` for the row at
 * `offset` of a multi-row insert (SQLite evaluates every row's values before inserting any when the table
 * has triggers, so all rows see the same counter).
 */
export const newId = (table: IdTable, offset = 0): SQL => sql.raw(`(select seq + ${offset + 1} from id_sequences where name = '${table}')`);

/** The database's counter of `table`, for `INSERT … SELECT`: add the row's `row_number()` to it. */
export const idCounter = (table: IdTable): SQL => sql.raw(`(select seq from id_sequences where name = '${table}')`);

/**
 * Idempotent: starts each counter of `database` unless it has one, at the largest id of its range it holds
 * or AUTOINCREMENT handed out (so a database whose rows got AUTOINCREMENT ids continues after them).
 */
export function seedStatements(database: string): string[] {
  const base = idBase(database);
  const top = base + ID_RANGE;
  return Object.entries(ID_TABLES).map(
    ([t, c]) =>
      `insert into id_sequences (name, base, seq) select '${t}', ${base}, max(${base}, ` +
      `coalesce((select max(${c}) from ${t} where ${c} > ${base} and ${c} < ${top}), ${base}), ` +
      `coalesce((select seq from sqlite_sequence where name = '${t}' and seq > ${base} and seq < ${top}), ${base})) ` +
      `where not exists (select 1 from id_sequences where name = '${t}')`,
  );
}
