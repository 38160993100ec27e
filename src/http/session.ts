/**
 * @module Browser sessions of account users: an HttpOnly, SameSite=Lax cookie (Secure except on localhost)
 * holding a random token whose hash is stored, plus a per-session CSRF token for every form.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { CLOCK_OFFSET_SQL } from "../db/directory";
import { sessions, type AccountStatus } from "../db/tables/tenancy";
import { randomToken, safeEqual, sha256Hex } from "../lib/crypto";
import { admission, suspendedError } from "../services/accounts/status";
import { ApiError } from "../lib/errors";

export const SESSION_COOKIE = "crm_session";
const SESSION_TTL_MS = 8 * 3600 * 1000;

export interface Session {
  userId: number;
  portalId: number;
  email: string;
  csrfToken: string;
  /** The account's requests per 10 s (the session's rate-limit bucket, src/http/rate-limit.ts); null = default. */
  rateLimit: number | null;
  /** The account's shard, read in the same join, so routing the request costs no extra read. */
  shard: string | null;
  /** The shard of its companion tables when they live apart (same join). */
  companion: string | null;
  /** The account's lifecycle status: whoever accepts the session checks it (src/services/accounts/status.ts). */
  status: AccountStatus | null;
  /**
   * The account's clock (docs/reference/testkit.md "Clock"): ms it runs ahead of real time, 0 unless it is a
   * test account whose clock was moved. Read in the same join, so a STANDARD account's session costs nothing more.
   */
  clockOffsetMs: number;
}

function cookieValue(request: Request, name: string): string | null {
  const header = request.headers.get("cookie") ?? "";
  for (const part of header.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return v.join("=");
  }
  return null;
}

const isLocal = (url: URL) => url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]";

export function sessionCookie(url: URL, token: string, maxAgeS: number): string {
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeS}${isLocal(url) ? "" : "; Secure"}`;
}

export async function startSession(db: Db, userId: number, portalId: number, now: number) {
  const token = randomToken("", 32);
  await db.insert(sessions).values({
    tokenHash: await sha256Hex(token),
    userId,
    portalId,
    csrfToken: randomToken("", 24),
    expiresAt: now + SESSION_TTL_MS,
  });
  return { token, maxAgeS: SESSION_TTL_MS / 1000 };
}

/**
 * Sessions already read for a request: authentication reads the session to count the request against its
 * rate limit (src/http/auth.ts), and the handler reads it again; the second read is this lookup, not D1.
 */
const readFor = new WeakMap<Request, Promise<Session | null>>();

/**
 * The request's session if its account may use it: a suspended account's session is refused with 403, a
 * deleting account's is no session at all (src/services/accounts/status.ts).
 */
export async function readSession(db: Db, request: Request, now: number): Promise<Session | null> {
  const s = await readAnySession(db, request, now);
  if (!s) return null;
  switch (admission(s.status)) {
    case "suspended":
      throw suspendedError(s.portalId);
    case "gone":
      return null;
    case "ok":
      return s;
  }
}

/** The request's session whatever its account's status (sign-out works for a suspended account too). */
export function readAnySession(db: Db, request: Request, now: number): Promise<Session | null> {
  let read = readFor.get(request);
  if (!read) {
    read = lookupSession(db, request, now);
    readFor.set(request, read);
    read.catch(() => readFor.delete(request)); // a failed read is not remembered
  }
  return read;
}

/**
 * The live session of a token hash (`?1`, unexpired at `?2`) with its user's email and its account's rate
 * limit, shard, status and clock (CLOCK_OFFSET_SQL). Constant text: every signed-in request runs it, and building it with drizzle's
 * query builder cost more Worker CPU than D1 spends answering it.
 */
const SESSION_READ = `select s.user_id, s.portal_id, s.csrf_token, u.email, accounts.rate_limit, accounts.shard, accounts.status,
    ${CLOCK_OFFSET_SQL}, accounts.companion
  from sessions s join users u on u.user_id = s.user_id left join accounts on accounts.portal_id = s.portal_id
  where s.token_hash = ?1 and s.expires_at > ?2`;

type SessionRow = [number, number, string, string, number | null, string | null, AccountStatus | null, number | null, string | null];

async function lookupSession(db: Db, request: Request, now: number): Promise<Session | null> {
  const token = cookieValue(request, SESSION_COOKIE);
  if (!token) return null;
  const [row] = await db.$client.prepare(SESSION_READ).bind(await sha256Hex(token), now).raw<SessionRow>();
  if (!row) return null;
  const [userId, portalId, csrfToken, email, rateLimit, shard, status, clockOffsetMs, companion] = row;
  return { userId, portalId, csrfToken, email, rateLimit: rateLimit ?? null, shard: shard ?? null, companion: companion ?? null, status: status ?? null, clockOffsetMs: Number(clockOffsetMs ?? 0) };
}

export async function endSession(db: Db, request: Request) {
  readFor.delete(request);
  const token = cookieValue(request, SESSION_COOKIE);
  if (token) await db.delete(sessions).where(eq(sessions.tokenHash, await sha256Hex(token)));
}

/**
 * A form another site made the browser post here. Sign-in has no session yet, hence no session CSRF token
 * to check (login CSRF: an attacker's page signing the victim in to the attacker's account); browsers say
 * where the request comes from instead, in `Sec-Fetch-Site` (Fetch Metadata) and `Origin`. Only this
 * origin (or the user's own navigation, `none`) may post; `same-site` is refused too, a sibling host being
 * another party. A request with neither header is not from a browser that could be tricked, and passes.
 */
export function isCrossSitePost(request: Request, url: URL): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") return true;
  const origin = request.headers.get("origin");
  return origin !== null && origin !== url.origin;
}

/** Every state-changing form posts the session's CSRF token back. */
export function checkCsrf(session: Session, presented: string | undefined): void {
  if (!presented || !safeEqual(presented, session.csrfToken)) {
    throw new ApiError("FORBIDDEN", "The form's CSRF token is missing or wrong. Reload the page and try again.");
  }
}
