/**
 * @module Per-app throttling of deliveries (docs/reference/webhooks.md "Throttling"): a POST takes a lease row in
 * `webhook_inflight` only while the app has fewer than `maxConcurrentRequests` unexpired ones; D1 runs the
 * conditional insert atomically, so concurrent consumers never exceed the limit. A lease expires on its
 * own after LEASE_MS (longer than any POST: 5 s timeout), so a crashed consumer cannot hold a slot forever.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rawStatement, runRawBatch } from "../../lib/d1-raw";

export const LEASE_MS = 30_000;

/** A lease id, or null when the app is at its limit. */
export async function acquireSlot(db: Db, appId: number, max: number, now: number): Promise<string | null> {
  const leaseId = crypto.randomUUID();
  const [, inserted] = await runRawBatch(db, [
    rawStatement(db, sql`delete from webhook_inflight where app_id = ${appId} and expires_at <= ${now}`),
    rawStatement(db, sql`insert into webhook_inflight (app_id, lease_id, expires_at)
      select ${appId}, ${leaseId}, ${now + LEASE_MS}
      where (select count(*) from webhook_inflight where app_id = ${appId} and expires_at > ${now}) < ${max}`),
  ]);
  return inserted?.meta.changes ? leaseId : null;
}

export async function releaseSlot(db: Db, appId: number, leaseId: string): Promise<void> {
  await db.run(sql`delete from webhook_inflight where app_id = ${appId} and lease_id = ${leaseId}`);
}
