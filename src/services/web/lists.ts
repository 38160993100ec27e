/**
 * @module One page of a web app list (docs/reference/web.md "Lists"): an account's live records of a type,
 * filtered with the v3 search's filters (src/services/crm/search.ts `filterCondition`, so an operator means
 * here what it means in `POST /crm/v3/objects/{type}/search`), optionally matched by name or email (`q`),
 * sorted by one property as the search sorts (records without the property last, ties by id), and paged
 * by a keyset cursor instead of an offset: the next page starts after the last shown record's sort value
 * and id, so no page reads the records of the pages before it.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rawRows } from "../../db/d1-raw";
import { isCustomType } from "../../db/tables/crm";
import { badRequest } from "../../lib/errors";
import { filterCondition, operand, type Filter, type Operand } from "../crm/search";
import { customTypeInfo } from "../crm/object-types";
import { definitionsOf } from "../crm/properties";
import { crmColumns, crmRowFromArray, type CrmRow } from "../crm/records";
import { LIST_PAGE_SIZE, type ListType } from "./records";

export interface ListPageInput {
  filters: Filter[];
  sort?: { propertyName: string; direction: "asc" | "desc" };
  /** Name or email, as the list's search box matches it (`searchCondition`). */
  q?: string;
  /** The previous page's `next`. */
  after?: string;
  limit?: number;
}

export interface ListPage {
  rows: CrmRow[];
  /** The cursor of the next page; null on the last page. */
  next: string | null;
}

/** The property the Name column sorts by: the one the name is made of first. */
export function nameProperty(type: ListType): string {
  if (isCustomType(type)) return customTypeInfo(type).primaryDisplayProperty ?? "hs_object_id";
  return { contacts: "firstname", companies: "name", deals: "dealname", tickets: "subject" }[type];
}

