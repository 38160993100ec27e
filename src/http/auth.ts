/**
 * @module Authentication: a Bearer token in the Authorization header; only a developer key may instead come
 * as `hapikey`. Pure policy (which credential a route accepts, which scopes it needs) is kept apart from the
 * single indexed credential lookup.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { controlRead } from "../db/replica";
import { accounts, credentials } from "../db/tables/tenancy";
import { admission, suspendedError } from "../services/accounts/status";
import { ApiError, refusedToken } from "../lib/errors";
import { safeEqual, sha256Hex } from "../lib/crypto";
import { cachedPrincipal, cacheTtlMs, rememberPrincipal } from "../lib/credential-cache";
import type { CredentialKind, CredentialPrincipal, Principal } from "../lib/principal";
import { missingScopes, type Scope } from "../lib/scopes";
import { credentialKitColumns, credentialKitJoin, isTestAccountType } from "../services/testkit/account";
import { readSession } from "./session";

export interface AuthRule {
  /** Credential kinds the route accepts; empty means public. */
  kinds: CredentialKind[];
  /** Scopes an OAuth or private-app credential must carry (all of them). */
  scopes?: Scope[];
}

const NO_CREDENTIALS =
  "Authentication credentials not found. This API supports OAuth 2.0 authentication: send Authorization: Bearer <token>.";

interface Presented {
  secret: string;
  via: "bearer" | "hapikey";
}

function presented(request: Request, url: URL): Presented | null {
  const header = request.headers.get("authorization");
  if (header) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m?.[1]) throw refusedToken("INVALID_AUTHENTICATION", "The Authorization header must be 'Bearer <token>'.");
    return { secret: m[1], via: "bearer" };
  }
  const hapikey = url.searchParams.get("hapikey");
  if (hapikey) return { secret: hapikey, via: "hapikey" };
  return null;
}

/** Resolves the caller and checks it against the route's rule; throws the matching 401/403. */
export async function authenticate(
  request: Request,
  url: URL,
  rule: AuthRule,
  env: Env,
  db: Db,
  now: number,
): Promise<Principal> {
  if (rule.kinds.length === 0) return { kind: "anonymous" };
  if (rule.kinds.length === 1 && rule.kinds[0] === "session") {
    // The web app answers a missing session itself (a redirect to /login, or 401); a signed-in user is a
    // principal so that their requests are counted (src/http/rate-limit.ts). The handler's own read of the
    // session is answered from this one (readSession).
    // The session's expiry is checked in real time (`now`): it protects the user, it is not the account's data.
    const s = await readSession(db, request, now);
    if (!s) return { kind: "anonymous" };
    return { kind: "session", portalId: s.portalId, userId: s.userId, csrfToken: s.csrfToken, rateLimit: s.rateLimit, shard: s.shard, ...(s.companion ? { companion: s.companion } : {}), ...(s.clockOffsetMs ? { clockOffsetMs: s.clockOffsetMs } : {}) };
  }
  const cred = presented(request, url);
  if (!cred) throw new ApiError("INVALID_AUTHENTICATION", NO_CREDENTIALS);

  if (rule.kinds.includes("admin")) {
    if (cred.via === "bearer" && env.ADMIN_TOKEN && safeEqual(cred.secret, env.ADMIN_TOKEN)) return { kind: "admin" };
    throw refusedToken("INVALID_AUTHENTICATION", "The operator API requires Authorization: Bearer <ADMIN_TOKEN>.");
  }

  const principal = await lookup(db, cred.secret, now, cacheTtlMs(env));
  if (cred.via === "hapikey" && principal?.kind !== "developer") {
    // Account API keys (hapikey) are unsupported, as in the real service since 30 November 2022.
    throw refusedToken(
      "INVALID_AUTHENTICATION",
      "Account API keys (hapikey) are not supported. Use a private app or OAuth access token in the Authorization header.",
    );
  }
  if (!principal) throw refusedToken("INVALID_AUTHENTICATION", "The access token is invalid or has been revoked.");
  if (!rule.kinds.includes(principal.kind as CredentialKind)) throw wrongKind(principal.kind, rule);
  if (rule.scopes?.length) requireScopes(principal, rule.scopes);
  return principal;
}

function wrongKind(kind: Principal["kind"], rule: AuthRule): ApiError {
  const accepted = rule.kinds
    .map((k) => ({ oauth: "an OAuth access token", private_app: "a private app token", developer: "the app's developer API key", admin: "the operator token", session: "a signed-in session" })[k])
    .join(" or ");
  const what = kind === "developer" ? "A developer API key" : kind === "private_app" ? "A private app token" : "This credential";
  return new ApiError("FORBIDDEN", `${what} cannot be used on this endpoint; it requires ${accepted}.`);
}

/**
 * One indexed read by the hash of the presented secret, unless this isolate resolved it moments ago. Only
 * credentials of active accounts are cached: a suspension takes effect at once in the isolate that made it
 * (the PATCH forgets this isolate's cache) and within the cache TTL in the others; a resumption at once
 * everywhere, a suspended account's credentials never having been cached.
 */
