/**
 * @module What an operator asks first about an account (`GET /admin/v1/accounts/{portalId}/usage`),
 * from the service's own data: live records per object type, stores, sync messages pending and errored,
 * timeline events, webhook deliveries logged, blog posts and the rate-limit policy. One `db.batch` of bounded count statements, and
 * nothing but a `db`: the caller picks the database that holds the account.
 */
import { and, count, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { blogPosts } from "../../db/tables/content";
import { crmObjects, OBJECT_TYPES } from "../../db/tables/crm";
import { ecommLinks, ecommPending, ecommStores, ecommSyncErrors } from "../../db/tables/ecomm";
import { accounts } from "../../db/tables/tenancy";
import { timelineEvents } from "../../db/tables/timeline";
import { webhookDeliveries } from "../../db/tables/webhooks";
import { notFound } from "../../lib/errors";
import { DEFAULT_RATE_LIMIT, RATE_INTERVAL_MS } from "../../durable-objects/rate-limiter";

/**
 * `control` holds the account's directory row; `shardOf` opens the account's shard, where its
 * data is counted in one batch (and its companion's events beside it). Two round trips whatever the account holds.
 */
export async function accountUsage(control: Db, shardOf: (shard: string | null) => Db, portalId: number) {
  const [account] = await control
    .select({ name: accounts.name, rateLimit: accounts.rateLimit, shard: accounts.shard, companion: accounts.companion })
    .from(accounts)
    .where(eq(accounts.portalId, portalId));
  if (!account) throw notFound(`No account ${portalId}`);
  const db = shardOf(account.shard);
  // Timeline events and the delivery log on a companion shard are counted there, at the same time as the shard's batch.
  const eventsDb = account.companion ? shardOf(account.companion) : null;
  const countEvents = (d: Db) => d.select({ n: count() }).from(timelineEvents).where(eq(timelineEvents.portalId, portalId));
  const countDeliveries = (d: Db) => d.select({ n: count() }).from(webhookDeliveries).where(eq(webhookDeliveries.portalId, portalId));
  const [[records, stores, pending, errors, homeEvents, homeDeliveries, posts], companion] = await Promise.all([db.batch([
    db
      .select({ objectType: crmObjects.objectType, n: count() })
      .from(crmObjects)
      .where(and(eq(crmObjects.portalId, portalId), eq(crmObjects.archived, false)))
      .groupBy(crmObjects.objectType),
    db.select({ n: count() }).from(ecommStores).where(eq(ecommStores.portalId, portalId)),
    // Accepted objects the consumer has not processed yet: queued (ecomm_pending) with neither a link nor
    // an error. A new message for an object already processed is not visible here (its link exists).
    db
      .select({ n: count() })
      .from(ecommPending)
      .where(
        and(
          eq(ecommPending.portalId, portalId),
          sql`not exists (select 1 from ${ecommLinks} l where l.portal_id = ${ecommPending.portalId} and l.store_id = ${ecommPending.storeId}
                and l.object_type = ${ecommPending.objectType} and l.external_id = ${ecommPending.externalId})`,
          sql`not exists (select 1 from ${ecommSyncErrors} e where e.portal_id = ${ecommPending.portalId} and e.store_id = ${ecommPending.storeId}
                and e.object_type = ${ecommPending.objectType} and e.external_id = ${ecommPending.externalId})`,
        ),
      ),
    db
      .select({ status: ecommSyncErrors.status, n: count() })
      .from(ecommSyncErrors)
      .where(eq(ecommSyncErrors.portalId, portalId))
      .groupBy(ecommSyncErrors.status),
    countEvents(db),
    countDeliveries(db),
    db
      .select({ state: blogPosts.state, n: count() })
      .from(blogPosts)
      .where(and(eq(blogPosts.portalId, portalId), eq(blogPosts.deletedAt, 0)))
      .groupBy(blogPosts.state),
  ]), eventsDb ? eventsDb.batch([countEvents(eventsDb), countDeliveries(eventsDb)]) : null]);
  const events = companion?.[0] ?? homeEvents;
  const deliveries = companion?.[1] ?? homeDeliveries;
  const acct = account;
  const byType = Object.fromEntries(OBJECT_TYPES.map((t) => [t, records.find((r) => r.objectType === t)?.n ?? 0]));
  const errorsIn = (status: string) => errors.find((e) => e.status === status)?.n ?? 0;
  const postsIn = (state: string) => posts.find((p) => p.state === state)?.n ?? 0;
  return {
    portalId,
    name: acct.name,
    records: byType as Record<(typeof OBJECT_TYPES)[number], number>,
    stores: stores[0]?.n ?? 0,
    syncMessages: { pending: pending[0]?.n ?? 0, errored: errorsIn("OPEN"), resolvedErrors: errorsIn("RESOLVED") },
    timelineEvents: events[0]?.n ?? 0,
    webhookDeliveries: deliveries[0]?.n ?? 0,
    blogPosts: { total: posts.reduce((n, p) => n + p.n, 0), published: postsIn("PUBLISHED"), scheduled: postsIn("SCHEDULED"), drafts: postsIn("DRAFT") },
    rateLimit: {
      policyName: "TEN_SECONDLY_ROLLING",
      intervalMilliseconds: RATE_INTERVAL_MS,
      maxRequests: acct.rateLimit ?? DEFAULT_RATE_LIMIT,
      isDefault: acct.rateLimit === null,
      appliesTo: "each install, private app and signed-in user of the account",
    },
  };
}
