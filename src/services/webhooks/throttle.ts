/**
 * @module Per-app throttling of deliveries (docs/reference/webhooks.md "Throttling"): a POST takes a lease row in
 * `webhook_inflight` only while the app has fewer than `maxConcurrentRequests` unexpired ones; D1 runs the
 * conditional insert atomically, so concurrent consumers never exceed the limit. A lease expires on its
 * own after LEASE_MS (longer than any POST: 5 s timeout), so a crashed consumer cannot hold a slot forever.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rawStatement } from "../../db/d1-raw";

export const LEASE_MS = 30_000;

/** Releases the slot, and with it the app's expired leases (so the table stays small without a sweep). */
export const releaseStatement = (db: Db, appId: number, leaseId: string, now: number): D1PreparedStatement =>
  rawStatement(db, sql`delete from webhook_inflight where app_id = ${appId} and (lease_id = ${leaseId} or expires_at <= ${now})`);

/**
 * Taking a slot, as a statement for the caller's batch: a lease is inserted only while the app has fewer
 * unexpired ones than its settings allow (no settings: no slot). The insert's `changes` says whether the
 * lease is held. Expired leases never count, and go with the app's next release.
 */
export const slotStatement = (db: Db, appId: number, leaseId: string, now: number): D1PreparedStatement =>
  rawStatement(db, sql`insert into webhook_inflight (app_id, lease_id, expires_at)
    select ${appId}, ${leaseId}, ${now + LEASE_MS}
    where (select count(*) from webhook_inflight where app_id = ${appId} and expires_at > ${now})
      < (select max_concurrent_requests from webhook_settings where app_id = ${appId})`);
