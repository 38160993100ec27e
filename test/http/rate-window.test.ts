/**
 * A limit means what it says. Whatever the timing, leases and window boundaries, no rolling
 * window of RATE_INTERVAL_MS ever holds more served requests than the limit: from one isolate, and (with
 * the lease design of src/durable-objects/rate-lease.ts) from several isolates sharing a caller. Each LeaseBook plays
 * one isolate; the object is the real Durable Object; time is passed in explicitly.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/lib/errors";
import type { Principal } from "../../src/lib/principal";
import { consume } from "../../src/http/rate-limit";
import { RATE_INTERVAL_MS } from "../../src/durable-objects/rate-limiter";
import { LeaseBook } from "../../src/durable-objects/rate-lease";
import { seededRandom as random } from "../helpers/random";

const T0 = 1_800_000_000_000; // the start of a 10 s window

let next = 1;
function caller(rateLimit: number): Principal {
  return { kind: "private_app", portalId: 1, privateAppId: 950_000 + next++, scopes: [], credentialKey: "k", rateLimit, shard: null };
}

async function served(p: Principal, now: number, book: LeaseBook): Promise<boolean> {
  try {
    await consume(env, p, now, book);
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.status === 429) return false;
    throw err;
  }
}

/** The most served requests in any half-open interval [t, t + RATE_INTERVAL_MS). */
function mostInAnyWindow(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi++) {
    while (sorted[hi]! - sorted[lo]! >= RATE_INTERVAL_MS) lo++;
    most = Math.max(most, hi - lo + 1);
  }
  return most;
}

describe("rate limits hold in every rolling window", () => {
  it("an account limited to 10 gets no 11th request across a window boundary", async () => {
    const p = caller(10);
    const book = new LeaseBook();
    const times: number[] = [];
    const end = T0 + RATE_INTERVAL_MS;
    for (let i = 0; i < 10; i++) if (await served(p, end - 50 + i, book)) times.push(end - 50 + i);
    expect(times).toHaveLength(10);
    // Just after the boundary, and again a little later: all ten are still inside the last 10 s.
    for (const t of [end, end + 1, end + 3_000, end + 9_000]) if (await served(p, t, book)) times.push(t);
    expect(mostInAnyWindow(times)).toBeLessThanOrEqual(10);
    expect(times).toHaveLength(10);
    // Once the first of them is 10 s old (the object rounds up to a hundredth of the window), one more.
    expect(await served(p, end + RATE_INTERVAL_MS, book)).toBe(true);
  });

  it("200 requests, 20 at a time, from one isolate: never more than 110 in any 10 s", async () => {
    const p = caller(110);
    const book = new LeaseBook();
    const times: number[] = [];
    // Start late in a fixed window, so the burst straddles a boundary; 20 concurrent every 240 ms.
    let now = T0 + RATE_INTERVAL_MS - 1_200;
    for (let round = 0; round < 10; round++, now += 240) {
      const t = now;
      const answers = await Promise.all(Array.from({ length: 20 }, () => served(p, t, book)));
      for (const ok of answers) if (ok) times.push(t);
    }
    expect(mostInAnyWindow(times)).toBeLessThanOrEqual(110);
    expect(times.length).toBeLessThanOrEqual(110);
  });

  it("a steady caller over half a minute: every rolling 10 s window stays within the limit, and the limit is used", async () => {
    const p = caller(110);
    const book = new LeaseBook();
    const times: number[] = [];
    for (let t = T0 + 3_000; t < T0 + 33_000; t += 50) if (await served(p, t, book)) times.push(t);
    expect(mostInAnyWindow(times)).toBeLessThanOrEqual(110);
    // What leases strand costs little: over 30 s at 20 req/s the caller gets most of its 3 × 110.
    expect(times.length).toBeGreaterThanOrEqual(290);
  }, 60_000);

  it("three isolates sharing a caller at random times: never more than the limit in any rolling window", async () => {
    for (const seed of [1, 2]) {
      const rnd = random(seed);
      const p = caller(110);
      const books = [new LeaseBook(), new LeaseBook(), new LeaseBook()];
      const times: number[] = [];
      let now = T0 + Math.floor(rnd() * RATE_INTERVAL_MS);
      for (let i = 0; i < 400; i++) {
        now += Math.floor(rnd() * 40);
        const burst = 1 + Math.floor(rnd() * 4);
        const book = books[Math.floor(rnd() * books.length)]!;
        const t = now;
        const answers = await Promise.all(Array.from({ length: burst }, () => served(p, t, book)));
        for (const ok of answers) if (ok) times.push(t);
      }
      expect(mostInAnyWindow(times)).toBeLessThanOrEqual(110);
    }
  }, 120_000);
});
