/**
 * @module Rate limiting (issue 9; reference §1.4): one object per install or private app, counting requests
 * in a sliding 10-second window (two fixed windows, the previous one weighted by its overlap). The counts
 * live in the object's storage, never in isolate memory, so every Worker isolate sees the same budget.
 */
import { DurableObject } from "cloudflare:workers";

export interface RateDecision {
  allowed: boolean;
  max: number;
  remaining: number;
  intervalMs: number;
  retryAfterMs: number;
}

interface Window {
  start: number;
  count: number;
  previous: number;
}

export class RateLimiter extends DurableObject<Env> {
  hit(max: number, intervalMs: number, now: number): RateDecision {
    const start = now - (now % intervalMs);
    const saved = this.ctx.storage.kv.get<Window>("w");
    let w: Window;
    if (!saved || saved.start < start - intervalMs) w = { start, count: 0, previous: 0 };
    else if (saved.start < start) w = { start, count: 0, previous: saved.count };
    else w = saved;
    const overlap = 1 - (now - start) / intervalMs;
    const used = Math.floor(w.previous * overlap) + w.count;
    if (used >= max) {
      return { allowed: false, max, remaining: 0, intervalMs, retryAfterMs: Math.max(1, start + intervalMs - now) };
    }
    w.count += 1;
    this.ctx.storage.kv.put("w", w);
    return { allowed: true, max, remaining: Math.max(0, max - used - 1), intervalMs, retryAfterMs: 0 };
  }
}
