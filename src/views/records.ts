/**
 * @module HTML of the record pages (docs/reference/web.md): the start page and a record page with its properties, associations, rendered timeline events and the CRM cards
 * column, whose cards the browser loads one by one (public/static/record.js). Every value is escaped
 * here; the only HTML passed through is the timeline renderer's output (services/timeline/render.ts,
 * which escapes raw HTML and keeps only safe URLs).
 */
import type { TimelineIFrame } from "../db/tables/timeline";
import { isCustomType, type CustomType, type ObjectType } from "../db/tables/crm";
import { escapeHtml } from "../lib/html";
import { formatAmount } from "./deal-values";
import type { StageName } from "../services/pipelines/read";
import { propertyValueHtml, timeTag } from "./time";
import { addAssociationForm, associationControls, type AssociationContext } from "./association-forms";
import { dateTimeText, instantOf } from "./values";
import type { AccountFormat } from "../services/web/properties";
import type { CrmRow } from "../services/crm/records";
import { displayName, isPageType, isRecordType, PAGE_TYPES, typeLabel, type RecordType } from "../services/web/records";

const e = escapeHtml;

export function homeBody(counts: Partial<Record<ObjectType, number>>, storeCount: number, customTypes: CustomType[] = []): string {
  const tiles = [...PAGE_TYPES, ...customTypes]
    .map((t) => `<li><a class="tile" href="/app/${t}"><span class="tile-label">${e(typeLabel(t).many)}</span><span class="tile-count">${counts[t] ?? 0}</span></a></li>`)
    .join("");
  return `<h1>Your CRM</h1><ul class="tiles">${tiles}<li><a class="tile" href="/app/stores"><span class="tile-label">Stores</span><span class="tile-count">${storeCount}</span></a></li></ul>`;
}

/** An owner by name; an id that names no owner of the account (written before owners were checked) as stored. */
export const ownerText = (value: string | undefined, owners: Map<string, string>) => (value ? (owners.get(value) ?? value) : "");

export interface TimelineEntry {
  id: string;
  eventTypeName: string;
  timestamp: number;
  headerHtml: string;
  detailHtml: string;
  timelineIFrame?: TimelineIFrame;
}

/** A header that is one paragraph is shown inline (a <p> does not belong in a <summary>). */
function inlineHeader(headerHtml: string): string {
  const m = /^<p>([\s\S]*)<\/p>$/.exec(headerHtml);
  return m?.[1] !== undefined && !m[1].includes("<p>") ? m[1] : headerHtml;
}

function timelineItem(t: TimelineEntry): string {
  const head = `<span class="event-head">${inlineHeader(t.headerHtml)}</span><span class="event-meta">${e(t.eventTypeName)} · ${timeTag(t.timestamp)}</span>`;
  const frame = t.timelineIFrame
    ? `<button type="button" class="link-button" data-iframe-src="${e(t.timelineIFrame.iframeUri)}" data-iframe-width="${t.timelineIFrame.width}" data-iframe-height="${t.timelineIFrame.height}" data-iframe-label="${e(t.timelineIFrame.iframeLabel)}">${e(t.timelineIFrame.linkLabel)}</button>`
    : "";
  const body = t.detailHtml
    ? `<details><summary>${head}</summary><div class="event-detail">${t.detailHtml}</div></details>`
    : `<div class="event-summary">${head}</div>`;
  return `<li class="event">${body}${frame}</li>`;
}

export interface RecordView {
  type: RecordType | CustomType;
  record: CrmRow;
  associations: { type: ObjectType; records: CrmRow[]; total: number }[];
  timeline: { entries: TimelineEntry[]; next: string | null } | null;
  olderLink: string | null;
  /** The record's activities, rendered (views/activities.ts); null for types that have none. */
  activitiesHtml?: string | null;
  cards: { cardId: number; title: string }[];
  /** Contacts merged into this one; their ids redirect here. */
  mergedVids?: number[];
  /** A deal's or ticket's stage and pipeline labels, when its stage is one of the account's pipelines. */
  stage?: StageName | null;
  /** Names of the owners the record names (`hubspot_owner_id`), by the stored value. */
  owners?: Map<string, string>;
  /** The association controls (labels, remove, associate), on the types people work in. */
  associationWork?: AssociationContext;
  /** The Edit and Delete buttons (views/properties.ts). */
  actionsHtml: string;
  /** The properties section's content (views/properties.ts). */
  propertiesHtml: string;
  /** The account's currency and time zone: the summary shows money and the close date in them. */
  account?: AccountFormat;
}

/** A number property as a number, or null when it is missing or not a number. */
const numberOf = (value: string | undefined) => (value === undefined || value.trim() === "" || !Number.isFinite(Number(value)) ? null : Number(value));

/**
 * A deal's line items as the CRM shows them: each with its quantity, unit price and total (its `amount`, else
 * quantity × price), in the deal's currency, and their sum beside the deal's amount. The sum is shown only
 * when every line item is listed and has a total.
 */
