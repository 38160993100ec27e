/**
 * @module The router: itty-router dispatches to the route table; this file adds what every request needs
 * (correlation id, credential check, schema validation) and the one error envelope (docs/reference/endpoints.md
 * "Errors"), and the HTTP semantics every route gets from the table: HEAD on every GET route, OPTIONS with
 * `Allow` on every path.
 */
import { Router, type IRequest } from "itty-router";
import type { Db, StatementMeter } from "./db/client";
import { controlDb, shardDb, shardUnavailable } from "./db/shards";
import { authenticate } from "./http/auth";
import { forgetDirectory, isFenceError } from "./db/directory";
import { isUniqueAbort } from "./services/crm/unique";
import { ApiError, badRequest, errorResponse, internalErrorResponse } from "./lib/errors";
import { consume, rateHeaders } from "./http/rate-limit";
import { DEFAULT_MAX_BODY, parseJsonText, queryObject, readBody, validate } from "./lib/http";
import { caller, logLine, type RateLog } from "./lib/observability";
import type { Principal } from "./lib/principal";
import { bodyOptional, type Ctx, type RouteDef } from "./http/route";
import { allRoutes } from "./routes";
import { openapiRoutes } from "./routes/docs/openapi";
import { shardOfPrincipal, usageRecorder } from "./services/accounts/metering";
import { applyFault } from "./services/testkit/faults";
import { accountNow } from "./services/testkit/clock";
import { DEFAULT_RATE_LIMIT } from "./durable-objects/rate-limiter";
import { resolveTypeParams } from "./services/crm/object-types";

type Args = [Env, ExecutionContext];
interface Req extends IRequest {
  correlationId: string;
  /** Headers for the response, applied in `finally` so error responses carry them too: the route's
   * `responseHeaders` and, once the request has been counted, the rate-limit headers. */
  responseHeaders?: Record<string, string>;
  /** What the request's log line and usage data point report (docs/reference/operations.md). */
  startedAt: number;
  meter: StatementMeter;
  template?: string;
  principal?: Principal;
  rate?: RateLog;
}

function compile(path: string): RegExp {
  const pattern = path.replace(/\/:[A-Za-z_]+/g, "/[^/]+").replace(/\/\*$/, "/.*");
  return new RegExp(`^${pattern}/?$`);
}

/**
 * Authentication, the rate-limit count, validation, then the handler. The count (a Durable Object call)
 * runs while the request is validated, and alongside the handler of a GET that does not call out, which
 * saves its latency: a GET only reads, so starting it before the count is answered changes nothing else.
 * A 429 still wins over every other outcome, as if the count had come first.
 */
async function run(def: RouteDef, req: Req, env: Env, exec: ExecutionContext): Promise<Response> {
  const url = new URL(req.url);
  const control = controlDb(env, req.meter);
  const now = Date.now();
  const principal = await authenticate(req, url, def.auth, env, control, now);
  req.principal = principal;
  // A test account's fault rules act before anything else of the call (docs/reference/testkit.md).
  if ((principal.kind === "oauth" || principal.kind === "private_app") && principal.testAccount) {
    const credential = principal.kind === "oauth" ? "oauth" : "private-app";
    await applyFault(control, { portalId: principal.portalId, method: def.method, path: url.pathname, credential }, principal.rateLimit ?? DEFAULT_RATE_LIMIT, now);
  }
  const counted = consume(env, principal, now).then(
    (decision) => {
      req.rate = decision ? { decision: "allowed", remaining: decision.remaining, max: decision.max } : { decision: "not_limited" };
      if (decision) req.responseHeaders = { ...req.responseHeaders, ...rateHeaders(decision) };
    },
    (err: unknown) => {
      if (err instanceof ApiError && err.category === "RATE_LIMITS") req.rate = { decision: "limited" };
      throw err;
    },
  );
  counted.catch(() => undefined); // awaited below; this only keeps an early 429 from counting as unhandled
  let ctx: Ctx<unknown, unknown>;
  try {
    // Handlers get the account's time (a test account's clock, src/services/testkit/clock.ts); the credential
    // check, fault rules and rate limit above keep real time.
    ctx = await context(def, req, env, exec, control, url, principal, accountNow(principal, now));
  } catch (err) {
    await counted;
    throw err;
  }
  if (def.method !== "GET" || def.callsOut) {
    await counted;
    return def.handler(ctx as Parameters<RouteDef["handler"]>[0]);
  }
  // Wrapped so that a handler throwing synchronously still loses to a 429.
  const handled = Promise.resolve().then(() => def.handler(ctx as Parameters<RouteDef["handler"]>[0]));
  const [count, answer] = await Promise.allSettled([counted, handled]);
  if (count.status === "rejected") throw count.reason;
  if (answer.status === "rejected") throw answer.reason;
  return answer.value;
}

