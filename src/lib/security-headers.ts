/**
 * @module The response headers every answer of the Worker carries, set in this one place (src/index.ts wraps
 * the router's answers with it; static files get theirs from public/_headers):
 *   - `X-Content-Type-Options: nosniff` on every response (JSON, pages, static files, errors, redirects);
 *   - on the sign-in and consent pages (`/login`, `/oauth/authorize`, every method): `Cache-Control:
 *     no-store` (they carry the CSRF token and the OAuth request) and `Referrer-Policy: same-origin` (their
 *     URLs carry `next`, client_id, redirect_uri and state, which no other site should see). Not
 *     `no-referrer`: under it browsers send `Origin: null` with the pages' own form posts, which the
 *     sign-in and consent checks (same origin only) then refuse.
 * Other pages keep the headers their routes give them (the app's CSP, the blog page's sandbox).
 */

/** Paths of the sign-in and consent pages. */
export const CREDENTIAL_PAGES = ["/login", "/oauth/authorize"] as const;

const CREDENTIAL_PAGE_HEADERS = { "cache-control": "no-store", "referrer-policy": "same-origin" } as const;

/** The response with the security headers; a copy only when its headers are immutable (Response.redirect). */
export function withSecurityHeaders(request: Request, res: Response): Response {
  const set: Record<string, string> = { "x-content-type-options": "nosniff" };
  const path = new URL(request.url).pathname.replace(/\/+$/, "") || "/";
  if ((CREDENTIAL_PAGES as readonly string[]).includes(path)) Object.assign(set, CREDENTIAL_PAGE_HEADERS);
  try {
    for (const [k, v] of Object.entries(set)) res.headers.set(k, v);
    return res;
  } catch {
    const out = new Response(res.body, res);
    for (const [k, v] of Object.entries(set)) out.headers.set(k, v);
    return out;
  }
}
