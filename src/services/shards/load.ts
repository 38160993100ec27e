/**
 * @module Query load per shard for GET /admin/v1/shards: what an operator needs to balance load. D1
 * reports a database's queries only through Cloudflare's analytics API, never to the Worker, so the load
 * comes from the service's own usage data points (src/services/accounts/metering.ts): every request and
 * synced message carries the shard it ran on (blob5) and the request's D1 statements (double3). One Analytics
 * Engine SQL API query sums them per shard over the last LOAD_WINDOW_MINUTES.
 *
 * Reading the SQL API needs an API token with "Account Analytics: Read", which is the operator's choice
 * (docs/reference/operations.md): `USAGE_SQL_TOKEN` (secret) and `USAGE_SQL_ACCOUNT_ID`, or `USAGE_SQL_URL` for
 * another endpoint. Without them, or when the API fails, the listing still answers, with `load` null and why.
 */
import { z } from "zod";
import { USAGE_DATASET } from "../accounts/metering";

export const LOAD_WINDOW_MINUTES = 15;
/** The listing waits this long for the analytics API at most. */
export const LOAD_TIMEOUT_MS = 5_000;

export interface UsageSqlConfig {
  USAGE_SQL_URL?: string;
  USAGE_SQL_ACCOUNT_ID?: string;
  USAGE_SQL_TOKEN?: string;
}

export interface ShardLoad {
  requests: number;
  d1Statements: number;
  d1StatementsPerSecond: number;
  syncMessages: number;
}

export interface LoadReport {
  source: "analytics-engine";
  windowMinutes: number;
  available: boolean;
  /** Why `available` is false. */
  reason?: string;
  byShard: Map<string, ShardLoad>;
}

/** ClickHouse-style JSON numbers: the SQL API may send 64-bit sums as strings. */
export const num = z.union([z.number(), z.string().regex(/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/)]).transform(Number);
const sqlAnswer = z.object({
  data: z.array(z.object({ kind: z.string(), shard: z.string(), points: num, statements: num })),
});

/** Sampled sums per (kind, shard): `_sample_interval` weighs each stored point by the points it stands for. */
export const loadQuery = (minutes: number) =>
  `SELECT blob1 AS kind, blob5 AS shard, SUM(_sample_interval) AS points, SUM(_sample_interval * double3) AS statements
FROM ${USAGE_DATASET}
WHERE timestamp > NOW() - INTERVAL '${minutes}' MINUTE AND blob5 != ''
GROUP BY kind, shard
FORMAT JSON`;

/** Where the Analytics Engine SQL API is, for the operator's configuration; null when not configured. */
export function endpoint(cfg: UsageSqlConfig): string | null {
  if (cfg.USAGE_SQL_URL) return cfg.USAGE_SQL_URL;
  if (cfg.USAGE_SQL_ACCOUNT_ID) return `https://api.cloudflare.com/client/v4/accounts/${encodeURIComponent(cfg.USAGE_SQL_ACCOUNT_ID)}/analytics_engine/sql`;
  return null;
}

export async function shardLoad(env: Env): Promise<LoadReport> {
  const cfg = env as Env & UsageSqlConfig;
  const report = (available: boolean, reason?: string, byShard = new Map<string, ShardLoad>()): LoadReport => ({
    source: "analytics-engine",
    windowMinutes: LOAD_WINDOW_MINUTES,
    available,
    ...(reason ? { reason } : {}),
    byShard,
  });
  const url = endpoint(cfg);
  if (!url || !cfg.USAGE_SQL_TOKEN) return report(false, "not configured: set USAGE_SQL_TOKEN and USAGE_SQL_ACCOUNT_ID (docs/reference/operations.md)");
  let text: string;
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${cfg.USAGE_SQL_TOKEN}`, "content-type": "text/plain" },
      body: loadQuery(LOAD_WINDOW_MINUTES),
      signal: AbortSignal.timeout(LOAD_TIMEOUT_MS),
    });
    text = await res.text();
    if (!res.ok) return report(false, `the analytics API answered ${res.status}`);
  } catch (err) {
    return report(false, `the analytics API did not answer: ${err instanceof Error ? err.name : "error"}`);
  }
  let parsed: z.infer<typeof sqlAnswer>;
  try {
    parsed = sqlAnswer.parse(JSON.parse(text));
  } catch {
    return report(false, "the analytics API's answer was not the expected JSON");
  }
  const byShard = new Map<string, ShardLoad>();
  const seconds = LOAD_WINDOW_MINUTES * 60;
  for (const row of parsed.data) {
    const load = byShard.get(row.shard) ?? { requests: 0, d1Statements: 0, d1StatementsPerSecond: 0, syncMessages: 0 };
    if (row.kind === "request") {
      load.requests += Math.round(row.points);
      load.d1Statements += Math.round(row.statements);
      load.d1StatementsPerSecond = load.d1Statements / seconds;
    } else if (row.kind === "sync") load.syncMessages += Math.round(row.points);
    byShard.set(row.shard, load);
  }
  return report(true, undefined, byShard);
}