function lineItemsTable(a: RecordView["associations"][number], deal: CrmRow | null): string {
  const currency = deal?.properties.deal_currency_code;
  const money = (n: number | null) => (n === null ? "" : e(formatAmount(String(n), currency)));
  const rows = a.records.map((r) => {
    const quantity = numberOf(r.properties.quantity);
    const price = numberOf(r.properties.price);
    const total = numberOf(r.properties.amount) ?? (quantity !== null && price !== null ? Math.round(quantity * price * 100) / 100 : null);
    return { r, quantity, price, total };
  });
  const body = rows
    .map(({ r, quantity, price, total }) => `<tr><th scope="row"><a href="/app/line_items/${r.id}">${e(displayName(r))}</a></th><td class="num">${quantity ?? ""}</td><td class="num">${money(price)}</td><td class="num">${money(total)}</td></tr>`)
    .join("");
  const complete = a.total === a.records.length && rows.every((x) => x.total !== null);
  const sum = complete ? Math.round(rows.reduce((t, x) => t + x.total!, 0) * 100) / 100 : null;
  const amount = deal ? numberOf(deal.properties.amount) : null;
  const foot = [
    sum !== null ? `<tr><th scope="row" colspan="3">Sum of line items</th><td class="num">${money(sum)}</td></tr>` : "",
    amount !== null ? `<tr><th scope="row" colspan="3">Deal amount${sum !== null && Math.abs(sum - amount) >= 0.005 ? ` <span class="muted">(differs from the sum)</span>` : ""}</th><td class="num">${money(amount)}</td></tr>` : "",
  ].join("");
  const more = a.total > a.records.length ? `<p class="muted">and ${a.total - a.records.length} more</p>` : "";
  return (
    `<h3>${typeLabel(a.type).many} <span class="count">(${a.total})</span></h3>` +
    `<table class="assoc line-items"><thead><tr><th scope="col">Line item</th><th scope="col" class="num">Quantity</th><th scope="col" class="num">Unit price</th><th scope="col" class="num">Total</th></tr></thead>` +
    `<tbody>${body}</tbody>${foot ? `<tfoot>${foot}</tfoot>` : ""}</table>${more}`
  );
}

function associationsList(v: RecordView): string {
  const add = v.associationWork ? addAssociationForm(v.associationWork) : "";
  if (v.associations.length === 0) return `<p class="empty">No associated records.</p>${add}`;
  const work = v.associationWork;
  return v.associations
    .map((a) => {
      if (a.type === "line_items") return lineItemsTable(a, v.type === "deals" ? v.record : null);
      const items = a.records
        .map((r) => `<li>${isRecordType(a.type) || isCustomType(a.type) ? `<a href="/app/${a.type}/${r.id}">${e(displayName(r))}</a>` : e(displayName(r))}${work ? associationControls(work, a.type, r) : ""}</li>`)
        .join("");
      const more = a.total > a.records.length ? `<li class="muted">and ${a.total - a.records.length} more</li>` : "";
      return `<h3>${typeLabel(a.type).many} <span class="count">(${a.total})</span></h3><ul class="assoc">${items}${more}</ul>`;
    })
    .join("") + add;
}

function eventsList(v: RecordView): string {
  if (!v.timeline) return "";
  if (v.timeline.entries.length === 0) return `<p class="empty">No timeline events yet.</p>`;
  const older = v.olderLink ? `<p><a href="${e(v.olderLink)}">Older events</a></p>` : "";
  return `<ol class="timeline">${v.timeline.entries.map(timelineItem).join("")}</ol>${older}`;
}

/**
 * The activities (notes, tasks, calls, …) and, for the types that have them, the apps' timeline events:
 * two lists, since each is ordered and bounded on its own (the events page by a cursor).
 */
function timelineSection(v: RecordView): string {
  if (!v.timeline && v.activitiesHtml == null) return `<p class="empty">${e(typeLabel(v.type).many)} have no timeline.</p>`;
  const activities = v.activitiesHtml == null ? "" : `<h3 id="activities-h">Activities</h3>${v.activitiesHtml}`;
  const events = v.timeline ? `${activities ? `<h3 id="events-h">Events from apps</h3>` : ""}${eventsList(v)}` : "";
  return activities + events;
}

function cardsColumn(v: RecordView): string {
  if (v.cards.length === 0) return `<p class="empty">No CRM cards for ${e(typeLabel(v.type).many.toLowerCase())} in this account.</p>`;
  return v.cards
    .map(
      (c) => `<section class="card" id="card-${c.cardId}" data-card-id="${c.cardId}" aria-labelledby="card-${c.cardId}-title">
<div class="card-head"><h3 id="card-${c.cardId}-title" tabindex="-1">${e(c.title)}</h3><div class="card-tools"></div></div>
<div class="card-notice" aria-live="polite"></div>
<div class="card-body" aria-busy="true"><p class="loading" role="status">Loading…</p></div></section>`,
    )
    .join("");
}

