/**
 * @module HTML of the record lists (docs/reference/web.md "Lists"): one page of an object type's records
 * with the search box, the filters and the column chooser (one GET form, so everything works without
 * script), headers that sort (with `aria-sort`), and the pager. The list's state is its URL query
 * (src/schemas/web-lists.ts); every link here rebuilds it. Every value is escaped here.
 */
import { isCustomType } from "../db/tables/crm";
import { escapeHtml } from "../lib/html";
import { OPERATORS, type Operator } from "../schemas/crm/search";
import { MAX_LIST_FILTERS } from "../schemas/web-lists";
import { formatAmount } from "./deal-values";
import type { StageName } from "../services/pipelines/read";
import type { Filter } from "../services/crm/search";
import type { PropertyDef } from "../services/crm/properties";
import { propertyValueHtml, timeTag } from "./time";
import type { CrmRow } from "../services/crm/records";
import { displayName, SUMMARY_PROPERTY, typeLabel, type ListType } from "../services/web/records";
import { ownerText } from "./records";

const e = escapeHtml;

/** What a list shows and how it was asked for: the URL query, read (src/schemas/web-lists.ts). */
export interface ListState {
  q: string;
  sort?: string;
  dir: "asc" | "desc";
  /** The columns the URL names; empty: the type's default columns. */
  columns: string[];
  filters: Filter[];
}

export interface ListView {
  type: ListType;
  rows: CrmRow[];
  state: ListState;
  /** Whether this is a later page (the URL had a cursor). */
  paged: boolean;
  /** The next page's cursor. */
  next: string | null;
  /** The type's properties (built-in and the account's), for the column chooser and the filters. */
  properties: PropertyDef[];
  /** The property the Name column sorts by. */
  nameProperty: string;
  /** Names of the owners the rows name (`hubspot_owner_id`), by the stored value. */
  owners?: Map<string, string>;
  /** Deals and tickets: the account's stages by id, so a stage shows by its label. */
  stages?: Map<string, StageName>;
  /** A custom type: the column beside the name (its first other searchable property), by its label. */
  summary?: { name: string; label: string };
}

/** The columns a list shows when the URL names none: where deals and tickets stand, who owns them, and when each changed. */
export function defaultColumns(type: ListType, summary?: { name: string }): string[] {
  if (type === "deals") return ["dealstage", "amount", "hubspot_owner_id", "lastmodifieddate"];
  if (type === "tickets") return ["hs_pipeline_stage", "hubspot_owner_id", "lastmodifieddate"];
  if (isCustomType(type)) return [...(summary ? [summary.name] : []), "lastmodifieddate"];
  return [SUMMARY_PROPERTY[type].name, "lastmodifieddate"];
}

/** Short labels of the usual columns (a table header is narrow); every other column is labelled by its definition. */
const SHORT_LABEL: Record<string, string> = {
  dealstage: "Stage",
  hs_pipeline_stage: "Stage",
  amount: "Amount",
  hubspot_owner_id: "Owner",
  email: "Email",
  domain: "Domain",
  lastmodifieddate: "Last modified",
  hs_lastmodifieddate: "Last modified",
  createdate: "Created",
  closedate: "Close date",
  hs_object_id: "Record ID",
};

/** Second names of the same column: offered once, by its first name. */
const ALIASES = new Set(["hs_lastmodifieddate", "hs_createdate"]);

/** The properties offered as columns and filters, by label; a property's second name only when the type has no first. */
function offered(properties: PropertyDef[]): { name: string; label: string }[] {
  const names = new Set(properties.map((p) => p.name));
  return properties
    .filter((p) => !p.hidden && !(ALIASES.has(p.name) && names.has(p.name.slice(3))))
    .map((p) => ({ name: p.name, label: SHORT_LABEL[p.name] ?? p.label }))
    .sort((a, b) => a.label.localeCompare(b.label));
}

