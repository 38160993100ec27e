/** @module zod schemas of the operator API (issue 2 §4: a contract, keep these shapes). */
import { z } from "zod";
import { ACCOUNT_STATUSES, DELETION_PHASES } from "../db/tables/tenancy";
import { SCOPES } from "../lib/scopes";

export const scopeList = z.array(z.enum(SCOPES)).max(SCOPES.length);
export const portalParams = z.object({ portalId: z.coerce.number().int().positive() });

export const createAccountBody = z.object({
  name: z.string().min(1).max(200),
  addons: z.array(z.enum(["transactional-email"])).optional(),
  /** Requests per 10 s for each install and private app (default 110). */
  rateLimit: z.number().int().min(1).max(100_000).optional(),
  /** The shard to place the account on (issue 16); without it the placement policy picks one. */
  shard: z.string().min(1).max(64).optional(),
});
export const accountResponse = z.object({ portalId: z.number().int(), name: z.string(), addons: z.array(z.string()), shard: z.string() });

export const moveState = z.object({
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
  move: moveState.optional(),
  deletion: deletionState.optional().meta({ description: "The account's deletion while it runs" }),
});
export const accountsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  after: z.coerce.number().int().min(0).optional(),
  shard: z.string().min(1).max(64).optional(),
});
export const accountList = z.object({
  results: z.array(accountDetail),
  paging: z.object({ next: z.object({ after: z.string() }) }).optional(),
});
export const shardList = z.object({
  results: z.array(
    z.object({
      name: z.string(),
      accounts: z.number().int(),
      share: z.number().meta({ description: "This database's share of all accounts" }),
      placement: z.boolean().meta({ description: "Whether the placement policy places new accounts here (false for the control plane)" }),
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
export const moveBody = z.object({ shard: z.string().min(1).max(64) });

export const createAppBody = z.object({
  name: z.string().min(1).max(200),
  redirectUris: z.array(z.url()).min(1).max(20),
  scopes: scopeList.optional(),
  /** Refresh-token rotation with reuse detection (issue 17 §1); off (stable refresh tokens) by default. */
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
export const installParams = portalParams.extend({ appId: z.coerce.number().int().positive() });

export const createUserBody = z.object({ email: z.email().max(254), password: z.string().min(8).max(200).optional() });
export const userResponse = z.object({ userId: z.number().int(), email: z.string() });
export const moveStarted = z.object({ portalId: z.number().int(), shard: z.string(), move: moveState });
