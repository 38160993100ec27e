// @ts-check
/**
 * @module The record page's two dialogs (spec 2.11, 4.6, 6.4): the confirmation of a
 * CONFIRMATION_ACTION_HOOK, and the iframe modal of IFRAME actions and timeline iframes. Both are native
 * modal <dialog>s, so the rest of the page is inert while they are open (focus stays inside); focus goes
 * back to what opened them when they close.
 *
 * The iframe modal closes when the iframe posts a message whose JSON string has `action` DONE or CANCEL.
 * Only messages from that iframe's window AND from the origin of the URL it was opened at count: the page
 * itself, other frames, popups and other origins cannot close it.
 */

/** @typedef {"DONE" | "CANCEL"} CloseReason */

/**
 * @param {string} id
 * @returns {HTMLElement}
 */
function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from the page`);
  return el;
}

/**
 * @param {HTMLElement | null | undefined} opener
 * @param {HTMLElement | null | undefined} fallback
 */
function restoreFocus(opener, fallback) {
  const target = opener && opener.isConnected ? opener : fallback && fallback.isConnected ? fallback : null;
  target?.focus();
}

/**
 * Keeps Tab inside a modal dialog: a guard at either end (records.ts) sends focus to the other end.
 * Without them Tab past the last control leaves the page for the browser's own UI.
 * @param {HTMLDialogElement} dialog
 */
function trapFocus(dialog) {
  const guards = dialog.querySelectorAll(".focus-guard");
  const first = guards[0];
  const last = guards[guards.length - 1];
  /** @returns {HTMLElement[]} */
  const focusables = () =>
    [...dialog.querySelectorAll("button, iframe, a[href], input, select, textarea, [tabindex]")].filter(
      (el) => el instanceof HTMLElement && !el.classList.contains("focus-guard") && !el.hasAttribute("disabled") && el.tabIndex >= 0,
    ).map((el) => /** @type {HTMLElement} */ (el));
  first?.addEventListener("focus", () => focusables().at(-1)?.focus());
  last?.addEventListener("focus", () => focusables()[0]?.focus());
}

for (const id of ["confirm-dialog", "iframe-modal"]) {
  const dialog = document.getElementById(id);
  if (dialog instanceof HTMLDialogElement) trapFocus(dialog);
}

/**
 * Asks to confirm an action; resolves true only for the confirm button.
 * @param {{ title: string, message: string, confirm: string, cancel: string }} text
 * @param {HTMLElement | null} opener focused again afterwards
 * @param {HTMLElement | null} [fallback] focused when the opener is gone
 * @returns {Promise<boolean>}
 */
export function confirmAction(text, opener, fallback) {
  const dialog = /** @type {HTMLDialogElement} */ (byId("confirm-dialog"));
  if (dialog.open) return Promise.resolve(false); // one question at a time
  const ok = byId("confirm-ok");
  const cancel = byId("confirm-cancel");
  byId("confirm-title").textContent = text.title;
  byId("confirm-message").textContent = text.message;
  ok.textContent = text.confirm;
  cancel.textContent = text.cancel;
  return new Promise((resolve) => {
    const onOk = () => dialog.close("confirm");
    const onCancel = () => dialog.close("cancel");
    dialog.returnValue = "";
    ok.addEventListener("click", onOk);
    cancel.addEventListener("click", onCancel);
    dialog.addEventListener(
      "close",
      () => {
        ok.removeEventListener("click", onOk);
        cancel.removeEventListener("click", onCancel);
        restoreFocus(opener, fallback);
        resolve(dialog.returnValue === "confirm"); // Escape closes with an empty returnValue: not confirmed
      },
      { once: true },
    );
    dialog.showModal();
    cancel.focus(); // the safe choice first
  });
}

/**
 * `action` of a message body: a JSON string per spec 4.6 (an object is read too). Null when absent.
 * @param {unknown} data
 */
function messageAction(data) {
  let value = data;
  if (typeof data === "string") {
    try {
      value = JSON.parse(data);
    } catch {
      return null;
    }
  }
  if (value === null || typeof value !== "object") return null;
  const action = /** @type {Record<string, unknown>} */ (value).action;
  return typeof action === "string" ? action : null;
}

/**
 * @type {null | { origin: string, iframe: HTMLIFrameElement, opener: HTMLElement | null, fallback: HTMLElement | null, onClose: (reason: CloseReason) => void }}
 */
let current = null;

const modal = /** @type {HTMLDialogElement | null} */ (document.getElementById("iframe-modal"));

/** @param {CloseReason} reason */
function closeIframe(reason) {
  const c = current;
  if (!c || !modal) return;
  current = null;
  if (modal.open) modal.close();
  c.iframe.remove(); // unloads the integrator's page
  restoreFocus(c.opener, c.fallback);
  c.onClose(reason);
}

if (modal) {
  modal.querySelector(".modal-close")?.addEventListener("click", () => closeIframe("CANCEL"));
  // Escape: closing by the user counts as CANCEL.
  modal.addEventListener("cancel", (event) => {
    event.preventDefault();
    closeIframe("CANCEL");
  });
  window.addEventListener("message", (event) => {
    if (!current) return;
    if (event.source !== current.iframe.contentWindow || event.origin !== current.origin) return; // spec 6.4: only the iframe
    const action = messageAction(event.data);
    if (action === "DONE" || action === "CANCEL") closeIframe(action);
  });
}

/**
 * Opens `src` in the modal, sized by the action's width and height but never wider or taller than the
 * viewport (app.css). Returns false when the URL cannot be opened.
 * @param {{ src: string, width: number, height: number, title: string }} frame
 * @param {HTMLElement | null} opener focused again afterwards
 * @param {HTMLElement | null} fallback focused when the opener is gone (e.g. the card was re-rendered)
 * @param {(reason: CloseReason) => void} onClose
 */
export function openIframe(frame, opener, fallback, onClose) {
  if (!modal) return false;
  let url;
  try {
    url = new URL(frame.src);
  } catch {
    return false;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return false;
  // Integrator content never runs as this origin (allow-same-origin below would then lift the sandbox).
  if (url.origin === window.location.origin) return false;
  if (current) closeIframe("CANCEL");
  const iframe = document.createElement("iframe");
  iframe.title = frame.title;
  // No top navigation: the integrator's page cannot replace the CRM page. Same-origin is kept so that its
  // messages carry its real origin (it is another origin than this page, so it gains nothing here).
  iframe.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox");
  iframe.src = url.href;
  modal.style.setProperty("--frame-w", `${Math.max(1, Math.round(frame.width))}px`);
  modal.style.setProperty("--frame-h", `${Math.max(1, Math.round(frame.height))}px`);
  byId("iframe-title").textContent = frame.title;
  modal.querySelector(".modal-frame")?.replaceChildren(iframe);
  current = { origin: url.origin, iframe, opener, fallback, onClose };
  modal.showModal();
  /** @type {HTMLElement | null} */ (modal.querySelector(".modal-close"))?.focus();
  return true;
}
