/**
 * @module OAuth 2.0 endpoints: authorize, token, and the token-info and revoke endpoints, with the paths and
 * fields of the real service's v1 OAuth API (docs/tutorials/oauth.md).
 */
import { z } from "zod";
import { ApiError, notFound } from "../../lib/errors";
import { escapeHtml, page, PAGE_CSP } from "../../lib/html";
import { html, json, noContent } from "../../lib/http";
import { route } from "../../http/route";
import { SCOPES } from "../../lib/scopes";
import { checkCsrf, readSession } from "../../http/session";
import * as oauth from "../../services/oauth/grants";
import { oauthErrorEnvelope } from "../../http/openapi-responses";
import { accessTokenInfo, refreshTokenInfo, tokenResponse } from "../../schemas/oauth";

const tag = "OAuth";

const authorizeQuery = z.object({
  client_id: z.string().min(1).max(100),
  redirect_uri: z.string().min(1).max(2000),
  // Clients send %20 or + between scopes; URLSearchParams decodes both to a space.
  scope: z.string().max(2000).default(""),
  optional_scope: z.string().max(2000).default(""),
  state: z.string().max(2000).optional(),
  code_challenge: z.string().regex(/^[A-Za-z0-9_-]{43}$/, "code_challenge must be a base64url SHA-256 (43 characters)").optional(),
  code_challenge_method: z.string().optional(),
});

const decisionBody = authorizeQuery.extend({ csrf: z.string(), decision: z.enum(["approve", "deny"]) });

/** A token-request field: a string of at most 4 KiB, or absent (anything else reads as absent). */
const field = () => z.string().max(4096).optional().catch(undefined);

const splitScopes = (s: string) => s.split(/[\s+]+/).filter(Boolean);

type AuthorizeInput = z.infer<typeof authorizeQuery>;

/**
 * The client of a token request (RFC 6749, section 2.3.1): HTTP Basic, whose two parts are form-urlencoded
 * before base64 (simple-oauth2's default), or `client_id` / `client_secret` in the body (the real service's
 * documented way). Using both is refused (RFC 6749, section 2.3: one method per request); a `client_id` in the
 * body beside Basic is no second method when it names the same client.
 */
function clientOf(request: Request, body: { client_id?: string; client_secret?: string }): oauth.ClientAuth {
  const header = request.headers.get("authorization");
  const m = header ? /^Basic\s+(\S*)\s*$/i.exec(header) : null;
  if (!m) return { clientId: body.client_id ?? "", clientSecret: body.client_secret ?? "", via: "body" };
  if (body.client_secret !== undefined) {
    throw oauth.oauthError("BAD_CLIENT_ID", "invalid_request", "use one client authentication method: HTTP Basic or client_id/client_secret in the body, not both");
  }
  let decoded: string;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(Uint8Array.from(atob(m[1]!), (c) => c.charCodeAt(0)));
  } catch {
    throw oauth.clientError("basic", "BAD_CLIENT_ID", "the Authorization header is not valid Basic credentials");
  }
  const colon = decoded.indexOf(":");
  if (colon < 0) throw oauth.clientError("basic", "BAD_CLIENT_ID", "the Authorization header is not valid Basic credentials");
  let clientId: string;
  let clientSecret: string;
  try {
    const plus = (s: string) => decodeURIComponent(s.replace(/\+/g, " "));
    clientId = plus(decoded.slice(0, colon));
    clientSecret = plus(decoded.slice(colon + 1));
  } catch {
    throw oauth.clientError("basic", "BAD_CLIENT_ID", "the Authorization header is not valid Basic credentials");
  }
  if (body.client_id !== undefined && body.client_id !== clientId) {
    throw oauth.oauthError("BAD_CLIENT_ID", "invalid_request", "client_id in the body names another client than the Authorization header");
  }
  return { clientId, clientSecret, via: "basic" };
}

/**
 * Checks client and redirect URI before anything else: an unknown client or an unregistered redirect URI
 * is answered here and never redirected to (RFC 9700, section 2.1: exact string matching, no open redirector).
 */
