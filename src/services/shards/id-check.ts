/**
 * @module The id check of `GET /admin/v1/shards?check=ids` (docs/how-to/recover-ids-held-twice.md), one page of
 * databases at a time: for each database of the page, the rows whose ids lie outside its own range (rows of
 * accounts moved in, or ids handed out outside the range by a version before the id counters), which of those
 * ids the database owning their range holds too, and id counters behind the largest id of their range.
 *
 * Cost, whatever the number of databases: each database of the page is read in one batch of three statements
 * (every id table at once: the out-of-range counts, up to `AWAY_IDS` of those ids per table, the counters with the
 * highest id of the own range), and each range owner named by those ids in one batch of two (which of the
 * ids it holds; its counters), at most `MAX_OWNERS` owners per page. A page of `MAX_IDS_PAGE` databases thus
 * stays under 50 D1 queries.
 *
 * What a page sees: copies held by a database of the page and by the owner of the id's range (or by two
 * databases of the page) are reported on both sides when both are on the page, else on the page's side
 * (`alsoOn` names the owner); a counter of an owner outside the page that is behind an id found on the page is
 * reported in `ownerCountersBehind` of the database holding that id. Two copies of one id held by two
 * databases on different pages, neither of them the owner, are not compared (that needs the owner's counter
 * to have fallen behind, which its own page shows).
 */
import { ID_RANGE, ID_TABLES, idBase, rangeOwner, type IdTable } from "../../db/id-ranges";
import { shardBinding, shardDb } from "../../db/shards";

/** Out-of-range ids of one table of one database compared with their owners per page. */
export const AWAY_IDS = 1_000;
/** Range owners compared per page; the others are named in `unchecked`. */
export const MAX_OWNERS = 10;
/** Databases per page of the id check (3 queries each, plus 2 per owner). */
export const MAX_IDS_PAGE = 5;
/** Examples of ids held twice, per database. */
const EXAMPLES = 20;

const TABLES = Object.keys(ID_TABLES) as IdTable[];

export interface IdReport {
  /** Rows whose id lies outside this database's range. */
  outsideRange: number;
  /** Ids of this database that another database holds too (same table). */
  heldTwice: number;
  examples: { table: string; id: number; alsoOn: string[] }[];
  /** Counters of this database behind the largest id of its range held anywhere seen: the next ids would collide. */
  countersBehind: { table: string; counter: number | null; highest: number }[];
  /** Counters of range owners outside the page behind an id of their range that this database holds. */
  ownerCountersBehind?: { database: string; table: string; counter: number | null; highest: number }[];
  /** Owners of ids held here that this page could not compare (unreadable, or beyond MAX_OWNERS). */
  unchecked?: string[];
}

const outside = (db: string) => {
  const base = idBase(db);
  return (col: string) => `(${col} <= ${base} or ${col} >= ${base + ID_RANGE})`;
};

/*
 * Each statement reads every id table at once as one row of scalar subqueries in a JSON array, in TABLES order:
 * D1 refuses compound SELECTs of more than a few terms, so no UNION ALL. Range bounds are numbers we compute,
 * so they are inlined, not bound.
 */
const row = (parts: string[]) => `select json_array(${parts.join(", ")}) as v`;
/** Per table: rows outside the database's range. */
const awayCountsSql = (db: string) => row(TABLES.map((t) => `(select count(*) from ${t} where ${outside(db)(ID_TABLES[t])})`));
/** Per table: up to AWAY_IDS ids outside the database's range. */
const awayIdsSql = (db: string) =>
  row(TABLES.map((t) => `(select json_group_array(id) from (select ${ID_TABLES[t]} as id from ${t} where ${outside(db)(ID_TABLES[t])} limit ${AWAY_IDS}))`));
/** Per table: [the counter, the largest id of the database's own range it holds]. */
const ownSql = (db: string) => {
  const base = idBase(db);
  return row(
    TABLES.map(
      (t) =>
        `json_array((select seq from id_sequences where name = '${t}'), (select max(${ID_TABLES[t]}) from ${t} where ${ID_TABLES[t]} > ${base} and ${ID_TABLES[t]} < ${base + ID_RANGE}))`,
    ),
  );
};
/** Per table: which of the ids bound for it (a JSON array each, in TABLES order) the database holds. */
const presentSql = () => row(TABLES.map((t) => `(select json_group_array(${ID_TABLES[t]}) from ${t} where ${ID_TABLES[t]} in (select value from json_each(?)))`));

/** The one row's JSON array, one element per table (json_group_array and json_array nest as text or JSON). */
function perTable<T>(res: D1Result | undefined): T[] {
  const v = (res?.results[0] as { v: string } | undefined)?.v;
  const arr = JSON.parse(v ?? "[]") as unknown[];
  return arr.map((x) => (typeof x === "string" ? JSON.parse(x) : x) as T);
}

