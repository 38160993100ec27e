/**
 * @module A test account's clock (docs/reference/testkit.md "Clock"): its time runs ahead of real time by an
 * offset a test sets (`/admin/v1/accounts/{id}/clock`), so a test sees in a moment what takes days: a
 * checkout abandoned, a scheduled post published, an access token expired, a webhook retry come due.
 *
 * The offset lives on the account's quirks row (account_quirks.clock_offset_ms) and is read with the
 * credential (src/http/auth.ts) or the web app's session (src/http/session.ts), so an account's calls cost
 * nothing more, a STANDARD account's least of all: its offset is never looked at. The router gives every
 * handler the account's time as `ctx.now`; code that acts for an account outside a request reads the offset
 * with a statement it runs anyway: the queue consumers through the account directory (src/db/directory.ts,
 * src/services/ecomm/batch-time.ts), webhook deliveries with their target (src/services/webhooks/deliver.ts).
 *
 * What stays real time: rate-limit windows, fault rules, the credential cache and account directory, sessions'
 * expiry, the log's timestamps and durations, queue delays, the delivery log's timestamps, and the timestamps
 * other parties check against their own clock (the v3 signature's X-Service-Request-Timestamp of webhooks,
 * card fetches and actions, the import webhook): an account's clock is the kit's fiction, not the receiver's.
 */
import { and, eq, gt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { accountQuirks } from "../../db/tables/testkit";
import { accounts } from "../../db/tables/tenancy";
import { forgetDirectory } from "../../db/directory";
import type { Principal } from "../../lib/principal";
import { badRequest } from "../../lib/errors";
import { abandonCheckouts } from "../ecomm/abandon";
import { publishDuePosts } from "../blog/posts";
import { retryDueDeliveries } from "../webhooks/retry-due";
import { requireTestAccount } from "./account";

/** How far ahead an account's clock may run: a hundred years is past every schedule the service keeps. */
export const MAX_OFFSET_MS = 100 * 365 * 86_400_000;

/**
 * The offset of the caller's account clock, in ms: 0 for everything but a test account whose clock was moved.
 * An API credential carries it from the credential's statement, a web app session from the session's.
 */
export function clockOffsetOf(principal: Principal): number {
  return principal.kind === "oauth" || principal.kind === "private_app" || principal.kind === "session" ? (principal.clockOffsetMs ?? 0) : 0;
}

/** Now, in epoch ms, as the caller's account sees it. */
export function accountNow(principal: Principal, realNow = Date.now()): number {
  return realNow + clockOffsetOf(principal);
}

const view = (offsetMs: number, realNow: number) => ({ now: new Date(realNow + offsetMs).toISOString(), offsetSeconds: offsetMs / 1000 });

export async function readClock(control: Db, portalId: number, realNow: number) {
  const account = await requireTestAccount(control, portalId);
  return view(account.clockOffsetMs, realNow);
}

async function setOffset(control: Db, portalId: number, offsetMs: number, realNow: number): Promise<void> {
  await control
    .insert(accountQuirks)
    .values({ portalId, clockOffsetMs: offsetMs, updatedAt: realNow })
    .onConflictDoUpdate({ target: accountQuirks.portalId, set: { clockOffsetMs: offsetMs, updatedAt: realNow } })
    .run();
  // This isolate's next call of the account, and its next queue batch, carry the new offset (the credential
  // cache and the account directory keep it); other isolates within the caches' lifetime.
  forgetDirectory();
}

/**
 * Moves the account's clock forward (`advanceSeconds`, or to `now`: never backwards), then runs the work that
 * has come due for it by its new time, as the cron would: checkout abandonment, scheduled blog posts; and the
 * webhook retries of its deliveries due by its clock. Answers once that work is done, so the test's next call sees it.
 */
export async function advanceClock(env: Env, control: Db, openShard: (shard: string | null) => Db, portalId: number, input: { advanceSeconds?: number; now?: string }, realNow: number) {
  const account = await requireTestAccount(control, portalId);
  const current = realNow + account.clockOffsetMs;
  const target = input.now !== undefined ? Date.parse(input.now) : current + input.advanceSeconds! * 1000;
  if (input.now !== undefined && target < current) {
    const message = `now ${input.now} is before the account's current time ${new Date(current).toISOString()}: its clock only moves forward (DELETE returns it to real time)`;
    throw badRequest(message, { errors: [{ message, code: "INVALID_VALUE", in: "body", context: { propertyName: ["now"] } }] });
  }
  const offsetMs = target - realNow;
  if (offsetMs > MAX_OFFSET_MS) {
    const field = input.now !== undefined ? "now" : "advanceSeconds";
    const message = `${field} puts the account's clock more than 100 years ahead of real time`;
    throw badRequest(message, { errors: [{ message, code: "INVALID_VALUE", in: "body", context: { propertyName: [field] } }] });
  }
  await setOffset(control, portalId, offsetMs, realNow);
  const db = openShard(account.shard);
  await Promise.all([
    publishDuePosts(db, target, Number.MAX_SAFE_INTEGER, portalId),
    abandonCheckouts(db, target, portalId),
    // The account's delivery log: on its companion shard when it has one.
    retryDueDeliveries(account.companion ? openShard(account.companion) : db, env.WEBHOOK_QUEUE, portalId, target),
  ]);
  return view(offsetMs, realNow);
}

/**
 * Back to real time. Whatever was scheduled by the clock's time stays scheduled for that time. A restore or
 * reset made on the moved clock is brought back to now (data_reset_at, snapshots.ts): else the events of the
 * account's next changes, stamped in real time, would count as older than it and never be delivered.
 */
export async function resetClock(control: Db, portalId: number, realNow: number): Promise<void> {
  await requireTestAccount(control, portalId);
  await control.batch([
    control.update(accountQuirks).set({ clockOffsetMs: 0, updatedAt: realNow }).where(eq(accountQuirks.portalId, portalId)),
    control.update(accounts).set({ dataResetAt: realNow }).where(and(eq(accounts.portalId, portalId), gt(accounts.dataResetAt, realNow))),
  ]);
  forgetDirectory();
}

/**
 * The end of a call that started at `startedAt` (the account's time, `ctx.now`), for a batch's `completedAt`:
 * real time on a real clock; on a clock moved ahead, the start itself, so that it is never before `startedAt`.
 */
export const completedAt = (startedAt: number): string => new Date(Math.max(Date.now(), startedAt)).toISOString();

/**
 * A column for a statement that reads `accounts` anyway: the account's clock offset in ms, 0 unless it is a
 * test account whose clock was moved (a primary-key probe in the same statement, no round trip of its own).
 * For code that acts for an account outside its calls: the token endpoint, operator routes, and (through the
 * account directory, src/db/directory.ts) the queue consumers.
 */
export { clockOffsetColumn } from "../../db/directory";

/** The account's clock offset in ms, by itself (for a test account only: callers check the type first). */
export async function readClockOffset(control: Db, portalId: number): Promise<number> {
  const row = await control.select({ offset: accountQuirks.clockOffsetMs }).from(accountQuirks).where(eq(accountQuirks.portalId, portalId)).get();
  return row?.offset ?? 0;
}