export const OPERATOR_LABEL: Record<Operator, string> = {
  EQ: "is",
  NEQ: "is not",
  LT: "is less than",
  LTE: "is at most",
  GT: "is greater than",
  GTE: "is at least",
  BETWEEN: "is between",
  IN: "is any of",
  NOT_IN: "is none of",
  HAS_PROPERTY: "is known",
  NOT_HAS_PROPERTY: "is unknown",
  CONTAINS_TOKEN: "contains",
  NOT_CONTAINS_TOKEN: "does not contain",
};

interface Column {
  name: string;
  label: string;
  numeric: boolean;
  cell: (r: CrmRow) => string;
}

function columnsOf(v: ListView): Column[] {
  const defs = new Map(v.properties.map((p) => [p.name, p]));
  const names = v.state.columns.length ? v.state.columns : defaultColumns(v.type, v.summary);
  const stageCell = (id: string | undefined) => (id ? `<span class="stage stage-${e(id)}">${e(v.stages?.get(id)?.stage ?? id)}</span>` : "");
  return names.map((name) => {
    const def = defs.get(name);
    const label = SHORT_LABEL[name] ?? (v.summary?.name === name ? v.summary.label : def?.label ?? name);
    const numeric = name === "amount" || def?.type === "number";
    const cell = (r: CrmRow): string => {
      const value = r.properties[name];
      switch (name) {
        case "dealstage":
        case "hs_pipeline_stage":
          return stageCell(value);
        case "amount":
          return v.type === "deals" ? e(formatAmount(value, r.properties.deal_currency_code)) : e(value ?? "");
        case "hubspot_owner_id":
          return e(ownerText(value, v.owners ?? new Map()));
        case "lastmodifieddate":
        case "hs_lastmodifieddate":
          return timeTag(r.updatedAt);
        case "createdate":
        case "hs_createdate":
          return timeTag(r.createdAt);
        case "hs_object_id":
          return String(r.id);
      }
      return value === undefined ? "" : propertyValueHtml(name, value, e);
    };
    return { name, label, numeric, cell };
  });
}

/** The list's URL with `change` applied; a change of sort, filters or columns starts again at the first page. */
export function listHref(type: ListType, s: ListState, change: Partial<ListState> & { after?: string } = {}): string {
  const n = { ...s, ...change };
  const p = new URLSearchParams();
  if (n.q) p.set("q", n.q);
  if (n.sort) {
    p.set("sort", n.sort);
    p.set("dir", n.dir);
  }
  for (const c of n.columns) p.append("col", c);
  for (const f of n.filters) {
    p.append("fp", f.propertyName);
    p.append("fo", f.operator);
    p.append("fv", f.values ? f.values.join(",") : (f.value ?? ""));
    p.append("fh", f.highValue ?? "");
  }
  if (change.after) p.set("after", change.after);
  const qs = p.toString();
  return `/app/${type}${qs ? `?${qs}` : ""}`;
}

function header(v: ListView, name: string, label: string, numeric: boolean): string {
  const sorted = v.state.sort === name;
  const dir = sorted && v.state.dir === "asc" ? "desc" : "asc";
  const aria = sorted ? ` aria-sort="${v.state.dir === "asc" ? "ascending" : "descending"}"` : "";
  const arrow = sorted ? `<span class="sort-arrow" aria-hidden="true">${v.state.dir === "asc" ? "▲" : "▼"}</span>` : "";
  const href = listHref(v.type, v.state, { sort: name, dir });
  const hint = `<span class="visually-hidden">, sort ${dir === "asc" ? "ascending" : "descending"}</span>`;
  return `<th role="columnheader" scope="col"${aria}${numeric ? ' class="num"' : ""}><a class="sort" href="${e(href)}">${e(label)}${hint}${arrow}</a></th>`;
}

const option = (value: string, label: string, selected: boolean) => `<option value="${e(value)}"${selected ? " selected" : ""}>${e(label)}</option>`;

