/**
 * @module Per-account usage metrics (issue 19 §3) in the Workers Analytics Engine dataset bound as `USAGE`:
 * one data point per request and one per synced message, indexed by portalId so an operator's SQL API
 * queries sample and filter by account (docs/operations.md lists the queries and this layout).
 *
 * request: index portalId ("none" without an account); blob1 "request", blob2 route template, blob3 method,
 *          blob4 credential kind; double1 status, double2 duration ms, double3 D1 statements.
 * sync:    index portalId; blob1 "sync", blob2 storeId, blob3 object type, blob4 outcome;
 *          double1 lag ms (from PUT /sync/messages accepting it to the consumer settling it).
 *
 * Metrics never fail the work they describe: without the binding (it is optional) nothing is written, and
 * a failing write is logged and dropped.
 */

export interface RequestUsage {
  portalId: number | null;
  route: string;
  method: string;
  credential: string;
  status: number;
  durationMs: number;
  statements: number;
}

/** What the sync consumer did with a message: written, dropped as stale, recorded as a sync error, retried, dropped. */
export type SyncOutcome = "applied" | "stale" | "error" | "retry" | "dropped";

export interface SyncUsage {
  portalId: number;
  storeId: string;
  objectType: string;
  outcome: SyncOutcome;
  lagMs: number;
}

export interface UsageRecorder {
  request(u: RequestUsage): void;
  syncMessage(u: SyncUsage): void;
}

export const requestDataPoint = (u: RequestUsage): AnalyticsEngineDataPoint => ({
  indexes: [u.portalId === null ? "none" : String(u.portalId)],
  blobs: ["request", u.route, u.method, u.credential],
  doubles: [u.status, u.durationMs, u.statements],
});

export const syncDataPoint = (u: SyncUsage): AnalyticsEngineDataPoint => ({
  indexes: [String(u.portalId)],
  blobs: ["sync", u.storeId, u.objectType, u.outcome],
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