/** LIKE pattern for a substring, `\` escaping the wildcards the user typed. */
const containsPattern = (q: string) => `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const prop = (name: string) => sql`coalesce(json_extract(c.properties, ${`$."${name}"`}), '')`;

/** What the search box matches per type; LIKE is case-insensitive for ASCII. */
function searchCondition(type: ListType, q: string): SQL {
  const like = (expr: SQL) => sql`${expr} like ${containsPattern(q)} escape '\\'`;
  const any = (exprs: SQL[]) => (exprs.length ? sql`(${sql.join(exprs.map(like), sql` or `)})` : sql`0`);
  if (isCustomType(type)) {
    // A custom record is found by its primary display property and the schema's searchable properties.
    const info = customTypeInfo(type);
    return any([...new Set([info.primaryDisplayProperty, ...info.searchableProperties].filter((n): n is string => !!n))].map(prop));
  }
  switch (type) {
    case "contacts":
      return any([sql`${prop("firstname")} || ' ' || ${prop("lastname")}`, sql`coalesce(c.email, '')`]);
    case "companies":
      return any([prop("name"), prop("domain")]);
    case "deals":
      return any([prop("dealname")]);
    case "tickets":
      return any([prop("subject")]);
  }
}

type SortValue = number | string | null;

const toBase64Url = (s: string) => btoa(String.fromCharCode(...new TextEncoder().encode(s))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const fromBase64Url = (s: string) => new TextDecoder().decode(Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)));

/** `<id>` in id order; `<id>.<base64url JSON of the sort value>` on a sorted list. */
export function encodeCursor(id: number, value?: SortValue): string {
  return value === undefined ? String(id) : `${id}.${toBase64Url(JSON.stringify(value))}`;
}

const badCursor = () => badRequest("after: not a cursor of this list (sort, filters or columns changed): start from the first page", { errors: [{ message: "after: not a cursor of this list", code: "INVALID_CURSOR", in: "query", context: { propertyName: ["after"] } }] });

function decodeCursor(after: string, o: Operand | null): { id: number; value?: SortValue } {
  const [idText, encoded] = after.split(".") as [string, string | undefined];
  const id = Number(idText);
  if (!o) {
    if (encoded !== undefined) throw badCursor();
    return { id };
  }
  if (encoded === undefined) throw badCursor();
  let value: unknown;
  try {
    value = JSON.parse(fromBase64Url(encoded));
  } catch {
    throw badCursor();
  }
  // The value is bound as compared: a number for a number property, text otherwise.
  if (value !== null && typeof value !== (o.kind === "number" ? "number" : "string")) throw badCursor();
  return { id, value: value as SortValue };
}

/**
 * One page of the list. Cost: in id order (no sort, or by `hs_object_id`) the statement walks the account's
 * slice of the `crm_objects_list` index from the cursor and stops after `limit + 1` matches, so every page
 * costs the same few rows. Sorted by another property it visits every record of the type that passes the
 * filters (no index serves the sort: records without the property come last, and the search's property indexes leave them out) and keeps the best `limit + 1` after the cursor: the
 * same cost on the 400th page as on the first, where an OFFSET would also sort every skipped page.
 */
export async function listPage(db: Db, portalId: number, type: ListType, input: ListPageInput): Promise<ListPage> {
  const limit = input.limit ?? LIST_PAGE_SIZE;
  const names = [...input.filters.map((f) => f.propertyName), ...(input.sort ? [input.sort.propertyName] : [])];
  const props = await definitionsOf(db, portalId, type, names.filter((n) => !n.startsWith("associations.")));
  const conditions: SQL[] = [sql`c.portal_id = ${portalId} and c.object_type = ${type} and c.archived = 0`];
  input.filters.forEach((f, i) => conditions.push(filterCondition(type, props, portalId, f, `filter ${i + 1}`)));
  if (input.q) conditions.push(searchCondition(type, input.q));
  const byId = !input.sort || input.sort.propertyName === "hs_object_id";
  const desc = input.sort?.direction === "desc";
  let o: Operand | null = null;
  if (!byId) {
    const def = props.get(input.sort!.propertyName);
    if (!def) throw badRequest(`sort: ${type} has no property ${input.sort!.propertyName}`, { errors: [{ message: `sort: ${type} has no property ${input.sort!.propertyName}`, code: "INVALID_SORT", in: "query", context: { propertyName: ["sort"] } }] });
    o = operand(input.sort!.propertyName, def);
  }
  const cursor = input.after ? decodeCursor(input.after, o) : undefined;
  let order: SQL;
  if (!o) {
    order = desc ? sql`c.id desc` : sql`c.id asc`;
    if (cursor) conditions.push(desc ? sql`c.id < ${cursor.id}` : sql`c.id > ${cursor.id}`);
  } else {
    order = sql`(${o.raw} is null), ${o.cmp} ${desc ? sql`desc` : sql`asc`}, c.id asc`;
    if (cursor) {
      const v = cursor.value;
      // After (v, id) in that order: records without the property come last, among them by id.
      conditions.push(
        v === null || v === undefined
          ? sql`(${o.raw} is null and c.id > ${cursor.id})`
          : sql`(${o.raw} is null or ${o.cmp} ${desc ? sql`<` : sql`>`} ${v} or (${o.raw} is not null and ${o.cmp} = ${v} and c.id > ${cursor.id}))`,
      );
    }
  }
  const key = o ? sql`, case when ${o.raw} is null then null else ${o.cmp} end` : sql``;
  const rows = await rawRows<unknown[]>(
    db,
    sql`select ${sql.raw(crmColumns("c"))}${key} from crm_objects c where ${sql.join(conditions, sql` and `)} order by ${order} limit ${limit + 1}`,
  );
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  const next = rows.length > limit && last ? encodeCursor(last[0] as number, o ? (last[10] as SortValue) : undefined) : null;
  return { rows: shown.map((r) => crmRowFromArray(r)), next };
}
