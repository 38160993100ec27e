/**
 * Rate-limit leases (src/durable-objects/rate-lease.ts; docs/explanation/design-decisions.md): what an isolate may spend without asking
 * the RateLimiter object, and what that costs the caller. Each LeaseBook plays one isolate; the object is
 * the real Durable Object, and time is passed in explicitly.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RateLimiter } from "../../src/durable-objects/rate-limiter";
import { ApiError } from "../../src/lib/errors";
import type { Principal } from "../../src/lib/principal";
import { consume } from "../../src/http/rate-limit";
import { RATE_INTERVAL_MS } from "../../src/durable-objects/rate-limiter";
import { HOT_MS, LeaseBook, leaseCap } from "../../src/durable-objects/rate-lease";
import { LEASE_MS } from "../../src/durable-objects/rate-limiter";

const T0 = 1_800_000_000_000; // the start of a 10 s window

let next = 1;
function caller(rateLimit: number): Principal {
  return { kind: "private_app", portalId: 1, privateAppId: 900_000 + next++, scopes: [], credentialKey: "k", rateLimit, shard: null };
}

/** What the object counts for the caller at `now`: the grants of its log that still count then. */
async function counted(p: Principal, now = T0): Promise<{ count: number }> {
  const key = p.kind === "private_app" ? `private-app:${p.privateAppId}` : "";
  const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(key));
  const log = await runInDurableObject(stub, (o: RateLimiter, state) => state.storage.kv.get<[number, number][]>("log") ?? []);
  return { count: log.filter(([until]) => until > now).reduce((n, [, c]) => n + c, 0) };
}

async function attempt(p: Principal, now: number, book: LeaseBook): Promise<number | "429"> {
  try {
    const d = await consume(env, p, now, book);
    return d!.remaining;
  } catch (err) {
    if (err instanceof ApiError && err.status === 429) return "429";
    throw err;
  }
}

