/**
 * @module Rate-limit leases: an isolate that serves a caller quickly takes several requests' worth of the
 * caller's budget from the RateLimiter object at once and spends them without asking again.
 *
 * Without a lease every authenticated request would wait for a Durable Object call (in production a network
 * hop to wherever the object lives). With leases a busy caller pays it about once per lease. The limits:
 *   - never more than the limit in any rolling window, from one isolate or many: leased requests are
 *     counted by the object when granted, spent only before `spendBy` (LEASE_MS after the grant), and the
 *     object keeps counting them until a whole window after `spendBy` (src/durable-objects/rate-limiter.ts);
 *   - a lease starts at one request and doubles only while the previous one ran out within HOT_MS, up to a
 *     tenth of the limit (a limit below 20 is never leased); a caller still busy when its lease expired
 *     (half of it or more spent, asking again within HOT_MS of `spendBy`) asks for what it spent, rather
 *     than starting over at one; while one lease is being asked for,
 *     concurrent requests of the same caller ask for themselves only, and what any grant holds beyond its
 *     request joins the isolate's lease (never replaces it);
 *   - what a lease holds and does not spend by `spendBy` is lost to the caller until it stops counting
 *     (a window plus LEASE_MS after the grant): at most a tenth of the limit per isolate and lease;
 *   - `remaining` is the object's figure at the grant plus what this isolate still holds: exact for a
 *     caller served by one isolate, and behind by what other isolates spent since otherwise.
 */
import { LEASE_MS, type RateDecision } from "./rate-limiter";

/** A lease doubles only when the previous one ran out this quickly. */
export const HOT_MS = LEASE_MS;
/** Buckets remembered per isolate; the oldest go first. */
const MAX_LEASES = 10_000;

interface Lease {
  max: number;
  /** Requests granted and not yet spent. */
  left: number;
  /** The object's `remaining` when it granted this lease. */
  remaining: number;
  /** Leased requests are spent only before this (the object counts them until a window after it). */
  spendBy: number;
  countedUntil: number;
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
    if (!l || l.max !== max || l.left <= 0 || now >= l.spendBy) return null;
    l.left -= 1;
    return { allowed: true, max, remaining: l.remaining + l.left, intervalMs, retryAfterMs: 0, granted: 1, spendBy: l.spendBy, countedUntil: l.countedUntil };
  }

  /** How many requests to ask the object for; a caller of `want` must call `keep` or `failed` after. */
  want(key: string, max: number, now: number): number {
    const l = this.leases.get(key);
    if (!l || l.max !== max || l.asking) return 1;
    // Still busy when its lease expired: it spent at least half of it, and asks again right after
    // `spendBy`. It asks for what it spent, instead of starting over at one and doubling back up, a
    // Durable Object call per step (in the bench, about ten calls a second for a caller doing hundreds).
    const spent = l.size - l.left;
    if (l.left > 0 && now >= l.spendBy && now - l.spendBy < HOT_MS && spent > 1 && spent * 2 >= l.size) {
      const ask = Math.min(leaseCap(max), spent);
      l.asking = true;
      return ask;
    }
    const hot = l.left <= 0 && now - l.grantedAt < HOT_MS;
    if (!hot) {
      // The caller went quiet: start over at one request, timed from now, so a
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
    if (l && l.max === d.max) {
      if (l.left > 0 && now < l.spendBy) {
        // Joins what this isolate still holds, under the earlier deadline (which the new requests meet
        // too: the object counts them longer); the object's figure is the lower of the two grants'.
        l.left += extra;
        l.remaining = Math.min(l.remaining, d.remaining);
      } else {
        l.left = extra;
        l.remaining = d.remaining;
        l.spendBy = d.spendBy;
        l.countedUntil = d.countedUntil;
      }
      if (asked > 1) {
        l.size = d.granted;
        l.grantedAt = now;
      }
      return { ...d, remaining: l.remaining + l.left, granted: 1 };
    }
    if (!l && this.leases.size >= MAX_LEASES) this.leases.delete(this.leases.keys().next().value!);
    this.leases.set(key, {
      max: d.max, left: extra, remaining: d.remaining, spendBy: d.spendBy, countedUntil: d.countedUntil, grantedAt: now, size: d.granted, asking: false,
    });
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