async function checkAuthorize(db: Parameters<typeof oauth.appByClientId>[0], q: AuthorizeInput) {
  const app = await oauth.appByClientId(db, q.client_id);
  if (!app) throw new ApiError("VALIDATION_ERROR", "Unknown client_id");
  if (!app.redirectUris.includes(q.redirect_uri)) throw new ApiError("VALIDATION_ERROR", "redirect_uri is not registered for this app");
  const back = (params: Record<string, string>) => {
    const u = new URL(q.redirect_uri);
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    if (q.state !== undefined) u.searchParams.set("state", q.state);
    return Response.redirect(u.toString(), 302);
  };
  const required = splitScopes(q.scope);
  const unknown = [...required, ...splitScopes(q.optional_scope)].filter((s) => !(SCOPES as readonly string[]).includes(s) || !app.scopes.includes(s));
  if (required.length === 0 || unknown.length) {
    return { app, error: back({ error: "invalid_scope", error_description: unknown.length ? `Scopes not available: ${unknown.join(" ")}` : "scope is required" }) };
  }
  if (q.code_challenge && (q.code_challenge_method ?? "S256") !== "S256") {
    return { app, error: back({ error: "invalid_request", error_description: "only code_challenge_method=S256 is supported" }) };
  }
  const optional = splitScopes(q.optional_scope);
  return { app, error: null, scopes: [...new Set([...required, ...optional])], back };
}