describe("rate-limit leases", () => {
  it("one isolate serving a busy caller: remaining counts down by one and the limit+1st request is refused", async () => {
    const p = caller(110);
    const book = new LeaseBook();
    const seen: (number | "429")[] = [];
    for (let i = 0; i < 111; i++) seen.push(await attempt(p, T0 + i, book));
    expect(seen).toEqual([...Array.from({ length: 110 }, (_, i) => 109 - i), "429"]);
    expect(await counted(p)).toEqual({ count: 110 });
  });

  it("a lease doubles while it runs out quickly, up to a tenth of the limit, and is counted when granted", async () => {
    const p = caller(110);
    const book = new LeaseBook();
    for (let i = 0; i < 8; i++) await attempt(p, T0 + i, book);
    // Leases of 1, 2, 4 and 8: the object counted 15 for 8 served.
    expect((await counted(p)).count).toBe(15);
    for (let i = 8; i < 40; i++) await attempt(p, T0 + i, book);
    // ... then 11 at most (a tenth of 110): 15 + 11 + 11 + 11 = 48 counted for 40 served.
    expect(leaseCap(110)).toBe(11);
    expect((await counted(p)).count).toBe(48);
  });

  it("concurrent requests in one isolate ask for one lease between them, and no leased request is dropped", async () => {
    const p = caller(110);
    const book = new LeaseBook();
    for (let i = 0; i < 3; i++) await attempt(p, T0 + i, book); // leases of 1 and 2, both spent: the next is 4
    const burst = await Promise.all(Array.from({ length: 10 }, () => attempt(p, T0 + 3, book)));
    expect(burst.every((r) => r !== "429")).toBe(true);
    // One request asked for 4, the nine alongside it for 1 each: 3 + 4 + 9 counted for 13 served.
    expect((await counted(p)).count).toBe(16);
    // The 3 left over are spent before the object is asked again.
    for (let i = 0; i < 3; i++) await attempt(p, T0 + 4 + i, book);
    expect((await counted(p)).count).toBe(16);
  });

  it("a lease ask that failed (the object could not be reached) does not keep later requests from asking again", async () => {
    const p = caller(110);
    const book = new LeaseBook();
    for (let i = 0; i < 3; i++) await attempt(p, T0 + i, book);
    const key = `private-app:${(p as { privateAppId: number }).privateAppId}`;
    const asked = book.want(key, 110, T0 + 3);
    expect(asked).toBe(4);
    expect(book.want(key, 110, T0 + 3)).toBe(1); // while that ask is out, others ask for themselves
    book.failed(key, asked);
    expect(book.want(key, 110, T0 + 3)).toBe(4);
  });

  it("a caller that is not busy takes one request at a time", async () => {
    const p = caller(110);
    const book = new LeaseBook();
    for (let i = 0; i < 5; i++) await attempt(p, T0 + i * (HOT_MS + 1), book);
    expect((await counted(p)).count).toBe(5);
  });

  it("a caller busy again after a pause in the same window starts over at a lease of 1 and doubles again", async () => {
    const p = caller(110);
    const book = new LeaseBook();
    for (let i = 0; i < 3; i++) await attempt(p, T0 + i, book); // leases of 1 and 2, both spent
    expect((await counted(p)).count).toBe(3);
    const back = T0 + 1 + HOT_MS + 500; // the last grant is older than HOT_MS: the caller went quiet
    for (let i = 0; i < 8; i++) await attempt(p, back + i, book);
    // Leases of 1, 2, 4 and 8 again: 15 counted for 8 served, not one object call per request.
    expect((await counted(p, back)).count).toBe(3 + 15);
  });

  it("a limit below 20 is never leased, so it stays exact however busy the caller", async () => {
    const p = caller(19);
    const book = new LeaseBook();
    for (let i = 0; i < 6; i++) await attempt(p, T0 + i, book);
    expect((await counted(p)).count).toBe(6);
  });

  it("two isolates sharing a caller never serve more than the limit, and strand less than a tenth each", async () => {
    const p = caller(110);
    const books = [new LeaseBook(), new LeaseBook()];
    let served = 0;
    for (let i = 0; i < 300; i++) {
      if ((await attempt(p, T0 + i, books[(i * 7) % 3 === 0 ? 0 : 1]!)) !== "429") served++;
    }
    expect(served).toBeLessThanOrEqual(110);
    expect(served).toBeGreaterThanOrEqual(110 - 2 * (leaseCap(110) - 1));
    expect((await counted(p)).count).toBe(110);
  });

  it("what a lease still holds after its spend-by moment is not spent: the object is asked again", async () => {
    const p = caller(110);
    const book = new LeaseBook();
    for (let i = 0; i < 4; i++) await attempt(p, T0 + i, book); // leases of 1, 2 and 4: 3 left over
    expect((await counted(p)).count).toBe(7);
    // LEASE_MS after the lease of 4 was granted (at T0 + 3), its 3 left are no longer spent.
    await attempt(p, T0 + 3 + LEASE_MS, book);
    expect((await counted(p)).count).toBe(8);
    // They are still counted (the object cannot know they were not served) until a window after that.
    // (with the lease of 2's extra and the last request, all rounded up to the same hundredth of a window).
    expect((await counted(p, T0 + 3 + LEASE_MS + RATE_INTERVAL_MS - 1)).count).toBe(3 + 1 + 1);
    expect((await counted(p, T0 + LEASE_MS + RATE_INTERVAL_MS + 100)).count).toBe(0);
  });

  it("a caller still busy when its lease expires asks for what it spent, not for one", async () => {
    const p = caller(110);
    const book = new LeaseBook();
    for (let i = 0; i < 8; i++) await attempt(p, T0 + i, book); // leases of 1, 2, 4, then 8 at T0 + 7 (7 left)
    for (let i = 8; i < 12; i++) await attempt(p, T0 + i, book); // 5 of the 8 spent, 3 left
    expect((await counted(p)).count).toBe(15);
    const expired = T0 + 7 + LEASE_MS;
    const key = `private-app:${(p as { privateAppId: number }).privateAppId}`;
    expect(book.want(key, 110, expired)).toBe(5);
    book.failed(key, 5);
    await attempt(p, expired, book);
    // One ask for 5 (what the expired lease served), not leases of 1, 2 and 4 again.
    expect((await counted(p, expired)).count).toBe(15 + 5);
    for (let i = 1; i < 5; i++) await attempt(p, expired + i, book);
    expect((await counted(p, expired)).count).toBe(20);
    // A caller back later than HOT_MS after the expiry starts over at one.
    const later = expired + 5 + LEASE_MS + HOT_MS;
    expect(book.want(key, 110, later)).toBe(1);
  });

  it("a changed limit (operator PATCH) drops the lease taken under the old one", async () => {
    const p = caller(110);
    const book = new LeaseBook();
    for (let i = 0; i < 4; i++) await attempt(p, T0 + i, book); // a lease of 4 with 3 left
    const lowered = { ...p, rateLimit: 5 } as Principal;
    expect(await attempt(lowered, T0 + 10, book)).toBe("429"); // 7 already counted against 5
  });
});
