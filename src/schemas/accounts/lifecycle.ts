/** @module zod schemas of the operator's account lifecycle (docs/how-to/account-lifecycle.md: a contract, keep these shapes). */
import { z } from "zod";
import { deletionState, portalParams } from "./operator";
import { accountSettings } from "../account-info";

/** The status, the account's settings (docs/reference/account-info.md), or both: at least one field. */
export const statusBody = z
  .object({
    status: z.enum(["active", "suspended"]).optional().meta({ description: "suspended: every credential of the account gets 403; active: they work again" }),
    ...accountSettings,
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: "Give status, timeZone, companyCurrency, additionalCurrencies or accountType", path: ["status"] });

export const deletionStarted = z.object({ portalId: z.number().int(), deletion: deletionState });

export const privateAppParams = portalParams.extend({ privateAppId: z.coerce.number().int().positive() });
export const userParams = portalParams.extend({ userId: z.coerce.number().int().positive() });

/** At most 30 days: a leaked secret should not stay usable for long. */
export const MAX_GRACE_SECONDS = 30 * 86_400;
export const rotateSecretBody = z.object({
  graceSeconds: z
    .number()
    .int()
    .min(0)
    .max(MAX_GRACE_SECONDS)
    .default(86_400)
    .meta({ description: "How long the token endpoint still accepts the previous secret (default one day; 0 = not at all)" }),
});
export const rotatedSecret = z.object({
  clientSecret: z.string(),
  previousSecretExpiresAt: z.number().int().nullable().meta({ description: "Until when (ms since the epoch) the previous secret is still accepted; null when it no longer is" }),
});

export const passwordBody = z.object({ password: z.string().min(8).max(200) });

/** One line of an export: the first describes the export, every other one is a row of a table. */
export const exportLine = z
  .union([
    z.object({ portalId: z.number().int(), exportedAt: z.string(), format: z.string() }).meta({ description: "The first line" }),
    z.object({ table: z.string(), row: z.record(z.string(), z.unknown()) }).meta({ description: "Every following line: a row as stored, secret columns left out" }),
  ])
  .meta({ description: "One line of the NDJSON export" });
