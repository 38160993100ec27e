/**
 * @module Per-account usage metrics in the Workers Analytics Engine dataset bound as `USAGE`:
 * one data point per request and one per synced message, indexed by portalId so an operator's SQL API
 * queries sample and filter by account (docs/reference/operations.md lists the queries and this layout).
 *
 * request: index portalId ("none" without an account); blob1 "request", blob2 route template, blob3 method,
 *          blob4 credential kind, blob5 the database the request's account lives on (its shard, "DB" for the
 *          control plane and for requests without an account); double1 status, double2 duration ms,
 *          double3 D1 statements.
 * sync:    index portalId; blob1 "sync", blob2 storeId, blob3 object type, blob4 outcome, blob5 the shard the
 *          message was applied on ("none" when it was settled before its shard was known); double1 lag ms
 *          (from PUT /sync/messages accepting it to the consumer settling it).
 * blob5 is what GET /admin/v1/shards sums into each shard's query load (src/services/shards/load.ts).
 *
 * Metrics never fail the work they describe: without the binding (it is optional) nothing is written, and
 * a failing write is logged and dropped.
 */
import { CONTROL_SHARD } from "../../db/shards";
import type { Principal } from "../../lib/principal";

/** The dataset of the `USAGE` binding (wrangler.toml [[analytics_engine_datasets]]), as the SQL API names it. */
export const USAGE_DATASET = "crm_edge_usage";

export interface RequestUsage {
  portalId: number | null;
  route: string;
  method: string;
  credential: string;
  status: number;
  durationMs: number;
  statements: number;
  /** The database (shard) the request's account lives on; "DB" for the control plane. */
  shard: string;
}

/** What the sync consumer did with a message: written, dropped as stale, recorded as a sync error, retried, dropped. */
export type SyncOutcome = "applied" | "stale" | "error" | "retry" | "dropped";

export interface SyncUsage {
  portalId: number;
  storeId: string;
  objectType: string;
  outcome: SyncOutcome;
  lagMs: number;
  /** The shard the consumer applied (or tried to apply) the message on; "none" before it was known. */
  shard: string;
}

/** The database a request's account lives on; the control plane for everything else (operator, developer key, none). */
export function shardOfPrincipal(p: Principal | undefined): string {
  return p && "shard" in p ? (p.shard ?? CONTROL_SHARD) : CONTROL_SHARD;
}

export interface UsageRecorder {
  request(u: RequestUsage): void;
  syncMessage(u: SyncUsage): void;
}

export const requestDataPoint = (u: RequestUsage): AnalyticsEngineDataPoint => ({
  indexes: [u.portalId === null ? "none" : String(u.portalId)],
  blobs: ["request", u.route, u.method, u.credential, u.shard],
  doubles: [u.status, u.durationMs, u.statements],
});

export const syncDataPoint = (u: SyncUsage): AnalyticsEngineDataPoint => ({
  indexes: [String(u.portalId)],
  blobs: ["sync", u.storeId, u.objectType, u.outcome, u.shard],
  doubles: [u.lagMs],
});

export function usageRecorder(env: Env): UsageRecorder {
  // Typed optional on purpose: a deployment (or a local runtime) without the binding still serves.
  const dataset: AnalyticsEngineDataset | undefined = (env as Partial<Pick<Env, "USAGE">>).USAGE;
  const write = (point: AnalyticsEngineDataPoint) => {
    if (!dataset) return;
    try {
      dataset.writeDataPoint(point);
    } catch (err) {
      console.error(`usage metrics: data point dropped: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  return { request: (u) => write(requestDataPoint(u)), syncMessage: (u) => write(syncDataPoint(u)) };
}