function filterRow(v: ListView, f: Filter | null, i: number, props: { name: string; label: string }[]): string {
  const n = i + 1;
  const known = f && !props.some((p) => p.name === f.propertyName) ? [option(f.propertyName, f.propertyName, true)] : [];
  const propertySelect = [option("", f ? "(remove this filter)" : "Choose a property", false), ...known, ...props.map((p) => option(p.name, p.label, p?.name === f?.propertyName))].join("");
  const ops = [option("", "Operator", false), ...OPERATORS.map((o) => option(o, OPERATOR_LABEL[o], o === f?.operator))].join("");
  const value = f ? (f.values ? f.values.join(",") : (f.value ?? "")) : "";
  const remove = f ? `<a class="filter-remove" href="${e(listHref(v.type, v.state, { filters: v.state.filters.filter((_, j) => j !== i) }))}">Remove<span class="visually-hidden"> filter ${n}</span></a>` : "";
  return `<fieldset class="filter-row"><legend>${f ? `Filter ${n}` : "Add a filter"}</legend>
<label for="fp-${n}" class="visually-hidden">Filter ${n}: property</label><select id="fp-${n}" name="fp">${propertySelect}</select>
<label for="fo-${n}" class="visually-hidden">Filter ${n}: operator</label><select id="fo-${n}" name="fo">${ops}</select>
<label for="fv-${n}" class="visually-hidden">Filter ${n}: value (IN: comma-separated)</label><input id="fv-${n}" name="fv" value="${e(value)}" placeholder="value" autocomplete="off" maxlength="1000">
<label for="fh-${n}" class="visually-hidden">Filter ${n}: up to (BETWEEN)</label><input id="fh-${n}" name="fh" value="${e(f?.highValue ?? "")}" placeholder="to (between)" autocomplete="off" maxlength="1000">${remove}</fieldset>`;
}

function tools(v: ListView, shown: Column[]): string {
  const props = offered(v.properties);
  const rows = v.state.filters.map((f, i) => filterRow(v, f, i, props));
  if (v.state.filters.length < MAX_LIST_FILTERS) rows.push(filterRow(v, null, v.state.filters.length, props));
  const on = new Set(shown.map((c) => c.name));
  const boxes = props
    .map((p) => `<li><input type="checkbox" id="col-${e(p.name)}" name="col" value="${e(p.name)}"${on.has(p.name) ? " checked" : ""}><label for="col-${e(p.name)}">${e(p.label)}</label></li>`)
    .join("");
  // The headers sort too, but a phone's stacked rows hide them: the form offers the same choice.
  const sortable = [{ name: v.nameProperty, label: "Name" }, ...shown.map((c) => ({ name: c.name, label: c.label }))];
  if (v.state.sort && !sortable.some((c) => c.name === v.state.sort)) sortable.push({ name: v.state.sort, label: v.state.sort });
  const sortOptions = [option("", "Record id (oldest first)", !v.state.sort), ...sortable.map((c) => option(c.name, c.label, c.name === v.state.sort))].join("");
  const keep = `<fieldset class="sorting"><legend>Sort</legend><label for="sort" class="visually-hidden">Sort by</label><select id="sort" name="sort">${sortOptions}</select>
<label for="dir" class="visually-hidden">Direction</label><select id="dir" name="dir">${option("asc", "Ascending", v.state.dir === "asc")}${option("desc", "Descending", v.state.dir === "desc")}</select></fieldset>`;
  const open = v.state.filters.length ? " open" : "";
  return `<details class="list-tools"${open}><summary>Filters, sort and columns</summary>
<div class="tools-body"><div class="filters">${rows.join("")}</div>
<fieldset class="columns"><legend>Columns</legend><ul class="column-choice">${boxes}</ul></fieldset>${keep}
<div class="tools-buttons"><button type="submit" class="primary">Apply</button> <a href="/app/${v.type}">Reset</a></div></div></details>`;
}

