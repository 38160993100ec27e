/**
 * @module OAuth 2.0 authorization server (the real service's v1 OAuth endpoints, hardened after RFC 9700):
 * authorization codes (single use, 10 minutes, PKCE S256 with downgrade protection; a replay revokes what the
 * code issued, RFC 6749 section 4.1.2), stable refresh tokens as the real service has them, and rotation
 * with family revocation as an opt-in per app. Failures are thrown as OAuthError and answered with both the
 * RFC 6749 and the legacy fields.
 */
import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { accounts, apps, authCodes, credentials, users } from "../../db/tables/tenancy";
import { base64url, randomToken, safeEqual, sha256Hex } from "../../lib/crypto";
import { forgetCredentials } from "../../lib/credential-cache";
import { admission, suspendedError } from "../accounts/status";
import { ApiError } from "../../lib/errors";
import { ACCESS_TOKEN_TTL_S, accessTokenStatement, installStatements, tokenPairStatements, type IssuedTokens } from "./tokens";
import { clockOffsetColumn } from "../testkit/clock";

const CODE_TTL_MS = 10 * 60 * 1000;

/** `status` is the legacy code (BAD_AUTH_CODE ...), `error` the RFC 6749 one; the real service sends both. */
export function oauthError(status: string, error: string, message: string): ApiError {
  return new ApiError("VALIDATION_ERROR", message, { extra: { status, error, error_description: message } });
}

export async function appByClientId(db: Db, clientId: string | undefined) {
  if (!clientId) return null;
  return (await db.select().from(apps).where(eq(apps.clientId, clientId)).get()) ?? null;
}

/** How the client authenticated on the token endpoint: form parameters, or HTTP Basic (RFC 6749 section 2.3.1). */
export interface ClientAuth {
  clientId: string;
  clientSecret: string;
  via: "body" | "basic";
}

/**
 * A client that tried the Authorization header and failed gets 401 with a Basic challenge (RFC 6749
 * section 5.2); over form parameters it stays the 400 the real service answers to every token error.
 */
export function clientError(via: ClientAuth["via"], status: string, message: string): ApiError {
  if (via === "body") return oauthError(status, "invalid_client", message);
  return new ApiError("INVALID_AUTHENTICATION", message, {
    extra: { status, error: "invalid_client", error_description: message },
    headers: { "www-authenticate": 'Basic realm="crm-edge", charset="UTF-8"' },
  });
}

/**
 * The current secret, or the one before the last rotation while its grace period lasts
 * (POST /admin/v1/apps/{appId}/rotate-secret; docs/how-to/account-lifecycle.md).
 */
async function authenticateClient(db: Db, client: ClientAuth, now: number) {
  const app = await appByClientId(db, client.clientId);
  if (!app) throw clientError(client.via, "BAD_CLIENT_ID", "missing or unknown client id");
  const current = safeEqual(client.clientSecret, app.clientSecret);
  const previous =
    app.previousClientSecret !== null && (app.previousSecretExpiresAt ?? 0) > now && safeEqual(client.clientSecret, app.previousClientSecret);
  if (!current && !previous) throw clientError(client.via, "BAD_CLIENT_SECRET", "client secret is incorrect");
  return app;
}

/** Tokens are issued only for an active account: 403 while suspended, invalid_grant once it is being deleted. */
/** Returns the account's time: tokens are issued, and expire, by a test account's clock (src/services/testkit/clock.ts). */
/** The account's time to issue tokens at (its clock), and its shard for the access token's hint. */
async function requireActiveAccount(db: Db, portalId: number, legacyStatus: "BAD_AUTH_CODE" | "BAD_REFRESH_TOKEN", now: number): Promise<{ issuedAt: number; shard: string | null }> {
  const row = await db.select({ status: accounts.status, shard: accounts.shard, clockOffsetMs: clockOffsetColumn }).from(accounts).where(eq(accounts.portalId, portalId)).get();
  switch (admission(row?.status ?? "deleting")) {
    case "suspended":
      throw suspendedError(portalId);
    case "gone":
      throw oauthError(legacyStatus, "invalid_grant", "the account of this grant no longer exists");
  }
  return { issuedAt: now + (row?.clockOffsetMs ?? 0), shard: row?.shard ?? null };
}

/** Every token issued from one authorization code shares this family: a replay of the code revokes it. */
const codeFamily = (codeHash: string) => `code:${codeHash}`;

/**
 * A code presented again (RFC 6749 section 4.1.2): refused, and what it issued is revoked. The code is also
 * marked (expiresAt 0) in the same batch, so that an exchange racing this replay, whose tokens are written
 * after the revocation, reads the mark back and revokes them itself.
 */
