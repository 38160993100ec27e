/**
 * @module The current time as a test account sees it. Every rule of the test kit that depends on the time
 * (the search lag of quirks.ts) reads it here and nowhere else, so that a per-account clock (a test moving
 * an account's time forward) replaces this one function.
 */

/** Now, in epoch ms, for the account `portalId`: the Worker's clock (no account has a clock of its own yet). */
export function accountNow(portalId: number): number {
  void portalId;
  return Date.now();
}
