/** Test helpers: calls into the Worker through SELF, and provisioning through the operator API. */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { expect } from "vitest";
import worker from "../../src/index";

export const ADMIN = "test-admin-token";
export const BASE = "https://crm.test";

export interface CallOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent as-is (no JSON encoding). */
  raw?: string;
}

/**
 * Sends a request to the Worker's real fetch handler and waits for its waitUntil work. Calling the
 * handler directly rather than through SELF: thousands of SELF round trips in one file slow down
 * linearly in this pool (measured: 300 requests took 2.7 s, the next 300 took 44 s).
 */
export async function send(request: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

export async function call(method: string, path: string, opts: CallOptions = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await send(new Request(`${BASE}${path}`, { method, headers, body, redirect: "manual" }));
  const text = new TextDecoder().decode(await res.arrayBuffer()); // not .text(): workerd warns on every non-text body (the export is NDJSON)
  let json: unknown = undefined;
  if (text && (res.headers.get("content-type") ?? "").includes("json")) json = JSON.parse(text);
  return { status: res.status, headers: res.headers, text, json: json as any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary shapes
}

export async function admin(method: string, path: string, body?: unknown) {
  const res = await call(method, path, { token: ADMIN, body });
  if (res.status >= 300) throw new Error(`${method} ${path} -> ${res.status} ${res.text}`);
  return res.json;
}

export interface Tenant {
  portalId: number;
  appId: number;
  clientId: string;
  clientSecret: string;
  developerKey: string;
  /** OAuth access token of the app installed in the account, all scopes. */
  oauth: string;
  refresh: string;
  /** Private app token, all scopes. */
  pat: string;
  privateAppId: number;
  userId: number;
  userEmail: string;
  /** The shard the account was placed on. */
  shard: string;
}

let seq = 0;
export const unique = (prefix = "t") => `${prefix}${Date.now().toString(36)}${(seq++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** A fresh account with an installed app, a private app and a user: tests never share rows. */
export async function tenant(opts: { addons?: string[]; scopes?: string[]; rateLimit?: number; shard?: string; accountType?: string } = {}): Promise<Tenant> {
  const acct = await admin("POST", "/admin/v1/accounts", { name: unique("acct"), addons: opts.addons, rateLimit: opts.rateLimit, shard: opts.shard, accountType: opts.accountType });
  const app = await admin("POST", "/admin/v1/apps", { name: unique("app"), redirectUris: ["https://app.example.com/callback"] });
  const install = await admin("POST", `/admin/v1/accounts/${acct.portalId}/installs`, { appId: app.appId, scopes: opts.scopes });
  const pa = await admin("POST", `/admin/v1/accounts/${acct.portalId}/private-apps`, { name: "pa", scopes: opts.scopes });
  const userEmail = `${unique("u")}@example.com`;
  const user = await admin("POST", `/admin/v1/accounts/${acct.portalId}/users`, { email: userEmail, password: "correct horse battery" });
  return {
    portalId: acct.portalId,
    appId: app.appId,
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    developerKey: app.developerKey,
    oauth: install.access_token,
    refresh: install.refresh_token,
    pat: pa.token,
    privateAppId: pa.privateAppId,
    userId: user.userId,
    userEmail,
    shard: acct.shard,
  };
}

/** Asserts the one error envelope (JSON `status: "error"`, `message`, `correlationId`, `category`) and returns the body. */
export function expectError(res: Awaited<ReturnType<typeof call>>, status: number, category: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/json;charset=utf-8");
  expect(res.json).toMatchObject({ status: "error", category });
  expect(typeof res.json.message).toBe("string");
  expect(res.json.correlationId).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.headers.get("x-service-correlation-id")).toBe(res.json.correlationId);
  if (status === 404) expect(res.headers.get("x-service-notfound")).toBe("true");
  return res.json;
}
