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

// ---------------------------------------------------------------------------------------------------------
// Sent mail: the operator's SMTP submission (what the local SMTP server and a deployed relay call) and the
// transactional single send. Both land in sent_emails (services/smtp/mail.ts).

/** Each body (text, html) is capped so a stored row stays far below D1's row limit; the request itself is capped at 1 MiB (413). */
export const MAX_MAIL_BODY_CHARS = 256 * 1024;
export const MAX_RECIPIENTS = 100;

/** An address as SMTP and the headers carry it: `a@b.example` or `Name <a@b.example>`, one line. */
const address = (field: string) =>
  z
    .string({ error: `${field} must be an email address` })
    .trim()
    .min(3, `${field} must be an email address`)
    .max(320, `${field} must be at most 320 characters`)
    .refine((v) => v.includes("@") && !/[\r\n]/.test(v), `${field} must be one email address`);
const addresses = (field: string) => z.array(address(field)).max(MAX_RECIPIENTS, `${field} may name at most ${MAX_RECIPIENTS} addresses`);
const mailBody = (field: string) => z.string().max(MAX_MAIL_BODY_CHARS, `${field} must be at most ${MAX_MAIL_BODY_CHARS} characters`).optional();

export const smtpCredentialsBody = z.object({
  userName: z.string().trim().min(1, "userName must not be empty").max(200),
  password: z.string().min(1, "password must not be empty").max(200),
});

export const smtpMessageBody = smtpCredentialsBody.extend({
  from: address("from"),
  to: addresses("to").min(1, "to must name at least one address"),
  cc: addresses("cc").default([]),
  bcc: addresses("bcc").default([]),
  subject: z.string().max(998, "subject must be at most 998 characters").optional(),
  text: mailBody("text"),
  html: mailBody("html"),
});
export type SmtpMessageInput = z.output<typeof smtpMessageBody>;

export const smtpVerifyResponse = z.object({ portalId: z.number().int(), userName: z.string() });
export const sentStatusResponse = z.object({ id: z.string(), status: z.string() });

/** Bounds a free-form property map by its JSON size, so it cannot carry more than a body could. */
const boundedJson = <T extends z.ZodType>(schema: T, field: string) =>
  schema.refine((v) => JSON.stringify(v).length <= MAX_MAIL_BODY_CHARS, `${field} must be at most ${MAX_MAIL_BODY_CHARS} characters as JSON`);

/** The client's PublicSingleSendRequestEgg: `emailId` and `message.to` are required, the rest optional. */
export const singleSendBody = z.object({
  emailId: z.number({ error: "emailId must be the numeric id of an email" }).int("emailId must be an integer").min(1).max(2_147_483_647),
  message: z.object(
    {
      to: address("message.to"),
      from: address("message.from").optional(),
      cc: addresses("message.cc").optional(),
      bcc: addresses("message.bcc").optional(),
      replyTo: addresses("message.replyTo").optional(),
      sendId: z.string().max(255, "message.sendId must be at most 255 characters").optional(),
    },
    { error: "message must be an object with at least `to`" },
  ),
  contactProperties: boundedJson(z.record(z.string(), z.string()), "contactProperties").optional(),
  customProperties: boundedJson(z.record(z.string(), z.unknown()), "customProperties").optional(),
});
export type SingleSendInput = z.output<typeof singleSendBody>;

/** The client's EmailSendStatusView (`statusId` and `status` required). */
export const emailSendStatus = z.object({
  statusId: z.string(),
  status: z.enum(["PENDING", "PROCESSING", "CANCELED", "COMPLETE"]),
  sendResult: z.string().optional(),
  requestedAt: z.string(),
  startedAt: z.string().optional(),
  completedAt: z.string().optional(),
});

export const sentEmailResponse = z.object({
  id: z.string(),
  portalId: z.number().int(),
  tokenUserName: z.string().nullable().meta({ description: "The SMTP token that sent it; null for the HTTP send" }),
  from: z.string().nullable(),
  to: z.array(z.string()),
  cc: z.array(z.string()),
  bcc: z.array(z.string()),
  subject: z.string().nullable(),
  text: z.string().nullable(),
  html: z.string().nullable(),
  emailId: z.number().nullable(),
  extra: z.record(z.string(), z.unknown()).nullable(),
  status: z.string(),
  sendResult: z.string().nullable(),
  createdAt: z.string(),
});
export const sentEmailPageQuery = z.object({
  after: afterCursor,
  limit: z.coerce.number().int().min(1).max(MAX_V3_PAGE, `limit must be at most ${MAX_V3_PAGE}`).default(20),
});
export const sentEmailPage = z.object({ results: z.array(sentEmailResponse), paging: pagingSchema });
