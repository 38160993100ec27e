/**
 * @module zod schemas of `/account-info/v3` (docs/reference/account-info.md) and of the account settings the
 * operator sets (`POST /admin/v1/accounts`, `PATCH /admin/v1/accounts/{portalId}`).
 */
import { z } from "zod";
import { ACCOUNT_TYPES } from "../db/tables/tenancy";
import { isCurrency, isTimeZone } from "../lib/zones";

export const timeZone = z.string().max(64).refine(isTimeZone, { message: "timeZone must be an IANA time zone, e.g. Europe/Berlin or US/Eastern" });
export const currency = z.string().refine(isCurrency, { message: "must be an ISO 4217 currency code, e.g. USD or EUR" });

/** The operator's account settings: each optional, so the existing bodies stay valid. */
export const accountSettings = {
  timeZone: timeZone.optional().meta({ description: "IANA time zone (default UTC); utcOffset follows it" }),
  companyCurrency: currency.optional().meta({ description: "ISO 4217 code (default USD)" }),
  additionalCurrencies: z.array(currency).max(50).optional().meta({ description: "ISO 4217 codes besides companyCurrency (default none)" }),
  accountType: z.enum(ACCOUNT_TYPES).optional().meta({ description: "STANDARD (default), DEVELOPER_TEST or SANDBOX" }),
};

export const accountDetails = z.object({
  portalId: z.number().int(),
  accountType: z.enum(ACCOUNT_TYPES),
  timeZone: z.string(),
  companyCurrency: z.string(),
  additionalCurrencies: z.array(z.string()),
  utcOffset: z.string().meta({ description: "The time zone's offset now, `-05:00`; follows daylight saving" }),
  utcOffsetMilliseconds: z.number().int(),
  uiDomain: z.string().meta({ description: "The host of this service's web app (/app)" }),
  dataHostingLocation: z.string(),
});

export const dailyUsage = z.object({
  results: z.array(
    z.object({
      name: z.string(),
      usageLimit: z.number().int().meta({ description: "The most the account's rate limit lets through in a day" }),
      currentUsage: z.number().int().meta({ description: "Requests with the account's private-app tokens since midnight in the account's time zone" }),
      collectedAt: z.string(),
      fetchStatus: z.enum(["SUCCESS", "FAILED"]).meta({ description: "FAILED: the usage data could not be read (not configured, or the analytics API failed); currentUsage is then 0" }),
      resetsAt: z.string(),
    }),
  ),
});
