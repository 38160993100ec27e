/**
 * @module Provisioning of tenants for the operator API: accounts, apps, private apps, installs,
 * users. Multi-row writes go through one db.batch so a failure leaves nothing half-written.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { accounts, apps, credentials, installs, owners, privateApps, users, type AccountType } from "../../db/tables/tenancy";
import { hashPassword, randomToken, sha256Hex } from "../../lib/crypto";
import { forgetCredentials } from "../../lib/credential-cache";
import { ApiError, conflict, notFound } from "../../lib/errors";
import { SCOPES } from "../../lib/scopes";
import { shardHint } from "../../lib/token-hint";
import { CONTROL_SHARD, shardDb } from "../../db/shards";
import { forgetDirectory } from "../../db/directory";
import { placeAccount } from "../shards/placement";
import { installStatements, type IssuedTokens } from "../oauth/tokens";
import { uninstallHooks } from "./uninstall-hooks";
import { isTestAccountType } from "../testkit/account";
import { readClockOffset } from "../testkit/clock";

const ALL_SCOPES: string[] = [...SCOPES];

/**
 * Creates the account on the shard the operator names (closed or not), or the one the placement policy
 * picks among the open shards (src/services/shards/placement.ts). Only the directory row is written:
 * account data starts empty.
 */
export async function createAccount(env: Env, db: Db, input: { name: string; addons?: string[]; rateLimit?: number; shard?: string } & AccountSettings) {
  const shard = input.shard ?? (await placeAccount(env, db));
  const row = await db
    .insert(accounts)
    .values({ name: input.name, addons: input.addons ?? [], rateLimit: input.rateLimit ?? null, shard, ...settingsOf(input) })
    .returning()
    .get();
  return { portalId: row.portalId, name: row.name, addons: row.addons, shard: row.shard ?? CONTROL_SHARD };
}

/** The account's settings `/account-info/v3/details` answers (docs/reference/account-info.md); each optional. */
export interface AccountSettings {
  timeZone?: string;
  companyCurrency?: string;
  additionalCurrencies?: string[];
  accountType?: AccountType;
}

/** Only the settings given, so an update leaves the others as they are. */
const settingsOf = (s: AccountSettings): AccountSettings =>
  Object.fromEntries(Object.entries({ timeZone: s.timeZone, companyCurrency: s.companyCurrency, additionalCurrencies: s.additionalCurrencies, accountType: s.accountType }).filter(([, v]) => v !== undefined));

/** Sets the given settings of an account that takes the operator's writes (409 while it is being deleted). */
export async function setAccountSettings(db: Db, portalId: number, input: AccountSettings): Promise<void> {
  const set = settingsOf(input);
  if (Object.keys(set).length === 0) return;
  await requireWritableAccount(db, portalId);
  await db.update(accounts).set(set).where(eq(accounts.portalId, portalId));
  // Credentials carry whether the account is a test account (its fault rules apply), and credentials and the
  // account directory its clock (a test account's only): this isolate reads them afresh.
  if (set.accountType !== undefined) forgetDirectory();
}

export async function requireAccount(db: Db, portalId: number) {
  const row = await db.select().from(accounts).where(eq(accounts.portalId, portalId)).get();
  if (!row) throw notFound(`Account ${portalId} not found`);
  return row;
}

/**
 * An account that takes the operator's writes. One being deleted answers 409, as its move, export and
 * suspension do: what was added now would be left behind by the deletion's sweep, or swept half-made.
 */
export async function requireWritableAccount(db: Db, portalId: number) {
  const row = await requireAccount(db, portalId);
  if (row.status === "deleting") throw conflict(`Account ${portalId} is being deleted`);
  return row;
}

/**
 * The app and its developer key in one batch (nothing half-written): the key's row takes the app's id
 * from last_insert_rowid(), the id the app's insert just assigned inside the same transaction.
 */
export async function createApp(db: Db, input: { name: string; redirectUris: string[]; scopes?: string[]; refreshTokenRotation?: boolean }) {
  const clientId = crypto.randomUUID();
  const clientSecret = crypto.randomUUID();
  const developerKey = crypto.randomUUID();
  const [inserted] = await db.batch([
    db
      .insert(apps)
      .values({
        name: input.name,
        clientId,
        clientSecret,
        redirectUris: input.redirectUris,
        scopes: input.scopes ?? ALL_SCOPES,
        refreshTokenRotation: input.refreshTokenRotation ?? false,
      })
      .returning({ appId: apps.appId }),
    db.insert(credentials).values({ tokenHash: await sha256Hex(developerKey), kind: "developer", appId: sql`last_insert_rowid()` }),
  ]);
  return { appId: inserted[0]!.appId, clientId, clientSecret, developerKey, refreshTokenRotation: input.refreshTokenRotation ?? false };
}

