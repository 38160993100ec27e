/**
 * @module The time of a consumer batch (docs/reference/testkit.md "Clock"): real time, and the accounts of the
 * batch whose clock runs ahead of it (test accounts whose clock was moved), read with the batch's accounts
 * (src/db/directory.ts), never with a statement of its own. What the commit writes for an account (records'
 * created and modified times, the link's processed time, a sync error's time, a webhook event's occurredAt)
 * is stamped by that account's time. What the service checks against its own clock stays real time: the
 * claim of a webhook event (the drain compares it with real time) and the retry delays.
 */
export interface BatchTime {
  /** Real time, epoch ms. */
  now: number;
  /** Offsets in ms of the batch's accounts whose clock was moved; absent or missing: real time. */
  offsets?: ReadonlyMap<number, number>;
}

/** Real time for every account of the batch. */
export const realTime = (now: number): BatchTime => ({ now });

/** The account's time in the batch. */
export const timeOf = (t: BatchTime, portalId: number): number => t.now + (t.offsets?.get(portalId) ?? 0);

/**
 * The `n` field of a JSON row of the general statements (commit.ts): the account's time when its clock runs
 * ahead; absent otherwise, so a STANDARD account's rows are as they were and the statement binds real time.
 */
export function stampOf(t: BatchTime, portalId: number): { n?: number } {
  const offset = t.offsets?.get(portalId);
  return offset ? { n: t.now + offset } : {};
}
