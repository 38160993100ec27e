/**
 * @module The signed-in web app's page shell (docs/reference/web.md): navigation, the sign-out form, the
 * CSRF token for scripts, and the Content-Security-Policy of each page. No inline script or style anywhere:
 * scripts are modules under /static/ (Workers static assets), so `script-src 'self'` and `style-src 'self'`
 * hold.
 */
import { escapeHtml } from "../lib/html";
import { html } from "../lib/http";

export interface ShellUser {
  email: string;
  csrfToken: string;
}

export type Section = "home" | "contacts" | "companies" | "deals" | "tickets" | "stores" | "mail";

const NAV: [Section, string, string][] = [
  ["contacts", "Contacts", "/app/contacts"],
  ["companies", "Companies", "/app/companies"],
  ["deals", "Deals", "/app/deals"],
  ["tickets", "Tickets", "/app/tickets"],
  ["stores", "Stores", "/app/stores"],
  ["mail", "Sent mail", "/app/mail"],
];

/**
 * A CSP source expression for a URI the page may frame: its origin and path (CSP matches a path ending in
 * `/` as a prefix, any other path exactly; the query plays no part). Null when CSP cannot express it:
 * not http(s), or an IPv6 literal host.
 */
function frameSource(uri: string, asPrefix: boolean): string[] {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return [];
  }
  if ((url.protocol !== "https:" && url.protocol !== "http:") || url.hostname.startsWith("[")) return [];
  // `;` and `,` separate directives and policies; whitespace separates sources: percent-encode them
  // (CSP percent-decodes paths before comparing).
  const path = url.pathname.replace(/[;,\s]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
  if (!asPrefix) return [`${url.origin}${path}`];
  // An action URI lies under a base URI when its path equals the base path or continues it at a `/`
  // (docs/reference/cards.md "Under the baseUris").
  return path.endsWith("/") ? [`${url.origin}${path}`] : [`${url.origin}${path}`, `${url.origin}${path}/`];
}

export interface FrameTargets {
  /** Card record types' baseUris: every IFRAME action of a card must lie under one of them. */
  baseUris?: readonly string[];
  /** Timeline events' iframe URIs (exact paths). */
  uris?: readonly string[];
}

/**
 * The policy of an app page. `frame-src` lists only what this page may open in its iframe modal: the
 * baseUris of the cards shown and the timeline iframes listed ('none' when there are none).
 */
export function appCsp(frames: FrameTargets = {}): string {
  const sources = [...new Set([...(frames.baseUris ?? []).flatMap((u) => frameSource(u, true)), ...(frames.uris ?? []).flatMap((u) => frameSource(u, false))])];
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    // Timeline templates may show https images (services/timeline/render.ts keeps only http(s) image URLs).
    "img-src 'self' data: https:",
    "connect-src 'self'",
    `frame-src ${sources.length ? sources.join(" ") : "'none'"}`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
  ].join("; ");
}

export interface ShellOptions {
  title: string;
  section: Section;
  user: ShellUser;
  body: string;
  /** Module scripts under /static/. */
  scripts?: string[];
  frames?: FrameTargets;
  status?: number;
}

export function appPage(o: ShellOptions): Response {
  const nav = NAV.map(
    ([key, label, href]) => `<li><a href="${href}"${key === o.section ? ' aria-current="page"' : ""}>${label}</a></li>`,
  ).join("");
  const scripts = (o.scripts ?? []).map((s) => `<script type="module" src="/static/${escapeHtml(s)}"></script>`).join("");
  const doc = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(o.title)} · crm-edge</title><meta name="csrf-token" content="${escapeHtml(o.user.csrfToken)}">
<link rel="stylesheet" href="/static/app.css">${scripts}</head>
<body><a class="skip-link" href="#main">Skip to content</a>
<header class="topbar"><a class="brand" href="/app">crm-edge</a>
<nav aria-label="Main"><ul>${nav}<li><a href="/docs">API reference</a></li></ul></nav>
<form class="signout" method="post" action="/logout"><input type="hidden" name="csrf" value="${escapeHtml(o.user.csrfToken)}"><span class="who">${escapeHtml(o.user.email)}</span><button type="submit">Sign out</button></form>
</header>
<main id="main" tabindex="-1">${o.body}</main></body></html>`;
  return html(doc, o.status ?? 200, pageHeaders(o.frames));
}

/** Headers of every app page: the CSP, no caching of account data, no framing, no referrer to integrators (nosniff: src/lib/security-headers.ts). */
export function pageHeaders(frames?: FrameTargets): Record<string, string> {
  return {
    "content-security-policy": appCsp(frames),
    "cache-control": "no-store",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
  };
}

export function notFoundPage(user: ShellUser, section: Section, what: string): Response {
  return appPage({
    title: "Not found",
    section,
    user,
    status: 404,
    body: `<h1>Not found</h1><p>${escapeHtml(what)}</p><p><a href="/app">Back to the start page</a></p>`,
  });
}
