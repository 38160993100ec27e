/**
 * @module `POST /crm/v3/objects/{objectType}/search` (docs/reference/crm.md "Search"): filter groups ORed, the
 * filters of a group ANDed, `query`, one sort and offset paging, compiled to ONE statement that also counts
 * the matches (a count over the same matches, stopping at MAX_TOTAL). Without `query` the statement walks the account's records of the type in
 * the `crm_objects_list` index; a contact `query` is driven by the full-text index `contact_search`
 * (migration 0006) instead, each match one primary-key lookup, as the v1 search does. An EQ, IN or
 * HAS_PROPERTY filter on an indexed property (INDEXED_PROPERTIES) reads that property's expression index.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { INDEXED_PROPERTIES, indexedPath, OBJECT_TYPES, type ObjectType } from "../../db/tables/crm";
import { badRequest } from "../../lib/errors";
import { rawRows } from "../../db/d1-raw";
import { matchExpression, searchWords } from "./contact-search";
import { definitionsOf, searchableOf, type PropertyDef } from "./properties";
import { projection, type ProjectedRecord } from "./projection";
import { MAX_TOTAL, type Operator } from "../../schemas/crm/search";


export interface Filter {
  propertyName: string;
  operator: Operator;
  value?: string;
  highValue?: string;
  values?: string[];
}

export interface SearchInput {
  filterGroups: { filters: Filter[] }[];
  sort?: { propertyName: string; direction: "ASCENDING" | "DESCENDING" };
  query?: string;
  limit: number;
  /** Offset of the page's first result, from the previous page's `paging.next.after`. */
  after: number;
  /** The stored properties each result carries (not the column-backed ones, `isColumnProperty`). */
  properties: string[];
  /**
   * A test account's search lag (src/services/testkit/quirks.ts): records written after this time are not
   * in the index yet, so they match nothing. Undefined: every record is.
   */
  indexedUntil?: number;
}


/** How a value of the property compares: as a number (numbers, dates), case-sensitively, or case-insensitively. */
export type Kind = "number" | "exact" | "text";
export interface Operand {
  /** The value as stored (text for JSON properties, integers for the columns). */
  raw: SQL;
  /** The value as compared. */
  cmp: SQL;
  kind: Kind;
}

/** Column-backed system properties; every other property is read from the record's JSON. */
const COLUMNS: Record<string, SQL> = {
  hs_object_id: sql`c.id`,
  createdate: sql`c.created_at`,
  hs_createdate: sql`c.created_at`,
  lastmodifieddate: sql`c.updated_at`,
  hs_lastmodifieddate: sql`c.updated_at`,
};

/** True for the system properties a record's columns hold (`hs_object_id`, the dates). */
export const isColumnProperty = (name: string) => Object.hasOwn(COLUMNS, name);

/**
 * A property as the search reads and compares it; the web app's lists sort by it too (src/services/web/lists.ts).
 * `raw` is how a JSON property's value is read: by default with its path a parameter; `indexedValue` for an
 * indexed one.
 */
export function operand(name: string, def: PropertyDef, raw: SQL = sql`json_extract(c.properties, ${`$."${name}"`})`): Operand {
  const column = COLUMNS[name];
  if (column) return { raw: column, cmp: column, kind: "number" };
  if (def.type === "number" || def.type === "date" || def.type === "datetime") return { raw, cmp: sql`cast(${raw} as real)`, kind: "number" };
  if (def.type === "enumeration") return { raw, cmp: raw, kind: "exact" };
  return { raw, cmp: sql`lower(${raw})`, kind: "text" };
}

/** True for a property of the type with an expression index (INDEXED_PROPERTIES, migrations/0037_search_indexes.sql). */
const isIndexed = (type: ObjectType, name: string): boolean =>
  ((INDEXED_PROPERTIES as Partial<Record<ObjectType, readonly string[]>>)[type] ?? []).includes(name);

/** An indexed property's value, written exactly as its index's expression (the path a literal), so SQLite can use the index. */
const indexedValue = (name: string): SQL => sql`json_extract(c.properties, ${sql.raw(indexedPath(name))})`;

/**
 * The operators that read an indexed property through its index: each selects index entries of one value (or
 * a few), in id order within a value, or all of the type's entries. A range (LT, BETWEEN…) keeps the plain
 * expression: through the index its matches would come in value order, and a page in id order would
 * sort all of them (18,002 rows read against 12,200 for a range half of 12,000 contacts match, measured in
 * the local D1). The negations match records without the property, which the index leaves out.
 */
const INDEX_OPERATORS: ReadonlySet<Operator> = new Set(["EQ", "IN", "HAS_PROPERTY"]);

const fieldError = (at: string, message: string) =>
  badRequest(`${at}: ${message}`, { errors: [{ message: `${at}: ${message}`, code: "INVALID_FILTER", in: "body", context: { propertyName: [at] } }] });