/** The active filters in words, each with a link that removes it. */
function activeFilters(v: ListView): string {
  if (v.state.filters.length === 0) return "";
  const label = new Map(v.properties.map((p) => [p.name, SHORT_LABEL[p.name] ?? p.label]));
  const items = v.state.filters.map((f, i) => {
    const value = f.operator === "HAS_PROPERTY" || f.operator === "NOT_HAS_PROPERTY" ? "" : f.values ? ` ${f.values.join(", ")}` : f.operator === "BETWEEN" ? ` ${f.value ?? ""} and ${f.highValue ?? ""}` : ` ${f.value ?? ""}`;
    const href = listHref(v.type, v.state, { filters: v.state.filters.filter((_, j) => j !== i) });
    return `<li>${e(label.get(f.propertyName) ?? f.propertyName)} ${e(OPERATOR_LABEL[f.operator])}${e(value)} <a href="${e(href)}" aria-label="Remove filter ${i + 1}">×</a></li>`;
  });
  return `<ul class="active-filters" aria-label="Active filters">${items.join("")}</ul>`;
}

export function listBody(v: ListView): string {
  const label = typeLabel(v.type);
  const columns = columnsOf(v);
  const rows = v.rows
    .map(
      (r) =>
        `<tr role="row"><td role="cell" data-label="Name"><span><a href="/app/${v.type}/${r.id}">${e(displayName(r))}</a></span></td>` +
        columns.map((c) => `<td role="cell" data-label="${e(c.label)}"${c.numeric ? ' class="num"' : ""}><span>${c.cell(r)}</span></td>`).join("") +
        `</tr>`,
    )
    .join("");
  const heads = header(v, v.nameProperty, "Name", false) + columns.map((c) => header(v, c.name, c.label, c.numeric)).join("");
  const searchHint = v.type === "contacts" ? "Name or email" : "Name";
  const narrowed = v.state.q || v.state.filters.length;
  const table = v.rows.length
    ? `<div class="table-wrap"><table class="records stack" role="table"><caption class="visually-hidden">${e(label.many)}</caption>
<thead><tr role="row">${heads}</tr></thead><tbody>${rows}</tbody></table></div>`
    : `<p class="empty">${narrowed ? `No ${e(label.many.toLowerCase())} match${v.state.q ? ` “${e(v.state.q)}”` : ""}${v.state.filters.length ? " the filters" : ""}.` : `No ${e(label.many.toLowerCase())} yet.`}</p>`;
  const pager = [
    v.paged ? `<a href="${e(listHref(v.type, v.state))}">First page</a>` : "",
    v.next ? `<a href="${e(listHref(v.type, v.state, { after: v.next }))}" rel="next">Next page</a>` : "",
  ]
    .filter(Boolean)
    .join(" ");
  const board = v.type === "deals" ? ` <a class="view-switch" href="/app/deals/board">Board view</a>` : "";
  return `<div class="list-head"><h1>${e(label.many)}</h1>${board}</div>
<form class="search list-form" method="get" action="/app/${v.type}" role="search">
<label for="q">${searchHint}</label><div class="search-row"><input id="q" name="q" type="search" maxlength="100" value="${e(v.state.q)}" autocomplete="off"><button type="submit">Search</button></div>
${tools(v, columns)}</form>${activeFilters(v)}
${table}${pager ? `<nav class="pager" aria-label="Pages">${pager}</nav>` : ""}`;
}

/** The page of a list URL the app cannot show (a bad sort, operator, value or cursor): a 400 that names each problem. */
export function listErrorBody(type: string, problems: string[]): string {
  const items = problems.map((p) => `<li>${e(p)}</li>`).join("");
  return `<h1>This list cannot be shown</h1><p>The address asks for something the list does not have:</p><ul class="problems" role="alert">${items}</ul>
<p><a href="/app/${e(type)}">Show the list without sort and filters</a></p>`;
}