async function lookup(db: Db, secret: string, now: number, ttlMs: number): Promise<Principal | null> {
  const hash = await sha256Hex(secret);
  const cached = cachedPrincipal(hash, now);
  if (cached) return cached;
  // A replica may answer, no older than the isolate's floor (src/db/replica.ts): the entry's age counts from it.
  const read = controlRead(db, now, ttlMs);
  const principal = await readPrincipal(read.db, hash, now);
  read.done();
  if (principal) rememberPrincipal(hash, principal.principal, principal.expiresAt, read.since, ttlMs);
  return principal?.principal ?? null;
}

async function readPrincipal(db: Db, hash: string, now: number): Promise<{ principal: CredentialPrincipal; expiresAt: number | null } | null> {
  // The test kit's columns ride along (the account's type, its quirks by a primary-key probe): no call reads them again.
  const found = await credentialKitJoin(
    db
      .select({ row: credentials, rateLimit: accounts.rateLimit, shard: accounts.shard, companion: accounts.companion, status: accounts.status, ...credentialKitColumns })
      .from(credentials)
      .leftJoin(accounts, eq(accounts.portalId, credentials.portalId))
      .$dynamic(),
  )
    .where(eq(credentials.tokenHash, hash))
    .get();
  const row = found?.row;
  const rateLimit = found?.rateLimit ?? null;
  const shard = found?.shard ?? null;
  if (!row || row.revokedAt !== null || row.kind === "refresh") return null;
  switch (admission(found.status)) {
    case "suspended":
      throw suspendedError(row.portalId!);
    case "gone":
      return null;
  }
  // A test account's tokens expire by its own clock (their expiresAt was written in its time); a STANDARD
  // account's leftover offset is ignored, as its quirks are.
  const offset = isTestAccountType(found.accountType) && row.kind !== "developer" ? (found.clockOffsetMs ?? 0) : 0;
  const accountNow = now + offset;
  if (row.expiresAt !== null && row.expiresAt <= accountNow) {
    const secondsAgo = Math.floor((accountNow - row.expiresAt) / 1000);
    throw refusedToken(
      "EXPIRED_AUTHENTICATION",
      `The OAuth token used to make this call expired ${secondsAgo} second(s) ago.`,
      { context: { "expire time": [new Date(row.expiresAt).toISOString()] } },
    );
  }
  const principal = principalOf(row, hash, rateLimit, shard);
  if (found.companion && principal.kind !== "developer") principal.companion = found.companion;
  // Read in the same statement as the credential: a STANDARD account's calls pay nothing for the test kit.
  if (isTestAccountType(found.accountType) && principal.kind !== "developer") {
    principal.testAccount = true;
    // Quirks act on test accounts only: a STANDARD account's leftover row (its type changed back) is ignored.
    if (found.searchLagMs) principal.searchLagMs = found.searchLagMs;
    if (offset) principal.clockOffsetMs = offset;
  }
  // The cache checks the expiry in real time: the account's expiry, moved back by its offset.
  return { principal, expiresAt: row.expiresAt === null ? null : row.expiresAt - offset };
}

function principalOf(row: typeof credentials.$inferSelect, hash: string, rateLimit: number | null, shard: string | null): CredentialPrincipal {
  switch (row.kind) {
    case "private_app":
      return { kind: "private_app", portalId: row.portalId!, privateAppId: row.privateAppId!, scopes: row.scopes, credentialKey: hash, rateLimit, shard };
    case "developer":
      return { kind: "developer", appId: row.appId!, credentialKey: hash };
    default: // "access" (refresh tokens never reach here)
      return {
        kind: "oauth",
        portalId: row.portalId!,
        appId: row.appId!,
        installId: row.installId!,
        userId: row.userId,
        scopes: row.scopes,
        credentialKey: hash,
        rateLimit,
        shard,
      };
  }
}

/** The account an account-level principal acts for. */
export function portalOf(p: Principal): number {
  if (p.kind === "oauth" || p.kind === "private_app" || p.kind === "session") return p.portalId;
  throw new ApiError("FORBIDDEN", "This endpoint requires an account credential.");
}

/** The install behind an OAuth token: for routes that need both an app and an account (they accept OAuth only). */
export function installOf(p: Principal): { portalId: number; appId: number } {
  if (p.kind === "oauth") return { portalId: p.portalId, appId: p.appId };
  throw new ApiError("FORBIDDEN", "This endpoint requires an OAuth access token.");
}


/** Scope check inside a handler, for routes whose scope depends on a path parameter. */
export function requireScopes(p: Principal, required: Scope[]): void {
  if (p.kind !== "oauth" && p.kind !== "private_app") return;
  const missing = missingScopes(p.scopes, required);
  if (missing.length) {
    throw new ApiError("MISSING_SCOPES", "This app hasn't been granted all required scopes to make this call.", {
      errors: [{ message: "One or more of the following scopes are required.", context: { requiredScopes: missing } }],
    });
  }
}
