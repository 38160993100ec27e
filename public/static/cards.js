// @ts-check
/**
 * @module CRM cards on the record page (spec 1.4, 2.10–2.12, 4.6). Each card is fetched on its own from
 * /app/api/cards/... (all at once), with its own loading state; a failing card shows its error and a
 * retry button while the others show their data. A card shows up to five items with the record type's
 * defined properties in definition order, then each item's own properties, the item link and an actions
 * menu per item; then the see-more link and the card's primary and secondary actions; the settings
 * action sits in the card's header.
 *
 * Actions (spec 2.11): ACTION_HOOK runs at once and shows the integrator's message; a
 * CONFIRMATION_ACTION_HOOK asks first; IFRAME opens the modal, and DONE from the iframe reloads the card.
 * Each action is posted back exactly as the card data carried it, with its `actionToken`: the server runs
 * only actions it showed this user on this record, and refuses an expired token (the card then reloads).
 */
import { callApi, failureText } from "./api.js";
import { formatValue, h, isHttpUrl, unbox } from "./format.js";
import { confirmAction, openIframe } from "./modal.js";

/**
 * An action as the card data carries it (cards.md, "Actions").
 * @typedef {{ type: "IFRAME" | "ACTION_HOOK" | "CONFIRMATION_ACTION_HOOK", label?: string, uri: string,
 *   associatedObjectProperties?: string[], httpMethod?: string, width?: number, height?: number,
 *   confirmationMessage?: string, confirmButtonText?: string, cancelButtonText?: string, actionToken: string }} Action
 */
/** @typedef {{ name: string, label: string, dataType: string, options?: import("./format.js").StatusOption[] }} Definition */
/** @typedef {{ label: string, dataType: string, value: unknown, currencyCode?: string, linkLabel?: string, optionType?: string }} ItemProperty */
/**
 * @typedef {{ cardId: number, title: string, status: "OK" | "ERROR", error?: string, propertyDefinitions: Definition[],
 *   results: Record<string, unknown>[], totalCount?: number, allItemsLink?: string, itemLabel?: string,
 *   settingsAction?: Action, primaryAction?: Action, secondaryActions?: Action[] }} CardData
 */
/**
 * @typedef {{ url: string, title: string, section: HTMLElement, heading: HTMLElement, tools: HTMLElement,
 *   notice: HTMLElement, body: HTMLElement, loads: number }} Card
 */

let menuSeq = 0;

/**
 * @param {HTMLElement} section a `.card[data-card-id]` of the page
 * @param {string} objectType
 * @param {string} objectId
 */
export function initCard(section, objectType, objectId) {
  /** @param {string} sel */
  const part = (sel) => /** @type {HTMLElement} */ (section.querySelector(sel));
  /** @type {Card} */
  const card = {
    url: `/app/api/cards/${encodeURIComponent(objectType)}/${encodeURIComponent(objectId)}/${encodeURIComponent(section.dataset.cardId ?? "")}`,
    title: part(".card-head h3").textContent ?? "",
    section,
    heading: part(".card-head h3"),
    tools: part(".card-tools"),
    notice: part(".card-notice"),
    body: part(".card-body"),
    loads: 0,
  };
  void load(card);
}

/**
 * (Re)loads a card. Only the newest load of a card renders, so a slow earlier answer cannot overwrite a newer one.
 * @param {Card} card
 */
async function load(card) {
  const seq = ++card.loads;
  const hadFocus = card.section.contains(document.activeElement);
  card.body.setAttribute("aria-busy", "true");
  card.body.replaceChildren(h("p", { class: "loading", role: "status" }, "Loading…"));
  card.tools.replaceChildren();
  let res = null;
  try {
    res = await callApi("GET", card.url);
  } catch {
    res = null;
  }
  if (seq !== card.loads) return;
  if (!res || !res.ok) showError(card, failureText(res));
  else {
    const data = /** @type {CardData} */ (res.body);
    if (data.status === "ERROR") showError(card, data.error ?? "The integrator's answer could not be used.");
    else render(card, data);
  }
  card.body.setAttribute("aria-busy", "false");
  // A reload replaces the button that had focus: keep the keyboard user in this card.
  if (hadFocus && (!document.activeElement || document.activeElement === document.body)) card.heading.focus();
}