/**
 * The shard (D1 database) holding the caller's account: an account principal carries it, so this reads nothing.
 * Operator, developer and public routes get the control plane and resolve an account's shard themselves.
 */
function dbFor(env: Env, principal: Principal, control: Db, meter?: StatementMeter): Db {
  if (principal.kind === "oauth" || principal.kind === "private_app" || principal.kind === "session") return shardDb(env, principal.shard, meter);
  return control;
}

/** The validated parts of the request the handler receives. */
async function context(def: RouteDef, req: Req, env: Env, exec: ExecutionContext, control: Db, url: URL, principal: Principal, now: number) {
  const db = dbFor(env, principal, control, req.meter);
  // A CRM path may name a custom object type by any of its names: turned into its stored key first.
  const rawParams = def.customTypes && "portalId" in principal ? await resolveTypeParams(db, principal.portalId, req.params) : req.params;
  const params: unknown = def.params ? validate(def.params, rawParams, "path") : rawParams;
  const query: unknown = def.query ? validate(def.query, queryObject(url), "query") : {};
  let body: unknown;
  if (def.body) {
    const text = await readBody(req, def.maxBodyBytes ?? DEFAULT_MAX_BODY);
    // A JSON body whose every field is optional or has a default may be left out, as an empty object.
    const raw = def.bodyFormat === "form" ? Object.fromEntries(new URLSearchParams(text)) : text.trim() === "" && bodyOptional(def) ? {} : parseJsonText(text);
    body = validate(def.body, raw, "body");
  }
  const openShard = (shard: string | null) => shardDb(env, shard, req.meter);
  const companionShard = "companion" in principal ? principal.companion : undefined;
  let companion: Db | undefined;
  const ctx: Ctx<unknown, unknown> = {
    request: req,
    env,
    exec,
    db,
    get companion() {
      return (companion ??= companionShard ? shardDb(env, companionShard, req.meter) : db);
    },
    control,
    openShard,
    url,
    params,
    query,
    body,
    principal,
    correlationId: req.correlationId,
    now,
  };
  return ctx;
}

/**
 * The request's log line and usage data point (docs/reference/operations.md), once its response is known.
 * Requests that no route matched (404, 405) are logged without a route and not counted as usage.
 */
function report(req: Req, status: number, env: Env) {
  const who = caller(req.principal);
  const durationMs = Date.now() - req.startedAt;
  const statements = req.meter.statements;
  logLine({
    type: "request",
    correlationId: req.correlationId,
    ...who,
    route: req.template ?? null,
    method: req.method,
    status,
    durationMs,
    d1Statements: statements,
    rateLimit: req.rate ?? { decision: "not_counted" },
  });
  if (req.template) {
    usageRecorder(env).request({ portalId: who.portalId, route: req.template, method: req.method, credential: who.credential, status, durationMs, statements, shard: shardOfPrincipal(req.principal) });
  }
}

/** What `Allow` lists for a path (RFC 9110, section 10.2.1): its methods, HEAD wherever GET is, and OPTIONS. */
function allowFor(methods: string[]): string {
  const all = new Set(methods);
  if (all.has("GET")) all.add("HEAD");
  all.add("OPTIONS");
  const order = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
  return order.filter((m) => all.has(m)).join(", ");
}

/** What the Worker serves: the route table and the document built over it. */
export const servedRoutes: RouteDef[] = [...allRoutes, ...openapiRoutes];

export function buildRouter(routes: RouteDef[] = servedRoutes) {
  const compiled = routes.map((r) => ({ method: r.method, re: compile(r.path) }));
  const router = dispatcher(routes, compiled);
  return {
    /**
     * A HEAD is answered as its GET would be, body left out (RFC 9110, section 9.3.2): the handler runs (the
     * status and headers depend on it, and it is counted like the GET), the body is dropped here.
     */
    async fetch(request: Request, env: Env, exec: ExecutionContext): Promise<Response> {
      const res = await router.fetch(request, env, exec);
      if (request.method !== "HEAD" || res.body === null) return res;
      await res.body.cancel();
      return new Response(null, { status: res.status, statusText: res.statusText, headers: res.headers });
    },
  };
}

/** A path's first segment: `crm` of `/crm/v3/objects/contacts`, "" of `/`. */
const firstSegment = (path: string) => {
  const end = path.indexOf("/", 1);
  return end === -1 ? path.slice(1) : path.slice(1, end);
};

