/**
 * The shared authentication suite: for each account-level route, no token, an
 * unknown token, an expired token, an account hapikey, a developer key, and a token without the needed
 * scope are each refused with the right envelope.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { forgetCredentials } from "../../src/lib/credential-cache";
import { sha256Hex } from "../../src/lib/crypto";
import { admin, call, expectError, tenant, type Tenant } from "./api";

export interface AccountRoute {
  method: string;
  /** Builds the path (and body) for a tenant that owns whatever the route needs. */
  path: (t: Tenant) => string | Promise<string>;
  body?: unknown;
  /** A scope set that lacks what the route needs. */
  withoutScope: string[];
  /** Credential kinds the route refuses with 403 although they are valid (e.g. private apps on OAuth-only routes). */
  refuses?: ("private_app" | "developer")[];
}

/**
 * Ages an access token past its expiry, as time passing would. Time passing would also age the isolate's
 * cached copy (it carries the expiry), so the cache is emptied: the next request reads the new expiry.
 */
export async function expire(token: string) {
  await env.DB.prepare("update credentials set expires_at = ? where token_hash = ?")
    .bind(Date.now() - 5_000, await sha256Hex(token))
    .run();
  forgetCredentials();
}

export function authSuite(name: string, route: AccountRoute) {
  describe(`authentication: ${name}`, () => {
    it("no credentials → 401", async () => {
      const t = await tenant();
      const res = await call(route.method, await route.path(t), { body: route.body });
      expect(expectError(res, 401, "INVALID_AUTHENTICATION").message).toContain("Authentication credentials not found");
    });
    it("unknown token → 401", async () => {
      const t = await tenant();
      expectError(await call(route.method, await route.path(t), { token: "oat-nope", body: route.body }), 401, "INVALID_AUTHENTICATION");
    });
    it("malformed Authorization header → 401", async () => {
      const t = await tenant();
      const res = await call(route.method, await route.path(t), { headers: { authorization: "Basic Zm9vOmJhcg==" }, body: route.body });
      expectError(res, 401, "INVALID_AUTHENTICATION");
    });
    it("expired token → 401 EXPIRED_AUTHENTICATION whose message says expired", async () => {
      const t = await tenant();
      const path = await route.path(t);
      await expire(t.oauth);
      const body = expectError(await call(route.method, path, { token: t.oauth, body: route.body }), 401, "EXPIRED_AUTHENTICATION");
      expect(body.message).toContain("expired");
    });
    it("account hapikey → 401 pointing to the Authorization header", async () => {
      const t = await tenant();
      const path = await route.path(t);
      const sep = path.includes("?") ? "&" : "?";
      const body = expectError(await call(route.method, `${path}${sep}hapikey=${t.pat}`, { body: route.body }), 401, "INVALID_AUTHENTICATION");
      expect(body.message).toContain("Authorization header");
    });
    it("developer key → 403", async () => {
      const t = await tenant();
      const path = await route.path(t);
      const sep = path.includes("?") ? "&" : "?";
      expectError(await call(route.method, `${path}${sep}hapikey=${t.developerKey}`, { body: route.body }), 403, "FORBIDDEN");
      expectError(await call(route.method, path, { token: t.developerKey, body: route.body }), 403, "FORBIDDEN");
    });
    it("token without the scope → 403 MISSING_SCOPES listing the required scopes", async () => {
      const t = await tenant();
      const path = await route.path(t);
      // Re-granting the install with fewer scopes gives a token of the same account that lacks the scope.
      const narrow = await admin("POST", `/admin/v1/accounts/${t.portalId}/installs`, { appId: t.appId, scopes: route.withoutScope });
      const body = expectError(await call(route.method, path, { token: narrow.access_token, body: route.body }), 403, "MISSING_SCOPES");
      expect(body.errors[0].context.requiredScopes.length).toBeGreaterThan(0);
    });
    if (route.refuses?.includes("private_app")) {
      it("private app token → 403", async () => {
        const t = await tenant();
        expectError(await call(route.method, await route.path(t), { token: t.pat, body: route.body }), 403, "FORBIDDEN");
      });
    }
  });
}
