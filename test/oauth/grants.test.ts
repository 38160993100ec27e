import { env, SELF } from "cloudflare:test";
import { makeDb } from "../../src/db/client";
import type { ApiError } from "../../src/lib/errors";
import { sha256Hex } from "../../src/lib/crypto";
import { refresh as refreshService } from "../../src/services/oauth/grants";
import { describe, expect, it } from "vitest";
import { ADMIN, BASE, call, expectError, tenant } from "../helpers/api";
import { authorize, challenge, exchange, form, REDIRECT, refresh, signIn } from "../helpers/oauth-flow";

describe("OAuth 2.0 (the v1 endpoints; RFC 9700)", () => {
  it("authorization code flow: consent, code, tokens, introspection", async () => {
    const t = await tenant();
    const code = await authorize(t);
    const res = await exchange(t, code);
    expect(res.status).toBe(200);
    const tokens = (await res.json()) as Record<string, unknown>;
    expect(tokens).toMatchObject({ token_type: "bearer", expires_in: 1800, access_token: expect.any(String), refresh_token: expect.any(String) });
    const access = tokens.access_token as string;
    expect((await call("GET", "/contacts/v1/lists/all/contacts/all", { token: access })).status).toBe(200);
    // Only the consented scopes were granted.
    expectError(await call("POST", "/crm/v3/objects/contacts", { token: access, body: { properties: {} } }), 403, "MISSING_SCOPES");

    const info = await call("GET", `/oauth/v1/access-tokens/${access}`);
    expect(info.json).toMatchObject({ token: access, hub_id: t.portalId, app_id: t.appId, user: t.userEmail, user_id: t.userId, token_type: "access", scopes: ["oauth", "crm.objects.contacts.read"] });
    expect(info.json.expires_in).toBeGreaterThan(1790);
    const rinfo = await call("GET", `/oauth/v1/refresh-tokens/${tokens.refresh_token}`);
    expect(rinfo.json).toMatchObject({ hub_id: t.portalId, client_id: t.clientId, token_type: "refresh" });
  });

  it("codes are single use", async () => {
    const t = await tenant();
    const code = await authorize(t);
    expect((await exchange(t, code)).status).toBe(200);
    const again = await exchange(t, code);
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ status: "BAD_AUTH_CODE", error: "invalid_grant", message: expect.any(String), error_description: expect.any(String) });
  });

  it("PKCE S256: the verifier must match, and a verifier without a challenge is a refused downgrade", async () => {
    const t = await tenant();
    const verifier = "v".repeat(20) + crypto.randomUUID() + "x".repeat(10);
    const code = await authorize(t, { code_challenge: await challenge(verifier), code_challenge_method: "S256" });
    expect((await exchange(t, code, { code_verifier: "w".repeat(50) })).status).toBe(400);
    expect((await exchange(t, code)).status).toBe(400);
    expect((await exchange(t, code, { code_verifier: verifier })).status).toBe(200);

    const plainCode = await authorize(t);
    const downgrade = await exchange(t, plainCode, { code_verifier: verifier });
    expect(downgrade.status).toBe(400);
    expect(((await downgrade.json()) as { error: string }).error).toBe("invalid_grant");
  });

  it("refresh rotates when the app opts in; reusing a rotated refresh token revokes the whole family", async () => {
    const t = await tenant();
    expect((await call("PATCH", `/admin/v1/apps/${t.appId}`, { token: ADMIN, body: { refreshTokenRotation: true } })).status).toBe(200);
    const first = (await (await refresh(t, t.refresh)).json()) as Record<string, string>;
    expect(first.refresh_token).not.toBe(t.refresh);
    expect((await call("GET", "/crm/v3/objects/contacts", { token: first.access_token! })).status).toBe(200);
    // The old refresh token is replayed: everything in its family dies, including the new tokens.
    const replay = await refresh(t, t.refresh);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ status: "BAD_REFRESH_TOKEN", error: "invalid_grant" });
    expectError(await call("GET", "/crm/v3/objects/contacts", { token: first.access_token! }), 401, "INVALID_AUTHENTICATION");
    expect((await refresh(t, first.refresh_token!)).status).toBe(400);
  });

  it("concurrent refreshes with one token (rotation opted in): one is served, the others count as reuse and revoke the family", async () => {
    const t = await tenant();
    expect((await call("PATCH", `/admin/v1/apps/${t.appId}`, { token: ADMIN, body: { refreshTokenRotation: true } })).status).toBe(200);
    // Both refreshes read the token before either writes: every db.batch waits until two are pending (or
    // 200 ms passed, when the code under test lets only one get that far). The D1 underneath is the real one.
    let waiting: (() => void)[] = [];
    const d1 = new Proxy(env.DB, {
      get(target, key) {
        if (key !== "batch") return Reflect.get(target, key).bind(target);
        return async (statements: D1PreparedStatement[]) => {
          await new Promise<void>((go) => {
            waiting.push(go);
            if (waiting.length === 2) {
              waiting.forEach((w) => w());
              waiting = [];
            } else setTimeout(go, 200);
          });
          return target.batch(statements);
        };
      },
    });
    const db = makeDb(d1);
    const input = { refreshToken: t.refresh, client: { clientId: t.clientId, clientSecret: t.clientSecret, via: "body" as const }, now: Date.now() };
    const answers = await Promise.allSettled([refreshService(db, input), refreshService(db, input)]);
    // At most one is served: two served would each hold a live, independent token pair.
    expect(answers.filter((a) => a.status === "fulfilled").length).toBeLessThanOrEqual(1);
    for (const a of answers.filter((x) => x.status === "rejected")) {
      expect((a.reason as ApiError).init.extra).toMatchObject({ status: "BAD_REFRESH_TOKEN", error: "invalid_grant" });
    }
    // RFC 9700 section 4.14.2: a rotated token was presented again, so nothing of its family may still work,
    // including a pair written after the revocation.
    const family = await env.DB.prepare("select family_id from credentials where token_hash = ?").bind(await sha256Hex(t.refresh)).first<string>("family_id");
    const live = await env.DB.prepare("select count(*) as n from credentials where family_id = ? and revoked_at is null").bind(family).first<number>("n");
    expect(live).toBe(0);
    expect((await refresh(t, t.refresh)).status).toBe(400);
  });

  it("a scope the operator removed from the app is not carried into tokens issued by a later refresh", async () => {
    const t = await tenant();
    expect((await call("GET", "/content/api/v2/blog-posts", { token: t.oauth })).status).toBe(200);
    const granted = (await call("GET", `/oauth/v1/access-tokens/${t.oauth}`)).json.scopes as string[];
    const kept = granted.filter((s) => s !== "content");
    expect((await call("PATCH", `/admin/v1/apps/${t.appId}`, { token: ADMIN, body: { scopes: kept } })).status).toBe(200);
    const next = (await (await refresh(t, t.refresh)).json()) as Record<string, string>;
    expectError(await call("GET", "/content/api/v2/blog-posts", { token: next.access_token! }), 403, "MISSING_SCOPES");
    expect((await call("GET", `/oauth/v1/access-tokens/${next.access_token}`)).json.scopes).not.toContain("content");
  });

  it("malformed token requests get the OAuth error fields too (error, error_description), not only the generic envelope", async () => {
    const t = await tenant();
    const cases: [Record<string, string>, string, string][] = [
      [{}, "BAD_GRANT_TYPE", "unsupported_grant_type"],
      [{ code: "abc" }, "BAD_GRANT_TYPE", "unsupported_grant_type"],
      [{ grant_type: "authorization_code", client_id: t.clientId, client_secret: t.clientSecret, code: "c".repeat(300), redirect_uri: REDIRECT }, "BAD_AUTH_CODE", "invalid_grant"],
      [{ grant_type: "refresh_token", client_id: t.clientId, client_secret: t.clientSecret, refresh_token: "r".repeat(250) }, "BAD_REFRESH_TOKEN", "invalid_grant"],
      [{ grant_type: "authorization_code", client_id: t.clientId, client_secret: t.clientSecret, code: "abc", redirect_uri: REDIRECT, code_verifier: "short" }, "BAD_AUTH_CODE", "invalid_request"],
      [{ grant_type: "refresh_token", client_id: "x".repeat(300), client_secret: "s", refresh_token: t.refresh }, "BAD_CLIENT_ID", "invalid_client"],
    ];
    for (const [fields, status, error] of cases) {
      const res = await form("/oauth/v1/token", fields);
      expect(res.status, JSON.stringify(fields).slice(0, 80)).toBe(400);
      expect(await res.json()).toMatchObject({ status, error, message: expect.any(String), error_description: expect.any(String) });
    }
  });

  it("refresh tokens can be revoked (204) and are then refused", async () => {
    const t = await tenant();
    const del = await call("DELETE", `/oauth/v1/refresh-tokens/${t.refresh}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expect((await refresh(t, t.refresh)).status).toBe(400);
    expectError(await call("DELETE", `/oauth/v1/refresh-tokens/${t.refresh}`), 404, "OBJECT_NOT_FOUND");
    expectError(await call("GET", `/oauth/v1/access-tokens/nope`), 404, "OBJECT_NOT_FOUND");
  });

  it("another client cannot use the refresh token; wrong secrets and grant types are refused", async () => {
    const t = await tenant();
    const other = await tenant();
    const res = await form("/oauth/v1/token", { grant_type: "refresh_token", refresh_token: t.refresh, client_id: other.clientId, client_secret: other.clientSecret });
    expect(await res.json()).toMatchObject({ status: "BAD_REFRESH_TOKEN" });
    const bad = await form("/oauth/v1/token", { grant_type: "refresh_token", refresh_token: t.refresh, client_id: t.clientId, client_secret: "wrong" });
    expect(await bad.json()).toMatchObject({ status: "BAD_CLIENT_SECRET", error: "invalid_client" });
    const grant = await form("/oauth/v1/token", { grant_type: "password", client_id: t.clientId, client_secret: t.clientSecret });
    expect(await grant.json()).toMatchObject({ status: "BAD_GRANT_TYPE", error: "unsupported_grant_type" });
  });

  it("never redirects to an unregistered redirect_uri, and sends unsigned-in users to sign in", async () => {
    const t = await tenant();
    const evil = new URLSearchParams({ client_id: t.clientId, redirect_uri: "https://evil.example/cb", scope: "oauth" });
    const res = await SELF.fetch(`${BASE}/oauth/authorize?${evil}`, { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    const unknown = await SELF.fetch(`${BASE}/oauth/authorize?client_id=nope&redirect_uri=${REDIRECT}&scope=oauth`, { redirect: "manual" });
    expect(unknown.status).toBe(400);

    const ok = new URLSearchParams({ client_id: t.clientId, redirect_uri: REDIRECT, scope: "oauth" });
    const login = await SELF.fetch(`${BASE}/oauth/authorize?${ok}`, { redirect: "manual" });
    expect(login.status).toBe(302);
    expect(login.headers.get("location")).toContain("/login?next=");

    const badScope = new URLSearchParams({ client_id: t.clientId, redirect_uri: REDIRECT, scope: "oauth root", state: "z" });
    const scoped = await SELF.fetch(`${BASE}/oauth/authorize?${badScope}`, { redirect: "manual" });
    const loc = new URL(scoped.headers.get("location")!);
    expect(loc.searchParams.get("error")).toBe("invalid_scope");
    expect(loc.searchParams.get("state")).toBe("z");
  });

  it("consent needs the session's CSRF token; deny redirects with access_denied", async () => {
    const t = await tenant();
    const cookie = await signIn(t);
    const q = { client_id: t.clientId, redirect_uri: REDIRECT, scope: "oauth" };
    const forged = await form("/oauth/authorize", { ...q, csrf: "forged", decision: "approve" }, cookie);
    expectError({ status: forged.status, headers: forged.headers, text: "", json: await forged.json() }, 403, "FORBIDDEN");
    const page = await SELF.fetch(`${BASE}/oauth/authorize?${new URLSearchParams(q)}`, { headers: { cookie } });
    const text = await page.text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(text)![1]!;
    // Connecting is the page's main action (the accent button); Cancel is the plain one beside it.
    expect(text).toContain('<button class="primary" name="decision" value="approve">Connect app</button> <button name="decision" value="deny">Cancel</button>');
    const deny = await form("/oauth/authorize", { ...q, csrf, decision: "deny" }, cookie);
    expect(new URL(deny.headers.get("location")!).searchParams.get("error")).toBe("access_denied");
  });

  it("a wrong password does not sign in", async () => {
    const t = await tenant();
    const res = await form("/login", { email: t.userEmail, password: "wrong password" });
    expect(res.status).toBe(401);
    expect(res.headers.get("set-cookie")).toBeNull();
  });
});
