/**
 * @module HTML of the store overview and of one store's synced records (docs/reference/web.md): the
 * ecommerce bridge's stores, synced record counts, the records most recently synced and the open sync
 * errors, each linked to its CRM record.
 */
import { ECOMM_OBJECT_TYPES, type EcommObjectType } from "../db/tables/ecomm";
import { escapeHtml as e } from "../lib/html";
import { CRM_TYPE, PIPELINE_STAGES } from "../services/ecomm/model";
import type { StoreOverview } from "../services/ecomm/overview";
import type { SyncedRecord } from "../services/ecomm/store-records";
import { displayName } from "../services/web/records";
import { timeTag } from "./time";

const TYPE_NAMES: Record<EcommObjectType, string> = { CONTACT: "Contacts", PRODUCT: "Products", DEAL: "Deals", LINE_ITEM: "Line items" };
const TYPE_ONE: Record<EcommObjectType, string> = { CONTACT: "Contact", PRODUCT: "Product", DEAL: "Deal", LINE_ITEM: "Line item" };

const when = (ms: string) => timeTag(Number(ms)) || e(ms);

/** The record page of a synced object, when it has a record. */
const recordHref = (objectType: EcommObjectType, id: number) => `/app/${CRM_TYPE[objectType]}/${id}`;
const storeHref = (storeId: string, type?: EcommObjectType) => `/app/stores/${encodeURIComponent(storeId)}${type ? `?type=${type}` : ""}`;

/** A synced object: its record's name linked to the record page, else its external id and why there is no link. */
function syncedCell(r: SyncedRecord): string {
  const name = r.record ? `<a href="${recordHref(r.objectType, r.record.id)}">${e(displayName(r.record))}</a>` : `<span class="muted">no record yet</span>`;
  return `${name} <code>${e(r.externalId)}</code>${r.deleted ? ` <span class="muted">(deleted in the store; the record is kept)</span>` : ""}`;
}

/** Explicit roles keep the table's semantics when narrow screens lay its rows out as blocks (app.css). */
const cell = (label: string, content: string) => `<td role="cell" data-label="${label}"><span>${content}</span></td>`;
const head = (labels: string[]) => `<thead><tr role="row">${labels.map((l) => `<th role="columnheader" scope="col">${l}</th>`).join("")}</tr></thead>`;

/** A deal's stage by its label in the ecommerce pipeline; another value as it is stored. */
function stageCell(r: SyncedRecord): string {
  const id = r.record?.properties.dealstage;
  if (!id) return "";
  const label = PIPELINE_STAGES.find((x) => x.stageId === id)?.label;
  return label ? `<span class="stage stage-${e(id)}">${e(label)}</span>` : e(id);
}

/** Synced records with their record links; `showType` for mixed types (the overview), `showStage` where deals appear. */
function syncedTable(rows: SyncedRecord[], caption: string, o: { showType: boolean; showStage: boolean }): string {
  const body = rows
    .map(
      (r) =>
        `<tr role="row">${o.showType ? cell("Type", TYPE_ONE[r.objectType]) : ""}${cell("Record", syncedCell(r))}${o.showStage ? cell("Stage", stageCell(r)) : ""}${cell("Changed", when(String(r.changedAt)))}</tr>`,
    )
    .join("");
  return `<div class="table-wrap"><table class="synced stack" role="table"><caption class="visually-hidden">${e(caption)}</caption>
${head([...(o.showType ? ["Type"] : []), "Record", ...(o.showStage ? ["Deal stage"] : []), "Changed in the store"])}<tbody>${body}</tbody></table></div>`;
}

/** An admin URI is shown as a link only when it is http(s) (it is account-supplied). */
function adminLink(uri: string | undefined): string {
  if (!uri) return "";
  try {
    const u = new URL(uri);
    if (u.protocol === "https:" || u.protocol === "http:") return `<a href="${e(u.toString())}" rel="noopener noreferrer" target="_blank">Store admin</a>`;
  } catch {
    // not a URL: shown as text below
  }
  return `<span class="muted">${e(uri)}</span>`;
}

/**
 * An error type such as `ERROR_INVALID_NUMBER_PROPERTY`: it may wrap after an underscore (<wbr>), never
 * inside a word (app.css .error-type), so a narrow column shows whole words.
 */
function errorType(type: string): string {
  return `<code class="error-type">${e(type).replace(/_/g, "_<wbr>")}</code>`;
}

