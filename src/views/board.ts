/**
 * @module HTML of the deals board (docs/reference/web.md "Deals board"): a pipeline switcher, then one
 * column per stage with its count, the sum of its amounts and its first deals as cards. Each card moves
 * without script: a form with a stage select and a "Move" button that posts to `/app/deals/{id}/move` and
 * comes back here (303). public/static/board.js adds drag and drop and keyboard shortcuts on top.
 */
import { escapeHtml } from "../lib/html";
import type { Pipeline } from "../services/pipelines/read";
import type { CrmRow } from "../services/crm/records";
import type { StageColumn } from "../services/web/board";
import { displayName } from "../services/web/records";
import { formatAmount } from "./deal-values";
import { ownerText } from "./records";

const e = escapeHtml;

export interface BoardView {
  pipelines: Pipeline[];
  pipeline: Pipeline;
  columns: StageColumn[];
  /** Names of the owners the cards name, by the stored value. */
  owners: Map<string, string>;
  csrf: string;
  perStage: number;
}

const plural = (n: number, one: string, many: string) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

function card(v: BoardView, d: CrmRow, stageId: string): string {
  const name = displayName(d);
  const amount = formatAmount(d.properties.amount, d.properties.deal_currency_code);
  const owner = ownerText(d.properties.hubspot_owner_id, v.owners);
  const options = v.pipeline.stages.map((s) => `<option value="${e(s.id)}"${s.id === stageId ? " selected" : ""}>${e(s.label)}</option>`).join("");
  return `<li class="deal-card" id="deal-${d.id}" data-deal-id="${d.id}" draggable="true">
<a class="deal-name" href="/app/deals/${d.id}">${e(name)}</a>
${amount ? `<p class="deal-amount">${e(amount)}</p>` : ""}${owner ? `<p class="deal-owner"><span class="visually-hidden">Owner: </span>${e(owner)}</p>` : ""}
<form class="move" method="post" action="/app/deals/${d.id}/move"><input type="hidden" name="csrf" value="${e(v.csrf)}"><input type="hidden" name="pipeline" value="${e(v.pipeline.id)}">
<label for="move-${d.id}" class="visually-hidden">Stage of ${e(name)}</label><select id="move-${d.id}" name="dealstage">${options}</select><button type="submit">Move<span class="visually-hidden"> ${e(name)}</span></button></form></li>`;
}

function column(v: BoardView, c: StageColumn, label: string): string {
  const sum = formatAmount(String(Math.round(c.sum * 100) / 100), c.currency ?? undefined);
  const more = c.count - c.deals.length;
  const list = `/app/deals?fp=dealstage&fo=EQ&fv=${encodeURIComponent(c.stageId)}&fh=`;
  const h = `stage-${e(c.stageId)}-h`;
  return `<section class="board-column" data-stage-id="${e(c.stageId)}" aria-labelledby="${h}">
<h2 id="${h}"><span class="stage stage-${e(c.stageId)}">${e(label)}</span></h2>
<p class="column-meta">${plural(c.count, "deal", "deals")} · <span class="column-sum">${e(sum)}</span></p>
<ol class="deal-cards" aria-labelledby="${h}">${c.deals.map((d) => card(v, d, c.stageId)).join("")}</ol>
${more > 0 ? `<p class="column-more">${plural(more, "more deal", "more deals")} not shown: <a href="${e(list)}">all ${e(label)} deals</a></p>` : ""}</section>`;
}

export function boardBody(v: BoardView): string {
  const options = v.pipelines.map((p) => `<option value="${e(p.id)}"${p.id === v.pipeline.id ? " selected" : ""}>${e(p.label)}</option>`).join("");
  const labels = new Map(v.pipeline.stages.map((s) => [s.id, s.label]));
  return `<div class="list-head"><h1>Deals board</h1> <a class="view-switch" href="/app/deals">List view</a></div>
<form class="pipeline-switch" method="get" action="/app/deals/board"><label for="pipeline">Pipeline</label><div class="search-row"><select id="pipeline" name="pipeline">${options}</select><button type="submit">Show</button></div></form>
<p class="board-hint muted" id="board-hint">Each card's stage menu and Move button move it; with script, drag a card to a column, or focus a card and press [ or ] to move it one stage.</p>
<div class="board" role="region" aria-label="${e(v.pipeline.label)}: deals by stage" tabindex="0">${v.columns.map((c) => column(v, c, labels.get(c.stageId) ?? c.stageId)).join("")}</div>`;
}

/** A move the app refused (a stage not in the deal's pipeline, a missing stage): a 400 page saying why. */
export function moveErrorBody(problems: string[], back: string): string {
  return `<h1>The deal was not moved</h1><ul class="problems" role="alert">${problems.map((p) => `<li>${e(p)}</li>`).join("")}</ul><p><a href="${e(back)}">Back to the board</a></p>`;
}
