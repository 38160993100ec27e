/**
 * @module Where public blog pages are served (docs/how-to/public-pages-host.md). Each page carries its account's own
 * head and footer HTML; on the host that also serves `/login` and `/oauth/authorize`, that is a phishing
 * surface even sandboxed. With the optional variable `PUBLIC_PAGES_ORIGIN` (an origin such as
 * `https://pages.example.com`, routed to this Worker):
 *   - the API's `url` fields point there;
 *   - `/_blog/...` on any other host answers a 308 redirect to the same path there;
 *   - that host serves `/_blog/...` only: everything else there is a 404, so it never shows a sign-in or
 *     consent page.
 * Without it, pages are served from the service's own host.
 */
import { ApiError, errorResponse } from "./errors";

export const PAGES_PREFIX = "/_blog/";

/** The configured pages origin, or null (unset, empty or not an http(s) origin). */
export function pagesOrigin(env: Env): URL | null {
  const raw = (env as Env & { PUBLIC_PAGES_ORIGIN?: string }).PUBLIC_PAGES_ORIGIN;
  if (!raw) return null;
  try {
    const url = new URL(raw);
    return url.protocol === "https:" || url.protocol === "http:" ? url : null;
  } catch {
    return null;
  }
}

/** The origin public page URLs are built on: the pages origin when configured, else the request's. */
export function publicPagesBase(env: Env, url: URL): string {
  return pagesOrigin(env)?.origin ?? url.origin;
}

/** A redirect or refusal when the request is on the wrong host for its kind; null to serve it normally. */
export function pagesHostAnswer(request: Request, env: Env): Response | null {
  const pages = pagesOrigin(env);
  if (!pages) return null;
  const url = new URL(request.url);
  const isPage = url.pathname.startsWith(PAGES_PREFIX);
  if (url.host === pages.host) {
    if (isPage) return null;
    return errorResponse(new ApiError("OBJECT_NOT_FOUND", "This host serves public blog pages only"), crypto.randomUUID());
  }
  if (!isPage) return null;
  return new Response(null, { status: 308, headers: { location: `${pages.origin}${url.pathname}${url.search}`, "cache-control": "no-store" } });
}
