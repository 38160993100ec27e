/** @module zod schemas of the operator API (issue 2 §4: a contract, keep these shapes). */
import { z } from "zod";
import { SCOPES } from "../lib/scopes";

export const scopeList = z.array(z.enum(SCOPES)).max(SCOPES.length);
export const portalParams = z.object({ portalId: z.coerce.number().int().positive() });

export const createAccountBody = z.object({
  name: z.string().min(1).max(200),
  addons: z.array(z.enum(["transactional-email"])).optional(),
  /** Requests per 10 s for each install and private app (default 110). */
  rateLimit: z.number().int().min(1).max(100_000).optional(),
});
export const accountResponse = z.object({ portalId: z.number().int(), name: z.string(), addons: z.array(z.string()) });

export const createAppBody = z.object({
  name: z.string().min(1).max(200),
  redirectUris: z.array(z.url()).min(1).max(20),
  scopes: scopeList.optional(),
});
export const appResponse = z.object({
  appId: z.number().int(),
  clientId: z.string(),
  clientSecret: z.string(),
  developerKey: z.string(),
});

export const createPrivateAppBody = z.object({ name: z.string().min(1).max(200), scopes: scopeList.optional() });
export const privateAppResponse = z.object({ token: z.string() });

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