/**
 * @param {Card} card
 * @param {string} message
 */
function showError(card, message) {
  const retry = h("button", { type: "button" }, "Try again");
  retry.addEventListener("click", () => void load(card));
  card.body.replaceChildren(h("p", { class: "card-error" }, `This card could not be loaded: ${message}`), retry);
}

/**
 * The integrator's message (spec 4.6) or an error, in the card's notice area: role=status for success,
 * role=alert for errors.
 * @param {Card} card
 * @param {"success" | "error"} kind
 * @param {string} message
 */
function notify(card, kind, message) {
  const dismiss = h("button", { type: "button", "aria-label": "Dismiss message" }, "×");
  const note = h("p", { class: `notice notice-${kind}`, role: kind === "success" ? "status" : "alert" }, h("span", {}, message), dismiss);
  dismiss.addEventListener("click", () => {
    note.remove();
    card.heading.focus();
  });
  card.notice.replaceChildren(note);
}

/**
 * @param {HTMLElement | null} el
 * @param {boolean} busy
 */
function setBusy(el, busy) {
  if (!(el instanceof HTMLButtonElement)) return;
  el.disabled = busy;
  if (busy) el.setAttribute("aria-busy", "true");
  else el.removeAttribute("aria-busy");
}

/** Refusals that mean the card's data is out of date: reloading it gives actions that run. */
const STALE_ACTION = ["ACTION_TOKEN_EXPIRED", "ACTION_NOT_OFFERED"];

/**
 * The `code` of the first entry of an error envelope's `errors`, or "".
 * @param {unknown} body
 */
function errorCode(body) {
  const errors = body && typeof body === "object" ? /** @type {{ errors?: unknown }} */ (body).errors : undefined;
  const first = Array.isArray(errors) ? errors[0] : undefined;
  return first && typeof first === "object" && typeof first.code === "string" ? first.code : "";
}

/**
 * @param {Card} card
 * @param {Action} action
 * @param {HTMLElement | null} opener the control focus returns to
 */
async function runAction(card, action, opener) {
  const label = action.label || "Action";
  if (action.type === "CONFIRMATION_ACTION_HOOK") {
    const confirmed = await confirmAction(
      {
        title: label,
        message: action.confirmationMessage ?? "",
        // spec 2.11: the defaults are OK and Cancel (the server fills them in too).
        confirm: action.confirmButtonText || "OK",
        cancel: action.cancelButtonText || "Cancel",
      },
      opener,
      card.heading,
    );
    if (!confirmed) return;
  }
  setBusy(opener, true);
  let res = null;
  try {
    // The action exactly as the card data carried it, its actionToken included (cards.md, "Action tokens").
    res = await callApi("POST", `${card.url}/actions`, { action });
  } catch {
    res = null;
  } finally {
    setBusy(opener, false);
  }
  if (!res || !res.ok) {
    notify(card, "error", failureText(res));
    if (res && STALE_ACTION.includes(errorCode(res.body))) void load(card); // show the actions the card offers now
    return;
  }
  const out = res.body;
  if (typeof out.iframeUrl === "string") {
    const opened = openIframe({ src: out.iframeUrl, width: out.width, height: out.height, title: label }, opener, card.heading, (reason) => {
      if (reason === "DONE") void load(card); // the integrator finished something: show the new state
    });
    if (!opened) notify(card, "error", "This action's page cannot be opened here.");
    return;
  }
  if (out.ok) notify(card, "success", typeof out.message === "string" && out.message ? out.message : `${label}: done.`);
  else notify(card, "error", typeof out.message === "string" && out.message ? out.message : `${label} failed.`);
  if (out.ok) void load(card);
}

/**
 * @param {Card} card
 * @param {Action} action
 * @param {string} className
 * @param {Node} [icon] shown before the label, hidden from assistive technology
 */
function actionButton(card, action, className, icon) {
  const b = h("button", { type: "button", class: className || undefined }, icon ?? null, action.label || "Action");
  b.addEventListener("click", () => void runAction(card, action, b));
  return b;
}

/**
 * A disclosure menu of an item's actions: a button toggling a list of buttons (Tab moves through them,
 * Escape closes it and returns to the button).
 * @param {Card} card
 * @param {Action[]} actions
 * @param {string} itemTitle
 */
