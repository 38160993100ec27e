/**
 * @module The shard registry (docs/explanation/scaling.md). `DB` is the control plane; every D1 binding
 * named `SHARD_<n>` is a shard, found by looking at `env` at runtime, so a deployment adds shards in
 * wrangler.toml alone. An account's `accounts.shard` names its shard; null is the control-plane database
 * itself (accounts placed while the deployment declared no shard, until moved).
 */
import { makeDb, type Db, type StatementMeter } from "./client";
import { replicatedBinding } from "./replica";
import { ApiError } from "../lib/errors";
import { faultPoint } from "../lib/fault-seam";

export const SHARD_PREFIX = "SHARD_";
/** The name an account without a shard (null) is reported under: the control-plane database. */
export const CONTROL_SHARD = "DB";
/** Seconds a client should wait before retrying a request refused because its shard is unavailable or moving. */
export const SHARD_RETRY_AFTER_S = 2;

const isD1 = (v: unknown): v is D1Database =>
  typeof v === "object" && v !== null && typeof (v as D1Database).prepare === "function" && typeof (v as D1Database).batch === "function";

const names = new WeakMap<object, string[]>();

/** Shard binding names in a stable order (SHARD_1, SHARD_2, … SHARD_10 by number). */
export function shardNames(env: Env): string[] {
  let found = names.get(env);
  if (!found) {
    const record = env as unknown as Record<string, unknown>;
    found = Object.keys(record)
      .filter((k) => k.startsWith(SHARD_PREFIX) && isD1(record[k]))
      .sort((a, b) => shardOrdinal(a) - shardOrdinal(b) || a.localeCompare(b));
    names.set(env, found);
  }
  return found;
}

export function isShard(env: Env, name: string): boolean {
  return shardNames(env).includes(name);
}

/** `SHARD_<n>` → n; 0 for the control plane or a name without a number. */
export function shardOrdinal(name: string): number {
  const m = /^SHARD_(\d+)$/.exec(name);
  return m ? Number(m[1]) : 0;
}

/** The error a request gets when its shard cannot serve it now: retryable, never a leak of the cause. */
export function shardUnavailable(message = "The account's data is briefly unavailable; retry shortly."): ApiError {
  return new ApiError("SERVICE_UNAVAILABLE", message, { headers: { "retry-after": String(SHARD_RETRY_AFTER_S) } });
}

/** The raw binding of a shard (null / "DB" = control plane). */
export function shardBinding(env: Env, shard: string | null): D1Database {
  if (shard === null || shard === CONTROL_SHARD) return env.DB;
  const binding = (env as unknown as Record<string, unknown>)[shard];
  if (!shard.startsWith(SHARD_PREFIX) || !isD1(binding)) throw shardUnavailable(`Shard ${shard} is not configured in this deployment.`);
  return binding;
}

/**
 * The drizzle handle of an account's shard. The fault seam (test-only, src/lib/fault-seam.ts) may fail a
 * shard here, as an outage of that database would.
 */
export function shardDb(env: Env, shard: string | null, meter?: StatementMeter): Db {
  const name = shard ?? CONTROL_SHARD;
  try {
    faultPoint("shard:open", [name]);
  } catch {
    throw shardUnavailable();
  }
  return makeDb(shardBinding(env, shard), meter);
}

/**
 * The control plane's handle; with a meter, its statements count toward the request's structured log line.
 * Its sessions are D1's where the deployment declares read replication (src/db/replica.ts).
 */
export function controlDb(env: Env, meter?: StatementMeter): Db {
  return makeDb(replicatedBinding(env), meter);
}