/** The first segment of an absolute URL's path, read from the string (the request's URL is parsed once, by itty). */
function segmentOfUrl(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "";
  let end = start + 1;
  while (end < url.length && url[end] !== "/" && url[end] !== "?" && url[end] !== "#") end++;
  return url.slice(start + 1, end);
}

/**
 * The routes split by their path's first segment, one itty router each, so a request is matched only against
 * the routes that can match it: itty tries its routes in order, one regular expression each, and the route
 * table holds hundreds (a web page, near its end, tried about 340 before its own). Every route's first segment
 * is literal (a route whose first segment is a parameter stops the Worker here, at start), so no route is
 * left out of the group its requests go to, and each group keeps the table's order. A path whose first
 * segment no route has goes to a router with only the fallback (405 or 404).
 */
function dispatcher(routes: RouteDef[], compiled: { method: string; re: RegExp }[]) {
  const groups = new Map<string, RouteDef[]>();
  for (const def of routes) {
    const segment = firstSegment(def.path);
    if (segment.includes(":") || segment.includes("*")) throw new Error(`route ${def.method} ${def.path}: its first path segment must be literal`);
    const group = groups.get(segment);
    if (group) group.push(def);
    else groups.set(segment, [def]);
  }
  const routers = new Map([...groups].map(([segment, defs]) => [segment, segmentRouter(defs, compiled)]));
  const fallback = segmentRouter([], compiled);
  return {
    fetch: (request: Request, env: Env, exec: ExecutionContext) => (routers.get(segmentOfUrl(request.url)) ?? fallback).fetch(request, env, exec),
  };
}

function segmentRouter(routes: RouteDef[], compiled: { method: string; re: RegExp }[]) {
  const router = Router<Req, Args>({
    before: [
      (req) => {
        req.correlationId = crypto.randomUUID();
        req.startedAt = Date.now();
        req.meter = { statements: 0 };
      },
    ],
    catch: (err, req) => {
      const id = req.correlationId ?? crypto.randomUUID();
      if (err instanceof ApiError) return errorResponse(err, id);
      // A concurrent write took a unique property's value after the service's check (the triggers of
      // migrations/0030_unique_properties.sql): the same 400 as the check's, without the holder's id.
      if (isUniqueAbort(err)) return errorResponse(badRequest("A unique property's value is held by another record (written concurrently); nothing was written"), id);
      if (isFenceError(err)) {
        // A fence refused the write: the account is moving between shards, or this isolate's cached entry
        // for it is stale. Forget the cache, so the client's retry resolves the account's shard afresh.
        forgetDirectory();
        return errorResponse(shardUnavailable("The account is being moved between databases; retry shortly."), id);
      }
      return internalErrorResponse(err, id);
    },
    finally: [
      (res: Response, req) => {
        const extra: Record<string, string> = { ...req.responseHeaders };
        if (!res.headers.has("x-service-correlation-id")) extra["x-service-correlation-id"] = req.correlationId;
        if (Object.keys(extra).length === 0) return res;
        // Headers are added in place (no copy of every response); only immutable headers
        // (Response.redirect) need the copy.
        let out = res;
        try {
          for (const [k, v] of Object.entries(extra)) if (!out.headers.has(k)) out.headers.set(k, v);
        } catch {
          out = new Response(res.body, res);
          for (const [k, v] of Object.entries(extra)) if (!out.headers.has(k)) out.headers.set(k, v);
        }
        return out;
      },
      (res: Response, req, env) => {
        report(req, res.status, env);
      },
    ],
  });
  for (const def of routes) {
    const handle = (req: Req, env: Env, exec: ExecutionContext) => {
      req.responseHeaders = def.responseHeaders;
      req.template = def.path;
      return run(def, req, env, exec);
    };
    router[def.method.toLowerCase() as "get"](def.path, handle);
    if (def.method === "GET") router.head(def.path, handle);
  }
  router.all("*", (req: Req) => {
    const path = new URL(req.url).pathname;
    const allowed = compiled.filter((c) => c.re.test(path)).map((c) => c.method);
    if (allowed.length && req.method === "OPTIONS") {
      return new Response(null, { status: 204, headers: { allow: allowFor(allowed) } });
    }
    if (allowed.length) {
      throw new ApiError("METHOD_NOT_ALLOWED", `Method ${req.method} is not allowed on ${path}`, {
        headers: { allow: allowFor(allowed) },
      });
    }
    throw new ApiError("OBJECT_NOT_FOUND", `No route for ${req.method} ${path}`);
  });
  return router;
}
