/**
 * @module Rate limiting (as the real service limits an app: 110 requests per 10 seconds per installing
 * account): one object per install, private app or web app user, counting requests in a rolling 10-second
 * window; sign-in attempts use the same objects with their own keys and a 15-minute window
 * (src/lib/login-throttle.ts). The counts live in the object's storage, never in isolate memory, so every
 * Worker isolate sees the same budget.
 *
 * The window is exact, not the usual two-fixed-windows estimate: that estimate weighs the previous window
 * by its overlap and so can let 119 requests through in 2.4 s under a limit of 110 per 10 s, and an 11th
 * under a limit of 10 across a boundary. Each grant is kept in a log until the moment it stops counting; a
 * request is allowed only while the grants still counting leave room. Grant times are rounded *up* to a
 * hundredth of the window, so the log holds at most ~100 entries whatever the limit, and the rounding only
 * ever counts a grant a little longer, never shorter.
 *
 * An isolate may take several requests' worth at once (a lease, src/durable-objects/rate-lease.ts). It may spend them
 * until `spendBy` (LEASE_MS after the grant), so they are counted until a whole window after that: a
 * leased request served at any moment up to `spendBy` is still counted a whole window after it was served.
 * Hence no rolling window ever holds more served requests than the limit, however many isolates lease.
 */
import { DurableObject } from "cloudflare:workers";

/** The rolling window every caller's budget is counted over, and the budget of a caller with none of its own. */
export const RATE_INTERVAL_MS = 10_000;
export const DEFAULT_RATE_LIMIT = 110;


/** How long an isolate may spend the requests a lease granted (src/durable-objects/rate-lease.ts). */
export const LEASE_MS = 1_000;

export interface RateDecision {
  allowed: boolean;
  max: number;
  /** What is left in the rolling window after this grant. */
  remaining: number;
  intervalMs: number;
  retryAfterMs: number;
  /** Requests granted (0 when refused); more than 1 only when a lease was asked for. */
  granted: number;
  /** Leased requests (all but the first of a grant) must be spent before this moment. */
  spendBy: number;
  /** Until when this grant's first request is counted: what `giveBack` names it by. */
  countedUntil: number;
}

/** [counted until, requests]: sorted by the first, which is a multiple of the window's hundredth. */
type Entry = [number, number];

const step = (intervalMs: number) => Math.max(1, Math.floor(intervalMs / 100));
const roundUp = (t: number, intervalMs: number) => Math.ceil(t / step(intervalMs)) * step(intervalMs);

export class RateLimiter extends DurableObject<Env> {
  /** Grants up to `want` requests (at least one unless the window is full) and counts them. */
  take(max: number, intervalMs: number, now: number, want: number): RateDecision {
    const log = this.live(now);
    const used = log.reduce((n, [, c]) => n + c, 0);
    const granted = Math.max(0, Math.min(Math.floor(want), max - used));
    const countedUntil = roundUp(now + intervalMs, intervalMs);
    const spendBy = now + LEASE_MS;
    if (granted === 0) {
      return { allowed: false, max, remaining: 0, intervalMs, retryAfterMs: retryAfter(log, used - max + 1, now), granted, spendBy: now, countedUntil };
    }
    add(log, countedUntil, 1);
    if (granted > 1) add(log, roundUp(spendBy + intervalMs, intervalMs), granted - 1);
    this.ctx.storage.kv.put("log", log);
    return { allowed: true, max, remaining: max - used - granted, intervalMs, retryAfterMs: 0, granted, spendBy, countedUntil };
  }

  /**
   * Returns `n` of what a `take` of one request counted until `countedUntil`: a sign-in attempt is counted
   * before its password is checked and given back when it succeeds (src/lib/login-throttle.ts). Once the
   * grant has stopped counting there is nothing left to give back.
   */
  giveBack(countedUntil: number, n: number): void {
    const log = this.ctx.storage.kv.get<Entry[]>("log") ?? [];
    const e = log.find(([until]) => until === countedUntil);
    if (!e) return;
    e[1] = Math.max(0, e[1] - n); // an entry of other grants too: only `n` of it goes
    this.ctx.storage.kv.put("log", log.filter(([, c]) => c > 0));
  }

  /** One request: `take` without a lease. */
  hit(max: number, intervalMs: number, now: number): RateDecision {
    return this.take(max, intervalMs, now, 1);
  }

  /** The grants still counting at `now`. */
  private live(now: number): Entry[] {
    return (this.ctx.storage.kv.get<Entry[]>("log") ?? []).filter(([until]) => until > now);
  }
}

function add(log: Entry[], until: number, n: number): void {
  const e = log.find(([u]) => u === until);
  if (e) e[1] += n;
  else {
    log.push([until, n]);
    log.sort((a, b) => a[0] - b[0]);
  }
}

/** How long until `free` of the counted requests have stopped counting. */
function retryAfter(log: Entry[], free: number, now: number): number {
  let freed = 0;
  for (const [until, c] of log) {
    freed += c;
    if (freed >= free) return Math.max(1, until - now);
  }
  return 1;
}
