/** Shared by the web app tests: signing in as an account's user and calling pages and the page API with the cookie. */
import { expect } from "vitest";
import { call, type Tenant } from "../helpers/api";

export interface Browser {
  cookie: string;
  csrf: string;
}

/** Signs in through POST /login (the tenant's user has the password tenant() gives every user). */
export async function signIn(t: Tenant): Promise<Browser> {
  const res = await call("POST", "/login", {
    raw: new URLSearchParams({ email: t.userEmail, password: "correct horse battery", next: "/app" }).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  expect(res.status, res.text).toBe(303);
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0]!;
  const home = await call("GET", "/app", { headers: { cookie } });
  expect(home.status).toBe(200);
  const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(home.text)?.[1];
  if (!csrf) throw new Error("no csrf meta on /app");
  return { cookie, csrf };
}

export const page = (b: Browser | null, path: string) => call("GET", path, { headers: b ? { cookie: b.cookie } : {} });

export function postAction(b: Browser | null, path: string, body: unknown, csrf: string | null = b?.csrf ?? null) {
  const headers: Record<string, string> = {};
  if (b) headers.cookie = b.cookie;
  if (csrf !== null) headers["x-csrf-token"] = csrf;
  return call("POST", path, { headers, body });
}

/** The directives of a Content-Security-Policy header. */
export function cspOf(header: string | null): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of (header ?? "").split(";")) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) out.set(name, values);
  }
  return out;
}
