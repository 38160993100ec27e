/** @module HTML of the store overview (issue 7): the ecommerce bridge's stores, synced record counts and open sync errors. */
import { ECOMM_OBJECT_TYPES } from "../db/tables/ecomm";
import { escapeHtml as e } from "../lib/html";
import type { StoreOverview } from "../services/ecomm/overview";

const TYPE_NAMES = { CONTACT: "Contacts", PRODUCT: "Products", DEAL: "Deals", LINE_ITEM: "Line items" } as const;

function when(ms: string): string {
  const d = new Date(Number(ms));
  return Number.isNaN(d.getTime()) ? e(ms) : `<time datetime="${d.toISOString()}" data-local>${d.toISOString().slice(0, 16).replace("T", " ")} UTC</time>`;
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

function storeSection(o: StoreOverview, index: number): string {
  const id = `store-${index}`;
  const counts = ECOMM_OBJECT_TYPES.map((t) => `<div><dt>${TYPE_NAMES[t]}</dt><dd>${o.counts[t]}</dd></div>`).join("");
  // Explicit roles keep the table's semantics when narrow screens lay its rows out as blocks (app.css).
  const cell = (label: string, content: string) => `<td role="cell" data-label="${label}"><span>${content}</span></td>`;
  const rows = o.errors
    .map(
      (x) =>
        `<tr role="row">${cell("Object", `${TYPE_NAMES[x.objectType as keyof typeof TYPE_NAMES] ?? e(x.objectType)} <code>${e(x.externalObjectId)}</code>`)}${cell("Type", `<code>${e(x.type)}</code>`)}${cell("Details", e(x.details))}${cell("Errored", when(x.erroredAt))}</tr>`,
    )
    .join("");
  const errors = o.errors.length
    ? `<div class="table-wrap"><table class="errors stack" role="table"><caption class="visually-hidden">Open sync errors of ${e(o.store.label)}</caption>
<thead><tr role="row"><th role="columnheader" scope="col">Object</th><th role="columnheader" scope="col">Type</th><th role="columnheader" scope="col">Details</th><th role="columnheader" scope="col">Errored</th></tr></thead><tbody>${rows}</tbody></table></div>${o.openErrors > o.errors.length ? `<p class="muted">Showing the newest ${o.errors.length} of ${o.openErrors} open errors.</p>` : ""}`
    : `<p class="empty">No open sync errors.</p>`;
  return `<section class="store" aria-labelledby="${id}"><h2 id="${id}">${e(o.store.label)} <span class="muted">(${e(o.store.id)})</span></h2>
${o.store.adminUri ? `<p>${adminLink(o.store.adminUri)}</p>` : ""}
<h3>Synced records</h3><dl class="counts">${counts}</dl>
<h3>Open sync errors <span class="count">(${o.openErrors})</span></h3>${errors}</section>`;
}

export function storesBody(stores: StoreOverview[]): string {
  if (stores.length === 0) return `<h1>Stores</h1><p class="empty">No stores are connected through the ecommerce bridge.</p>`;
  return `<h1>Stores</h1>${stores.map(storeSection).join("")}`;
}
