// @ts-check
/* global HTMLSelectElement, HTMLAnchorElement */
/**
 * @module The deals board, enhanced: every card already moves with its own form (stage select and
 * Move button, a plain POST that comes back to the board). This adds dragging a card onto another
 * column, and, with focus on a card's name, `[` and `]` to move it one stage back or on. Both only set
 * the card's select and submit its form, so the server does the same move either way.
 */
import "./app.js";

/** @param {HTMLElement} card @param {string} stageId */
function moveTo(card, stageId) {
  const form = card.querySelector("form.move");
  const select = card.querySelector("select[name=dealstage]");
  if (!(form instanceof HTMLFormElement) || !(select instanceof HTMLSelectElement) || select.value === stageId) return;
  if (![...select.options].some((o) => o.value === stageId)) return;
  select.value = stageId;
  card.classList.add("moved");
  form.requestSubmit();
}

/** @param {HTMLElement} card @param {number} step */
function moveBy(card, step) {
  const select = card.querySelector("select[name=dealstage]");
  if (!(select instanceof HTMLSelectElement)) return;
  const next = select.options[select.selectedIndex + step];
  if (next) moveTo(card, next.value);
}

const board = document.querySelector(".board");
if (board instanceof HTMLElement) {
  /** @type {HTMLElement | null} */
  let dragged = null;
  board.addEventListener("dragstart", (ev) => {
    const card = ev.target instanceof HTMLElement ? ev.target.closest(".deal-card") : null;
    if (!(card instanceof HTMLElement)) return;
    dragged = card;
    card.classList.add("dragging");
    ev.dataTransfer?.setData("text/plain", card.dataset.dealId ?? "");
  });
  board.addEventListener("dragend", () => {
    dragged?.classList.remove("dragging");
    dragged = null;
    for (const c of board.querySelectorAll(".drop-target")) c.classList.remove("drop-target");
  });
  board.addEventListener("dragover", (ev) => {
    const column = ev.target instanceof Element ? ev.target.closest(".board-column") : null;
    if (!dragged || !(column instanceof HTMLElement)) return;
    ev.preventDefault();
    for (const c of board.querySelectorAll(".drop-target")) if (c !== column) c.classList.remove("drop-target");
    column.classList.add("drop-target");
  });
  board.addEventListener("drop", (ev) => {
    const column = ev.target instanceof Element ? ev.target.closest(".board-column") : null;
    if (!dragged || !(column instanceof HTMLElement)) return;
    ev.preventDefault();
    moveTo(dragged, column.dataset.stageId ?? "");
  });
  board.addEventListener("keydown", (ev) => {
    // Not while a select or a field has focus: there the keys are the control's own.
    if (!(ev.target instanceof HTMLAnchorElement) || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const card = ev.target.closest(".deal-card");
    if (!(card instanceof HTMLElement) || (ev.key !== "[" && ev.key !== "]")) return;
    ev.preventDefault();
    moveBy(card, ev.key === "]" ? 1 : -1);
  });
  // Back from a move (`#deal-<id>`): focus returns to the moved card, so the keyboard carries on there.
  // After the load, since the browser's own move to the fragment would take focus back to the page.
  const moved = location.hash.startsWith("#deal-") ? document.getElementById(location.hash.slice(1)) : null;
  if (moved) window.addEventListener("load", () => setTimeout(() => moved.querySelector("a")?.focus(), 0));
}