/** The private app and its token in one batch, as createApp. */
export async function createPrivateApp(db: Db, portalId: number, input: { name: string; scopes?: string[] }) {
  const account = await requireWritableAccount(db, portalId);
  const token = randomToken(`pat-na1-${shardHint(account.shard)}-`, 32);
  const scopes = input.scopes ?? ALL_SCOPES;
  const [inserted] = await db.batch([
    db.insert(privateApps).values({ portalId, name: input.name, scopes }).returning({ id: privateApps.id }),
    db.insert(credentials).values({ tokenHash: await sha256Hex(token), kind: "private_app", portalId, privateAppId: sql`last_insert_rowid()`, scopes }),
  ]);
  return { token, privateAppId: inserted[0]!.id };
}

/** Installs an app into an account (or re-grants it) and returns a fresh token pair, as OAuth consent does. */
export async function installApp(
  db: Db,
  portalId: number,
  appId: number,
  scopes: string[] | undefined,
  userId: number | null,
  now: number,
): Promise<IssuedTokens> {
  const account = await requireWritableAccount(db, portalId);
  const app = await db.select().from(apps).where(eq(apps.appId, appId)).get();
  if (!app) throw notFound(`App ${appId} not found`);
  const granted = scopes ?? app.scopes;
  // The tokens are issued, and expire, by a test account's clock (src/services/testkit/clock.ts).
  const issuedAt = isTestAccountType(account.accountType) ? (await readClockOffset(db, portalId)) + now : now;
  const { statements, tokens } = await installStatements(db, { portalId, appId, userId, scopes: granted, shard: account.shard }, issuedAt);
  await db.batch(statements);
  return tokens;
}

/**
 * Uninstall: the domains' clean-ups on the account's shard first (one batch), then the tokens and the
 * install in one control-plane batch (two databases, so no shared transaction). A failure between
 * the two leaves the install in place, and repeating the call finishes it (the clean-ups are idempotent).
 */
export async function uninstallApp(env: Env, db: Db, portalId: number, appId: number, now: number) {
  const account = await requireWritableAccount(db, portalId);
  const install = await db
    .select()
    .from(installs)
    .where(and(eq(installs.portalId, portalId), eq(installs.appId, appId)))
    .get();
  if (!install) throw notFound(`App ${appId} is not installed in account ${portalId}`);
  const shard = shardDb(env, account.shard);
  const cleanups = uninstallHooks.flatMap((hook) => hook(shard, { portalId, appId, installId: install.id }));
  if (cleanups.length) await shard.batch(cleanups as [(typeof cleanups)[number], ...typeof cleanups]);
  await db.batch([
    db.update(credentials).set({ revokedAt: now }).where(eq(credentials.installId, install.id)),
    db.delete(installs).where(eq(installs.id, install.id)),
  ]);
  forgetCredentials();
}

/** What a user is made with: the operator's email and password, the settings API's profile. */
export interface NewUser {
  email: string;
  password?: string;
  firstName?: string;
  lastName?: string;
  roleId?: string;
  primaryTeamId?: number;
  secondaryTeamIds?: number[];
}

/**
 * The user and its owner in one batch: every user is an owner of its account (docs/reference/owners.md),
 * whichever face made it. The owner's row takes the user's id from last_insert_rowid(), as createApp does.
 */
export async function createUser(db: Db, portalId: number, input: NewUser) {
  await requireWritableAccount(db, portalId);
  const email = input.email.toLowerCase();
  const existing = await db
    .select({ id: users.userId })
    .from(users)
    .where(and(eq(users.portalId, portalId), eq(users.email, email)))
    .get();
  if (existing) throw conflict(`A user with email ${email} already exists in account ${portalId}`);
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  const [inserted] = await db.batch([
    db.insert(users).values({ portalId, email, passwordHash }).returning({ userId: users.userId }),
    db.insert(owners).values({
      portalId,
      userId: sql`last_insert_rowid()`,
      email,
      firstName: input.firstName ?? null,
      lastName: input.lastName ?? null,
      roleId: input.roleId ?? null,
      primaryTeamId: input.primaryTeamId ?? null,
      secondaryTeamIds: input.secondaryTeamIds ?? [],
    }),
  ]);
  return { userId: inserted[0]!.userId, email };
}

export async function findUser(db: Db, portalId: number, userId: number) {
  const row = await db
    .select()
    .from(users)
    .where(and(eq(users.portalId, portalId), eq(users.userId, userId)))
    .get();
  if (!row) throw new ApiError("VALIDATION_ERROR", `userId ${userId} is not a user of account ${portalId}`);
  return row;
}
