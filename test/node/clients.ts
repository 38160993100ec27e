/**
 * Helpers for the tests that run real, unmodified npm clients against the Worker: plain HTTP
 * set-up calls the clients have no methods for, and a poll for the asynchronous ecommerce sync.
 */
import { expect } from "vitest";
import { admin, integratorUrl, type NodeTenant, workerUrl } from "./helpers";

/** A JSON call to the Worker with a bearer token, for set-up steps outside what a client under test covers. */
export async function http<T = Record<string, any>>(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> { // eslint-disable-line @typescript-eslint/no-explicit-any -- set-up answers are read loosely
  const res = await fetch(`${workerUrl()}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

/** Creates contacts with the private-app token and returns their ids in creation (= vid) order. */
export async function createContacts(t: NodeTenant, props: Record<string, string>[]): Promise<number[]> {
  const ids: number[] = [];
  for (const p of props) {
    const res = await http(t.pat, "POST", "/crm/v3/objects/contacts", { properties: p });
    expect(res.status).toBe(201);
    ids.push(Number(res.body.id));
  }
  return ids;
}

/** Polls until `check` returns a value (a sync request only queues its messages; the queue consumer applies them later). */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, tries = 100): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await check();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** A unique path on the local integrator, so each test reads only its own captured requests. */
let seq = 0;
export const integratorPath = (name: string) => `/${name}-${Date.now().toString(36)}-${(seq++).toString(36)}`;

export async function capturedRequests(path: string): Promise<{ method: string; url: string; path: string; headers: Record<string, string>; body: string }[]> {
  const res = await fetch(`${integratorUrl()}/__requests?path=${encodeURIComponent(path)}`);
  expect(res.status).toBe(200);
  return (await res.json()) as never;
}

export const REDIRECT_URI = "http://127.0.0.1/callback";

/**
 * The user's side of the OAuth consent (sign in, open the authorize page, approve) for an authorize URL a
 * client library built. The libraries hard-code the real service's host (app.hubspot.com), so only their
 * query string is used, on this Worker's /oauth/authorize. Returns the redirect with `code` and `state`.
 */
export async function consent(t: NodeTenant, clientAuthorizeUrl: string): Promise<URL> {
  const login = await fetch(`${workerUrl()}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email: t.userEmail, password: t.userPassword }).toString(),
    redirect: "manual",
  });
  expect(login.status).toBe(303);
  const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
  const query = new URL(clientAuthorizeUrl).searchParams;
  const page = await fetch(`${workerUrl()}/oauth/authorize?${query}`, { headers: { cookie }, redirect: "manual" });
  expect(page.status).toBe(200);
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  expect(csrf).toBeDefined();
  const approve = await fetch(`${workerUrl()}/oauth/authorize`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ ...Object.fromEntries(query), csrf: csrf!, decision: "approve" }).toString(),
    redirect: "manual",
  });
  expect(approve.status).toBe(302);
  return new URL(approve.headers.get("location")!);
}

/** An OAuth access token of an account allowed one request per 10 s (tenant() allows many). */
export async function rateLimitedToken(): Promise<string> {
  const acct = await admin("POST", "/admin/v1/accounts", { name: "limited", rateLimit: 1 });
  const app = await admin("POST", "/admin/v1/apps", { name: "limited-app", redirectUris: [REDIRECT_URI] });
  const install = await admin("POST", `/admin/v1/accounts/${acct.portalId}/installs`, { appId: app.appId });
  return install.access_token as string;
}
