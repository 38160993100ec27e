/** Helpers of the app webhooks tests: settings and subscriptions through the API, deliveries at the local receiver. */
import { expect } from "vitest";
import type { Recorded } from "../integrator/types";
import { call, type Tenant } from "../helpers/api";
import { integratorPath, integratorUrl, received } from "../helpers/integrator";

export const hooks = (appId: number) => `/webhooks/v3/${appId}`;

/** A developer-key call, with the key as `?hapikey=` (what the official client sends). */
export function dev(t: Tenant, method: string, path: string, body?: unknown) {
  const sep = path.includes("?") ? "&" : "?";
  return call(method, `${hooks(t.appId)}${path}${sep}hapikey=${encodeURIComponent(t.developerKey)}`, { body });
}

/** Points the app's webhooks at a fresh path of the local receiver; returns the path. */
export async function hookUp(t: Tenant, opts: { max?: number; path?: string } = {}): Promise<string> {
  const path = opts.path ?? integratorPath("hooks");
  const res = await dev(t, "PUT", "/settings", { targetUrl: `${integratorUrl()}${path}`, throttling: { maxConcurrentRequests: opts.max ?? 10 } });
  expect(res.status, res.text).toBe(200);
  return path;
}

export async function subscribe(t: Tenant, eventType: string, propertyName?: string, active = true): Promise<string> {
  const res = await dev(t, "POST", "/subscriptions", { eventType, ...(propertyName ? { propertyName } : {}), active });
  expect(res.status, res.text).toBe(201);
  return res.json.id as string;
}

export interface Delivered extends Recorded {
  events: Record<string, unknown>[];
}

/** The POSTs the receiver got on `path`, each with its parsed events. */
export async function deliveries(path: string): Promise<Delivered[]> {
  return (await received(path)).map((r) => ({ ...r, events: JSON.parse(r.body) as Record<string, unknown>[] }));
}

/** Polls the receiver until `done` holds for what `path` got (the queue delivers after its batch timeout). */
export async function waitFor(path: string, done: (d: Delivered[]) => boolean, timeoutMs = 20_000): Promise<Delivered[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const got = await deliveries(path);
    if (done(got)) return got;
    if (Date.now() > until) throw new Error(`timed out waiting for deliveries on ${path}; got ${JSON.stringify(got.map((d) => d.events))}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Every event the receiver got on `path`, in eventId order: the order of the writes (ids grow), whatever
 * the order the deliveries arrived in (the real service does not order them either).
 */
export const eventsOf = (d: Delivered[]) => d.flatMap((x) => x.events).sort((a, b) => (a.eventId as number) - (b.eventId as number));

/** Waits until `n` events arrived; then a short quiet time, so nothing more is on its way. */
export async function waitForEvents(path: string, n: number, timeoutMs?: number) {
  return eventsOf(await waitFor(path, (d) => eventsOf(d).length >= n, timeoutMs));
}

/** Asserts that nothing arrives on `path` within `ms` (the queue's batch timeout is 1 s). */
export async function expectNothing(path: string, ms = 3_000) {
  await new Promise((r) => setTimeout(r, ms));
  expect(await deliveries(path)).toEqual([]);
}
