/**
 * @module Sessions on the web app's routes (issue 7). Pages send a signed-out visitor to the sign-in page
 * and back; the JSON endpoints the page scripts call answer 401 instead (a redirect is useless to fetch()),
 * and every state-changing one checks the session's CSRF token, sent in the `X-CSRF-Token` header.
 */
import type { Db } from "../db/client";
import { ApiError } from "./errors";
import { checkCsrf, readSession, type Session } from "./session";

export const CSRF_HEADER = "x-csrf-token";

/** The session, or the redirect to `/login?next=<this page>` (same-site relative path only, see session.ts). */
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