async function replayedCode(db: Db, codeHash: string, now: number): Promise<ApiError> {
  await db.batch([
    db.update(authCodes).set({ expiresAt: 0 }).where(eq(authCodes.codeHash, codeHash)),
    db.update(credentials).set({ revokedAt: now }).where(and(eq(credentials.familyId, codeFamily(codeHash)), isNull(credentials.revokedAt))),
  ]);
  forgetCredentials();
  return oauthError("BAD_AUTH_CODE", "invalid_grant", "auth code has already been used");
}

export async function issueCode(
  db: Db,
  input: { appId: number; portalId: number; userId: number; redirectUri: string; scopes: string[]; codeChallenge?: string; now: number },
) {
  const code = randomToken("", 24);
  await db.insert(authCodes).values({
    codeHash: await sha256Hex(code),
    appId: input.appId,
    portalId: input.portalId,
    userId: input.userId,
    redirectUri: input.redirectUri,
    scopes: input.scopes,
    codeChallenge: input.codeChallenge ?? null,
    codeChallengeMethod: input.codeChallenge ? "S256" : null,
    expiresAt: input.now + CODE_TTL_MS,
  });
  return code;
}

async function s256(verifier: string) {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
}

export async function exchangeCode(
  db: Db,
  input: { code: string; redirectUri: string; client: ClientAuth; codeVerifier?: string; now: number },
) {
  const app = await authenticateClient(db, input.client, input.now);
  const codeHash = await sha256Hex(input.code);
  const row = await db.select().from(authCodes).where(eq(authCodes.codeHash, codeHash)).get();
  if (!row || row.appId !== app.appId) throw oauthError("BAD_AUTH_CODE", "invalid_grant", "missing or unknown auth code");
  if (row.usedAt !== null) throw await replayedCode(db, codeHash, input.now);
  if (row.expiresAt <= input.now) throw oauthError("EXPIRED_AUTH_CODE", "invalid_grant", "auth code is expired");
  if (row.redirectUri !== input.redirectUri) throw oauthError("BAD_REDIRECT_URI", "invalid_grant", "redirect_uri does not match the authorization request");
  if (row.codeChallenge) {
    if (!input.codeVerifier || !safeEqual(await s256(input.codeVerifier), row.codeChallenge)) {
      throw oauthError("BAD_AUTH_CODE", "invalid_grant", "code_verifier does not match the code_challenge");
    }
  } else if (input.codeVerifier) {
    // RFC 9700 section 2.1.1: a verifier for a code issued without a challenge is a PKCE downgrade attempt.
    throw oauthError("BAD_AUTH_CODE", "invalid_grant", "code_verifier sent for an authorization request without code_challenge");
  }
  const { issuedAt, shard } = await requireActiveAccount(db, row.portalId, "BAD_AUTH_CODE", input.now);
  // Single use even under a race: only the request whose update changes the row proceeds.
  const claimed = await db
    .update(authCodes)
    .set({ usedAt: input.now })
    .where(and(eq(authCodes.codeHash, codeHash), isNull(authCodes.usedAt)))
    .returning({ codeHash: authCodes.codeHash })
    .all();
  if (claimed.length !== 1) throw await replayedCode(db, codeHash, input.now);
  const { statements, tokens } = await installStatements(
    db,
    { portalId: row.portalId, appId: app.appId, userId: row.userId, scopes: row.scopes, shard },
    issuedAt,
    codeFamily(codeHash),
  );
  const [, , , code] = await db.batch([
    ...statements,
    db.select({ expiresAt: authCodes.expiresAt }).from(authCodes).where(eq(authCodes.codeHash, codeHash)),
  ]);
  if (code[0]?.expiresAt === 0) throw await replayedCode(db, codeHash, input.now); // a replay raced this exchange
  return tokens;
}

