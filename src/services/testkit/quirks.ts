/**
 * @module Quirk switches of a test account (docs/reference/testkit.md "Quirks"): behaviours of the real
 * service that a test turns on to see its integration cope with them.
 *
 * `searchLagMs`: the real service's search index lags behind writes (a record created or changed shows in
 * search a few seconds later). With N > 0, a record is absent from search (the v3 search, the v1 contact
 * search, DYNAMIC list members) until N ms after its last write, its `hs_lastmodifieddate`.
 *
 * The switches are read with the account's credential (src/http/auth.ts joins account_quirks in the
 * credential's own statement) and carried on the principal, so no call reads them again, and a STANDARD
 * account's switches are never looked at.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { accountQuirks } from "../../db/tables/testkit";
import { forgetCredentials } from "../../lib/credential-cache";
import type { Principal } from "../../lib/principal";
import { requireTestAccount } from "./account";
import { accountNow } from "./clock";

export interface Quirks {
  searchLagMs: number;
}

const DEFAULTS: Quirks = { searchLagMs: 0 };

export async function getQuirks(control: Db, portalId: number) {
  await requireTestAccount(control, portalId);
  const row = await control.select().from(accountQuirks).where(eq(accountQuirks.portalId, portalId)).get();
  return { portalId, searchLagMs: row?.searchLagMs ?? DEFAULTS.searchLagMs };
}

/** Changes the switches given; the others keep their value. Applies at once in this isolate (its credential cache is forgotten), within the cache's lifetime in others. */
export async function patchQuirks(control: Db, portalId: number, input: Partial<Quirks>, now: number) {
  await requireTestAccount(control, portalId);
  const set = { ...(input.searchLagMs !== undefined ? { searchLagMs: input.searchLagMs } : {}), updatedAt: now };
  const row = await control
    .insert(accountQuirks)
    .values({ portalId, ...DEFAULTS, ...set })
    .onConflictDoUpdate({ target: accountQuirks.portalId, set })
    .returning()
    .get();
  forgetCredentials();
  return { portalId, searchLagMs: row.searchLagMs };
}

/**
 * The latest `hs_lastmodifieddate` search sees for the caller's account: records written after it are not
 * indexed yet. Undefined (no lag) for every account without the quirk, STANDARD ones included.
 */
export function searchIndexedUntil(principal: Principal): number | undefined {
  if ((principal.kind !== "oauth" && principal.kind !== "private_app") || !principal.searchLagMs) return undefined;
  return accountNow(principal) - principal.searchLagMs;
}
