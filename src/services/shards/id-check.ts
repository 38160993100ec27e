/**
 * @module The id check of `GET /admin/v1/shards?check=ids` (docs/how-to/recover-ids-held-twice.md): for every
 * account database, the rows whose ids lie outside its own range (rows of accounts moved in, or ids handed
 * out outside the range by a version before the id counters), the ids another database holds too, and id
 * counters behind the largest id of their range. It reads every out-of-range row of every database once,
 * plus one primary-key lookup per such row on the database owning its range: an operator's diagnosis, not
 * part of the plain listing.
 */
import { ID_RANGE, ID_TABLES, idBase, rangeOwner, type IdTable } from "../../db/id-ranges";
import { shardBinding } from "../../db/shards";
import { accountDatabases } from "../../db/fanout";
import { MAX_BOUND } from "../../db/d1-raw";

/** Ids read per statement. */
const PAGE = 1_000;
/** Examples of ids held twice, per database. */
const EXAMPLES = 20;

export interface IdReport {
  /** Rows whose id lies outside this database's range. */
  outsideRange: number;
  /** Ids of this database that another database holds too (same table). */
  heldTwice: number;
  examples: { table: string; id: number; alsoOn: string[] }[];
  /** Counters of this database behind the largest id of its range held anywhere: the next ids would collide. */
  countersBehind: { table: string; counter: number | null; highest: number }[];
}

/** Every id of `table` on `d1` in [from, to), in pages. */
async function idsBetween(d1: D1Database, table: IdTable, from: number, to: number): Promise<number[]> {
  const col = ID_TABLES[table];
  const out: number[] = [];
  for (let after = from - 1; ; ) {
    const rows = await d1.prepare(`select ${col} as id from ${table} where ${col} > ? and ${col} < ? order by ${col} limit ${PAGE}`).bind(after, to).raw<[number]>();
    for (const [id] of rows) out.push(id);
    if (rows.length < PAGE) return out;
    after = rows.at(-1)![0];
  }
}

/** Which of `ids` `d1` holds in `table`. */
async function present(d1: D1Database, table: IdTable, ids: number[]): Promise<Set<number>> {
  const col = ID_TABLES[table];
  const found = new Set<number>();
  for (let i = 0; i < ids.length; i += MAX_BOUND) {
    const chunk = ids.slice(i, i + MAX_BOUND);
    const rows = await d1.prepare(`select ${col} from ${table} where ${col} in (${chunk.map(() => "?").join(", ")})`).bind(...chunk).raw<[number]>();
    for (const [id] of rows) found.add(id);
  }
  return found;
}

/** The counter and the largest id of `database`'s own range that it holds. */
async function ownRange(d1: D1Database, database: string, table: IdTable) {
  const col = ID_TABLES[table];
  const base = idBase(database);
  const [seq, top] = await d1.batch<{ v: number | null }>([
    d1.prepare("select seq as v from id_sequences where name = ?").bind(table),
    d1.prepare(`select max(${col}) as v from ${table} where ${col} > ? and ${col} < ?`).bind(base, base + ID_RANGE),
  ]);
  return { counter: seq?.results[0]?.v ?? null, highest: top?.results[0]?.v ?? null };
}

/** The id check of every account database; a database that cannot be read is left out of the map. */
export async function checkIds(env: Env): Promise<Map<string, IdReport>> {
  const names = accountDatabases(env);
  const reports = new Map<string, IdReport>(names.map((n) => [n, { outsideRange: 0, heldTwice: 0, examples: [], countersBehind: [] }]));
  const unreadable = new Set<string>();
  for (const table of Object.keys(ID_TABLES) as IdTable[]) {
    /** id → the databases holding it, for ids found outside their holder's range. */
    const holders = new Map<number, Set<string>>();
    /** The largest id of each range found outside its owner. */
    const highestAway = new Map<string, number>();
    for (const name of names) {
      if (unreadable.has(name)) continue;
      try {
        const d1 = shardBinding(env, name);
        const base = idBase(name);
        const away = [...(await idsBetween(d1, table, 0, base + 1)), ...(await idsBetween(d1, table, base + ID_RANGE, Number.MAX_SAFE_INTEGER))];
        reports.get(name)!.outsideRange += away.length;
        for (const id of away) {
          holders.set(id, (holders.get(id) ?? new Set()).add(name));
          const owner = rangeOwner(id);
          highestAway.set(owner, Math.max(highestAway.get(owner) ?? 0, id));
        }
      } catch {
        unreadable.add(name);
      }
    }
    // The owner of each range may hold the same ids itself.
    for (const owner of names) {
      if (unreadable.has(owner)) continue;
      const theirs = [...holders.keys()].filter((id) => rangeOwner(id) === owner);
      try {
        const d1 = shardBinding(env, owner);
        for (const id of await present(d1, table, theirs)) holders.get(id)!.add(owner);
        const own = await ownRange(d1, owner, table);
        const highest = Math.max(own.highest ?? 0, highestAway.get(owner) ?? 0);
        if (highest > 0 && (own.counter === null || own.counter < highest)) reports.get(owner)!.countersBehind.push({ table, counter: own.counter, highest });
      } catch {
        unreadable.add(owner);
      }
    }
    for (const [id, dbs] of holders) {
      if (dbs.size < 2) continue;
      for (const name of dbs) {
        const r = reports.get(name)!;
        r.heldTwice++;
        if (r.examples.length < EXAMPLES) r.examples.push({ table, id, alsoOn: [...dbs].filter((d) => d !== name) });
      }
    }
  }
  for (const name of unreadable) reports.delete(name);
  return reports;
}
