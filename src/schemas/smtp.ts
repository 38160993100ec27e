/** @module zod schemas of the SMTP API token endpoints (docs/reference/smtp.md). */
import { z } from "zod";
import { afterCursor, pagingSchema } from "../lib/paging";

export const createTokenBody = z.object({
  campaignName: z.string().trim().min(1, "campaignName must not be empty").max(255),
  // The real service's documented create request carries no createContact: default false.
  createContact: z.boolean().default(false),
  createdBy: z.string().trim().min(1).max(254).optional(),
});

/** userName arrives URL-encoded (`@` as `%40`); the router hands path parts over undecoded. */
export const userNameParams = z.object({
  userName: z
    .string()
    .max(600)
    .transform((raw, ctx) => {
      try {
        return decodeURIComponent(raw);
      } catch {
        ctx.addIssue({ code: "custom", message: "userName is not a valid URL-encoded value" });
        return z.NEVER;
      }
    })
    .pipe(z.string().min(1).max(200)),
});

/** A token. `password` only at creation and reset; `passwordHash` is always null (docs/reference/smtp.md). */
export const tokenResponse = z.object({
  portalId: z.number(),
  userName: z.string(),
  emailCampaignId: z.number(),
  createdAt: z.number(),
  deleted: z.boolean(),
  createdBy: z.string(),
  appId: z.number(),
  campaignName: z.string(),
});
export const tokenWithPassword = tokenResponse.extend({ password: z.string(), passwordHash: z.null() });

// ---------------------------------------------------------------------------------------------------------
// The v3 face (services/smtp/v3.ts): the same tokens, `id` = userName.

/** The client's SmtpApiTokenRequestEgg: both fields are required in its model. */
export const createTokenV3Body = z.object({
  createContact: z.boolean({ error: "createContact must be true or false" }),
  campaignName: createTokenBody.shape.campaignName,
});

export const tokenIdParams = z.object({ tokenId: userNameParams.shape.userName });

export const MAX_V3_PAGE = 100;
export const tokenPageQuery = z.object({
  campaignName: z.string().min(1).max(255).optional(),
  emailCampaignId: z.string().regex(/^\d{1,15}$/, "emailCampaignId must be a numeric id").transform(Number).optional(),
  after: afterCursor,
  limit: z.coerce.number().int().min(1).max(MAX_V3_PAGE, `limit must be at most ${MAX_V3_PAGE}`).default(10),
});

export const tokenV3Response = z.object({
  id: z.string().meta({ description: "The v1 userName" }),
  createdAt: z.string(),
  createdBy: z.string(),
  createContact: z.boolean(),
  emailCampaignId: z.string(),
  campaignName: z.string(),
});
export const tokenV3WithPassword = tokenV3Response.extend({ password: z.string() });
export const tokenV3Page = z.object({ results: z.array(tokenV3Response), paging: pagingSchema });
