import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RateLimiter } from "../../src/durable-objects/rate-limiter";
import { call, expectError, tenant, unique } from "../helpers/api";
import { integratorPath, integratorUrl, received, script } from "../helpers/integrator";
import { createRecord, defineCard, viewPath } from "../cards/helpers";

const LIST = "/contacts/v1/lists/all/contacts/all";

describe("rate limits", () => {
  it("every limited response carries the X-Service-RateLimit-* headers", async () => {
    const t = await tenant();
    const res = await call("GET", LIST, { token: t.pat });
    expect(res.headers.get("x-service-ratelimit-max")).toBe("110");
    expect(res.headers.get("x-service-ratelimit-remaining")).toBe("109");
    expect(res.headers.get("x-service-ratelimit-interval-milliseconds")).toBe("10000");
    const err = await call("GET", "/crm/v3/objects/contacts/999999999", { token: t.pat });
    expect(err.status).toBe(404);
    expect(err.headers.get("x-service-ratelimit-remaining")).toBe("108");
  });

  it("beyond the account's limit → 429 RATE_LIMITS with policyName; another account and bucket are unaffected", async () => {
    const t = await tenant({ rateLimit: 3 });
    const other = await tenant({ rateLimit: 3 });
    for (let i = 0; i < 3; i++) expect((await call("GET", LIST, { token: t.pat })).status).toBe(200);
    const res = await call("GET", LIST, { token: t.pat });
    const body = expectError(res, 429, "RATE_LIMITS");
    expect(body.policyName).toBe("TEN_SECONDLY_ROLLING");
    expect(res.headers.get("x-service-ratelimit-remaining")).toBe("0");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    // The OAuth install has its own bucket, and so does another account.
    expect((await call("GET", LIST, { token: t.oauth })).status).toBe(200);
    expect((await call("GET", LIST, { token: other.pat })).status).toBe(200);
  });

  // A GET runs alongside its count; the outcome must be the same as if the count came first.
  it("a limited GET answers 429 even when its handler, run alongside the count, found nothing (404)", async () => {
    const t = await tenant({ rateLimit: 1 });
    expect((await call("GET", "/crm/v3/objects/contacts/999999999", { token: t.pat })).status).toBe(404);
    const res = await call("GET", "/crm/v3/objects/contacts/999999999", { token: t.pat });
    expectError(res, 429, "RATE_LIMITS");
    expect(res.headers.get("retry-after")).not.toBeNull();
  });

  it("a limited write answers 429 before its body is judged, and writes nothing", async () => {
    const t = await tenant({ rateLimit: 1 });
    expect((await call("GET", LIST, { token: t.pat })).status).toBe(200);
    expectError(await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: "not an object" } }), 429, "RATE_LIMITS");
    const email = `${unique()}@example.com`;
    expectError(await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { email } } }), 429, "RATE_LIMITS");
    const other = await call("GET", LIST, { token: t.oauth }); // the install's own bucket
    expect(other.json.contacts).toEqual([]);
  });

  it("a limited card view never reaches the integrator (it waits for the count)", async () => {
    const t = await tenant({ rateLimit: 3 });
    const fetchPath = integratorPath("limited");
    await defineCard(t, { dataFetchUri: `${integratorUrl()}${fetchPath}` });
    await script(fetchPath, { body: JSON.stringify({ results: [] }) });
    const id = await createRecord(t, "contacts", { email: `${unique()}@example.com` }); // request 1 of the install's 3
    const view = viewPath("contacts", id, t.userId);
    const answers: number[] = [];
    for (let i = 0; i < 4; i++) answers.push((await call("GET", view, { token: t.oauth })).status);
    expect(answers).toEqual([200, 200, 429, 429]);
    expect(await received(fetchPath)).toHaveLength(2);
  });

  it("the rolling window frees each grant a whole window after it, not before", async () => {
    const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`test-${crypto.randomUUID()}`));
    await runInDurableObject(stub, (limiter: RateLimiter) => {
      const t0 = 1_000_000_000_000;
      expect(limiter.hit(2, 10_000, t0).allowed).toBe(true);
      expect(limiter.hit(2, 10_000, t0 + 5_000).allowed).toBe(true);
      expect(limiter.hit(2, 10_000, t0 + 5_001)).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 4_999 });
      // Both still count just after a fixed 10 s boundary (no weighting of a previous window)...
      expect(limiter.hit(2, 10_000, t0 + 9_999).allowed).toBe(false);
      // ...the first stops counting exactly 10 s after it, the second 10 s after it.
      expect(limiter.hit(2, 10_000, t0 + 10_000)).toMatchObject({ allowed: true, remaining: 0 });
      expect(limiter.hit(2, 10_000, t0 + 14_999).allowed).toBe(false);
      expect(limiter.hit(2, 10_000, t0 + 15_000)).toMatchObject({ allowed: true, remaining: 0 });
    });
  });

  it("giveBack returns a grant, named by when it stops counting, and never below zero", async () => {
    const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`test-${crypto.randomUUID()}`));
    await runInDurableObject(stub, (limiter: RateLimiter, state) => {
      const t0 = 1_000_000_000_000;
      const first = limiter.hit(2, 10_000, t0);
      limiter.hit(2, 10_000, t0 + 1_000);
      expect(limiter.hit(2, 10_000, t0 + 2_000).allowed).toBe(false);
      limiter.giveBack(first.countedUntil, 1);
      expect(limiter.hit(2, 10_000, t0 + 3_000)).toMatchObject({ allowed: true, remaining: 0 });
      expect(state.storage.kv.get("log")).toEqual([[t0 + 11_000, 1], [t0 + 13_000, 1]]);
      limiter.giveBack(t0 + 13_000, 5);
      limiter.giveBack(t0 + 99_000, 5); // nothing counted until then: nothing changes
      expect(state.storage.kv.get("log")).toEqual([[t0 + 11_000, 1]]);
    });
  });

  it("the log stays small whatever the limit: grants are kept per hundredth of the window", async () => {
    const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`test-${crypto.randomUUID()}`));
    await runInDurableObject(stub, (limiter: RateLimiter, state) => {
      const t0 = 1_000_000_000_000;
      for (let i = 0; i < 5_000; i++) expect(limiter.hit(100_000, 10_000, t0 + i * 4).allowed).toBe(true);
      expect((state.storage.kv.get("log") as unknown[]).length).toBeLessThanOrEqual(101);
    });
  });
});
