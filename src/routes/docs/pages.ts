/**
 * @module `GET /docs`: the API reference, rendered in the browser by Swagger UI from
 * `/openapi.json`. Swagger UI (swagger-ui-dist, Apache-2.0) is copied from npm into `public/vendor/` at build
 * time (scripts/vendor.mjs) and served from this origin like every file under `public/`, so the page loads
 * nothing from a CDN. The page has no inline script: the initializer is `/static/docs.js`, so the policy
 * keeps `script-src 'self'`.
 */
import { html } from "../../lib/http";
import { route } from "../../http/route";

/**
 * Swagger UI sets element styles from script (allowed by `style-src 'self'`) but also renders a few
 * `style` attributes in markup (the model expanders, syntax highlighting), hence 'unsafe-inline' for
 * styles only. Nothing may be fetched, framed or posted outside this origin.
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join("; ");

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · crm-edge</title>
<link rel="stylesheet" href="/vendor/swagger-ui/swagger-ui.css">
<link rel="stylesheet" href="/static/docs.css">
<script src="/vendor/swagger-ui/swagger-ui-bundle.js" defer></script>
<script src="/static/docs.js" defer></script>
</head><body>
<header class="docs-bar"><a class="brand" href="/app">crm-edge</a><span>API reference</span>
<nav aria-label="Reference"><a href="/openapi.json">openapi.json</a> <a href="/app">Web app</a></nav></header>
<main id="swagger-ui"><noscript>The reference is rendered by script; the raw description is at <a href="/openapi.json">/openapi.json</a>.</noscript></main>
</body></html>`;

export const docsRoutes = [
  route({
    method: "GET",
    path: "/docs",
    summary: "API reference (HTML, rendered from /openapi.json)",
    tag: "Meta",
    auth: { kinds: [] },
    hidden: true,
    responses: { 200: { description: "HTML page" } },
    handler: () =>
      html(PAGE, 200, {
        "content-security-policy": DOCS_CSP,
        "cache-control": "no-cache",
        "x-frame-options": "DENY",
        "referrer-policy": "same-origin",
      }),
  }),
];
