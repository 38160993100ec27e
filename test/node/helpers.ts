/** Node-side helpers: provisioning through the operator API of the Worker started in global setup. */
import { inject } from "vitest";
import "./types";
import "../integrator/types";

export const workerUrl = () => inject("workerUrl");
export const integratorUrl = () => inject("integratorUrl");

export async function admin<T = Record<string, any>>(method: string, path: string, body?: unknown): Promise<T> { // eslint-disable-line @typescript-eslint/no-explicit-any -- provisioning answers are read loosely
  const res = await fetch(`${workerUrl()}${path}`, {
    method,
    headers: { authorization: `Bearer ${inject("adminToken")}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} -> ${res.status} ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

export interface NodeTenant {
  portalId: number;
  appId: number;
  clientId: string;
  clientSecret: string;
  developerKey: string;
  oauth: string;
  refresh: string;
  pat: string;
  userId: number;
  userEmail: string;
  userPassword: string;
}

let seq = 0;

/** A developer app of its own, in no account: what an app's settings (webhooks, extensions) need. */
export async function developerApp(): Promise<{ appId: number; developerKey: string }> {
  const app = await admin("POST", "/admin/v1/apps", { name: `app-${Date.now().toString(36)}${(seq++).toString(36)}`, redirectUris: ["http://127.0.0.1/callback"] });
  return { appId: app.appId, developerKey: app.developerKey };
}

/** A fresh account with an installed app, a private app and a user who can sign in. */
export async function tenant(opts: { addons?: string[]; redirectUris?: string[] } = {}): Promise<NodeTenant> {
  const tag = `${Date.now().toString(36)}${(seq++).toString(36)}`;
  const acct = await admin("POST", "/admin/v1/accounts", { name: `node-${tag}`, addons: opts.addons, rateLimit: 100_000 });
  const app = await admin("POST", "/admin/v1/apps", { name: `app-${tag}`, redirectUris: opts.redirectUris ?? ["http://127.0.0.1/callback"] });
  const install = await admin("POST", `/admin/v1/accounts/${acct.portalId}/installs`, { appId: app.appId });
  const pa = await admin("POST", `/admin/v1/accounts/${acct.portalId}/private-apps`, { name: "pa" });
  const userEmail = `user-${tag}@example.com`;
  const userPassword = "correct horse battery";
  const user = await admin("POST", `/admin/v1/accounts/${acct.portalId}/users`, { email: userEmail, password: userPassword });
  return {
    portalId: acct.portalId,
    appId: app.appId,
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    developerKey: app.developerKey,
    oauth: install.access_token,
    refresh: install.refresh_token,
    pat: pa.token,
    userId: user.userId,
    userEmail,
    userPassword,
  };
}

/** What a client's promise rejected with, as the client's own error type; fails the test if it resolved. */
export async function rejection<E>(p: PromiseLike<unknown>): Promise<E> {
  try {
    await p;
  } catch (e) {
    return e as E;
  }
  throw new Error("expected the client to reject");
}

/**
 * fetch, sent once more on a new connection when the server closed a kept-alive one just as it was reused:
 * wrangler's dev server may do that to an idle connection, and it is not the Worker's answer.
 */
export async function fetchAgainIfClosed(url: string | URL, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    if ((err as { cause?: { code?: string } }).cause?.code !== "UND_ERR_SOCKET") throw err;
    return fetch(url, init);
  }
}
