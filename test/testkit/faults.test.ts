/**
 * Fault rules of a test account (docs/reference/testkit.md, "Faults"): a matching call gets the rule's fault
 * with the real service's body and headers, before anything of it runs; `times`, `probability` with a
 * seed, delays, the credential and path matches; none of it on a STANDARD account, whose calls read nothing
 * of the kit.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { buildRouter } from "../../src/router";
import { admin, ADMIN, BASE, call, expectError, tenant, unique, type Tenant } from "../helpers/api";
import { recordingD1 } from "./helpers";

const testTenant = () => tenant({ accountType: "DEVELOPER_TEST" });
const faults = (t: Tenant) => `/admin/v1/accounts/${t.portalId}/faults`;
const put = (t: Tenant, rules: unknown[]) => call("PUT", faults(t), { token: ADMIN, body: { rules } });
const contacts = (t: Tenant, token = t.pat) => call("GET", "/crm/v3/objects/contacts?limit=1", { token });

describe("fault rules", () => {
  it("a matching call gets the 429 of the policy, with the real body and headers; others pass; GET counts them", async () => {
    const t = await testTenant();
    const set = await put(t, [{ match: { method: "get", path: "/crm/v3/objects/*" }, respond: { status: 429 }, times: 2 }]);
    expect(set.status, set.text).toBe(200);
    expect(set.json.rules).toEqual([{ id: expect.any(Number), match: { method: "GET", path: "/crm/v3/objects/*" }, respond: { status: 429 }, latencyMs: 0, timesLeft: 2, calls: 0, faults: 0 }]);
    const limited = await contacts(t);
    const body = expectError(limited, 429, "RATE_LIMITS");
    expect(body).toMatchObject({ message: "You have reached your ten_secondly_rolling limit.", errorType: "RATE_LIMIT", policyName: "TEN_SECONDLY_ROLLING" });
    expect(limited.headers.get("retry-after")).toBe("10");
    expect(limited.headers.get("x-service-ratelimit-remaining")).toBe("0");
    expect(limited.headers.get("x-service-fault-rule")).toBe(String(set.json.rules[0].id));
    // Not a match: another path, another method.
    expect((await call("GET", "/crm/v3/objects/contacts/search", { token: t.pat })).status).not.toBe(429);
    expect((await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { firstname: "x" } } })).status).toBe(201);
    expect((await contacts(t)).status).toBe(429);
    // `times` spent: the calls are answered again.
    expect((await contacts(t)).status).toBe(200);
    const seen = await call("GET", faults(t), { token: ADMIN });
    expect(seen.json.rules[0]).toMatchObject({ timesLeft: 0, calls: 3, faults: 2 });
  });

  it.each([
    ["SECONDLY", "You have reached your secondly limit.", "1"],
    ["DAILY", "You have reached your daily limit.", null],
  ])("a 429 of policy %s says so", async (policyName, message, retry) => {
    const t = await testTenant();
    await put(t, [{ respond: { status: 429, policyName } }]);
    const res = await contacts(t);
    expect(expectError(res, 429, "RATE_LIMITS")).toMatchObject({ message, policyName, errorType: "RATE_LIMIT" });
    if (retry) expect(res.headers.get("retry-after")).toBe(retry);
    else expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("a search gets the search API's own per-second 429, without rate-limit headers", async () => {
    const t = await testTenant();
    await put(t, [{ match: { path: "/crm/v3/objects/*/search" }, respond: { status: 429 } }]);
    const res = await call("POST", "/crm/v3/objects/contacts/search", { token: t.pat, body: {} });
    expect(expectError(res, 429, "RATE_LIMITS")).toMatchObject({ policyName: "SECONDLY", message: "You have reached your secondly limit." });
    expect(res.headers.get("x-service-ratelimit-max")).toBeNull();
    expect(res.headers.get("retry-after")).toBe("1");
  });

  it.each([
    [500, "INTERNAL_ERROR"],
    [502, "INTERNAL_ERROR"],
    [503, "SERVICE_UNAVAILABLE"],
    [504, "INTERNAL_ERROR"],
  ])("a %s fault is the error envelope with that status, and the call writes nothing", async (status, category) => {
    const t = await testTenant();
    await put(t, [{ match: { method: "POST", path: "/crm/v3/objects/**" }, respond: { status } }]);
    expectError(await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { email: `${unique("f")}@example.com` } } }), status, category);
    await call("DELETE", faults(t), { token: ADMIN });
    expect((await contacts(t)).json.results).toEqual([]);
  });

  it("matches the credential: a rule for OAuth calls leaves the private app's calls alone", async () => {
    const t = await testTenant();
    await put(t, [{ match: { credential: "oauth" }, respond: { status: 500 } }]);
    expect((await contacts(t, t.oauth)).status).toBe(500);
    expect((await contacts(t, t.pat)).status).toBe(200);
  });

  it("with a seed, the same calls fail on every run; probability 0 never fails", async () => {
    const t = await testTenant();
    const run = async () => {
      await put(t, [{ respond: { status: 503 }, probability: 0.5, seed: 42 }]);
      const out: number[] = [];
      for (let i = 0; i < 16; i++) out.push((await contacts(t)).status);
      return out;
    };
    const first = await run();
    expect(first).toContain(503);
    expect(first).toContain(200);
    expect(await run()).toEqual(first);
    await put(t, [{ respond: { status: 503 }, probability: 0 }]);
    for (let i = 0; i < 5; i++) expect((await contacts(t)).status).toBe(200);
  });

  it("a delay alone holds the call, then answers it", async () => {
    const t = await testTenant();
    await put(t, [{ latencyMs: 400, times: 1 }]);
    const started = Date.now();
    expect((await contacts(t)).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect((await call("GET", faults(t), { token: ADMIN })).json.rules[0]).toMatchObject({ timesLeft: 0, faults: 1 });
  });

  it("DELETE removes them; an account's rules never touch another account's calls", async () => {
    const a = await testTenant();
    const b = await testTenant();
    await put(a, [{ respond: { status: 500 } }]);
    expect((await contacts(b)).status).toBe(200);
    expect((await call("GET", faults(b), { token: ADMIN })).json).toEqual({ rules: [] });
    expect((await call("DELETE", faults(a), { token: ADMIN })).status).toBe(204);
    expect((await contacts(a)).status).toBe(200);
  });

  it("a rule set on a test account stops acting when the account becomes STANDARD", async () => {
    const t = await testTenant();
    await put(t, [{ respond: { status: 500 } }]);
    expect((await contacts(t)).status).toBe(500);
    await admin("PATCH", `/admin/v1/accounts/${t.portalId}`, { accountType: "STANDARD" });
    expect((await contacts(t)).status).toBe(200);
  });
});

