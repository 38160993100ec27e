import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RateLimiter } from "../../src/durable-objects/rate-limiter";
import { call, expectError, tenant, unique } from "../helpers/api";
import { integratorPath, integratorUrl, received, script } from "../helpers/integrator";
import { createRecord, defineCard, viewPath } from "../cards/helpers";

const LIST = "/contacts/v1/lists/all/contacts/all";

describe("rate limits (reference §1.4)", () => {
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

  // A GET runs alongside its count (issue 8); the outcome must be the same as if the count came first.
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

  it("the sliding window frees capacity as time passes", async () => {
    const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`test-${crypto.randomUUID()}`));
    await runInDurableObject(stub, (limiter: RateLimiter) => {
      const t0 = 1_000_000_000_000;
      expect(limiter.hit(2, 10_000, t0).allowed).toBe(true);
      expect(limiter.hit(2, 10_000, t0 + 1).allowed).toBe(true);
      expect(limiter.hit(2, 10_000, t0 + 2)).toMatchObject({ allowed: false, remaining: 0 });
      // Half of the previous window still counts just after the boundary...
      expect(limiter.hit(2, 10_000, t0 + 10_000).allowed).toBe(false);
      // ...and none of it a full window later.
      expect(limiter.hit(2, 10_000, t0 + 20_000)).toMatchObject({ allowed: true, remaining: 1 });
    });
  });

  it("giveBack returns a grant to the window it was counted in, also once the next window has begun", async () => {
    const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`test-${crypto.randomUUID()}`));
    await runInDurableObject(stub, (limiter: RateLimiter, state) => {
      const t0 = 1_000_000_000_000;
      const first = limiter.hit(2, 10_000, t0);
      limiter.hit(2, 10_000, t0 + 1);
      expect(limiter.hit(2, 10_000, t0 + 2).allowed).toBe(false);
      limiter.giveBack(10_000, first.windowEnd, 1);
      expect(limiter.hit(2, 10_000, t0 + 3)).toMatchObject({ allowed: true, remaining: 0 });
      // Next window: the two counted ones weigh fully at its start; one given back frees one.
      expect(limiter.hit(2, 10_000, t0 + 10_000).allowed).toBe(false);
      limiter.giveBack(10_000, first.windowEnd, 1);
      expect(limiter.hit(2, 10_000, t0 + 10_000)).toMatchObject({ allowed: true, remaining: 0 });
      // Nothing is given back to a window that has slid out, nor below zero.
      expect(state.storage.kv.get("w")).toEqual({ start: t0 + 10_000, count: 1, previous: 1 });
      limiter.giveBack(10_000, first.windowEnd - 10_000, 5);
      expect(state.storage.kv.get("w")).toEqual({ start: t0 + 10_000, count: 1, previous: 1 });
      limiter.giveBack(10_000, first.windowEnd + 10_000, 5);
      expect(state.storage.kv.get("w")).toEqual({ start: t0 + 10_000, count: 0, previous: 1 });
    });
  });
});
