/**
 * @module Which accounts the test kit works on: those whose `accountType` is DEVELOPER_TEST or SANDBOX, as the
 * real service's test accounts and sandboxes. A STANDARD account is production: every control answers 409
 * there, and its calls never pay for the kit (the credential lookup says the account's type; nothing more
 * is read).
 */
import { eq } from "drizzle-orm";
import type { SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { accounts, credentials, type AccountType } from "../../db/tables/tenancy";
import { accountQuirks } from "../../db/tables/testkit";
import { conflict, notFound } from "../../lib/errors";

export const isTestAccountType = (t: AccountType | null | undefined) => t === "DEVELOPER_TEST" || t === "SANDBOX";

/**
 * The kit's part of the credential statement (src/http/auth.ts): the account's type and its quirks row (a
 * primary-key probe of `account_quirks`), read in the statement that reads the credential, so no call reads
 * them again. With `credentialKitJoin`, this is all the kit adds to that statement: the bench builds a bundle
 * without it (both replaced by nothing) to show a STANDARD account's calls cost the same (bench/README.md).
 */
export const credentialKitColumns = { accountType: accounts.accountType, searchLagMs: accountQuirks.searchLagMs, clockOffsetMs: accountQuirks.clockOffsetMs };

export const credentialKitJoin = <Q extends { leftJoin(table: typeof accountQuirks, on: SQL): unknown }>(query: Q): Q =>
  // A dynamic query (`$dynamic()`) keeps its type through the join. Drizzle, not seeing the join where the
  // columns are picked, types the quirks as never null: auth.ts reads them as possibly null (no quirks row).
  query.leftJoin(accountQuirks, eq(accountQuirks.portalId, credentials.portalId)) as Q;

/**
 * The account, when the test kit may act on it: 404 if there is none, 409 if it is STANDARD or being deleted.
 * With it, in the same statement, its clock's offset (clock.ts), so the kit's writes carry the account's time.
 */
export async function requireTestAccount(control: Db, portalId: number) {
  const found = await control
    .select({ row: accounts, clockOffsetMs: accountQuirks.clockOffsetMs })
    .from(accounts)
    .leftJoin(accountQuirks, eq(accountQuirks.portalId, accounts.portalId))
    .where(eq(accounts.portalId, portalId))
    .get();
  if (!found) throw notFound(`Account ${portalId} not found`);
  const row = { ...found.row, clockOffsetMs: found.clockOffsetMs ?? 0 };
  if (row.status === "deleting") throw conflict(`Account ${portalId} is being deleted`);
  if (!isTestAccountType(row.accountType)) {
    throw conflict(
      `Account ${portalId} has accountType ${row.accountType}: the test kit works on accounts whose accountType is DEVELOPER_TEST or SANDBOX (PATCH /admin/v1/accounts/${portalId} sets it)`,
    );
  }
  return row;
}

/** The test kit's data operations on an account whose timeline events live on a companion shard: not offered yet. */
export const companionRefused = (portalId: number) =>
  conflict(`Account ${portalId} keeps its timeline events on a companion shard; the test kit's snapshots, fixtures and imports work on accounts held by one database`);
