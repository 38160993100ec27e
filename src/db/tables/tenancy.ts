/**
 * @module Tenancy tables: accounts (portals), developer apps, installs, private apps, users and every
 * credential. Secrets are stored only as SHA-256 hashes, except an app's client secret, which signs the
 * outbound card requests (the integrator recomputes the signature from it) and so must be kept usable.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const ACCOUNT_STATUSES = ["active", "suspended", "deleting"] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/** What the account is, as `/account-info/v3/details` answers it; set by the operator (docs/reference/account-info.md). */
export const ACCOUNT_TYPES = ["STANDARD", "DEVELOPER_TEST", "SANDBOX"] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

export const DELETION_PHASES = ["marking", "draining", "purging", "control"] as const;
export interface DeletionState {
  state: (typeof DELETION_PHASES)[number];
  /** Rows deleted so far, by table. */
  deleted: Record<string, number>;
  /** The last failure; the job retries by itself. */
  error?: string;
  startedAt: number;
  updatedAt: number;
}

const now = sql`(cast(unixepoch('subsecond') * 1000 as integer))`;

export const accounts = sqliteTable(
  "accounts",
  {
  portalId: integer("portal_id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull(),
  /** JSON array of add-on names, e.g. ["transactional-email"]. */
  addons: text("addons", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
  /** Requests per 10 s for each install / private app; null means the default (110). */
  rateLimit: integer("rate_limit"),
  createdAt: integer("created_at").notNull().default(now),
  /**
   * The shard database holding the account's data: a `SHARD_<n>` binding (docs/explanation/scaling.md).
   * null = the control-plane database itself, where accounts placed while the deployment declared no
   * shard keep their data until an operator moves them.
   */
  shard: text("shard"),
  /**
   * The shard holding the account's companion tables (COMPANION_TABLES in src/db/account-tables.ts: its
   * timeline events) when an operator placed them apart from its shard; null = they live on `shard`
   * (docs/explanation/scaling.md "Accounts larger than one database").
   */
  companion: text("companion"),
  /**
   * The account's lifecycle (docs/how-to/account-lifecycle.md): active; suspended (every credential of the
   * account gets 403, data kept); deleting (a deletion job runs: credentials get 401, public pages 404).
   */
  status: text("status", { enum: ACCOUNT_STATUSES }).notNull().default("active"),
  /** The state of the account's deletion while it runs (the operator's `deletion`); null otherwise. */
  deletion: text("deletion", { mode: "json" }).$type<DeletionState>(),
  /** The account's settings that `/account-info/v3/details` answers; the operator sets them (constant defaults: added by ALTER TABLE). */
  timeZone: text("time_zone").notNull().default("UTC"),
  companyCurrency: text("company_currency").notNull().default("USD"),
  additionalCurrencies: text("additional_currencies", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
  accountType: text("account_type", { enum: ACCOUNT_TYPES }).notNull().default("STANDARD"),
  /**
   * When the test kit last restored or reset the account's data: webhook events of changes before it are
   * not delivered any more (docs/reference/testkit.md). Null: never.
   */
  dataResetAt: integer("data_reset_at"),
  },
  // Placement counts accounts per shard and the operator lists a shard's accounts.
  (t) => [index("accounts_shard").on(t.shard, t.portalId)],
);

export const apps = sqliteTable("apps", {
  appId: integer("app_id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull(),
  clientId: text("client_id").notNull().unique(),
  clientSecret: text("client_secret").notNull(),
  /**
   * The secret before the last rotation, accepted by client authentication (the token endpoint) until
   * `previousSecretExpiresAt`; never used to sign outbound requests.
   */
  previousClientSecret: text("previous_client_secret"),
  previousSecretExpiresAt: integer("previous_secret_expires_at"),
  redirectUris: text("redirect_uris", { mode: "json" }).$type<string[]>().notNull(),
  scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
  /**
   * Refresh-token rotation with reuse detection (RFC 9700, section 4.14.2), opt-in per app for public
   * clients. Off by default: like the real service, a refresh returns the same refresh token.
   */
  refreshTokenRotation: integer("refresh_token_rotation", { mode: "boolean" }).notNull().default(false),
  createdAt: integer("created_at").notNull().default(now),
});

export const installs = sqliteTable(
  "installs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    portalId: integer("portal_id").notNull().references(() => accounts.portalId),
    appId: integer("app_id").notNull().references(() => apps.appId),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [uniqueIndex("installs_portal_app").on(t.portalId, t.appId), index("installs_app").on(t.appId)],
);

export const privateApps = sqliteTable(
  "private_apps",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    portalId: integer("portal_id").notNull().references(() => accounts.portalId),
    name: text("name").notNull(),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [index("private_apps_portal").on(t.portalId)],
);

export const users = sqliteTable(
  "users",
  {
    userId: integer("user_id").primaryKey({ autoIncrement: true }),
    portalId: integer("portal_id").notNull().references(() => accounts.portalId),
    email: text("email").notNull(),
    /** PBKDF2 record `pbkdf2$<iterations>$<salt b64>$<hash b64>`; null when the user cannot sign in. */
    passwordHash: text("password_hash"),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [uniqueIndex("users_portal_email").on(t.portalId, t.email)],
);

/**
 * The CRM face of a user: its owner id (what `hubspot_owner_id` holds, never the user id) and the profile
 * the settings API edits (names, role, teams). Made with the user; when the user is deleted the row stays,
 * archived, because records keep naming the owner (docs/reference/owners.md). No foreign key to users for
 * that reason. Owner ids start above 100,000,000 (the migration moves the counter), so an owner id is
 * never mistaken for a user id.
 */
export const owners = sqliteTable(
  "owners",
  {
    ownerId: integer("owner_id").primaryKey({ autoIncrement: true }),
    portalId: integer("portal_id").notNull(),
    userId: integer("user_id").notNull(),
    /** A copy of the user's email (it never changes), kept for the archived owner. */
    email: text("email").notNull(),
    firstName: text("first_name"),
    lastName: text("last_name"),
    /** One of the built-in roles (src/schemas/users.ts ROLES); null: none. */
    roleId: text("role_id"),
    primaryTeamId: integer("primary_team_id"),
    secondaryTeamIds: text("secondary_team_ids", { mode: "json" }).$type<number[]>().notNull().default(sql`'[]'`),
    archived: integer("archived", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull().default(now),
    updatedAt: integer("updated_at").notNull().default(now),
  },
  (t) => [index("owners_portal").on(t.portalId, t.archived, t.ownerId), uniqueIndex("owners_user").on(t.userId)],
);

/** An account's teams: the operator makes and removes them; the settings API puts users in them. */
export const teams = sqliteTable(
  "teams",
  {
    teamId: integer("team_id").primaryKey({ autoIncrement: true }),
    portalId: integer("portal_id").notNull(),
    name: text("name").notNull(),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [uniqueIndex("teams_portal_name").on(t.portalId, t.name)],
);

/**
 * Every bearer credential, looked up by the SHA-256 of the presented secret in one indexed read.
 * kind: access | refresh | private_app | developer.
 */
export const credentials = sqliteTable(
  "credentials",
  {
    tokenHash: text("token_hash").primaryKey(),
    kind: text("kind", { enum: ["access", "refresh", "private_app", "developer"] }).notNull(),
    portalId: integer("portal_id"),
    appId: integer("app_id"),
    installId: integer("install_id"),
    privateAppId: integer("private_app_id"),
    userId: integer("user_id"),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    /** Refresh-token rotation family (RFC 9700, section 2.2.2): reuse of a rotated token revokes the family. */
    familyId: text("family_id"),
    expiresAt: integer("expires_at"),
    revokedAt: integer("revoked_at"),
    /** Set on a refresh token once it has been exchanged for a new one. */
    rotatedAt: integer("rotated_at"),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [
    index("credentials_install").on(t.installId),
    index("credentials_family").on(t.familyId),
    index("credentials_app_kind").on(t.appId, t.kind),
  ],
);

/** OAuth authorization codes: single use, short lived, optionally PKCE-bound (RFC 9700, section 2.1.1). */
export const authCodes = sqliteTable("auth_codes", {
  codeHash: text("code_hash").primaryKey(),
  appId: integer("app_id").notNull(),
  portalId: integer("portal_id").notNull(),
  userId: integer("user_id").notNull(),
  redirectUri: text("redirect_uri").notNull(),
  scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
  codeChallenge: text("code_challenge"),
  codeChallengeMethod: text("code_challenge_method"),
  expiresAt: integer("expires_at").notNull(),
  usedAt: integer("used_at"),
});

/** Browser sessions of account users (sign-in, OAuth consent, record pages). */
export const sessions = sqliteTable(
  "sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: integer("user_id").notNull(),
    portalId: integer("portal_id").notNull(),
    csrfToken: text("csrf_token").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("sessions_user").on(t.userId)],
);
