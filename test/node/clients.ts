/**
 * Helpers for the tests that run real, unmodified npm clients (issue 10) against the Worker: plain HTTP
 * set-up calls the clients have no methods for, and a poll for the asynchronous ecommerce sync.
 */
import { expect } from "vitest";
import { integratorUrl, type NodeTenant, workerUrl } from "./helpers";

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

/** Polls until `check` returns a value (the ecommerce sync is applied by the queue consumer, spec 4.2 rule 1). */
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