describe("only on test accounts, only for the operator", () => {
  it.each([["PUT"], ["GET"], ["DELETE"]])("%s on a STANDARD account is a 409 naming accountType", async (method) => {
    const t = await tenant();
    const res = await call(method, faults(t), { token: ADMIN, body: method === "PUT" ? { rules: [] } : undefined });
    expect(expectError(res, 409, "CONFLICT").message).toContain("accountType STANDARD");
  });

  it("a SANDBOX account takes them; an unknown account is a 404; account credentials are refused", async () => {
    const t = await tenant({ accountType: "SANDBOX" });
    expect((await put(t, [])).status).toBe(200);
    expectError(await call("GET", "/admin/v1/accounts/999999999/faults", { token: ADMIN }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("GET", faults(t), { token: t.pat }), 401, "INVALID_AUTHENTICATION");
  });

  it("a STANDARD account's call reads nothing of the kit; a test account's reads its rules once", async () => {
    const statements = async (t: Tenant) => {
      const { db, seen } = recordingD1(env.DB);
      const res = await buildRouter().fetch(new Request(`${BASE}/crm/v3/objects/contacts?limit=1`, { headers: { authorization: `Bearer ${t.pat}` } }), { ...env, DB: db }, createExecutionContext());
      expect(res.status).toBe(200);
      return seen.filter((s) => s.includes("fault_rules")).length;
    };
    expect(await statements(await tenant())).toBe(0);
    expect(await statements(await testTenant())).toBe(1);
  });
});

describe("bad input", () => {
  it.each([
    ["an unknown status", [{ respond: { status: 418 } }], "rules.0.respond.status"],
    ["a policy on a 500", [{ respond: { status: 500, policyName: "DAILY" } }], "rules.0.respond.policyName"],
    ["an unknown policy", [{ respond: { status: 429, policyName: "HOURLY" } }], "rules.0.respond.policyName"],
    ["a probability over 1", [{ respond: { status: 500 }, probability: 1.5 }], "rules.0.probability"],
    ["times 0", [{ respond: { status: 500 }, times: 0 }], "rules.0.times"],
    ["a path without its /", [{ match: { path: "crm/*" }, respond: { status: 500 } }], "rules.0.match.path"],
    ["an unknown method", [{ match: { method: "TRACE" }, respond: { status: 500 } }], "rules.0.match.method"],
    ["the developer key", [{ match: { credential: "developer-key" }, respond: { status: 500 } }], "rules.0.match.credential"],
    ["a rule that does nothing", [{ match: { method: "GET" } }], "rules.0"],
    ["an unknown field", [{ respond: { status: 500 }, sometimes: true }], "rules.0"],
    ["a delay over 30 s", [{ latencyMs: 30_001 }], "rules.0.latencyMs"],
    ["51 rules", Array.from({ length: 51 }, () => ({ respond: { status: 500 } })), "rules"],
  ])("%s is a 400 naming the field, and the rules stay as they were", async (_n, rules, field) => {
    const t = await testTenant();
    await put(t, [{ respond: { status: 503 }, match: { path: "/nowhere" } }]);
    const body = expectError(await put(t, rules), 400, "VALIDATION_ERROR");
    expect(JSON.stringify(body.errors ?? body.context)).toContain(field);
    expect((await call("GET", faults(t), { token: ADMIN })).json.rules).toHaveLength(1);
  });
});