export const oauthRoutes = [
  route({
    method: "GET",
    path: "/oauth/authorize",
    summary: "Authorization page: the signed-in user consents to install the app",
    tag,
    auth: { kinds: [] },
    query: authorizeQuery,
    responses: {
      200: { description: "Consent page", html: true },
      302: { description: "To sign-in first, or back to the app's redirect_uri with an error" },
      400: { description: "Unknown client_id or unregistered redirect_uri (never redirected to)" },
      403: { description: "The signed-in user's account is suspended (FORBIDDEN)" },
    },
    handler: async ({ control: db, request, url, query, now }) => {
      const checked = await checkAuthorize(db, query);
      if (checked.error) return checked.error;
      const session = await readSession(db, request, now);
      if (!session) return Response.redirect(new URL(`/login?next=${encodeURIComponent(url.pathname + url.search)}`, url).toString(), 302);
      const hidden = Object.entries(query)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
        .join("");
      const body = `<h1>Install ${escapeHtml(checked.app.name)}?</h1>
<p>Signed in as ${escapeHtml(session.email)} (account ${session.portalId}).</p>
<p>The app asks for: ${checked.scopes!.map((s) => `<code>${escapeHtml(s)}</code>`).join(" ")}</p>
<form method="post" action="/oauth/authorize">${hidden}<input type="hidden" name="csrf" value="${escapeHtml(session.csrfToken)}">
<button class="primary" name="decision" value="approve">Connect app</button> <button name="decision" value="deny">Cancel</button></form>`;
      return html(page("Authorize app", body), 200, { "content-security-policy": PAGE_CSP });
    },
  }),
  route({
    method: "POST",
    path: "/oauth/authorize",
    summary: "Consent decision",
    tag,
    auth: { kinds: [] },
    body: decisionBody,
    bodyFormat: "form",
    responses: {
      302: { description: "Redirect to the app with a code or an error" },
      401: { description: "Not signed in" },
      403: { description: "CSRF token missing or wrong" },
    },
    handler: async ({ control: db, request, body, now }) => {
      const session = await readSession(db, request, now);
      if (!session) throw new ApiError("INVALID_AUTHENTICATION", "Sign in first.");
      checkCsrf(session, body.csrf);
      const checked = await checkAuthorize(db, body);
      if (checked.error) return checked.error;
      if (body.decision === "deny") return checked.back!({ error: "access_denied", error_description: "The user denied the request" });
      const code = await oauth.issueCode(db, {
        appId: checked.app.appId,
        portalId: session.portalId,
        userId: session.userId,
        redirectUri: body.redirect_uri,
        scopes: checked.scopes!,
        codeChallenge: body.code_challenge,
        now,
      });
      return checked.back!({ code });
    },
  }),
  route({
    method: "POST",
    path: "/oauth/v1/token",
    summary: "Exchange an authorization code or a refresh token for tokens",
    tag,
    auth: { kinds: [] },
    bodyFormat: "form",
    // Every field is read leniently (a missing, repeated or overlong one becomes absent) and judged by the
    // handler, so a malformed request still gets the OAuth error fields clients branch on (RFC 6749
    // `error` / `error_description`, and the legacy `status` older clients read) instead of the generic
    // validation envelope. An overlong code or token simply matches nothing.
    body: z.object({
      grant_type: field(),
      code: field(),
      redirect_uri: field(),
      refresh_token: field(),
      client_id: field(),
      client_secret: field(),
      code_verifier: field(),
    }),
    responses: {
      200: { description: "Tokens", schema: tokenResponse },
      400: { description: "OAuth error with error/error_description and status/message", schema: oauthErrorEnvelope },
      401: { description: "invalid_client for a client that authenticated with HTTP Basic (WWW-Authenticate: Basic)", schema: oauthErrorEnvelope },
      403: { description: "The account of the grant is suspended (FORBIDDEN)" },
    },
    handler: async ({ control: db, body, request, now }) => {
      const client = clientOf(request, body);
      if (body.grant_type === "authorization_code") {
        if (!body.code || !body.redirect_uri) throw oauth.oauthError("BAD_AUTH_CODE", "invalid_request", "code and redirect_uri are required");
        // RFC 7636, section 4.1: a verifier is 43 to 128 characters.
        if (body.code_verifier !== undefined && (body.code_verifier.length < 43 || body.code_verifier.length > 128)) {
          throw oauth.oauthError("BAD_AUTH_CODE", "invalid_request", "code_verifier must be 43 to 128 characters");
        }
        const tokens = await oauth.exchangeCode(db, {
          code: body.code,
          redirectUri: body.redirect_uri,
          client,
          codeVerifier: body.code_verifier,
          now,
        });
        return json({ ...tokens, token_use: "access_token" }, 200, { "cache-control": "no-store" });
      }
      if (body.grant_type === "refresh_token") {
        if (!body.refresh_token) throw oauth.oauthError("BAD_REFRESH_TOKEN", "invalid_request", "missing or invalid refresh token");
        const tokens = await oauth.refresh(db, { refreshToken: body.refresh_token, client, now });
        return json({ ...tokens, token_use: "access_token" }, 200, { "cache-control": "no-store" });
      }
      throw oauth.oauthError("BAD_GRANT_TYPE", "unsupported_grant_type", "grant_type must be authorization_code or refresh_token");
    },
  }),
  route({
    method: "GET",
    path: "/oauth/v1/access-tokens/:token",
    summary: "Access token metadata",
    tag,
    auth: { kinds: [] },
    params: z.object({ token: z.string().min(1).max(600) }),
    responses: { 200: { description: "Token metadata", schema: accessTokenInfo }, 404: { description: "Unknown, revoked or expired" } },
    handler: async ({ control: db, params, now }) => {
      const row = await oauth.describeToken(db, params.token, "access", now);
      if (!row) throw notFound("The access token is unknown, revoked or expired");
      return json({
        token: params.token,
        user: row.user?.email ?? null,
        hub_domain: `${row.account.portalId}.crm-edge.local`,
        scopes: row.cred.scopes,
        hub_id: row.account.portalId,
        app_id: row.app.appId,
        // By the account's clock, as its expiry (src/services/testkit/clock.ts).
        expires_in: Math.max(0, Math.floor(((row.cred.expiresAt ?? now) - (now + row.clockOffsetMs)) / 1000)),
        user_id: row.cred.userId,
        token_type: "access",
      });
    },
  }),
  route({
    method: "GET",
    path: "/oauth/v1/refresh-tokens/:token",
    summary: "Refresh token metadata",
    tag,
    auth: { kinds: [] },
    params: z.object({ token: z.string().min(1).max(600) }),
    responses: { 200: { description: "Token metadata", schema: refreshTokenInfo }, 404: { description: "Unknown or revoked" } },
    handler: async ({ control: db, params, now }) => {
      const row = await oauth.describeToken(db, params.token, "refresh", now);
      if (!row) throw notFound("The refresh token is unknown or revoked");
      return json({
        token: params.token,
        user: row.user?.email ?? null,
        hub_domain: `${row.account.portalId}.crm-edge.local`,
        scopes: row.cred.scopes,
        hub_id: row.account.portalId,
        client_id: row.app.clientId,
        user_id: row.cred.userId,
        token_type: "refresh",
      });
    },
  }),
  route({
    method: "DELETE",
    path: "/oauth/v1/refresh-tokens/:token",
    summary: "Revoke a refresh token (access tokens it minted stay valid until they expire)",
    tag,
    auth: { kinds: [] },
    params: z.object({ token: z.string().min(1).max(600) }),
    responses: { 204: { description: "Revoked" }, 404: { description: "Unknown or already revoked" } },
    handler: async ({ control: db, params, now }) => {
      if (!(await oauth.revokeRefreshToken(db, params.token, now))) throw notFound("The refresh token is unknown or revoked");
      return noContent();
    },
  }),
];