export async function refresh(db: Db, input: { refreshToken: string; client: ClientAuth; now: number }): Promise<IssuedTokens> {
  const app = await authenticateClient(db, input.client, input.now);
  const hash = await sha256Hex(input.refreshToken);
  const row = await db.select().from(credentials).where(and(eq(credentials.tokenHash, hash), eq(credentials.kind, "refresh"))).get();
  if (!row || row.revokedAt !== null) throw oauthError("BAD_REFRESH_TOKEN", "invalid_grant", "refresh token is invalid, expired or revoked");
  if (row.appId !== app.appId) throw oauthError("BAD_REFRESH_TOKEN", "invalid_grant", "refresh token was not issued to this client");
  const { issuedAt, shard } = await requireActiveAccount(db, row.portalId!, "BAD_REFRESH_TOKEN", input.now);
  // A token rotated while the app had rotation on is still reuse if presented again, whatever the app says now.
  if (row.rotatedAt !== null) throw await reuse(db, row.familyId!, input.now);
  // A scope the operator has since removed from the app is not renewed (PATCH /admin/v1/apps/:appId).
  const scopes = row.scopes.filter((s) => app.scopes.includes(s));
  if (!app.refreshTokenRotation) {
    // Stable (the default, as the real service): a new access token, the same refresh token back; earlier
    // access tokens stay valid until they expire. The token is read back in the same batch, so a refresh
    // racing a revocation (DELETE, uninstall) whose access token is written after it revokes that too.
    const { statement, access } = await accessTokenStatement(
      db,
      { installId: row.installId!, portalId: row.portalId!, appId: app.appId, userId: row.userId, scopes, shard },
      issuedAt,
      row.familyId ?? hash,
    );
    const [, presented] = await db.batch([statement, db.select({ revokedAt: credentials.revokedAt }).from(credentials).where(eq(credentials.tokenHash, hash))]);
    if (presented[0]?.revokedAt != null) {
      await db.update(credentials).set({ revokedAt: input.now }).where(eq(credentials.tokenHash, await sha256Hex(access)));
      throw oauthError("BAD_REFRESH_TOKEN", "invalid_grant", "refresh token is invalid, expired or revoked");
    }
    return { access_token: access, refresh_token: input.refreshToken, expires_in: ACCESS_TOKEN_TTL_S, token_type: "bearer" };
  }
  // Rotation is claimed before anything is issued, so of concurrent refreshes with one token exactly one
  // proceeds; the others presented a token that is now rotated, which is reuse (RFC 9700 section 4.14.2).
  const claimed = await db
    .update(credentials)
    .set({ rotatedAt: input.now })
    .where(and(eq(credentials.tokenHash, hash), isNull(credentials.rotatedAt), isNull(credentials.revokedAt)))
    .returning({ tokenHash: credentials.tokenHash })
    .all();
  if (claimed.length !== 1) throw await reuse(db, row.familyId!, input.now);
  const { statements, tokens } = await tokenPairStatements(
    db,
    { installId: row.installId!, portalId: row.portalId!, appId: app.appId, userId: row.userId, scopes, shard },
    issuedAt,
    row.familyId ?? undefined,
  );
  let presented: { revokedAt: number | null }[];
  try {
    // The presented token is read back in the same transaction: a concurrent reuse that revoked the family
    // between the claim and this batch did not see the new pair, so it is revoked here instead.
    [, , presented] = await db.batch([
      ...statements,
      db.select({ revokedAt: credentials.revokedAt }).from(credentials).where(eq(credentials.tokenHash, hash)),
    ]);
  } catch (err) {
    // Nothing was issued: give the token back so the client can retry instead of re-authorizing.
    await db.update(credentials).set({ rotatedAt: null }).where(and(eq(credentials.tokenHash, hash), eq(credentials.rotatedAt, input.now)));
    throw err;
  }
  if (presented[0]?.revokedAt != null) throw await reuse(db, row.familyId!, input.now);
  return tokens;
}

/** Reuse of a rotated refresh token revokes its whole family (RFC 9700 section 4.14.2). */
async function reuse(db: Db, familyId: string, now: number): Promise<ApiError> {
  await db.update(credentials).set({ revokedAt: now }).where(eq(credentials.familyId, familyId));
  forgetCredentials();
  return oauthError("BAD_REFRESH_TOKEN", "invalid_grant", "refresh token is invalid, expired or revoked");
}

/**
 * Token introspection rows (GET /oauth/v1/access-tokens/{token} and /oauth/v1/refresh-tokens/{token}); null
 * when unknown, revoked or expired.
 */
export async function describeToken(db: Db, token: string, kind: "access" | "refresh", now: number) {
  const row = await db
    .select({ cred: credentials, app: apps, account: accounts, user: users, clockOffsetMs: clockOffsetColumn })
    .from(credentials)
    .innerJoin(apps, eq(apps.appId, credentials.appId))
    .innerJoin(accounts, eq(accounts.portalId, credentials.portalId))
    .leftJoin(users, eq(users.userId, credentials.userId))
    .where(and(eq(credentials.tokenHash, await sha256Hex(token)), eq(credentials.kind, kind)))
    .get();
  if (!row || row.cred.revokedAt !== null) return null;
  if (kind === "access" && (row.cred.expiresAt ?? 0) <= now + row.clockOffsetMs) return null;
  if (kind === "refresh" && row.cred.rotatedAt !== null) return null;
  return row;
}

export async function revokeRefreshToken(db: Db, token: string, now: number) {
  const revoked = await db
    .update(credentials)
    .set({ revokedAt: now })
    .where(and(eq(credentials.tokenHash, await sha256Hex(token)), eq(credentials.kind, "refresh"), isNull(credentials.revokedAt)))
    .returning({ h: credentials.tokenHash })
    .all();
  return revoked.length > 0;
}
