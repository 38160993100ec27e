/**
 * OAuth as integrations use it. Refresh tokens are stable by default (the real service never
 * rotates them), rotation with reuse detection is an opt-in per app; HTTP Basic client authentication on
 * the token endpoint (RFC 6749 sections 2.3.1 and 5.2); a replayed authorization code revokes what it issued
 * (RFC 6749 section 4.1.2).
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ADMIN, BASE, call, expectError, tenant, type Tenant } from "../helpers/api";
import { authorize, exchange, REDIRECT, refresh } from "../helpers/oauth-flow";

const LIST = "/crm/v3/objects/contacts";

async function tokenRequest(fields: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await SELF.fetch(`${BASE}/oauth/v1/token`, {
    method: "POST",
    body: new URLSearchParams(fields).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> };
}

/** RFC 6749 section 2.3.1: both parts form-urlencoded, then joined with ":" and base64-encoded. */
const basic = (id: string, secret: string) =>
  `Basic ${btoa(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`)}`;

const setRotation = (t: Tenant, on: boolean) => call("PATCH", `/admin/v1/apps/${t.appId}`, { token: ADMIN, body: { refreshTokenRotation: on } });

describe("refresh tokens are stable by default", () => {
  it("a refresh returns the same refresh token; it works again and again; earlier access tokens stay valid", async () => {
    const t = await tenant();
    const first = await tokenRequest({ grant_type: "refresh_token", refresh_token: t.refresh, client_id: t.clientId, client_secret: t.clientSecret });
    expect(first.status).toBe(200);
    expect(first.json.refresh_token).toBe(t.refresh);
    expect(first.json.access_token).not.toBe(t.oauth);
    const second = await tokenRequest({ grant_type: "refresh_token", refresh_token: t.refresh, client_id: t.clientId, client_secret: t.clientSecret });
    expect(second.status).toBe(200);
    expect(second.json.refresh_token).toBe(t.refresh);
    for (const token of [t.oauth, first.json.access_token as string, second.json.access_token as string]) {
      expect((await call("GET", LIST, { token })).status).toBe(200);
    }
    // Introspection still knows it.
    expect((await call("GET", `/oauth/v1/refresh-tokens/${t.refresh}`)).json).toMatchObject({ token_type: "refresh", client_id: t.clientId });
  });

  it("the app's operator representation shows rotation off, and PATCH turns it on (and off again)", async () => {
    const t = await tenant();
    const on = await setRotation(t, true);
    expect(on.status).toBe(200);
    expect(on.json).toMatchObject({ appId: t.appId, refreshTokenRotation: true, scopes: expect.any(Array) });
    const off = await setRotation(t, false);
    expect(off.json).toMatchObject({ appId: t.appId, refreshTokenRotation: false });
    const created = await call("POST", "/admin/v1/apps", { token: ADMIN, body: { name: "x", redirectUris: [REDIRECT] } });
    expect(created.json.refreshTokenRotation).toBe(false);
    const opted = await call("POST", "/admin/v1/apps", { token: ADMIN, body: { name: "y", redirectUris: [REDIRECT], refreshTokenRotation: true } });
    expect(opted.json.refreshTokenRotation).toBe(true);
  });

  it.each<[Record<string, unknown>, string]>([
    [{}, "an empty body"],
    [{ refreshTokenRotation: "yes" }, "a non-boolean"],
    [{ refreshTokenRotation: 1 }, "a number"],
    [{ scopes: "oauth" }, "scopes that are not a list"],
  ])("PATCH /admin/v1/apps/{appId} with %j (%s) → 400", async (body) => {
    const t = await tenant();
    expectError(await call("PATCH", `/admin/v1/apps/${t.appId}`, { token: ADMIN, body }), 400, "VALIDATION_ERROR");
  });

  it("opted in: each refresh rotates, and a rotated token presented again revokes the whole family", async () => {
    const t = await tenant();
    await setRotation(t, true);
    const first = await tokenRequest({ grant_type: "refresh_token", refresh_token: t.refresh, client_id: t.clientId, client_secret: t.clientSecret });
    expect(first.json.refresh_token).not.toBe(t.refresh);
    const replay = await tokenRequest({ grant_type: "refresh_token", refresh_token: t.refresh, client_id: t.clientId, client_secret: t.clientSecret });
    expect(replay.status).toBe(400);
    expect(replay.json).toMatchObject({ status: "BAD_REFRESH_TOKEN", error: "invalid_grant" });
    expectError(await call("GET", LIST, { token: first.json.access_token as string }), 401, "INVALID_AUTHENTICATION");
  });
});

describe("HTTP Basic client authentication on POST /oauth/v1/token (RFC 6749 section 2.3.1)", () => {
  it("authorization code and refresh with the client in the Authorization header", async () => {
    const t = await tenant();
    const code = await authorize(t);
    const tokens = await tokenRequest({ grant_type: "authorization_code", code, redirect_uri: REDIRECT }, { authorization: basic(t.clientId, t.clientSecret) });
    expect(tokens.status).toBe(200);
    expect((await call("GET", "/contacts/v1/lists/all/contacts/all", { token: tokens.json.access_token as string })).status).toBe(200);
    const refreshed = await tokenRequest({ grant_type: "refresh_token", refresh_token: tokens.json.refresh_token as string }, { authorization: basic(t.clientId, t.clientSecret) });
    expect(refreshed.status).toBe(200);
    // A client_id in the body as well is no second method, when it names the same client.
    const same = await tokenRequest({ grant_type: "refresh_token", refresh_token: t.refresh, client_id: t.clientId }, { authorization: basic(t.clientId, t.clientSecret) });
    expect(same.status).toBe(200);
  });

  it("both methods at once → 400 invalid_request", async () => {
    const t = await tenant();
    const both: Record<string, string>[] = [{ client_id: t.clientId, client_secret: t.clientSecret }, { client_secret: t.clientSecret }, { client_id: "another-client" }];
    for (const extra of both) {
      const res = await tokenRequest({ grant_type: "refresh_token", refresh_token: t.refresh, ...extra }, { authorization: basic(t.clientId, t.clientSecret) });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ error: "invalid_request", error_description: expect.any(String) });
    }
  });

  it.each([
    ["an unknown client", (t: Tenant) => basic("no-such-client", t.clientSecret)],
    ["a wrong secret", (t: Tenant) => basic(t.clientId, "wrong")],
    ["a header that is not base64 of id:secret", () => "Basic !!!"],
    ["a header without the colon", () => `Basic ${btoa("just-an-id")}`],
  ])("%s over Basic → 401 invalid_client with WWW-Authenticate: Basic (RFC 6749 section 5.2)", async (_what, header) => {
    const t = await tenant();
    const res = await tokenRequest({ grant_type: "refresh_token", refresh_token: t.refresh }, { authorization: header(t) });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ error: "invalid_client", error_description: expect.any(String) });
    expect(res.headers.get("www-authenticate")).toMatch(/^Basic realm="/);
  });

  it("an unknown client in the form body stays a 400 (no Authorization header was tried)", async () => {
    const t = await tenant();
    const res = await tokenRequest({ grant_type: "refresh_token", refresh_token: t.refresh, client_id: "no-such-client", client_secret: "s" });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ status: "BAD_CLIENT_ID", error: "invalid_client" });
  });
});

describe("a replayed authorization code (RFC 6749 section 4.1.2)", () => {
  it("is refused and revokes the tokens issued from that code, and nothing else", async () => {
    const t = await tenant();
    const code = await authorize(t);
    const tokens = (await (await exchange(t, code)).json()) as Record<string, string>;
    const later = (await (await refresh(t, tokens.refresh_token!)).json()) as Record<string, string>;
    expect((await call("GET", "/contacts/v1/lists/all/contacts/all", { token: later.access_token! })).status).toBe(200);
    const replay = await exchange(t, code);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ status: "BAD_AUTH_CODE", error: "invalid_grant" });
    for (const token of [tokens.access_token!, later.access_token!]) {
      expectError(await call("GET", "/contacts/v1/lists/all/contacts/all", { token }), 401, "INVALID_AUTHENTICATION");
    }
    expect((await refresh(t, tokens.refresh_token!)).status).toBe(400);
    // The install's other tokens (the operator's install) are not from that code: they keep working.
    expect((await call("GET", LIST, { token: t.oauth })).status).toBe(200);
  });
});
