/**
 * @module SMTP API tokens for transactional email (docs/reference/smtp.md). A token is a userName/password
 * pair an SMTP relay accepts for one account. The password is shown once (at creation and at each reset)
 * and stored only as a PBKDF2 record; a reset replaces the record, so the old password stops verifying at
 * once. `verifySmtpCredentials` is the one credential check a relay calls.
 */
import { controlDb, shardDb } from "../../db/shards";
import { directoryTtlMs, shardOfAccount } from "../../db/directory";
import { and, asc, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { newId } from "../../db/id-ranges";
import { smtpTokens } from "../../db/tables/content";
import { accounts, users } from "../../db/tables/tenancy";
import { hashPassword, verifyPassword } from "../../lib/crypto";
import { forbidden, notFound } from "../../lib/errors";
import { randomChars } from "../../lib/random";
import { isUniqueViolation } from "../blog/blogs";
import { requireAccount } from "../accounts/tenancy";

export type SmtpTokenRow = typeof smtpTokens.$inferSelect;

/** userName is `<10 random characters>@<portalId>.smtp.crm-edge.local` (the real service's format, with our domain). */
export const SMTP_DOMAIN = "smtp.crm-edge.local";
const USER_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
/** 32 characters of [A-Za-z0-9]: about 190 bits of entropy. */
export const PASSWORD_LENGTH = 32;
/** The bare-array listing has no paging; an account's tokens are few, this bounds the read. */
export const LIST_MAX = 1000;

export const ADDON = "transactional-email";

/** Using SMTP tokens requires the transactional email add-on on the account. */
export async function requireTransactionalEmail(db: Db, portalId: number): Promise<void> {
  const account = await requireAccount(db, portalId);
  if (!account.addons.includes(ADDON)) {
    throw forbidden("SMTP API tokens require the transactional email add-on, which this account does not have.");
  }
}

const newPassword = () => randomChars(PASSWORD_LENGTH);
const newEmailCampaignId = () => 10_000_000 + (crypto.getRandomValues(new Uint32Array(1))[0]! % 2_000_000_000);

export interface CreateTokenInput {
  campaignName: string;
  createContact: boolean;
  createdBy?: string;
}

/** Who created the token when the body does not say: the token's user, else the app. */
async function defaultCreatedBy(db: Db, portalId: number, appId: number, userId: number | null): Promise<string> {
  if (userId !== null) {
    const user = await db.select({ email: users.email }).from(users).where(and(eq(users.userId, userId), eq(users.portalId, portalId))).get();
    if (user) return user.email;
  }
  return `app-${appId}`;
}

/** Creates a token; the clear password is returned to the caller once and never stored. */
export async function createToken(
  db: Db,
  control: Db,
  portalId: number,
  caller: { appId: number; userId: number | null },
  input: CreateTokenInput,
  now: number,
): Promise<{ row: SmtpTokenRow; password: string }> {
  const password = newPassword();
  const passwordHash = await hashPassword(password);
  const createdBy = input.createdBy ?? (await defaultCreatedBy(control, portalId, caller.appId, caller.userId));
  for (let attempt = 0; ; attempt++) {
    const userName = `${randomChars(10, USER_ALPHABET)}@${portalId}.${SMTP_DOMAIN}`;
    try {
      const row = await db
        .insert(smtpTokens)
        .values({
          id: newId("smtp_tokens"),
          portalId,
          userName,
          passwordHash,
          emailCampaignId: newEmailCampaignId(),
          appId: caller.appId,
          createdBy,
          campaignName: input.campaignName,
          createContact: input.createContact,
          createdAt: now,
        })
        .returning()
        .get();
      return { row, password };
    } catch (err) {
      // 36^10 userNames: a collision is astronomically rare, but never an error for the client.
      if (!isUniqueViolation(err) || attempt >= 2) throw err;
    }
  }
}

export async function listTokens(db: Db, portalId: number): Promise<SmtpTokenRow[]> {
  return db
    .select()
    .from(smtpTokens)
    .where(and(eq(smtpTokens.portalId, portalId), eq(smtpTokens.deleted, false)))
    .orderBy(asc(smtpTokens.id))
    .limit(LIST_MAX)
    .all();
}

export async function getLiveToken(db: Db, portalId: number, userName: string): Promise<SmtpTokenRow> {
  const row = await db
    .select()
    .from(smtpTokens)
    .where(and(eq(smtpTokens.userName, userName.toLowerCase()), eq(smtpTokens.portalId, portalId), eq(smtpTokens.deleted, false)))
    .get();
  if (!row) throw notFound(`SMTP API token ${userName} not found`);
  return row;
}

/** A new password, shown once; the previous one is invalid as soon as this returns. */
export async function resetPassword(db: Db, portalId: number, userName: string): Promise<{ row: SmtpTokenRow; password: string }> {
  const current = await getLiveToken(db, portalId, userName);
  const password = newPassword();
  const row = await db
    .update(smtpTokens)
    .set({ passwordHash: await hashPassword(password) })
    .where(and(eq(smtpTokens.id, current.id), eq(smtpTokens.deleted, false)))
    .returning()
    .get();
  if (!row) throw notFound(`SMTP API token ${userName} not found`);
  return { row, password };
}

/** Deletes a token: the row stays (its userName is never reused) but it can no longer authenticate. */
export async function deleteToken(db: Db, portalId: number, userName: string, now: number): Promise<void> {
  const current = await getLiveToken(db, portalId, userName);
  await db.update(smtpTokens).set({ deleted: true, deletedAt: now, passwordHash: null }).where(eq(smtpTokens.id, current.id));
}

export type SmtpAuthResult =
  | { ok: true; portalId: number; userName: string; emailCampaignId: number; createContact: boolean }
  | { ok: false };

/**
 * The credential check an SMTP relay calls. Unknown, deleted and wrong-password cases all cost one PBKDF2
 * run and return the same `{ ok: false }`, so the answer reveals nothing about which userNames exist.
 */
export async function verifySmtpCredentials(env: Env, userName: string, password: string): Promise<SmtpAuthResult> {
  const name = userName.trim().toLowerCase();
  // The user name names its account (`…@<portalId>.smtp…`): the directory gives the shard.
  const portalId = Number(/@(\d{1,15})\./.exec(name)?.[1]);
  const shard = Number.isSafeInteger(portalId) ? await shardOfAccount(controlDb(env), portalId, directoryTtlMs(env)) : undefined;
  const row =
    shard === undefined
      ? undefined
      : await shardDb(env, shard)
          .select()
          .from(smtpTokens)
          .where(and(eq(smtpTokens.userName, name), eq(smtpTokens.deleted, false)))
          .get();
  const valid = await verifyPassword(password, row?.passwordHash ?? null);
  if (!row || !valid) return { ok: false };
  // A suspended account sends no email (docs/how-to/account-lifecycle.md); read only once the password is right.
  const account = await controlDb(env).select({ status: accounts.status }).from(accounts).where(eq(accounts.portalId, row.portalId)).get();
  if (account?.status !== "active") return { ok: false };
  return { ok: true, portalId: row.portalId, userName: row.userName, emailCampaignId: row.emailCampaignId, createContact: row.createContact };
}
