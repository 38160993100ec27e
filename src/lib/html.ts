/** @module Escaping and a minimal page shell for the few server-rendered pages (sign-in, OAuth consent). */
const ESCAPED: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const SPECIAL = /[&<>"']/;
const SPECIALS = /[&<>"']/g;

/** Text for HTML (content or a quoted attribute). One pass, and none for text without a special character (most of a page's values). */
export function escapeHtml(value: unknown): string {
  const text = String(value ?? "");
  return SPECIAL.test(text) ? text.replace(SPECIALS, (c) => ESCAPED[c]!) : text;
}

/** No inline script anywhere: the CSP forbids it. */
export const PAGE_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self' https: http://localhost:* http://127.0.0.1:*";

export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><link rel="stylesheet" href="/static/app.css"></head><body><main class="narrow">${body}</main></body></html>`;
}