function storeSection(o: StoreOverview, index: number): string {
  const id = `store-${index}`;
  const counts = ECOMM_OBJECT_TYPES.map((t) => `<div><dt>${TYPE_NAMES[t]}</dt><dd><a href="${storeHref(o.store.id, t)}" aria-label="${o.counts[t]} ${TYPE_NAMES[t].toLowerCase()}: list them">${o.counts[t]}</a></dd></div>`).join("");
  const object = (x: StoreOverview["errors"][number]) => {
    const label = `${TYPE_ONE[x.objectType]} <code>${e(x.externalObjectId)}</code>`;
    return x.serviceId === null ? `${label} <span class="muted">(no record yet)</span>` : `<a href="${recordHref(x.objectType, x.serviceId)}">${label}</a>`;
  };
  const rows = o.errors
    .map(
      (x) =>
        `<tr role="row">${cell("Object", object(x))}${cell("Type", errorType(x.type))}${cell("Details", e(x.details))}${cell("Errored", when(x.erroredAt))}</tr>`,
    )
    .join("");
  const errors = o.errors.length
    ? `<div class="table-wrap"><table class="errors stack" role="table"><caption class="visually-hidden">Open sync errors of ${e(o.store.label)}</caption>
${head(["Object", "Type", "Details", "Errored"])}<tbody>${rows}</tbody></table></div>${o.openErrors > o.errors.length ? `<p class="muted">Showing the newest ${o.errors.length} of ${o.openErrors} open errors.</p>` : ""}`
    : `<p class="empty">No open sync errors.</p>`;
  return `<section class="store" aria-labelledby="${id}"><h2 id="${id}">${e(o.store.label)} <span class="muted">(${e(o.store.id)})</span></h2>
${o.store.adminUri ? `<p>${adminLink(o.store.adminUri)}</p>` : ""}
<h3>Synced records</h3><dl class="counts">${counts}</dl>
<h3>Recently synced</h3>${o.recent.length ? syncedTable([...o.recent].sort((a, b) => b.changedAt - a.changedAt), `Records most recently synced from ${o.store.label}`, { showType: true, showStage: o.recent.some((r) => r.objectType === "DEAL") }) : `<p class="empty">Nothing synced yet.</p>`}
<p><a href="${storeHref(o.store.id)}">All synced records of ${e(o.store.label)}</a></p>
<h3>Open sync errors <span class="count">(${o.openErrors})</span></h3>${errors}</section>`;
}

export function storesBody(stores: StoreOverview[]): string {
  if (stores.length === 0) return `<h1>Stores</h1><p class="empty">No stores are connected through the ecommerce bridge.</p>`;
  return `<h1>Stores</h1>${stores.map(storeSection).join("")}`;
}

export interface StorePageView {
  store: { id: string; label: string };
  counts: Record<EcommObjectType, number>;
  type: EcommObjectType;
  rows: SyncedRecord[];
  /** The external id after which this page starts (none on the first page). */
  after?: string;
  hasMore: boolean;
}

/** One store's synced records of one type, paged in external-id order, each linked to its record. */
export function storePageBody(v: StorePageView): string {
  const tabs = ECOMM_OBJECT_TYPES.map(
    (t) => `<li><a href="${storeHref(v.store.id, t)}"${t === v.type ? ' aria-current="page"' : ""}>${TYPE_NAMES[t]} <span class="count">(${v.counts[t]})</span></a></li>`,
  ).join("");
  const last = v.rows.at(-1);
  const pager = [
    v.after !== undefined ? `<a href="${storeHref(v.store.id, v.type)}">First page</a>` : "",
    v.hasMore && last ? `<a href="${storeHref(v.store.id, v.type)}&amp;after=${encodeURIComponent(last.externalId)}" rel="next">Next page</a>` : "",
  ]
    .filter(Boolean)
    .join(" ");
  const list = v.rows.length
    ? syncedTable(v.rows, `${TYPE_NAMES[v.type]} synced from ${v.store.label}`, { showType: false, showStage: v.type === "DEAL" })
    : `<p class="empty">No ${TYPE_NAMES[v.type].toLowerCase()} synced from this store${v.after !== undefined ? " after this point" : ""}.</p>`;
  return `<nav class="crumbs" aria-label="Breadcrumb"><a href="/app/stores">Stores</a></nav>
<h1>${e(v.store.label)} <span class="muted">(${e(v.store.id)})</span></h1>
<nav aria-label="Object types"><ul class="tabs">${tabs}</ul></nav>
${list}${pager ? `<nav class="pager" aria-label="Pages">${pager}</nav>` : ""}`;
}
