/** @module What the bench Worker's probes share: requests to the app as a caller sent them, and a rate limiter that always allows. */
import type app from "../../src/index";
import type { RateDecision } from "../../src/durable-objects/rate-limiter";

/** What a probe is asked to send: a route, its method and JSON body. */
export interface RouteSpec {
  method?: string;
  path: string;
  body?: unknown;
}

/** A maker of fresh requests for `spec`, with the probe request's Authorization (and Cookie, for the web app's pages). */
export function requestMaker(req: Request, spec: RouteSpec): () => Parameters<typeof app.fetch>[0] {
  const target = new URL(spec.path, req.url);
  const headers = new Headers({ authorization: req.headers.get("authorization") ?? "" });
  const cookie = req.headers.get("cookie");
  if (cookie) headers.set("cookie", cookie);
  const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
  if (body) headers.set("content-type", "application/json");
  return () => new Request(target, { method: spec.method ?? "GET", headers, body }) as Parameters<typeof app.fetch>[0];
}

/** A rate limiter namespace that always allows, answering in the isolate (no Durable Object call). */
export const instantLimiter = {
  idFromName: () => ({}),
  get: () => ({
    take: (max: number, intervalMs: number, now: number): RateDecision => ({ allowed: true, max, remaining: max - 1, intervalMs, retryAfterMs: 0, granted: 1, spendBy: now, countedUntil: now + intervalMs }),
  }),
} as unknown as Env["RATE_LIMITER"];
