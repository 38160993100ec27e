/**
 * @module Rows of hand-written SQL mapped as drizzle maps its own (column values through each column's
 * `mapFromDriverValue`: booleans, JSON text). The hot reads (a post by id) keep their SQL text in a
 * constant built once per isolate: drizzle rebuilds a select's SQL on every call, which for a join of three
 * wide tables cost more Worker time than the D1 read itself.
 */
import { getTableColumns, type Table } from "drizzle-orm";

export interface RowReader<T> {
  /** `json_object('key', alias."column", …)`: one row of the table as a JSON object, by drizzle keys. */
  jsonObject(alias: string): string;
  /** An object `jsonObject` built (drizzle keys) as the table's drizzle row. */
  fromJson(json: Record<string, unknown>): T;
  /** `alias."column" as "key", …`: the table's columns under their drizzle keys, for `fromJson` on each row. */
  selectList(alias: string): string;
  /** `alias."column", …`: the table's columns in a fixed order, for a `raw()` read (arrays of values). */
  columnList(alias: string): string;
  /** How many columns `columnList` names. */
  width: number;
  /** The table's row from a `raw()` row, its columns (as `columnList` names them) starting at `offset`. */
  fromArray(row: unknown[], offset: number): T;
}

export function rowReader<TT extends Table>(table: TT): RowReader<TT["$inferSelect"]> {
  const columns = Object.entries(getTableColumns(table));
  const map = (get: (key: string, index: number) => unknown) => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < columns.length; i++) {
      const [key, col] = columns[i]!;
      const v = get(key, i);
      out[key] = v === null || v === undefined ? null : col.mapFromDriverValue(v);
    }
    return out as TT["$inferSelect"];
  };
  return {
    jsonObject: (alias) => `json_object(${columns.map(([key, col]) => `'${key}', ${alias}."${col.name}"`).join(", ")})`,
    fromJson: (json) => map((key) => json[key]),
    selectList: (alias) => columns.map(([key, col]) => `${alias}."${col.name}" as "${key}"`).join(", "),
    columnList: (alias) => columns.map(([, col]) => `${alias}."${col.name}"`).join(", "),
    width: columns.length,
    fromArray: (row, offset) => map((_, i) => row[offset + i]),
  };
}
