/**
 * The isolate's credential cache (src/lib/credential-cache.ts; docs/explanation/design-decisions.md): what it keeps, for how
 * long, and which changes reach a request at once. "Another isolate" is played by writing to D1 directly,
 * behind this isolate's back; time passes through the system clock the Worker reads.
 */
import { env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cacheTtlMs, forgetCredentials } from "../../src/lib/credential-cache";
import { sha256Hex } from "../../src/lib/crypto";
import { call, expectError, tenant } from "../helpers/api";
import { callWithEnv } from "../cards/helpers";

const LIST = "/crm/v3/objects/contacts?limit=1";

async function revokeBehindOurBack(token: string) {
  await env.DB.prepare("update credentials set revoked_at = ? where token_hash = ?").bind(Date.now(), await sha256Hex(token)).run();
}

describe("credential cache", () => {
  beforeEach(() => {
    forgetCredentials();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date());
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("a revocation made by another isolate is honoured once the 10 s TTL has passed, not before", async () => {
    const t = await tenant();
    expect((await call("GET", LIST, { token: t.pat })).status).toBe(200);
    await revokeBehindOurBack(t.pat);
    vi.advanceTimersByTime(9_000);
    expect((await call("GET", LIST, { token: t.pat })).status).toBe(200);
    vi.advanceTimersByTime(1_001);
    expectError(await call("GET", LIST, { token: t.pat }), 401, "INVALID_AUTHENTICATION");
  });

  it("an uninstall in this isolate refuses the install's token on the very next request", async () => {
    const t = await tenant();
    expect((await call("GET", LIST, { token: t.oauth })).status).toBe(200);
    const res = await call("DELETE", `/admin/v1/accounts/${t.portalId}/installs/${t.appId}`, { token: "test-admin-token" });
    expect(res.status).toBe(204);
    expectError(await call("GET", LIST, { token: t.oauth }), 401, "INVALID_AUTHENTICATION");
  });

  it("a cached access token still expires at its own expiry, to the millisecond", async () => {
    const t = await tenant();
    const row = await env.DB.prepare("select expires_at as e from credentials where token_hash = ?").bind(await sha256Hex(t.oauth)).first<{ e: number }>();
    vi.setSystemTime(row!.e - 1);
    expect((await call("GET", LIST, { token: t.oauth })).status).toBe(200);
    vi.setSystemTime(row!.e);
    const body = expectError(await call("GET", LIST, { token: t.oauth }), 401, "EXPIRED_AUTHENTICATION");
    expect(body.message).toContain("expired 0 second(s) ago");
  });

  it("a refused secret is not remembered: a credential created afterwards works at once", async () => {
    const t = await tenant();
    const secret = `pat-later-${crypto.randomUUID()}`;
    expectError(await call("GET", LIST, { token: secret }), 401, "INVALID_AUTHENTICATION");
    const privateAppId = (await env.DB.prepare("select private_app_id as id from credentials where token_hash = ?").bind(await sha256Hex(t.pat)).first<{ id: number }>())!.id;
    await env.DB.prepare("insert into credentials (token_hash, kind, portal_id, private_app_id, scopes) values (?, 'private_app', ?, ?, ?)")
      .bind(await sha256Hex(secret), t.portalId, privateAppId, JSON.stringify(["crm.objects.contacts.read"]))
      .run();
    expect((await call("GET", LIST, { token: secret })).status).toBe(200);
  });

  it("scopes travel with the cached principal: a token without a scope stays refused", async () => {
    const t = await tenant({ scopes: ["crm.objects.companies.read"] });
    expectError(await call("GET", LIST, { token: t.pat }), 403, "MISSING_SCOPES");
    expectError(await call("GET", LIST, { token: t.pat }), 403, "MISSING_SCOPES");
    expect((await call("GET", "/crm/v3/objects/companies?limit=1", { token: t.pat })).status).toBe(200);
  });

  it("accounts never see each other through the cache", async () => {
    const [a, b] = [await tenant(), await tenant()];
    for (const t of [a, b, a, b]) {
      const res = await call("GET", "/contacts/v1/lists/all/contacts/all", { token: t.pat });
      expect(res.status).toBe(200);
      for (const c of res.json.contacts) expect(c["portal-id"]).toBe(t.portalId);
    }
    await call("POST", "/crm/v3/objects/contacts", { token: a.pat, body: { properties: { email: `${crypto.randomUUID()}@a.example` } } });
    expect((await call("GET", "/contacts/v1/lists/all/contacts/all", { token: b.pat })).json.contacts).toHaveLength(0);
    expect((await call("GET", "/contacts/v1/lists/all/contacts/all", { token: a.pat })).json.contacts).toHaveLength(1);
  });
});

describe("CREDENTIAL_CACHE_SECONDS", () => {
  it("\"0\" turns the cache off: a revocation made elsewhere is seen on the next request", async () => {
    forgetCredentials();
    const t = await tenant();
    const get = () => callWithEnv({ CREDENTIAL_CACHE_SECONDS: "0" }, "GET", LIST, { token: t.pat });
    expect((await get()).status).toBe(200);
    await revokeBehindOurBack(t.pat);
    expect((await get()).status).toBe(401);
  });

  it("defaults to 10 s, accepts 0 to turn the cache off, and ignores nonsense", () => {
    expect(cacheTtlMs({ CREDENTIAL_CACHE_SECONDS: "10" })).toBe(10_000);
    expect(cacheTtlMs({ CREDENTIAL_CACHE_SECONDS: "0" })).toBe(0);
    expect(cacheTtlMs({ CREDENTIAL_CACHE_SECONDS: "2.5" })).toBe(2_500);
    expect(cacheTtlMs({ CREDENTIAL_CACHE_SECONDS: "" })).toBe(10_000);
    expect(cacheTtlMs({ CREDENTIAL_CACHE_SECONDS: "-1" })).toBe(10_000);
    expect(cacheTtlMs({ CREDENTIAL_CACHE_SECONDS: "ten" })).toBe(10_000);
  });
});