type Own = Map<IdTable, { seq: number | null; hi: number | null }>;
const ownOf = (res: D1Result | undefined): Own =>
  new Map(perTable<[number | null, number | null]>(res).map(([seq, hi], i) => [TABLES[i]!, { seq, hi }]));

function d1Of(env: Env, name: string): D1Database {
  shardDb(env, name); // the fault seam's outage point, as for any request to the database
  return shardBinding(env, name);
}

/** The id check of the databases `page` (each a configured database); a database that cannot be read maps to null. */
export async function checkIds(env: Env, page: string[]): Promise<Map<string, IdReport | null>> {
  const reports = new Map<string, IdReport | null>();
  const own = new Map<string, Own>();
  /** `table:id` → the databases holding it, for ids found outside their holder's range. */
  const holders = new Map<string, Set<string>>();
  /** owner → table → the largest id of its range found away. */
  const highestAway = new Map<string, Map<IdTable, number>>();
  /** owner → table → ids of its range found away. */
  const awayByOwner = new Map<string, Map<IdTable, Set<number>>>();
  const holdersOfOwner = new Map<string, Set<string>>();
  for (const name of page) {
    try {
      const d1 = d1Of(env, name);
      const [counts, ids, mine] = await d1.batch([d1.prepare(awayCountsSql(name)), d1.prepare(awayIdsSql(name)), d1.prepare(ownSql(name))]);
      const report: IdReport = { outsideRange: 0, heldTwice: 0, examples: [], countersBehind: [] };
      for (const n of perTable<number>(counts)) report.outsideRange += n;
      own.set(name, ownOf(mine));
      const away = perTable<number[]>(ids).flatMap((list, i) => list.map((id) => ({ t: TABLES[i]!, id })));
      for (const { t, id } of away) {
        const k = `${t}:${id}`;
        holders.set(k, (holders.get(k) ?? new Set()).add(name));
        const owner = rangeOwner(id);
        const high = highestAway.get(owner) ?? new Map<IdTable, number>();
        high.set(t, Math.max(high.get(t) ?? 0, id));
        highestAway.set(owner, high);
        const byTable = awayByOwner.get(owner) ?? new Map<IdTable, Set<number>>();
        byTable.set(t, (byTable.get(t) ?? new Set()).add(id));
        awayByOwner.set(owner, byTable);
        holdersOfOwner.set(owner, (holdersOfOwner.get(owner) ?? new Set()).add(name));
      }
      reports.set(name, report);
    } catch {
      reports.set(name, null);
    }
  }
  // Each owner holding ids found away: which of them it holds too, and its counters.
  let compared = 0;
  for (const [owner, byTable] of awayByOwner) {
    const unchecked = () => {
      for (const holder of holdersOfOwner.get(owner) ?? []) {
        const r = reports.get(holder);
        if (r) r.unchecked = [...new Set([...(r.unchecked ?? []), owner])];
      }
    };
    if (reports.get(owner) === null) {
      unchecked();
      continue;
    }
    if (!reports.has(owner) && compared >= MAX_OWNERS) {
      unchecked();
      continue;
    }
    try {
      const d1 = d1Of(env, owner);
      const present = d1.prepare(presentSql()).bind(...TABLES.map((t) => JSON.stringify([...(byTable.get(t) ?? [])])));
      const [held, mine] = await d1.batch([present, d1.prepare(ownSql(owner))]);
      if (!reports.has(owner)) compared++;
      perTable<number[]>(held).forEach((list, i) => {
        for (const id of list) holders.get(`${TABLES[i]}:${id}`)?.add(owner);
      });
      if (!own.has(owner)) own.set(owner, ownOf(mine));
    } catch {
      unchecked();
    }
  }
  for (const [k, dbs] of holders) {
    if (dbs.size < 2) continue;
    const [table, id] = [k.slice(0, k.indexOf(":")), Number(k.slice(k.indexOf(":") + 1))];
    for (const name of dbs) {
      const r = reports.get(name);
      if (!r) continue;
      r.heldTwice++;
      if (r.examples.length < EXAMPLES) r.examples.push({ table, id, alsoOn: [...dbs].filter((d) => d !== name) });
    }
  }
  // Counters behind: an owner's counter below the largest id of its range it or the page holds.
  for (const [owner, counters] of own) {
    for (const t of TABLES) {
      const { seq, hi } = counters.get(t) ?? { seq: null, hi: null };
      const highest = Math.max(hi ?? 0, highestAway.get(owner)?.get(t) ?? 0);
      if (highest <= 0 || (seq !== null && seq >= highest)) continue;
      const r = reports.get(owner);
      if (r) r.countersBehind.push({ table: t, counter: seq, highest });
      else {
        for (const holder of holdersOfOwner.get(owner) ?? []) {
          const hr = reports.get(holder);
          if (hr) (hr.ownerCountersBehind ??= []).push({ database: owner, table: t, counter: seq, highest });
        }
      }
    }
  }
  return reports;
}
