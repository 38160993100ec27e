/**
 * @module An operator's hold on an account's credentials (docs/how-to/account-lifecycle.md): suspend and resume,
 * revoke or rotate a private app's token, rotate an app's client secret with a grace period, end a user's
 * sessions and set a user's password. Every change that takes a credential away forgets this isolate's
 * credential cache, so it takes effect at once here and within CREDENTIAL_CACHE_SECONDS elsewhere.
 */
import { and, eq, ne } from "drizzle-orm";
import type { Db } from "../../db/client";
import { accounts, apps, authCodes, credentials, owners, privateApps, sessions, users, type AccountStatus } from "../../db/tables/tenancy";
import { forgetCredentials } from "../../lib/credential-cache";
import { hashPassword, randomToken, sha256Hex } from "../../lib/crypto";
import { conflict, notFound } from "../../lib/errors";
import { shardHint } from "../../lib/token-hint";
import { requireAccount, requireWritableAccount } from "./tenancy";

/** Suspends or resumes the account. A deleting account can be neither (409). */
export async function setAccountStatus(db: Db, portalId: number, status: Exclude<AccountStatus, "deleting">): Promise<void> {
  const changed = await db
    .update(accounts)
    .set({ status })
    .where(and(eq(accounts.portalId, portalId), ne(accounts.status, "deleting")))
    .returning({ portalId: accounts.portalId })
    .all();
  if (changed.length === 0) {
    await requireAccount(db, portalId);
    throw conflict(`Account ${portalId} is being deleted`);
  }
  forgetCredentials();
}

async function requirePrivateApp(db: Db, portalId: number, privateAppId: number) {
  const row = await db
    .select()
    .from(privateApps)
    .where(and(eq(privateApps.id, privateAppId), eq(privateApps.portalId, portalId)))
    .get();
  if (!row) throw notFound(`Private app ${privateAppId} not found in account ${portalId}`);
  return row;
}

/** Deletes the private app and its token (the token then gets 401). */
export async function deletePrivateApp(db: Db, portalId: number, privateAppId: number): Promise<void> {
  await requireWritableAccount(db, portalId);
  await requirePrivateApp(db, portalId, privateAppId);
  await db.batch([
    db.delete(credentials).where(and(eq(credentials.privateAppId, privateAppId), eq(credentials.portalId, portalId))),
    db.delete(privateApps).where(eq(privateApps.id, privateAppId)),
  ]);
  forgetCredentials();
}

/** A new token for the private app, the old one deleted in the same batch (it then gets 401). */
export async function rotatePrivateApp(db: Db, portalId: number, privateAppId: number): Promise<{ token: string }> {
  const account = await requireWritableAccount(db, portalId);
  const app = await requirePrivateApp(db, portalId, privateAppId);
  const token = randomToken(`pat-na1-${shardHint(account.shard)}-`, 32);
  await db.batch([
    db.delete(credentials).where(and(eq(credentials.privateAppId, privateAppId), eq(credentials.portalId, portalId))),
    db.insert(credentials).values({ tokenHash: await sha256Hex(token), kind: "private_app", portalId, privateAppId, scopes: app.scopes }),
  ]);
  forgetCredentials();
  return { token };
}

/**
 * A new client secret. Client authentication accepts the previous one for `graceSeconds` (0: not at all);
 * outbound signatures use the new one at once, since every signer reads apps.client_secret when it signs.
 * A second rotation within the grace period ends the first one's grace: only one previous secret is kept.
 */
export async function rotateAppSecret(db: Db, appId: number, graceSeconds: number, now: number) {
  const app = await db.select({ clientSecret: apps.clientSecret }).from(apps).where(eq(apps.appId, appId)).get();
  if (!app) throw notFound(`App ${appId} not found`);
  const clientSecret = crypto.randomUUID();
  const previousSecretExpiresAt = graceSeconds > 0 ? now + graceSeconds * 1000 : null;
  const rotated = await db
    .update(apps)
    .set({ clientSecret, previousClientSecret: previousSecretExpiresAt === null ? null : app.clientSecret, previousSecretExpiresAt })
    .where(and(eq(apps.appId, appId), eq(apps.clientSecret, app.clientSecret)))
    .returning({ appId: apps.appId })
    .all();
  if (rotated.length === 0) throw conflict(`The secret of app ${appId} was rotated by another request at the same time; retry`);
  return { clientSecret, previousSecretExpiresAt };
}

async function requireUser(db: Db, portalId: number, userId: number) {
  const row = await db
    .select({ userId: users.userId })
    .from(users)
    .where(and(eq(users.userId, userId), eq(users.portalId, portalId)))
    .get();
  if (!row) throw notFound(`User ${userId} not found in account ${portalId}`);
}

/** Statements ending every session of the user and dropping its unused authorization codes. */
const endUserSessions = (db: Db, portalId: number, userId: number) =>
  [
    db.delete(sessions).where(and(eq(sessions.userId, userId), eq(sessions.portalId, portalId))),
    db.delete(authCodes).where(and(eq(authCodes.userId, userId), eq(authCodes.portalId, portalId))),
  ] as const;

/** Deletes the user: its sessions end and its pending authorization codes go with it. */
export async function deleteUser(db: Db, portalId: number, userId: number, now: number): Promise<void> {
  await requireWritableAccount(db, portalId);
  await requireUser(db, portalId, userId);
  // The owner stays, archived: records keep naming it, and `archived=true` of the owners API finds it.
  await db.batch([
    ...endUserSessions(db, portalId, userId),
    db.delete(users).where(eq(users.userId, userId)),
    db.update(owners).set({ archived: true, updatedAt: now }).where(eq(owners.userId, userId)),
  ]);
}

/** Sets a new password; the user's existing sessions end (whoever knew the old one is signed out). */
export async function setUserPassword(db: Db, portalId: number, userId: number, password: string): Promise<void> {
  await requireWritableAccount(db, portalId);
  await requireUser(db, portalId, userId);
  const passwordHash = await hashPassword(password);
  await db.batch([db.update(users).set({ passwordHash }).where(eq(users.userId, userId)), ...endUserSessions(db, portalId, userId)]);
}

