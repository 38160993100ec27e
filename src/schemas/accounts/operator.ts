/** @module zod schemas of the operator API (operators' scripts depend on it: keep these shapes). */
import { z } from "zod";
import { ACCOUNT_STATUSES, ACCOUNT_TYPES, DELETION_PHASES } from "../../db/tables/tenancy";
import { SCOPES } from "../../lib/scopes";
import { accountSettings } from "../account-info";

export const scopeList = z.array(z.enum(SCOPES)).max(SCOPES.length);
/**
 * Operator ids (account, app): decimal digits with no sign, no leading zero and no exponent, at most 15
 * digits, so one account has one spelling (`01`, `0x1`, `1e0` and `1.0` are refused, not read as 1).
 * Every `/admin/v1` route parses its ids with this, path and query alike.
 */
export const CANONICAL_ID = /^[1-9]\d{0,14}$/;
export const canonicalId = (field: string) =>
  z.string().regex(CANONICAL_ID, `${field} must be a decimal id: digits only, no sign, leading zero or exponent`).transform(Number);
/** A paging cursor over operator ids: a canonical id, or 0 for the start. */
export const canonicalCursor = (field: string) =>
  z.string().regex(/^(0|[1-9]\d{0,14})$/, `${field} must be 0 or a decimal id: digits only, no sign, leading zero or exponent`).transform(Number);
export const portalParams = z.object({ portalId: canonicalId("portalId") });

export const createAccountBody = z.object({
  name: z.string().min(1).max(200),
  addons: z.array(z.enum(["transactional-email"])).optional(),
  /** Requests per 10 s for each install and private app (default 110). */
  rateLimit: z.number().int().min(1).max(100_000).optional(),
  /** The shard to place the account on; without it the placement policy picks one. */
  shard: z.string().min(1).max(64).optional(),
  ...accountSettings,
});
export const accountResponse = z.object({ portalId: z.number().int(), name: z.string(), addons: z.array(z.string()), shard: z.string() });

