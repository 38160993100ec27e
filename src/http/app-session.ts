/**
 * @module Sessions on the web app's routes. Pages send a signed-out visitor to the sign-in page
 * and back; the JSON endpoints the page scripts call answer 401 instead (a redirect is useless to fetch()),
 * and every state-changing one checks the session's CSRF token, sent in the `X-CSRF-Token` header.
 */
import type { Db } from "../db/client";
import { ApiError } from "../lib/errors";
import { checkCsrf, readSession, type Session } from "./session";

export const CSRF_HEADER = "x-csrf-token";

/** Where sign-in lands when `next` is missing or not allowed. */
export const DEFAULT_NEXT = "/app";

/**
 * Where sign-in may send the browser afterwards (`next`): only back to where a sign-in is asked for, which
 * is a page of the web app (`pageSession` below) or the OAuth consent page (`GET /oauth/authorize`), on this
 * origin; anything else lands on `/app` (no open redirector, as the OAuth security practice of RFC 9700
 * requires). `next` is resolved the way a browser resolves a Location, so `/\evil.example`, a tab or newline
 * inside `//` and every other spelling of another host are seen as that host; only the path and query are
 * sent back.
 */
export function safeNext(next: string | undefined, base: URL): string {
  if (!next) return DEFAULT_NEXT;
  let target: URL;
  try {
    target = new URL(next, base);
  } catch {
    return DEFAULT_NEXT;
  }
  if (target.origin !== base.origin) return DEFAULT_NEXT;
  const path = target.pathname;
  const allowed = path === "/app" || path.startsWith("/app/") || path === "/oauth/authorize";
  return allowed ? path + target.search : DEFAULT_NEXT;
}

/** The session, or the redirect to `/login?next=<this page>` (followed after sign-in, see `safeNext`). */
export async function pageSession(db: Db, request: Request, url: URL, now: number): Promise<Session | Response> {
  const session = await readSession(db, request, now);
  if (session) return session;
  const next = encodeURIComponent(url.pathname + url.search);
  return new Response(null, { status: 302, headers: { location: `/login?next=${next}`, "cache-control": "no-store" } });
}

export async function apiSession(db: Db, request: Request, now: number, opts: { csrf: boolean }): Promise<Session> {
  const session = await readSession(db, request, now);
  if (!session) throw new ApiError("INVALID_AUTHENTICATION", "Sign in first: this endpoint needs a signed-in session.");
  if (opts.csrf) checkCsrf(session, request.headers.get(CSRF_HEADER) ?? undefined);
  return session;
}
