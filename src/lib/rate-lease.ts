/**
 * @module Rate-limit leases (issue 8): an isolate that serves a caller quickly takes several requests'
 * worth of the caller's budget from the RateLimiter object at once and spends them without asking again.
 *
 * Every authenticated request used to wait for a Durable Object call (in production a network hop to
 * wherever the object lives). With leases a busy caller pays it about once per lease. The limits:
 *   - never more than the limit: leased requests are counted by the object when granted and spent only
 *     within the fixed window they were granted in, so its sliding count is never behind what was served;
 *   - a lease starts at one request and doubles only while the previous one ran out within HOT_MS, up to a
 *     tenth of the limit (a limit below 20 is never leased, so it stays exact); while one lease is being
 *     asked for, concurrent requests of the same caller ask for themselves only, and what any grant holds
 *     beyond its request joins the isolate's lease (never replaces it);
 *   - what a lease holds and does not spend is lost to the caller until the window ends (≤ 10 s): at most
 *     a tenth of the limit per isolate that served the caller in that window;
 *   - `remaining` is the object's figure at the grant plus what this isolate still holds: exact for a
 *     caller served by one isolate, and behind by what other isolates spent since otherwise.
 */
import type { RateDecision } from "../durable-objects/rate-limiter";

/** A lease doubles only when the previous one ran out this quickly. */
export const HOT_MS = 1_000;
/** Buckets remembered per isolate; the oldest go first. */
const MAX_LEASES = 10_000;

interface Lease {
  max: number;
  /** Requests granted and not yet spent. */
  left: number;
  /** The object's `remaining` when it granted this lease. */
  remaining: number;
  windowEnd: number;
  grantedAt: number;
  size: number;
  /** A lease (more than one request) is being asked for: concurrent requests ask for one each. */
  asking: boolean;
}

/** The largest lease for a limit: a tenth of it, and 1 (no lease) below 20. */
export const leaseCap = (max: number) => Math.max(1, Math.floor(max / 10));

export class LeaseBook {
  private readonly leases = new Map<string, Lease>();

  /** Spends one leased request, or returns null when the object must be asked. */
  spend(key: string, max: number, intervalMs: number, now: number): RateDecision | null {
    const l = this.leases.get(key);
    if (!l || l.max !== max || l.left <= 0 || now >= l.windowEnd) return null;
    l.left -= 1;
    return { allowed: true, max, remaining: l.remaining + l.left, intervalMs, retryAfterMs: 0, granted: 1, windowEnd: l.windowEnd };
  }

  /** How many requests to ask the object for; a caller of `want` must call `keep` or `failed` after. */
  want(key: string, max: number, now: number): number {
    const l = this.leases.get(key);
    if (!l || l.max !== max || l.asking) return 1;
    const hot = l.left <= 0 && now < l.windowEnd && now - l.grantedAt < HOT_MS;
    if (!hot) {
      // The caller went quiet (or the window ended): start over at one request, timed from now, so a
      // caller that is busy again grows its lease again instead of asking the object per request.
      l.size = 1;
      l.grantedAt = now;
      return 1;
    }
    const ask = Math.min(leaseCap(max), l.size * 2);
    if (ask > 1) l.asking = true;
    return ask;
  }

  /** Keeps what the object granted beyond this request; returns the decision this request answers with. */
  keep(key: string, asked: number, d: RateDecision, now: number): RateDecision {
    const l = this.leases.get(key);
    if (l && asked > 1) l.asking = false;
    if (!d.allowed) {
      if (l && l.left <= 0) this.leases.delete(key);
      return d;
    }
    const extra = d.granted - 1;
    if (l && l.max === d.max && l.windowEnd === d.windowEnd) {
      // Joins what this isolate holds; the object's figure is the lower of the two grants'.
      l.left += extra;
      l.remaining = Math.min(l.remaining, d.remaining);
      if (asked > 1) {
        l.size = d.granted;
        l.grantedAt = now;
      }
      return { ...d, remaining: l.remaining + l.left, granted: 1 };
    }
    if (!l && this.leases.size >= MAX_LEASES) this.leases.delete(this.leases.keys().next().value!);
    this.leases.set(key, { max: d.max, left: extra, remaining: d.remaining, windowEnd: d.windowEnd, grantedAt: now, size: d.granted, asking: false });
    return { ...d, remaining: d.remaining + extra, granted: 1 };
  }

  /** The object could not be asked (the request fails): a later request may ask for a lease again. */
  failed(key: string, asked: number): void {
    const l = this.leases.get(key);
    if (l && asked > 1) l.asking = false;
  }
}

/** This isolate's leases. */
export const isolateLeases = new LeaseBook();
