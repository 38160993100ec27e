/**
 * @module The router: itty-router dispatches to the route table; this file adds what every request needs
 * (correlation id, credential check, schema validation) and the one error envelope (issue 2 §2).
 */
import { Router, type IRequest } from "itty-router";
import { makeDb, type Db } from "./db/client";
import { authenticate } from "./lib/auth";
import { ApiError, errorResponse, internalErrorResponse } from "./lib/errors";
import { consume, rateHeaders } from "./lib/rate-limit";
import { DEFAULT_MAX_BODY, parseJsonText, queryObject, readBody, validate } from "./lib/http";
import type { Principal } from "./lib/principal";
import type { Ctx, RouteDef } from "./lib/route";
import { allRoutes } from "./routes";

type Args = [Env, ExecutionContext];
interface Req extends IRequest {
  correlationId: string;
  /** Headers for the response, applied in `finally` so error responses carry them too: the route's
   * `responseHeaders` and, once the request has been counted, the rate-limit headers. */
  responseHeaders?: Record<string, string>;
}

function compile(path: string): RegExp {
  const pattern = path.replace(/\/:[A-Za-z_]+/g, "/[^/]+").replace(/\/\*$/, "/.*");
  return new RegExp(`^${pattern}/?$`);
}

/**
 * Authentication, the rate-limit count, validation, then the handler. The count (a Durable Object call)
 * runs while the request is validated, and alongside the handler of a GET that does not call out
 * (issue 8): a GET only reads, so starting it before the count is answered changes nothing but latency.
 * A 429 still wins over every other outcome, as if the count had come first.
 */
async function run(def: RouteDef, req: Req, env: Env, exec: ExecutionContext): Promise<Response> {
  const url = new URL(req.url);
  const db = makeDb(env.DB);
  const now = Date.now();
  const principal = await authenticate(req, url, def.auth, env, db, now);
  const counted = consume(env, principal, now).then((decision) => {
    if (decision) req.responseHeaders = { ...req.responseHeaders, ...rateHeaders(decision) };
  });
  counted.catch(() => undefined); // awaited below; this only keeps an early 429 from counting as unhandled
  let ctx: Ctx<unknown, unknown>;
  try {
    ctx = await context(def, req, env, exec, db, url, principal, now);
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

/** The validated parts of the request the handler receives. */
async function context(def: RouteDef, req: Req, env: Env, exec: ExecutionContext, db: Db, url: URL, principal: Principal, now: number) {
  const params: unknown = def.params ? validate(def.params, req.params, "path") : req.params;
  const query: unknown = def.query ? validate(def.query, queryObject(url), "query") : {};
  let body: unknown;
  if (def.body) {
    const text = await readBody(req, def.maxBodyBytes ?? DEFAULT_MAX_BODY);
    const raw = def.bodyFormat === "form" ? Object.fromEntries(new URLSearchParams(text)) : parseJsonText(text);
    body = validate(def.body, raw, "body");
  }
  const ctx: Ctx<unknown, unknown> = { request: req, env, exec, db, url, params, query, body, principal, correlationId: req.correlationId, now };
  return ctx;
}

export function buildRouter(routes: RouteDef[] = allRoutes) {
  const compiled = routes.map((r) => ({ method: r.method, re: compile(r.path) }));
  const router = Router<Req, Args>({
    before: [
      (req) => {
        req.correlationId = crypto.randomUUID();
      },
    ],
    catch: (err, req) => {
      const id = req.correlationId ?? crypto.randomUUID();
      return err instanceof ApiError ? errorResponse(err, id) : internalErrorResponse(err, id);
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
    ],
  });
  for (const def of routes) {
    router[def.method.toLowerCase() as "get"](def.path, (req: Req, env: Env, exec: ExecutionContext) => {
      req.responseHeaders = def.responseHeaders;
      return run(def, req, env, exec);
    });
  }
  router.all("*", (req: Req) => {
    const path = new URL(req.url).pathname;
    const allowed = [...new Set(compiled.filter((c) => c.re.test(path)).map((c) => c.method))];
    if (allowed.length) {
      throw new ApiError("METHOD_NOT_ALLOWED", `Method ${req.method} is not allowed on ${path}`, {
        headers: { allow: allowed.join(", ") },
      });
    }
    throw new ApiError("OBJECT_NOT_FOUND", `No route for ${req.method} ${path}`);
  });
  return router;
}
