// @ts-check
/**
 * @module Shared by every app page: shows `<time data-local>` values in the reader's time zone
 * and locale. The server writes UTC text, so the page reads correctly without this script too.
 */

/** @param {ParentNode} root */
export function localizeTimes(root) {
  const fmt = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
  for (const el of root.querySelectorAll("time[data-local]")) {
    const iso = el.getAttribute("datetime");
    const d = iso ? new Date(iso) : null;
    if (!d || Number.isNaN(d.getTime())) continue;
    // The server puts the exact value in `title`; keep it, else show the ISO instant on hover.
    if (!el.hasAttribute("title")) el.setAttribute("title", iso ?? "");
    el.textContent = fmt.format(d);
  }
}

localizeTimes(document);
