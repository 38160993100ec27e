/**
 * @module Rate limiting (issue 9; reference §1.4): one object per install, private app or web app user,
 * counting requests in a sliding 10-second window (two fixed windows, the previous one weighted by its
 * overlap); sign-in attempts use the same objects with their own keys and a 15-minute window
 * (src/lib/login-throttle.ts). The counts live in the object's storage, never in isolate memory, so every
 * Worker isolate sees the same budget.
 *
 * An isolate may take several requests' worth at once (a lease, src/lib/rate-lease.ts): they are counted
 * here when granted, and spent by the isolate only within the fixed window they were granted in, so the
 * count is never behind the requests actually served.
 */
import { DurableObject } from "cloudflare:workers";

export interface RateDecision {
  allowed: boolean;
  max: number;
  /** What is left in the window after this grant. */
  remaining: number;
  intervalMs: number;
  retryAfterMs: number;
  /** Requests granted (0 when refused); more than 1 only when a lease was asked for. */
  granted: number;
  /** End of the fixed window the grant was counted in: leased requests must be spent before it. */
  windowEnd: number;
}

interface Window {
  start: number;
  count: number;
  previous: number;
}

export class RateLimiter extends DurableObject<Env> {
  /** Grants up to `want` requests (at least one unless the window is full) and counts them. */
  take(max: number, intervalMs: number, now: number, want: number): RateDecision {
    const start = now - (now % intervalMs);
    const windowEnd = start + intervalMs;
    const saved = this.ctx.storage.kv.get<Window>("w");
    let w: Window;
    if (!saved || saved.start < start - intervalMs) w = { start, count: 0, previous: 0 };
    else if (saved.start < start) w = { start, count: 0, previous: saved.count };
    else w = saved;
    const overlap = 1 - (now - start) / intervalMs;
    const used = Math.floor(w.previous * overlap) + w.count;
    const granted = Math.max(0, Math.min(Math.floor(want), max - used));
    if (granted === 0) {
      return { allowed: false, max, remaining: 0, intervalMs, retryAfterMs: Math.max(1, windowEnd - now), granted, windowEnd };
    }
    w.count += granted;
    this.ctx.storage.kv.put("w", w);
    return { allowed: true, max, remaining: max - used - granted, intervalMs, retryAfterMs: 0, granted, windowEnd };
  }

  /**
   * Returns `n` of what a `take` granted in the fixed window ending at `windowEnd`: a sign-in attempt is
   * counted before its password is checked and given back when it succeeds (src/lib/login-throttle.ts).
   * Once that window has passed out of the sliding window there is nothing left to give back.
   */
  giveBack(intervalMs: number, windowEnd: number, n: number): void {
    const w = this.ctx.storage.kv.get<Window>("w");
    if (!w) return;
    const grantedIn = windowEnd - intervalMs;
    if (w.start === grantedIn) w.count = Math.max(0, w.count - n);
    else if (w.start === windowEnd) w.previous = Math.max(0, w.previous - n);
    else return;
    this.ctx.storage.kv.put("w", w);
  }

  /** One request: `take` without a lease. */
  hit(max: number, intervalMs: number, now: number): RateDecision {
    return this.take(max, intervalMs, now, 1);
  }
}