/** A filter value as compared: a number (a date may be epoch milliseconds or ISO 8601), or text. */
function compared(kind: Kind, value: string, at: string, def: PropertyDef): number | string {
  if (kind === "number") {
    const dated = def.type === "date" || def.type === "datetime";
    const n = /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : dated ? Date.parse(value) : NaN;
    if (!Number.isFinite(n)) throw fieldError(at, `${JSON.stringify(value)} is not a ${dated ? "date (epoch milliseconds or ISO 8601)" : "number"}`);
    return n;
  }
  return kind === "text" ? value.toLowerCase() : value;
}

const param = (kind: Kind, value: string, at: string, def: PropertyDef): SQL => sql`${compared(kind, value, at, def)}`;

/** CONTAINS_TOKEN's pattern: `*` is a wildcard; without one, the token may sit anywhere in the value. */
function likePattern(value: string): string {
  const escaped = value.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
  return escaped.includes("*") ? escaped.replace(/\*/g, "%") : `%${escaped}%`;
}

/** The `associations.{type}` pseudo-property: records associated with the given id(s). */
const ASSOCIATION_TYPES: Record<string, ObjectType> = {
  contact: "contacts", company: "companies", deal: "deals", product: "products", line_item: "line_items", ticket: "tickets",
  note: "notes", task: "tasks", call: "calls", meeting: "meetings", email: "emails", communication: "communications", lead: "leads",
  ...Object.fromEntries(OBJECT_TYPES.map((t) => [t, t])),
};

function associationCondition(portalId: number, f: Filter, at: string): SQL {
  const to = ASSOCIATION_TYPES[f.propertyName.slice("associations.".length)];
  if (!to) throw fieldError(`${at}.propertyName`, `unknown association type in ${f.propertyName}`);
  const ids = f.operator === "EQ" ? [f.value] : f.operator === "IN" ? f.values : undefined;
  if (!ids || ids.length === 0) throw fieldError(`${at}.operator`, `${f.propertyName} takes EQ with a value or IN with values`);
  if (ids.some((id) => !/^\d{1,15}$/.test(id ?? ""))) throw fieldError(`${at}.value`, "association filters take record ids");
  return sql`exists (select 1 from crm_associations a where a.portal_id = ${portalId} and a.from_id = c.id and a.to_type = ${to}
    and a.to_id in (select value from json_each(${JSON.stringify(ids.map(Number))})))`;
}

/** One filter as SQL over `c` (a crm_objects row); the lists' filter branches use it too (src/services/lists/filters.ts). */
export function filterCondition(type: ObjectType, props: Map<string, PropertyDef>, portalId: number, f: Filter, at: string): SQL {
  if (f.propertyName.startsWith("associations.")) return associationCondition(portalId, f, at);
  const def = props.get(f.propertyName);
  if (!def) throw fieldError(`${at}.propertyName`, `${type} has no property ${f.propertyName} (define it with /crm/v3/properties/${type})`);
  const o = INDEX_OPERATORS.has(f.operator) && isIndexed(type, f.propertyName) ? operand(f.propertyName, def, indexedValue(f.propertyName)) : operand(f.propertyName, def);
  const need = (key: "value" | "highValue"): string => {
    const v = f[key];
    if (v === undefined) throw fieldError(`${at}.${key}`, `required for ${f.operator}`);
    return v;
  };
  // The values go as one JSON parameter: D1 binds at most 100 parameters per statement, and a search may
  // carry several lists of up to 100 values each.
  const list = (): SQL => {
    if (!f.values || f.values.length === 0) throw fieldError(`${at}.values`, `required for ${f.operator}`);
    const values = f.values.map((v, i) => compared(o.kind, v, `${at}.values.${i}`, def));
    return sql`(select value from json_each(${JSON.stringify(values)}))`;
  };
  // The contact email column is lower-cased and indexed (crm_objects_contact_email): equality uses it.
  if (type === "contacts" && f.propertyName === "email" && f.operator === "EQ") return sql`c.email = ${need("value").trim().toLowerCase()}`;
  switch (f.operator) {
    case "EQ": return sql`${o.cmp} = ${param(o.kind, need("value"), `${at}.value`, def)}`;
    case "NEQ": return sql`(${o.raw} is null or ${o.cmp} <> ${param(o.kind, need("value"), `${at}.value`, def)})`;
    case "LT": return sql`${o.cmp} < ${param(o.kind, need("value"), `${at}.value`, def)}`;
    case "LTE": return sql`${o.cmp} <= ${param(o.kind, need("value"), `${at}.value`, def)}`;
    case "GT": return sql`${o.cmp} > ${param(o.kind, need("value"), `${at}.value`, def)}`;
    case "GTE": return sql`${o.cmp} >= ${param(o.kind, need("value"), `${at}.value`, def)}`;
    case "BETWEEN":
      return sql`${o.cmp} between ${param(o.kind, need("value"), `${at}.value`, def)} and ${param(o.kind, need("highValue"), `${at}.highValue`, def)}`;
    case "IN": return sql`${o.cmp} in ${list()}`;
    case "NOT_IN": return sql`(${o.raw} is null or ${o.cmp} not in ${list()})`;
    case "HAS_PROPERTY": return sql`${o.raw} is not null`;
    case "NOT_HAS_PROPERTY": return sql`${o.raw} is null`;
    case "CONTAINS_TOKEN": return sql`${o.raw} like ${likePattern(need("value"))} escape '\\'`;
    case "NOT_CONTAINS_TOKEN": return sql`(${o.raw} is null or ${o.raw} not like ${likePattern(need("value"))} escape '\\')`;
  }
}

