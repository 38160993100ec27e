/**
 * @module Issuing OAuth tokens for an install, as the real service's token endpoint does: an access token
 * that expires after 1800 s and a refresh token; every token issued from one grant shares a family, which a
 * replayed code or a reused rotated refresh token revokes. Only hashes are stored.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { credentials, installs } from "../../db/tables/tenancy";
import { randomToken, sha256Hex } from "../../lib/crypto";
import { shardHint } from "../../lib/token-hint";

export const ACCESS_TOKEN_TTL_S = 1800;

export interface IssuedTokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: "bearer";
}

export interface InstallRef {
  /** The install's id, or an SQL expression resolving to it inside the same batch. */
  installId: number | SQL;
  portalId: number;
  appId: number;
  userId: number | null;
  scopes: string[];
  /** The account's shard, named by the access token's hint (src/lib/token-hint.ts); undefined: no hint. */
  shard?: string | null;
}

/** `oat-` and 48 random bytes, with the shard hint after the prefix when the shard is known. */
const accessToken = (install: InstallRef) => randomToken(install.shard === undefined ? "oat-" : `oat-${shardHint(install.shard)}-`, 48);

/**
 * The statement that creates an access token alone: a refresh of a stable refresh token (the default;
 * rotation is an app's opt-in) issues only this, in the refresh token's family, so that revoking the family
 * reaches it.
 */
export async function accessTokenStatement(db: Db, install: InstallRef, now: number, familyId: string) {
  const access = accessToken(install);
  const statement = db.insert(credentials).values({
    portalId: install.portalId,
    appId: install.appId,
    installId: install.installId,
    userId: install.userId,
    scopes: install.scopes,
    familyId,
    createdAt: now,
    tokenHash: await sha256Hex(access),
    kind: "access",
    expiresAt: now + ACCESS_TOKEN_TTL_S * 1000,
  });
  return { statement, access };
}

/** Statements that create a token pair; the caller batches them with its own writes. */
export async function tokenPairStatements(db: Db, install: InstallRef, now: number, familyId?: string) {
  const access = accessToken(install);
  const refresh = crypto.randomUUID();
  const family = familyId ?? crypto.randomUUID();
  const base = {
    portalId: install.portalId,
    appId: install.appId,
    installId: install.installId,
    userId: install.userId,
    scopes: install.scopes,
    familyId: family,
    createdAt: now,
  };
  const statements = [
    db.insert(credentials).values({ ...base, tokenHash: await sha256Hex(access), kind: "access", expiresAt: now + ACCESS_TOKEN_TTL_S * 1000 }),
    db.insert(credentials).values({ ...base, tokenHash: await sha256Hex(refresh), kind: "refresh" }),
  ] as const;
  const tokens: IssuedTokens = { access_token: access, refresh_token: refresh, expires_in: ACCESS_TOKEN_TTL_S, token_type: "bearer" };
  return { statements, tokens };
}

/**
 * Installs (or re-grants) an app in an account and issues its token pair in ONE db.batch: the tokens find
 * the install's id through a subquery, so a failure can never leave an install without tokens or tokens
 * without an install.
 */
export async function installStatements(
  db: Db,
  install: { portalId: number; appId: number; userId: number | null; scopes: string[]; shard?: string | null },
  now: number,
  familyId?: string,
) {
  const upsert = db
    .insert(installs)
    .values({ portalId: install.portalId, appId: install.appId, scopes: install.scopes })
    .onConflictDoUpdate({ target: [installs.portalId, installs.appId], set: { scopes: install.scopes } });
  const installId = sql`(select ${installs.id} from ${installs} where ${installs.portalId} = ${install.portalId} and ${installs.appId} = ${install.appId})`;
  const pair = await tokenPairStatements(db, { ...install, installId }, now, familyId);
  return { statements: [upsert, ...pair.statements] as const, tokens: pair.tokens };
}
