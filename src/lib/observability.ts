/**
 * @module Structured log lines for operators: one JSON object per line, written with
 * `console.log(JSON.stringify(...))` so Workers Logs indexes every field (docs/reference/configuration.md, "Logs and metrics").
 * Lines are built only from the fields listed here: never a raw path or query (a path can hold a token,
 * a query a hapikey), never a header or body, so no credential can reach the log.
 *
 * Durations are wall-clock milliseconds as the Workers runtime reports them: the clock advances on I/O
 * (D1, Durable Objects, fetch), not during pure computation, so they measure time spent waiting.
 */
import type { Principal } from "./principal";

/**
 * The rate-limit decision of a request: counted (with what is left), refused (429), a caller that is not
 * rate limited (operator, developer key, anonymous), or refused before it was counted (no route, bad credential).
 */
export type RateLog =
  | { decision: "allowed"; remaining: number; max: number }
  | { decision: "limited" }
  | { decision: "not_limited" }
  | { decision: "not_counted" };

export interface RequestLine {
  type: "request";
  correlationId: string;
  portalId: number | null;
  appId: number | null;
  /** The kind of credential that authenticated the request ("none" when none did); never the credential. */
  credential: string;
  /** The route template (`/crm/v3/objects/:objectType/:objectId`), null when no route matched. */
  route: string | null;
  method: string;
  status: number;
  durationMs: number;
  d1Statements: number;
  rateLimit: RateLog;
}

export interface QueueBatchLine {
  type: "queue_batch";
  queue: string;
  messages: number;
  /** Settled messages by outcome (src/services/accounts/metering.ts SyncOutcome); the dead-letter queue reports "recorded". */
  outcomes: Record<string, number>;
  durationMs: number;
  d1Statements: number;
  /** The maintenance queue only: the job run of each message of the batch. */
  runs?: MaintenanceRun[];
}

/** One maintenance job on one database (src/services/maintenance/consumer.ts). */
export interface MaintenanceRun {
  job: string;
  /** The database: `SHARD_<n>` or `DB`. */
  shard: string;
  /** The tick that enqueued it (its `now`). */
  scheduledTime: number;
  /** `ok` (acked), `retry` (the job threw; the queue delivers it again, then dead-letters it), `dropped` (no such job or database). */
  outcome: "ok" | "retry" | "dropped";
  durationMs: number;
  d1Statements: number;
  /** What the job returned, e.g. `{ moved: 3 }`, or the number of posts published or events sent. */
  result?: unknown;
}

/** One cron tick: it only enqueues, one maintenance message per database and job. */
export interface CronLine {
  type: "cron";
  cron: string;
  scheduledTime: number;
  durationMs: number;
  ok: boolean;
  jobs: string[];
  /** Databases (shards and `DB`), messages sent (databases × jobs) and the sendBatch calls (100 messages each). */
  databases: number;
  messages: number;
  sendBatches: number;
  failedBatches: number;
}

export function logLine(line: RequestLine | QueueBatchLine | CronLine): void {
  console.log(JSON.stringify(line));
}

/** Who called, as the log and the metrics name it. */
export function caller(p: Principal | undefined): { portalId: number | null; appId: number | null; credential: string } {
  if (!p || p.kind === "anonymous") return { portalId: null, appId: null, credential: "none" };
  if (p.kind === "admin") return { portalId: null, appId: null, credential: "admin" };
  if (p.kind === "developer") return { portalId: null, appId: p.appId, credential: "developer" };
  if (p.kind === "oauth") return { portalId: p.portalId, appId: p.appId, credential: "oauth" };
  return { portalId: p.portalId, appId: null, credential: p.kind };
}