/** `query` on a type without a full-text index: every word in one of the type's searchable properties. */
function queryCondition(type: ObjectType, query: string): SQL | null {
  const words = searchWords(query);
  if (words.length === 0) return null;
  const per = words.map((w) => {
    const pattern = likePattern(w);
    return sql`(${sql.join(searchableOf(type).map((p) => sql`json_extract(c.properties, ${`$."${p}"`}) like ${pattern} escape '\\'`), sql` or `)})`;
  });
  return sql.join(per, sql` and `);
}

/**
 * One page of matches and their total. Sorting puts records without the sort property last, then ties
 * in creation (id) order; without a sort, results come oldest first.
 */
export async function searchObjects(db: Db, portalId: number, type: ObjectType, input: SearchInput): Promise<{ rows: ProjectedRecord[]; total: number }> {
  // Only the properties the body names; none is read from D1 when all are built in (the common case), so
  // the search is one round trip. A custom one costs a second, before the search can be compiled.
  const named = [...input.filterGroups.flatMap((g) => g.filters.map((f) => f.propertyName)), ...(input.sort ? [input.sort.propertyName] : [])];
  const props = await definitionsOf(db, portalId, type, named.filter((n) => !n.startsWith("associations.")));
  // A group without filters matches every record, as an empty AND does.
  const groups = input.filterGroups.map((g, i) =>
    g.filters.length ? sql`(${sql.join(g.filters.map((f, j) => filterCondition(type, props, portalId, f, `filterGroups.${i}.filters.${j}`)), sql` and `)})` : sql`1`,
  );
  const conditions: SQL[] = groups.length ? [sql`(${sql.join(groups, sql` or `)})`] : [];
  let order = sql`c.id asc`;
  if (input.sort) {
    const def = props.get(input.sort.propertyName);
    if (!def) throw fieldError("sorts.0.propertyName", `${type} has no property ${input.sort.propertyName}`);
    const o = operand(input.sort.propertyName, def);
    order = sql`(${o.raw} is null), ${o.cmp} ${input.sort.direction === "DESCENDING" ? sql`desc` : sql`asc`}, c.id asc`;
  }
  const count = Math.min(input.limit, MAX_TOTAL - input.after);
  const words = type === "contacts" && input.query ? searchWords(input.query) : [];
  let from: SQL;
  if (words.length) {
    // CROSS JOIN and the unary + keep the FTS index as the outer loop (src/services/crm/contact-search.ts).
    from = sql`contact_search s cross join crm_objects c on c.id = s.rowid and +c.portal_id = ${portalId} and +c.object_type = 'contacts' and +c.archived = 0`;
    conditions.unshift(sql`contact_search match ${matchExpression(portalId, words)}`);
  } else {
    from = sql`crm_objects c`;
    conditions.unshift(sql`c.portal_id = ${portalId} and c.object_type = ${type} and c.archived = 0`);
    const q = type !== "contacts" && input.query ? queryCondition(type, input.query) : null;
    if (q) conditions.push(q);
  }
  if (input.indexedUntil !== undefined) conditions.push(sql`c.updated_at <= ${input.indexedUntil}`);
  const where = sql.join(conditions, sql` and `);
  // The total is a count over the same matches, written once as a CTE that SQLite expands in both places
  // (NOT MATERIALIZED, so its values are bound once). A window count (`count(*) over ()`) buffers every
  // match in a temporary table that D1 counts as rows read again: 482 rows read for a page of 100 of 120
  // matches against 221 this way (measured in the local D1), the same total.
  // The total stops at MAX_TOTAL matches (`limit` inside the count): the real service answers at most
  // MAX_TOTAL results per query, so no page can reach past it, and an exact count would read every match of
  // an account of any size (100,000 contacts: 100,000 rows read per search). Past MAX_TOTAL matches the
  // total is MAX_TOTAL: "at least this many, and all that can be paged to" (docs/reference/crm.md, Search).
  // Only the asked properties leave D1 (projection.ts). Rows as arrays (raw): the projection, then the total.
  const picked = projection(input.properties);
  const rows = await rawRows<unknown[]>(
    db,
    sql`with m as not materialized (select c.* from ${from} where ${where})
      select ${sql.raw(picked.columns)}, (select count(*) from (select 1 from m limit ${sql.raw(String(MAX_TOTAL))})) as total
      from m c order by ${order} limit ${count} offset ${input.after}`,
  );
  let total = (rows[0]?.[picked.width] as number | undefined) ?? 0;
  if (rows.length === 0 && input.after > 0) {
    // Past the end: no row carries the count, so count the matches on their own (bounded the same way).
    const [n] = await db.all<{ n: number }>(sql`select count(*) as n from (select 1 from ${from} where ${where} limit ${sql.raw(String(MAX_TOTAL))})`);
    total = n?.n ?? 0;
  }
  return { rows: rows.map(picked.read), total };
}