function actionMenu(card, actions, itemTitle) {
  const id = `item-actions-${++menuSeq}`;
  const toggle = h("button", { type: "button", "aria-expanded": "false", "aria-controls": id, "aria-label": `Actions for ${itemTitle}` }, "Actions ▾");
  const list = h("ul", { id, hidden: true });
  const wrap = h("div", { class: "menu" }, toggle, list);
  /** @param {boolean} open */
  const setOpen = (open) => {
    list.hidden = !open;
    toggle.setAttribute("aria-expanded", String(open));
  };
  for (const action of actions) {
    const b = h("button", { type: "button" }, action.label || "Action");
    b.addEventListener("click", () => {
      setOpen(false);
      toggle.focus();
      void runAction(card, action, toggle);
    });
    list.append(h("li", {}, b));
  }
  toggle.addEventListener("click", () => {
    const open = list.hidden;
    setOpen(open);
    if (open) /** @type {HTMLElement | null} */ (list.querySelector("button"))?.focus();
  });
  wrap.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !list.hidden) {
      event.preventDefault();
      setOpen(false);
      toggle.focus();
    }
  });
  wrap.addEventListener("focusout", (event) => {
    const next = event.relatedTarget;
    if (!(next instanceof Node) || !wrap.contains(next)) setOpen(false);
  });
  return wrap;
}

/**
 * @param {string} label
 * @param {Node} value
 */
const row = (label, value) => h("div", {}, h("dt", {}, label), h("dd", {}, value));

/**
 * @param {Card} card
 * @param {CardData} data
 * @param {Record<string, unknown>} item
 */
function renderItem(card, data, item) {
  const title = String(item.title ?? "");
  const heading = h("h4", { class: "item-title" }, isHttpUrl(item.link) ? h("a", { href: String(item.link), target: "_blank", rel: "noopener noreferrer" }, title) : title);
  const head = h("div", { class: "item-head" }, heading);
  const actions = Array.isArray(item.actions) ? /** @type {Action[]} */ (item.actions) : [];
  if (actions.length) head.append(actionMenu(card, actions, title));
  const props = h("dl", { class: "item-props" });
  // spec 2.10: the record type's defined properties in definition order, then the item's own.
  for (const def of data.propertyDefinitions) {
    if (!(def.name in item)) continue;
    props.append(row(def.label, formatValue({ dataType: def.dataType, options: def.options, ...unbox(item[def.name]) })));
  }
  const own = Array.isArray(item.properties) ? /** @type {ItemProperty[]} */ (item.properties) : [];
  for (const p of own) props.append(row(p.label, formatValue(p)));
  return h("li", { class: "card-item" }, head, props.childElementCount ? props : null);
}

/**
 * @param {Card} card
 * @param {CardData} data
 */
function render(card, data) {
  const label = data.itemLabel || data.title;
  const parts = [];
  parts.push(data.results.length ? h("ul", { class: "card-items" }, ...data.results.map((item) => renderItem(card, data, item))) : h("p", { class: "empty" }, `No ${label} to show.`));
  // spec 2.12: the see-more link, labelled by itemLabel (else the title), with the total when known.
  const more = typeof data.totalCount === "number" && data.totalCount > data.results.length;
  if (data.allItemsLink && isHttpUrl(data.allItemsLink) && (more || data.totalCount === undefined)) {
    const text = `See more ${label}${typeof data.totalCount === "number" ? ` (${data.totalCount})` : ""}`;
    parts.push(h("p", { class: "see-more" }, h("a", { href: data.allItemsLink, target: "_blank", rel: "noopener noreferrer" }, text)));
  } else if (more) {
    parts.push(h("p", { class: "see-more muted" }, `Showing ${data.results.length} of ${data.totalCount}`));
  }
  const cardActions = [...(data.primaryAction ? [actionButton(card, data.primaryAction, "primary")] : []), ...(data.secondaryActions ?? []).map((a) => actionButton(card, a, ""))];
  if (cardActions.length) parts.push(h("div", { class: "card-actions" }, ...cardActions));
  card.body.replaceChildren(...parts);
  // spec 2.12: the settings action (always an IFRAME) sits in the card's header.
  if (data.settingsAction) card.tools.replaceChildren(actionButton(card, data.settingsAction, "settings", h("span", { "aria-hidden": "true" }, "⚙ ")));
}
