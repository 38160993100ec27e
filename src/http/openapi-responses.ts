/**
 * @module The error side of the OpenAPI document: the one error envelope as a component, and
 * the error statuses every operation can answer, derived from its route definition so that a route added
 * later is documented without extra work. A route documents a status of its own (409, 503, ...) in its
 * `responses`; without a schema it is answered with the envelope, like every other error.
 */
import { z } from "zod";
import type { ZodOpenApiResponseObject } from "zod-openapi";
import { CATEGORY_STATUS, type Category } from "../lib/errors";
import type { RouteDef } from "./route";

const CATEGORIES = Object.keys(CATEGORY_STATUS) as [Category, ...Category[]];

/** `src/lib/errors.ts` errorResponse: the body of every error the API answers (docs/reference/endpoints.md, "Errors"). */
export const errorEnvelope = z
  .object({
    status: z.string().meta({ description: '"error"; OAuth token errors carry the legacy status code (BAD_AUTH_CODE, ...)' }),
    message: z.string(),
    correlationId: z.string().meta({ description: "Also in the X-Service-Correlation-Id header; quote it when reporting a 500" }),
    category: z.enum(CATEGORIES),
    errors: z
      .array(
        z.object({
          message: z.string(),
          code: z.string().optional(),
          in: z.string().optional(),
          context: z.record(z.string(), z.unknown()).optional(),
        }),
      )
      .optional()
      .meta({ description: "One entry per invalid field; context.propertyName names it" }),
    context: z.record(z.string(), z.unknown()).optional(),
    // The legacy v1 contacts API adds the fields the real service sends on its errors (docs/reference/contacts-v1.md).
    validationResults: z
      .array(z.object({ isValid: z.boolean(), message: z.string(), error: z.string(), name: z.string() }))
      .optional()
      .meta({ description: "v1 contacts: one entry per invalid property (INVALID_EMAIL)" }),
    error: z.string().optional().meta({ description: "v1 contacts: CONTACT_EXISTS on a 409" }),
    identityProfile: z.record(z.string(), z.unknown()).optional().meta({ description: "v1 contacts: the existing contact of a 409 CONTACT_EXISTS" }),
    errorType: z.string().optional().meta({ description: "RATE_LIMIT on a 429" }),
    policyName: z.string().optional().meta({ description: "The limit that was reached, on a 429" }),
  })
  .meta({ id: "Error", description: "The API's one error envelope" });

/** RFC 6749 section 5.2 fields beside the envelope, as the real service answers token errors (docs/reference/endpoints.md, "Errors"). */
export const oauthErrorEnvelope = errorEnvelope
  .extend({
    error: z.enum(["invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type", "invalid_scope"]),
    error_description: z.string(),
  })
  .meta({ id: "OAuthError", description: "A token endpoint error: RFC 6749 error / error_description and the legacy status code" });

const DESCRIPTIONS: Record<number, string> = {
  400: "Invalid path, query or body (VALIDATION_ERROR, errors[] names each field)",
  401: "Missing, malformed, unknown, revoked or expired credential (INVALID_AUTHENTICATION, EXPIRED_AUTHENTICATION)",
  403: "A credential of a kind this operation does not accept, or missing scopes (FORBIDDEN, MISSING_SCOPES)",
  404: "Unknown id, or an id of another account (OBJECT_NOT_FOUND, X-Service-NotFound: true)",
  413: "Body over the operation's size limit (PAYLOAD_TOO_LARGE)",
  429: "The credential's rate limit is reached (RATE_LIMITS, Retry-After and X-Service-RateLimit-* headers)",
  500: "Unexpected failure (INTERNAL_ERROR; details only in the log, under the correlation id)",
};

/** Credentials the rate limiter counts (src/http/rate-limit.ts rateKey). */
const RATE_LIMITED = new Set(["oauth", "private_app", "session"]);

/**
 * True when a path parameter names a record (an id, a token, a user name) that may not exist or may belong to
 * another account; a parameter that is one of a closed list (`objectType`) is a 400 when wrong, never a 404.
 */
function namesRecords(r: RouteDef): boolean {
  if (!r.params) return false;
  if (!(r.params instanceof z.ZodObject)) return true;
  return Object.values(r.params.shape as Record<string, z.ZodType>).some((p) => !(p instanceof z.ZodEnum));
}

/** The error statuses a route can answer because of how the router handles it (src/router.ts). */
export function derivedErrorStatuses(r: RouteDef): number[] {
  const kinds = r.auth.kinds;
  const out = new Set<number>([500]);
  if (kinds.length > 0 && !(kinds.length === 1 && kinds[0] === "session")) {
    out.add(401);
    // Any other kind of credential is refused with 403; the operator token has no other kind to refuse.
    if (!(kinds.length === 1 && kinds[0] === "admin")) out.add(403);
  }
  if (kinds.some((k) => RATE_LIMITED.has(k))) out.add(429);
  if (r.params || r.query || r.body) out.add(400);
  if (namesRecords(r)) out.add(404);
  if (r.body) out.add(413);
  for (const code of r.neverAnswers ?? []) out.delete(code);
  return [...out];
}

/** Every response of the operation: the route's own, then the derived error statuses it does not name. */
export function operationResponses(r: RouteDef): Record<string, ZodOpenApiResponseObject> {
  const out: Record<string, ZodOpenApiResponseObject> = {};
  for (const [status, doc] of Object.entries(r.responses)) {
    const code = Number(status);
    const schema = doc.schema ?? (code >= 400 && !doc.html ? errorEnvelope : undefined);
    if (doc.html) out[status] = { description: doc.description, content: { "text/html": { schema: z.string() } } };
    else if (doc.rawBody !== undefined) out[status] = { description: doc.description, "x-raw-body": doc.rawBody };
    else if (doc.ndjson && schema) out[status] = { description: doc.description, content: { "application/x-ndjson": { schema } } };
    else out[status] = schema ? { description: doc.description, content: { "application/json": { schema } } } : { description: doc.description };
  }
  for (const code of derivedErrorStatuses(r)) {
    out[String(code)] ??= { description: DESCRIPTIONS[code]!, content: { "application/json": { schema: errorEnvelope } } };
  }
  return out;
}
