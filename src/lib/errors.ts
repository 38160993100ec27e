/**
 * @module The API's one error format, the real service's standard error body: `status`, `message`,
 * `correlationId`, `category`, optional `errors` and `context` (docs/reference/endpoints.md, "Errors").
 * Every error leaves the Worker through `errorResponse`; expected failures are thrown as `ApiError`,
 * anything else becomes a generic 500 whose details stay in the log.
 */
import { DrizzleQueryError } from "drizzle-orm";

/** Closed list of error categories and the HTTP status each one maps to. */
export const CATEGORY_STATUS = {
  VALIDATION_ERROR: 400,
  INVALID_AUTHENTICATION: 401,
  EXPIRED_AUTHENTICATION: 401,
  FORBIDDEN: 403,
  MISSING_SCOPES: 403,
  OBJECT_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  API_LIMIT: 400,
  RATE_LIMITS: 429,
  INTERNAL_ERROR: 500,
  /** A shard that cannot serve now (outage, or the account is being moved): retry after `Retry-After`. */
  SERVICE_UNAVAILABLE: 503,
} as const;

export type Category = keyof typeof CATEGORY_STATUS;

export interface ErrorDetail {
  message: string;
  code?: string;
  in?: string;
  context?: Record<string, unknown>;
}

export interface ApiErrorInit {
  errors?: ErrorDetail[];
  context?: Record<string, unknown>;
  /** Extra top-level fields some legacy bodies carry (e.g. `policyName` on 429). */
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Overrides the category's default status (e.g. API_LIMIT answered as 400). */
  status?: number;
}

export class ApiError extends Error {
  readonly category: Category;
  readonly status: number;
  readonly init: ApiErrorInit;

  constructor(category: Category, message: string, init: ApiErrorInit = {}) {
    super(message);
    this.category = category;
    this.status = init.status ?? CATEGORY_STATUS[category];
    this.init = init;
  }
}

export const badRequest = (message: string, init?: ApiErrorInit) => new ApiError("VALIDATION_ERROR", message, init);
export const notFound = (message = "resource not found") => new ApiError("OBJECT_NOT_FOUND", message);
export const conflict = (message: string, init?: ApiErrorInit) => new ApiError("CONFLICT", message, init);
export const forbidden = (message: string) => new ApiError("FORBIDDEN", message);

/** The challenge of a 401 (RFC 6750, section 3): bare when no credential came, `invalid_token` when one was refused. */
export function bearerChallenge(refused?: string): string {
  if (refused === undefined) return 'Bearer realm="crm-edge"';
  // error_description allows %x20-21 / %x23-5B / %x5D-7E only: no quote, no backslash, no control character.
  const description = refused.replace(/[^\x20-\x7e]|["\\]/g, "'");
  return `Bearer realm="crm-edge", error="invalid_token", error_description="${description}"`;
}

/** A 401 for a credential that was presented and refused (unknown, revoked, expired, malformed). */
export function refusedToken(category: "INVALID_AUTHENTICATION" | "EXPIRED_AUTHENTICATION", message: string, init: ApiErrorInit = {}): ApiError {
  return new ApiError(category, message, { ...init, headers: { ...init.headers, "www-authenticate": bearerChallenge(message) } });
}

export const JSON_TYPE = "application/json;charset=utf-8";

/**
 * Builds the error response. A 405 carries an `Allow` header, a 404 `X-Service-NotFound: true`, and every
 * 401 a `WWW-Authenticate` challenge (RFC 9110, section 15.5.2; RFC 6750, section 3): Bearer unless the
 * error names its own (the token endpoint's Basic, RFC 6749, section 5.2).
 */
export function errorResponse(err: ApiError, correlationId: string): Response {
  const body: Record<string, unknown> = {
    status: "error",
    message: err.message,
    correlationId,
    category: err.category,
  };
  if (err.init.errors) body.errors = err.init.errors;
  if (err.init.context) body.context = err.init.context;
  if (err.init.extra) Object.assign(body, err.init.extra);
  const headers = new Headers({ "content-type": JSON_TYPE, "x-service-correlation-id": correlationId });
  if (err.status === 404) headers.set("x-service-notfound", "true");
  if (err.status === 401) headers.set("www-authenticate", bearerChallenge());
  for (const [k, v] of Object.entries(err.init.headers ?? {})) headers.set(k, v);
  return new Response(JSON.stringify(body), { status: err.status, headers });
}

/**
 * What the log says about an unexpected error. A failed statement (drizzle's DrizzleQueryError) carries its
 * bound values in its message and stack, and secrets can be among them (an app's client secret when it is
 * inserted): the log gets the statement and the driver's error, never the values.
 */
export function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const frames = (cause.stack ?? "").split("\n").filter((l) => /^\s+at /.test(l)).join("\n");
  if (cause instanceof DrizzleQueryError) {
    const inner = cause.cause instanceof Error ? `${cause.cause.name}: ${cause.cause.message}` : String(cause.cause ?? "");
    return `${cause.name}: Failed query: ${cause.query} (${cause.params.length} bound values not logged)\ncause: ${inner}\n${frames}`;
  }
  return `${cause.name}: ${cause.message}\n${frames}`;
}

/** The generic 500: the cause is logged with the correlation id, never sent. */
export function internalErrorResponse(cause: unknown, correlationId: string): Response {
  console.error(`[${correlationId}] unhandled error: ${describeCause(cause)}`);
  return errorResponse(
    new ApiError("INTERNAL_ERROR", "An internal error occurred. Quote the correlationId when reporting it."),
    correlationId,
  );
}
