/** The OAuth consent flow as a browser and an app run it: sign in, consent, exchange, refresh. */
import { SELF } from "cloudflare:test";
import { expect } from "vitest";
import { base64url } from "../../src/lib/crypto";
import { BASE, type Tenant } from "./api";

export const REDIRECT = "https://app.example.com/callback";

export async function form(path: string, fields: Record<string, string>, cookie?: string) {
  return SELF.fetch(`${BASE}${path}`, {
    method: "POST",
    body: new URLSearchParams(fields).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", ...(cookie ? { cookie } : {}) },
    redirect: "manual",
  });
}

export async function signIn(t: Tenant) {
  const res = await form("/login", { email: t.userEmail, password: "correct horse battery" });
  expect(res.status).toBe(303);
  const cookie = res.headers.get("set-cookie")!;
  expect(cookie).toContain("HttpOnly");
  expect(cookie).toContain("SameSite=Lax");
  expect(cookie).toContain("Secure"); // not localhost
  return cookie.split(";")[0]!;
}

export async function challenge(verifier: string) {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
}

/** Runs the consent flow and returns the code from the redirect. */
export async function authorize(t: Tenant, extra: Record<string, string> = {}) {
  const cookie = await signIn(t);
  const q = new URLSearchParams({ client_id: t.clientId, redirect_uri: REDIRECT, scope: "oauth crm.objects.contacts.read", state: "s1", ...extra });
  const page = await SELF.fetch(`${BASE}/oauth/authorize?${q}`, { headers: { cookie }, redirect: "manual" });
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain("crm.objects.contacts.read");
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
  const res = await form("/oauth/authorize", { ...Object.fromEntries(q), csrf, decision: "approve" }, cookie);
  expect(res.status).toBe(302);
  const loc = new URL(res.headers.get("location")!);
  expect(loc.origin + loc.pathname).toBe(REDIRECT);
  expect(loc.searchParams.get("state")).toBe("s1");
  return loc.searchParams.get("code")!;
}

export const exchange = (t: Tenant, code: string, extra: Record<string, string> = {}) =>
  form("/oauth/v1/token", { grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: t.clientId, client_secret: t.clientSecret, ...extra });

export const refresh = (t: Tenant, token: string) =>
  form("/oauth/v1/token", { grant_type: "refresh_token", refresh_token: token, client_id: t.clientId, client_secret: t.clientSecret, redirect_uri: REDIRECT });