/**
 * The two dialogs the page script drives: the confirmation of a CONFIRMATION_ACTION_HOOK and the iframe
 * modal. The focus guards at each end send Tab and Shift+Tab back into the dialog (modal.js), so focus
 * cycles inside it instead of leaving the page.
 */
const GUARD = `<span class="focus-guard" tabindex="0" aria-hidden="true"></span>`;
const DIALOGS = `<dialog id="confirm-dialog" class="confirm-dialog" aria-labelledby="confirm-title" aria-describedby="confirm-message">${GUARD}
<h2 id="confirm-title">Please confirm</h2><p id="confirm-message"></p>
<div class="dialog-buttons"><button type="button" id="confirm-cancel" autofocus>Cancel</button><button type="button" id="confirm-ok" class="primary">OK</button></div>${GUARD}</dialog>
<dialog id="iframe-modal" class="iframe-modal" aria-labelledby="iframe-title">${GUARD}
<div class="modal-head"><h2 id="iframe-title"></h2><button type="button" class="modal-close" aria-label="Close">×</button></div>
<div class="modal-frame"></div>${GUARD}</dialog>`;

/** What a person looks for first on a deal or a ticket: where it stands (and a deal's worth). */
function stageSummary(v: RecordView): string {
  if (v.type !== "deals" && v.type !== "tickets") return "";
  const p = v.record.properties;
  const raw = v.type === "deals" ? p.dealstage : p.hs_pipeline_stage;
  const stage = v.stage
    ? `<div><dt>Stage</dt><dd><span class="stage stage-${e(v.stage.stageId)}">${e(v.stage.stage)}</span></dd></div><div><dt>Pipeline</dt><dd>${e(v.stage.pipeline)}</dd></div>`
    : raw
      ? `<div><dt>Stage</dt><dd><span class="stage">${e(raw)}</span></dd></div>`
      : "";
  // As in the properties: the deal's currency, else the account's; the close date in the account's time zone.
  const amount = p.amount && v.type === "deals" ? `<div><dt>Amount</dt><dd>${e(formatAmount(p.amount, p.deal_currency_code || v.account?.currency))}</dd></div>` : "";
  const closeText = p.closedate && v.account ? dateTimeText(p.closedate, v.account.timeZone) : null;
  const closeHtml = p.closedate && closeText ? `<time datetime="${new Date(instantOf(p.closedate)!).toISOString()}">${e(closeText)}</time>` : p.closedate ? propertyValueHtml("closedate", p.closedate, e) : "";
  const close = p.closedate && v.type === "deals" ? `<div><dt>Close date</dt><dd>${closeHtml}</dd></div>` : "";
  const what = v.type === "deals" ? "Deal" : "Ticket";
  return stage || amount || close ? `<dl class="summary" aria-label="${what} summary">${stage}${amount}${close}</dl>` : "";
}

/** Whose record it is: the owner's name, shown under the heading (the properties list keeps the id). */
function ownerLine(v: RecordView): string {
  const value = v.record.properties.hubspot_owner_id;
  return value ? `<p class="owner">Owner: <span class="owner-name">${e(ownerText(value, v.owners ?? new Map()))}</span></p>` : "";
}

export function recordBody(v: RecordView): string {
  const label = typeLabel(v.type);
  const name = displayName(v.record);
  // Products and line items have no list of their own: they are reached from the stores and from deals.
  const crumb = isPageType(v.type) || isCustomType(v.type) ? `<a href="/app/${v.type}">${e(label.many)}</a>` : `<a href="/app/stores">Stores</a>`;
  return `<nav class="crumbs" aria-label="Breadcrumb">${crumb}</nav>
<div class="record" data-object-type="${v.type}" data-object-id="${v.record.id}">
<div class="record-main">
<div class="record-head"><h1>${e(name)} <span class="muted">${e(label.one)} #${v.record.id}</span></h1>${v.actionsHtml}</div>${stageSummary(v)}
${ownerLine(v)}
${v.mergedVids?.length ? `<p class="merged">Merged from ${v.mergedVids.map((m) => `${label.one.toLowerCase()} #${m}`).join(", ")}</p>` : ""}
<section aria-labelledby="props-h"><h2 id="props-h">Properties</h2>${v.propertiesHtml}</section>
<section aria-labelledby="assoc-h"><h2 id="assoc-h">Associations</h2>${associationsList(v)}</section>
<section aria-labelledby="timeline-h"><h2 id="timeline-h">Timeline</h2>${timelineSection(v)}</section>
</div>
<aside class="record-cards" aria-labelledby="cards-h"><h2 id="cards-h">CRM cards</h2>${cardsColumn(v)}</aside>
</div>${DIALOGS}`;
}
