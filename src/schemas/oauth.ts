/** @module Response schemas of the OAuth endpoints, shaped like the real service's, for the OpenAPI document. */
import { z } from "zod";
import { tokenResponse as issuedTokens } from "./accounts/operator";

/** `POST /oauth/v1/token`. */
export const tokenResponse = issuedTokens.extend({ token_use: z.literal("access_token") }).meta({ id: "OAuthTokens" });

const tokenInfo = {
  token: z.string(),
  user: z.string().nullable().meta({ description: "Email of the user who installed the app; null for an operator install" }),
  hub_domain: z.string(),
  scopes: z.array(z.string()),
  hub_id: z.number().int(),
  user_id: z.number().int().nullable(),
};

/** `GET /oauth/v1/access-tokens/{token}`. */
export const accessTokenInfo = z
  .object({ ...tokenInfo, app_id: z.number().int(), expires_in: z.number().int().meta({ description: "Seconds left" }), token_type: z.literal("access") })
  .meta({ id: "AccessTokenInfo" });

/** `GET /oauth/v1/refresh-tokens/{token}`. */
export const refreshTokenInfo = z.object({ ...tokenInfo, client_id: z.string(), token_type: z.literal("refresh") }).meta({ id: "RefreshTokenInfo" });
