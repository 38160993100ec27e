/**
 * @module Rate limits: 110 requests per rolling 10 s for each install (the real service's limit for OAuth
 * apps), each private app and each signed-in web app user, configurable per account. Counted in the
 * RateLimiter Durable Object, one per credential holder, through this isolate's leases
 * (src/durable-objects/rate-lease.ts); every response of a limited request carries the X-Service-RateLimit-*
 * headers.
 */
import { DEFAULT_RATE_LIMIT, RATE_INTERVAL_MS, type RateDecision } from "../durable-objects/rate-limiter";
import { ApiError } from "../lib/errors";
import type { Principal } from "../lib/principal";
import { isolateLeases, type LeaseBook } from "../durable-objects/rate-lease";


/**
 * The bucket a principal draws from; null for callers that are not rate limited (developer, admin, and
 * anonymous: sign-in is throttled by its own count, src/lib/login-throttle.ts). A signed-in user of the web
 * app has one bucket however many sessions they hold, with the account's limit, like an install.
 */
export function rateKey(p: Principal): { key: string; max: number } | null {
  if (p.kind === "oauth") return { key: `install:${p.installId}`, max: p.rateLimit ?? DEFAULT_RATE_LIMIT };
  if (p.kind === "private_app") return { key: `private-app:${p.privateAppId}`, max: p.rateLimit ?? DEFAULT_RATE_LIMIT };
  if (p.kind === "session") return { key: `user:${p.userId}`, max: p.rateLimit ?? DEFAULT_RATE_LIMIT };
  return null;
}

export function rateHeaders(d: RateDecision): Record<string, string> {
  return {
    "x-service-ratelimit-max": String(d.max),
    "x-service-ratelimit-remaining": String(d.remaining),
    "x-service-ratelimit-interval-milliseconds": String(d.intervalMs),
  };
}

/** Counts the request; throws the 429 envelope when the bucket is empty. */
export async function consume(env: Env, p: Principal, now: number, leases: LeaseBook = isolateLeases): Promise<RateDecision | null> {
  const bucket = rateKey(p);
  if (!bucket) return null;
  const leased = leases.spend(bucket.key, bucket.max, RATE_INTERVAL_MS, now);
  if (leased) return leased;
  const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(bucket.key));
  const want = leases.want(bucket.key, bucket.max, now);
  let granted: RateDecision;
  try {
    granted = await stub.take(bucket.max, RATE_INTERVAL_MS, now, want);
  } catch (err) {
    leases.failed(bucket.key, want);
    throw err;
  }
  const decision = leases.keep(bucket.key, want, granted, now);
  if (!decision.allowed) {
    throw new ApiError("RATE_LIMITS", "You have reached your ten_secondly_rolling limit.", {
      extra: { errorType: "RATE_LIMIT", policyName: "TEN_SECONDLY_ROLLING" },
      headers: { ...rateHeaders(decision), "retry-after": String(Math.ceil(decision.retryAfterMs / 1000)) },
    });
  }
  return decision;
}
