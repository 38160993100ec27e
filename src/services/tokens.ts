/**
 * @module Issuing OAuth tokens for an install (reference §8.2): an access token that expires after 1800 s
 * and a refresh token in a rotation family. Only hashes are stored.
 */
import type { Db } from "../db/client";
import { credentials } from "../db/tables/tenancy";
import { randomToken, sha256Hex } from "../lib/crypto";

export const ACCESS_TOKEN_TTL_S = 1800;

export interface IssuedTokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: "bearer";
}

export interface InstallRef {
  installId: number;
  portalId: number;
  appId: number;
  userId: number | null;
  scopes: string[];
}

/** Statements that create a token pair; the caller batches them with its own writes. */
export async function tokenPairStatements(db: Db, install: InstallRef, now: number, familyId?: string) {
  const access = randomToken("oat-", 48);
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
