// @ts-check
/**
 * @module The record page's inline edit of one property, enhanced: the small form inside each property's
 * `<details class="inline-edit">` is posted with fetch, and the saved property (and the heading, which may
 * show it) is swapped in place from the page the post leads to; an error from the server is shown next to
 * the field, the typed value kept. Without this script the same form posts normally (303 back to the page,
 * or the property's own form page with the error).
 */

const meta = document.querySelector('meta[name="csrf-token"]');
const csrfToken = meta instanceof HTMLMetaElement ? meta.content : "";

/** A polite live region announcing saves to screen readers. */
const announcer = document.createElement("p");
announcer.className = "visually-hidden";
announcer.setAttribute("role", "status");
document.body.append(announcer);

/** @param {HTMLDetailsElement} details */
function focusFirstControl(details) {
  const control = details.querySelector("input:not([type=hidden]), select, textarea");
  if (control instanceof HTMLElement) control.focus();
}

/**
 * Shows the server's error for the field next to it.
 * @param {HTMLFormElement} form
 * @param {string} message
 */
function showError(form, message) {
  form.querySelector(".field-error")?.remove();
  const control = form.querySelector("input:not([type=hidden]), select, textarea");
  const p = document.createElement("p");
  p.className = "field-error";
  p.id = `${control?.id || "inline"}-error`;
  p.textContent = message;
  const field = form.querySelector(".field, fieldset");
  (field ?? form).append(p);
  for (const el of form.querySelectorAll("input:not([type=hidden]), select, textarea")) {
    el.setAttribute("aria-invalid", "true");
    el.setAttribute("aria-describedby", p.id);
  }
  if (control instanceof HTMLElement) control.focus();
}

/**
 * @param {HTMLFormElement} form
 * @param {HTMLElement} row the property's `<div id="prop-...">`
 */
async function save(form, row) {
  const button = form.querySelector("button[type=submit]");
  if (button instanceof HTMLButtonElement) button.disabled = true;
  /** @type {Response} */
  let res;
  try {
    const body = new URLSearchParams(/** @type {any} */ (new FormData(form)));
    res = await fetch(form.action, { method: "POST", body, headers: { "x-csrf-token": csrfToken }, credentials: "same-origin" });
  } catch {
    form.submit();
    return;
  } finally {
    if (button instanceof HTMLButtonElement) button.disabled = false;
  }
  const doc = new DOMParser().parseFromString(await res.text(), "text/html");
  if (res.ok) {
    const fresh = doc.getElementById(row.id);
    if (!fresh) {
      location.reload();
      return;
    }
    const replacement = /** @type {HTMLElement} */ (document.importNode(fresh, true));
    row.replaceWith(replacement);
    for (const selector of [".record-head h1", ".summary"]) {
      const now = document.querySelector(selector);
      const next = doc.querySelector(selector);
      if (now && next) now.replaceWith(document.importNode(next, true));
    }
    document.title = doc.title || document.title;
    announcer.textContent = `Saved ${replacement.querySelector("dt")?.textContent ?? ""}.`;
    replacement.querySelector("summary")?.focus();
    return;
  }
  const error = doc.querySelector(".field-error") ?? doc.querySelector(".error-summary li");
  if ((res.status === 400 || res.status === 409) && error) showError(form, error.textContent ?? "");
  // Anything else (a refused CSRF token, a record gone meanwhile): the ordinary post shows the server's page.
  else form.submit();
}

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.closest(".inline-edit")) return;
  const row = form.closest("[id^='prop-']");
  if (!(row instanceof HTMLElement)) return;
  event.preventDefault();
  void save(form, row);
});

document.addEventListener(
  "toggle",
  (event) => {
    const details = event.target;
    if (details instanceof HTMLDetailsElement && details.classList.contains("inline-edit") && details.open) focusFirstControl(details);
  },
  true,
);

document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape" || !(event.target instanceof Element)) return;
  const details = event.target.closest(".inline-edit");
  if (!(details instanceof HTMLDetailsElement) || !details.open) return;
  details.open = false;
  details.querySelector("summary")?.focus();
});
