/**
 * @module What an account's lifecycle status means for its credentials (docs/how-to/account-lifecycle.md):
 * pure policy, used by every place a credential of an account is accepted (bearer tokens, sessions,
 * web sign-in, the OAuth token endpoint).
 *   - active: accepted;
 *   - suspended: 403 naming the suspension (the credentials themselves are kept, so resuming restores them);
 *   - deleting (or gone): refused as an unknown credential would be.
 */
import type { AccountStatus } from "../../db/tables/tenancy";
import { ApiError } from "../../lib/errors";

export type Admission = "ok" | "suspended" | "gone";

/** null: no account row (deleted, or a credential without an account such as a developer key). */
export function admission(status: AccountStatus | null | undefined): Admission {
  if (status === "suspended") return "suspended";
  if (status === "deleting") return "gone";
  return "ok";
}

export function suspendedError(portalId: number): ApiError {
  return new ApiError("FORBIDDEN", `Account ${portalId} is suspended: its credentials are refused until an operator resumes the account.`);
}
