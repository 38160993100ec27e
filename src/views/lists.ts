/**
 * @module HTML of the record lists (docs/reference/web.md): one page of an object type's records with the
 * search box and the pager. Every value is escaped here.
 */
import { isCustomType } from "../db/tables/crm";
import { escapeHtml } from "../lib/html";
import { formatAmount } from "./deal-values";
import type { StageName } from "../services/pipelines/read";
import { timeTag } from "./time";
import type { CrmRow } from "../services/crm/records";
import { displayName, SUMMARY_PROPERTY, typeLabel, type ListType } from "../services/web/records";
import { ownerText } from "./records";

const e = escapeHtml;

export interface ListView {
  type: ListType;
  rows: CrmRow[];
  q: string;
  after: number;
  hasMore: boolean;
  /** Names of the owners the rows name (`hubspot_owner_id`), by the stored value. */
  owners?: Map<string, string>;
  /** Deals and tickets: the account's stages by id, so a stage shows by its label. */
  stages?: Map<string, StageName>;
  /** A custom type: the column beside the name (its first other searchable property), by its label. */
  summary?: { name: string; label: string };
}

interface ListColumn {
  label: string;
  numeric?: boolean;
  /** The cell's HTML (escaped). */
  cell: (r: CrmRow) => string;
}

/** The columns between the name and the last change: deals show where they stand and what they are worth. */
function listColumns(type: ListType, owners = new Map<string, string>(), stages?: Map<string, StageName>, custom?: { name: string; label: string }): ListColumn[] {
  const stageCell = (id: string | undefined) => (id ? `<span class="stage stage-${e(id)}">${e(stages?.get(id)?.stage ?? id)}</span>` : "");
  const owner: ListColumn = { label: "Owner", cell: (r) => e(ownerText(r.properties.hubspot_owner_id, owners)) };
  if (type === "deals") {
    return [
      { label: "Stage", cell: (r) => stageCell(r.properties.dealstage) },
      { label: "Amount", numeric: true, cell: (r) => e(formatAmount(r.properties.amount, r.properties.deal_currency_code)) },
      owner,
    ];
  }
  // Tickets: where each stands (the stage's label from its pipeline) and who works it.
  if (type === "tickets") return [{ label: "Stage", cell: (r) => stageCell(r.properties.hs_pipeline_stage) }, owner];
  if (isCustomType(type)) return custom ? [{ label: e(custom.label), cell: (r) => e(r.properties[custom.name] ?? "") }] : [];
  const summary = SUMMARY_PROPERTY[type];
  return [{ label: summary.label, cell: (r) => e(r.properties[summary.name] ?? "") }];
}

export function listBody(v: ListView): string {
  const label = typeLabel(v.type);
  const qs = (after: number) => {
    const p = new URLSearchParams();
    if (v.q) p.set("q", v.q);
    if (after) p.set("after", String(after));
    const s = p.toString();
    return s ? `?${s}` : "";
  };
  const columns = listColumns(v.type, v.owners, v.stages, v.summary);
  const rows = v.rows
    .map(
      (r) =>
        `<tr role="row"><td role="cell" data-label="Name"><span><a href="/app/${v.type}/${r.id}">${e(displayName(r))}</a></span></td>` +
        columns.map((c) => `<td role="cell" data-label="${c.label}"${c.numeric ? ' class="num"' : ""}><span>${c.cell(r)}</span></td>`).join("") +
        `<td role="cell" data-label="Modified"><span>${timeTag(r.updatedAt)}</span></td></tr>`,
    )
    .join("");
  const heads = columns.map((c) => `<th role="columnheader" scope="col"${c.numeric ? ' class="num"' : ""}>${c.label}</th>`).join("");
  const searchHint = v.type === "contacts" ? "Name or email" : "Name";
  const table = v.rows.length
    ? `<div class="table-wrap"><table class="records stack" role="table"><caption class="visually-hidden">${label.many}</caption>
<thead><tr role="row"><th role="columnheader" scope="col">Name</th>${heads}<th role="columnheader" scope="col">Last modified</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : `<p class="empty">${v.q ? `No ${label.many.toLowerCase()} match “${e(v.q)}”.` : `No ${label.many.toLowerCase()} yet.`}</p>`;
  const last = v.rows.at(-1);
  const pager = [
    v.after ? `<a href="/app/${v.type}${qs(0)}">First page</a>` : "",
    v.hasMore && last ? `<a href="/app/${v.type}${qs(last.id)}" rel="next">Next page</a>` : "",
  ]
    .filter(Boolean)
    .join(" ");
  return `<h1>${label.many}</h1>
<form class="search" method="get" action="/app/${v.type}" role="search">
<label for="q">${searchHint}</label><div class="search-row"><input id="q" name="q" type="search" maxlength="100" value="${e(v.q)}" autocomplete="off"><button type="submit">Search</button></div></form>
${table}${pager ? `<nav class="pager" aria-label="Pages">${pager}</nav>` : ""}`;
}
