/**
 * @module The v3 face of the SMTP API tokens (`/marketing/v3/transactional/smtp-tokens`): the same rows the
 * v1 face (`/email/public/v1/smtpapi/tokens`) reads and writes, shown the v3 way. The mapping is here, once:
 * v3 `id` is the v1 `userName`, `emailCampaignId` a string, `createdAt` an ISO date. The add-on, OAuth-only
 * and password-once rules are the v1 rules (src/services/smtp/tokens.ts and
 * src/routes/smtp/).
 */
import { and, asc, eq, gt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { smtpTokens } from "../../db/tables/content";
import type { SmtpTokenRow } from "./tokens";

/** A token the v3 way; the password only when the caller just created or reset it. */
export function presentTokenV3(row: SmtpTokenRow, password?: string) {
  return {
    id: row.userName,
    ...(password === undefined ? {} : { password }),
    createdAt: new Date(row.createdAt).toISOString(),
    createdBy: row.createdBy,
    createContact: row.createContact,
    emailCampaignId: String(row.emailCampaignId),
    campaignName: row.campaignName,
  };
}

export interface TokenPageQuery {
  campaignName?: string;
  emailCampaignId?: number;
  /** The row id of the last token of the previous page (an opaque string to clients). */
  after?: number;
  limit: number;
}

/** One page of the account's live tokens, oldest first, filtered on campaignName and emailCampaignId. */
export async function pageTokens(db: Db, portalId: number, q: TokenPageQuery) {
  const rows = await db
    .select()
    .from(smtpTokens)
    .where(
      and(
        eq(smtpTokens.portalId, portalId),
        eq(smtpTokens.deleted, false),
        q.campaignName === undefined ? undefined : eq(smtpTokens.campaignName, q.campaignName),
        q.emailCampaignId === undefined ? undefined : eq(smtpTokens.emailCampaignId, q.emailCampaignId),
        q.after === undefined ? undefined : gt(smtpTokens.id, q.after),
      ),
    )
    .orderBy(asc(smtpTokens.id))
    .limit(q.limit + 1)
    .all();
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return { rows: page, next: rows.length > q.limit && last ? String(last.id) : null };
}
