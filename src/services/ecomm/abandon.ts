/**
 * @module Checkout abandonment: deals still in checkout_pending 24 hours after they entered it (the
 * changedAt of the message that set the stage) move to checkout_abandoned (docs/reference/ecomm.md).
 *
 * Bounded and indexed: at most MAX_PER_RUN deals per run, found through the (stage, stage_entered_at)
 * index, oldest first; the next run takes the rest. Both statements select the same rows inside one
 * db.batch, so the run is atomic, idempotent (a moved deal is no longer pending) and safe when runs
 * overlap (D1 serialises batches: the second sees the first's result).
 *
 * Last-write-wins: the sweep is not a sync message and never moves the LWW watermark
 * (changed_at, message_id) of the link. Any message newer than the last applied one therefore still
 * applies after a sweep: a late message that completed the checkout wins, and one that sets
 * checkout_pending again restarts the 24 hours from its changedAt. A sync write that commits between
 * two runs is seen by the next run, since the sweep only touches deals whose link is still pending.
 *
 * Runs on each shard by itself (the cron, src/cron/index.ts), and for one test account when its clock moves, bounded per shard. Accounts fenced on the
 * shard (moving away, or moved and not purged yet) are skipped: their fence would refuse the whole batch.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rawStatement, runRawBatch } from "../../db/d1-raw";
import { ABANDON_AFTER_MS } from "./model";

export const MAX_PER_RUN = 1000;

/** `portalId`: only that account's deals, by its own clock (a test account's clock, src/services/testkit/clock.ts). */
export async function abandonCheckouts(db: Db, now: number, portalId?: number): Promise<{ moved: number }> {
  const cutoff = now - ABANDON_AFTER_MS;
  const one = portalId === undefined ? sql`` : sql`and portal_id = ${portalId}`;
  const due = sql`select id from ecomm_links
    where stage = 'checkout_pending' and stage_entered_at <= ${cutoff} ${one}
      and portal_id not in (select portal_id from account_fences)
    order by stage_entered_at, id limit ${MAX_PER_RUN}`;
  const [, links] = await runRawBatch(db, [
    rawStatement(db, sql`update crm_objects set properties = json_set(properties, '$.dealstage', 'checkout_abandoned'), updated_at = ${now}
      where archived = 0 and id in (select service_id from ecomm_links where id in (${due}))`),
    rawStatement(db, sql`update ecomm_links set stage = 'checkout_abandoned', stage_entered_at = stage_entered_at + ${ABANDON_AFTER_MS}, updated_at = ${now}
      where id in (${due})`),
  ]);
  return { moved: links?.meta.changes ?? 0 };
}