export const moveState = z.object({
  kind: z.enum(["home", "companion"]).optional().meta({ description: "companion: the account's companion tables move (POST .../companion); absent for a move of the account's shard" }),
  from: z.string(),
  to: z.string(),
  state: z.string(),
  copied: z.record(z.string(), z.number()),
  error: z.string().optional(),
  startedAt: z.number(),
  updatedAt: z.number(),
});
export const deletionState = z.object({
  state: z.enum(DELETION_PHASES),
  deleted: z.record(z.string(), z.number()).meta({ description: "Rows deleted so far, by table" }),
  error: z.string().optional().meta({ description: "The last failure; the deletion retries by itself" }),
  startedAt: z.number(),
  updatedAt: z.number(),
});
export const accountDetail = accountResponse.extend({
  rateLimit: z.number().int().nullable(),
  createdAt: z.number().int(),
  status: z.enum(ACCOUNT_STATUSES).meta({ description: "active; suspended (every credential of the account gets 403); deleting (a deletion runs)" }),
  timeZone: z.string(),
  companyCurrency: z.string(),
  additionalCurrencies: z.array(z.string()),
  accountType: z.enum(ACCOUNT_TYPES),
  companion: z.string().optional().meta({ description: "The shard holding the account's timeline events when they live apart from its shard (POST /admin/v1/accounts/{portalId}/companion)" }),
  move: moveState.optional(),
  deletion: deletionState.optional().meta({ description: "The account's deletion while it runs" }),
});
export const accountsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  after: canonicalCursor("after").optional(),
  shard: z.string().min(1).max(64).optional().meta({ description: "A configured shard, or DB for the accounts on the control plane; another name is a 400" }),
});
export const accountList = z.object({
  results: z.array(accountDetail),
  paging: z.object({ next: z.object({ after: z.string() }) }).optional(),
});
export const shardsQuery = z.object({
  check: z.enum(["ids"]).optional().meta({ description: "ids: also check every database's ids (reads every row whose id is outside its database's range)" }),
});
const idReport = z.object({
  outsideRange: z.number().int().meta({ description: "Rows whose id lies outside this database's range: rows of accounts moved in, or ids handed out outside the range" }),
  heldTwice: z.number().int().meta({ description: "Ids of this database that another database holds too, in the same table" }),
  examples: z.array(z.object({ table: z.string(), id: z.number().int(), alsoOn: z.array(z.string()) })).meta({ description: "Up to 20 of the ids held twice" }),
  countersBehind: z
    .array(z.object({ table: z.string(), counter: z.number().int().nullable(), highest: z.number().int() }))
    .meta({ description: "Id counters of this database below the largest id of its range held on any database" }),
});
export const shardList = z.object({
  results: z.array(
    z.object({
      name: z.string(),
      accounts: z.number().int(),
      share: z.number().meta({ description: "This database's share of all accounts" }),
      open: z.boolean().meta({ description: "Whether the shard is open to new accounts (PATCH /admin/v1/shards/{name}); false for the control plane" }),
      placement: z.boolean().meta({ description: "Whether the placement policy places new accounts here: the same as open" }),
      available: z.boolean().meta({ description: "Whether the database answered the size probe" }),
      sizeBytes: z.number().int().nullable().meta({ description: "The database's size in bytes (D1 meta.size_after); null when unavailable" }),
      storageShare: z.number().nullable().meta({ description: "sizeBytes over D1's 10 GB per-database limit" }),
      load: z
        .object({
          requests: z.number().int(),
          d1Statements: z.number().int(),
          d1StatementsPerSecond: z.number(),
          syncMessages: z.number().int(),
        })
        .nullable()
        .meta({ description: "Requests served, their D1 statements and sync messages applied on this database over the load window (Analytics Engine); null when the load is not available" }),
      ids: idReport
        .nullable()
        .optional()
        .meta({ description: "With ?check=ids only: the id check of this database (docs/how-to/recover-ids-held-twice.md); null when the database could not be read" }),
    }),
  ),
  load: z
    .object({
      source: z.literal("analytics-engine"),
      windowMinutes: z.number().int(),
      available: z.boolean(),
      reason: z.string().optional().meta({ description: "Why the load is not available (not configured, or the analytics API failed)" }),
    })
    .meta({ description: "Where each shard's load comes from, over which window, and whether it could be read" }),
});
export const shardParams = z.object({ name: z.string().min(1).max(64) });
export const shardPatchBody = z.strictObject({
  open: z.boolean().meta({ description: "false closes the shard to new accounts (the placement policy skips it); true reopens it" }),
});
export const shardPlacementState = z.object({
  name: z.string(),
  open: z.boolean(),
  accounts: z.number().int().meta({ description: "Accounts on the shard; closing or reopening never moves them" }),
  updatedAt: z.number().int(),
});
export const moveBody = z.object({ shard: z.string().min(1).max(64) });

export const createAppBody = z.object({
  name: z.string().min(1).max(200),
  redirectUris: z.array(z.url()).min(1).max(20),
  scopes: scopeList.optional(),
  /** Refresh-token rotation with reuse detection; off by default (stable refresh tokens, as in the real service). */
  refreshTokenRotation: z.boolean().optional(),
});
export const appResponse = z.object({
  appId: z.number().int(),
  clientId: z.string(),
  clientSecret: z.string(),
  developerKey: z.string(),
  refreshTokenRotation: z.boolean(),
});

export const createPrivateAppBody = z.object({ name: z.string().min(1).max(200), scopes: scopeList.optional() });
export const privateAppResponse = z.object({
  token: z.string(),
  privateAppId: z.number().int().optional().meta({ description: "The private app's id, to rotate its token or delete it (on creation)" }),
});

export const createInstallBody = z.object({ appId: z.number().int().positive(), scopes: scopeList.optional() });
export const tokenResponse = z.object({
  access_token: z.string(),
  refresh_token: z.string(),
  expires_in: z.number().int(),
  token_type: z.literal("bearer"),
});
export const installParams = portalParams.extend({ appId: canonicalId("appId") });

export const createUserBody = z.object({
  email: z.email().max(254),
  password: z.string().min(8).max(200).optional(),
  // The user's owner shows these names (docs/reference/owners.md); the settings users API changes them.
  firstName: z.string().max(100).optional(),
  lastName: z.string().max(100).optional(),
});
export const userResponse = z.object({ userId: z.number().int(), email: z.string() });
export const moveStarted = z.object({ portalId: z.number().int(), shard: z.string(), companion: z.string().optional(), move: moveState });
