/** @module zod schemas of the SMTP API token endpoints (spec 2.14, 4.5; reference §7). */
import { z } from "zod";

export const createTokenBody = z.object({
  campaignName: z.string().trim().min(1, "campaignName must not be empty").max(255),
  // The documented create request carries no createContact (hubspot-docs-examples): default false.
  createContact: z.boolean().default(false),
  createdBy: z.string().trim().min(1).max(254).optional(),
});

/** userName arrives URL-encoded (`@` as `%40`, spec 4.5); the router hands path parts over undecoded. */
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

/** spec 2.14. `password` only at creation and reset; `passwordHash` is always null (docs/content.md). */
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
