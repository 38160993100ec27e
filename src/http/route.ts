/**
 * @module Route definitions. A route is one object: method, path, credential rule, zod schemas and a
 * handler. The same objects drive dispatch, the 405 answer and the OpenAPI document, so they cannot drift.
 */
import type { z } from "zod";
import type { Db } from "../db/client";
import type { AuthRule } from "./auth";
import type { Principal } from "../lib/principal";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface Ctx<P = Record<string, string>, Q = Record<string, unknown>, B = unknown> {
  request: Request;
  env: Env;
  exec: ExecutionContext;
  /**
   * The database of the caller's account: its shard for account credentials and sessions; the control
   * plane for operator, developer-key and public routes (docs/explanation/scaling.md).
   */
  db: Db;
  /**
   * The database of the account's companion tables (timeline events): its companion shard when an operator
   * placed them apart, else the same database as `db` (docs/explanation/scaling.md "Accounts larger than one
   * database"). Opened on first use, so a companion shard that is down fails only the requests that read it.
   */
  readonly companion: Db;
  /** The control plane (`DB`): accounts directory, apps, installs, credentials and app-level settings. */
  control: Db;
  /** Another account's shard by name (operator routes), counted in the request's log line. */
  openShard: (shard: string | null) => Db;
  url: URL;
  params: P;
  query: Q;
  body: B;
  principal: Principal;
  correlationId: string;
  /**
   * Now, in epoch ms, as the caller's account sees it: real time, or a test account's clock
   * (src/services/testkit/clock.ts). Everything a handler writes or checks by the account's time reads this.
   */
  now: number;
}

export interface ResponseDoc {
  description: string;
  /** The JSON body; an error status without one is documented with the error envelope (src/http/openapi-responses.ts). */
  schema?: z.ZodType;
  /** A page instead of JSON (sign-in, consent). */
  html?: boolean;
  /**
   * A body that is not JSON although it is labelled JSON, sent exactly as recorded from the real service
   * (the v1 contact merge's `SUCCESS`). Documented as `x-raw-body`, which the contract test checks verbatim.
   */
  rawBody?: string;
  /**
   * A stream of JSON lines (`application/x-ndjson`) instead of one JSON body: `schema` then describes one
   * line (the account export).
   */
  ndjson?: boolean;
}

export interface RouteDef<
  PS extends z.ZodType = z.ZodType,
  QS extends z.ZodType = z.ZodType,
  BS extends z.ZodType = z.ZodType,
> {
  method: Method;
  /** itty-router pattern, e.g. `/crm/v3/objects/:objectType/:objectId`. */
  path: string;
  summary: string;
  tag: string;
  auth: AuthRule;
  params?: PS;
  query?: QS;
  body?: BS;
  /** `form` reads application/x-www-form-urlencoded (OAuth token endpoint, HTML forms). */
  bodyFormat?: "json" | "form";
  maxBodyBytes?: number;
  responses: Record<number, ResponseDoc>;
  /**
   * Error statuses the document would derive for the route (src/http/openapi-responses.ts) that it never
   * answers: createOrUpdate creates an unknown email instead of a 404; the v1 merge answers an unknown
   * vid with a 400, as the real service does.
   */
  neverAnswers?: number[];
  /** Left out of the OpenAPI document (the web app's pages, public blog pages). */
  hidden?: boolean;
  /** Headers set on every response of the route, errors included (e.g. the retired ecommerce bridge's Sunset). */
  responseHeaders?: Record<string, string>;
  /**
   * The handler calls out to integrators (the card view's fetch fan-out). A GET normally runs alongside
   * its rate-limit count; one that calls out waits for the count, so a limited caller never
   * reaches the integrator.
   */
  callsOut?: boolean;
  /**
   * Its path's `objectType`, `toObjectType` and `fromObjectType` may name the account's custom object
   * types (src/services/crm/object-types.ts): the router turns them into their stored keys first.
   */
  customTypes?: boolean;
  handler: (ctx: Ctx<z.output<PS>, z.output<QS>, z.output<BS>>) => Promise<Response> | Response;
}

/** Identity function that infers the handler's parameter types from the schemas. */
export function route<PS extends z.ZodType, QS extends z.ZodType, BS extends z.ZodType>(
  def: RouteDef<PS, QS, BS>,
): RouteDef {
  return def as unknown as RouteDef;
}

/** Whether a route's JSON body may be left out (read as `{}`): an empty object passes its schema. */
export const bodyOptional = (def: RouteDef) => def.body !== undefined && def.bodyFormat !== "form" && def.body.safeParse({}).success;
