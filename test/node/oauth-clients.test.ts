/**
 * Unmodified OAuth client libraries from npm against the Worker: node-hubspot with a stored
 * `refreshToken` (stable refresh tokens), simple-oauth2 with its defaults (HTTP Basic client
 * authentication), passport-oauth2's whole authorization-code flow with state and PKCE (its own
 * middleware, driven by a tiny Node HTTP server), and passport-hubspot-oauth2's token exchange.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Hubspot from "hubspot";
import OAuth2Strategy from "passport-oauth2";
import { Strategy as HubspotStrategy } from "passport-hubspot-oauth2";
import { AuthorizationCode } from "simple-oauth2";
import { afterAll, describe, expect, it } from "vitest";
import { consent, http, REDIRECT_URI } from "./clients";
import { tenant, workerUrl } from "./helpers";

const SCOPES = ["oauth", "crm.objects.contacts.read"];

/** Whether an access token works on a v3 list (the Worker's own check, not the client's). */
async function works(token: string): Promise<boolean> {
  return (await http(token, "GET", "/crm/v3/objects/contacts")).status === 200;
}

describe("node-hubspot 2.3.14 with a stored refreshToken (refresh tokens are stable)", () => {
  it("two clients constructed with the same refreshToken: both refreshAccessToken() calls succeed", async () => {
    const t = await tenant();
    const options = { clientId: t.clientId, clientSecret: t.clientSecret, redirectUri: REDIRECT_URI, refreshToken: t.refresh, baseUrl: workerUrl() };
    const first = (await new Hubspot(options).refreshAccessToken()) as { access_token: string; refresh_token: string };
    const second = (await new Hubspot(options).refreshAccessToken()) as { access_token: string; refresh_token: string };
    expect(first.refresh_token).toBe(t.refresh);
    expect(second.refresh_token).toBe(t.refresh);
    expect(await works(first.access_token)).toBe(true);
    expect(await works(second.access_token)).toBe(true);
  });
});

describe("simple-oauth2 5.1.0 with its defaults (Basic client authentication, form body)", () => {
  it("authorization code, then refresh", async () => {
    const t = await tenant({ redirectUris: [REDIRECT_URI] });
    const client = new AuthorizationCode({
      client: { id: t.clientId, secret: t.clientSecret },
      auth: { tokenHost: workerUrl(), tokenPath: "/oauth/v1/token", authorizePath: "/oauth/authorize" },
    });
    const back = await consent(t, client.authorizeURL({ redirect_uri: REDIRECT_URI, scope: SCOPES, state: "st-1" }));
    expect(back.searchParams.get("state")).toBe("st-1");
    const token = await client.getToken({ code: back.searchParams.get("code")!, redirect_uri: REDIRECT_URI });
    expect(token.token).toMatchObject({ token_type: "bearer", expires_in: 1800 });
    expect(await works(token.token.access_token)).toBe(true);
    const refreshed = await token.refresh();
    expect(refreshed.token.refresh_token).toBe(token.token.refresh_token);
    expect(await works(refreshed.token.access_token)).toBe(true);
    expect(await works(token.token.access_token)).toBe(true); // still valid until it expires
  });

  it("a wrong secret: the library rejects with the 401 invalid_client answer", async () => {
    const t = await tenant({ redirectUris: [REDIRECT_URI] });
    const client = new AuthorizationCode({ client: { id: t.clientId, secret: "wrong" }, auth: { tokenHost: workerUrl(), tokenPath: "/oauth/v1/token" } });
    const err = (await client.getToken({ code: "x", redirect_uri: REDIRECT_URI }).catch((e: unknown) => e)) as { output?: { statusCode: number }; data?: { payload?: Record<string, unknown> } };
    expect(err.output?.statusCode).toBe(401);
    expect(err.data?.payload).toMatchObject({ error: "invalid_client", status: "BAD_CLIENT_SECRET" });
  });
});

/** One request through a passport strategy's own `authenticate`, the way passport's middleware runs it. */
function runStrategy(strategy: OAuth2Strategy, req: IncomingMessage & { query: Record<string, string>; session: Record<string, unknown> }, res: ServerResponse, options: Record<string, unknown>) {
  const s = Object.create(strategy) as OAuth2Strategy;
  s.redirect = (url: string) => {
    res.writeHead(302, { location: url }).end();
  };
  s.success = (user: unknown) => {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(user));
  };
  s.fail = (challenge?: unknown) => {
    res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ fail: challenge ?? null }));
  };
  s.error = (err: unknown) => {
    res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: String(err), oauth: (err as { oauthError?: { data?: string } }).oauthError?.data }));
  };
  s.pass = () => res.writeHead(204).end();
  s.authenticate(req, options);
}

/**
 * A tiny web app using passport-oauth2: `/login` starts the flow, `/callback` finishes it. Sessions are a
 * cookie naming an in-memory object, which is all passport-oauth2's state/PKCE store needs (`req.session`).
 * The server listens first (its callback URL is the app's registered redirect URI), then gets its strategy.
 */
async function passportApp(): Promise<{ url: string; server: Server; use(strategy: OAuth2Strategy): void }> {
  const sessions = new Map<string, Record<string, unknown>>();
  let strategy: OAuth2Strategy | undefined;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    let sid = /sid=([\w-]+)/.exec(req.headers.cookie ?? "")?.[1];
    if (!sid || !sessions.has(sid)) {
      sid = crypto.randomUUID();
      sessions.set(sid, {});
      res.setHeader("set-cookie", `sid=${sid}; Path=/; HttpOnly`);
    }
    const r = Object.assign(req, { query: Object.fromEntries(url.searchParams), session: sessions.get(sid)! });
    if (url.pathname === "/login") runStrategy(strategy!, r, res, { scope: SCOPES });
    else if (url.pathname === "/callback") runStrategy(strategy!, r, res, {});
    else res.writeHead(404).end();
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, use: (s) => (strategy = s) };
}

const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((s) => new Promise((ok) => s.close(ok)))));

describe("passport-oauth2 1.8.0: the whole authorization-code flow with state and PKCE", () => {
  it("sign-in, consent, callback: the strategy checks state, sends its code_verifier and gets working tokens", async () => {
    const app = await passportApp();
    const callbackURL = `${app.url}/callback`;
    const t = await tenant({ redirectUris: [callbackURL] });
    const verified: { accessToken: string; refreshToken: string; params: Record<string, unknown> }[] = [];
    app.use(
      new OAuth2Strategy(
        { authorizationURL: `${workerUrl()}/oauth/authorize`, tokenURL: `${workerUrl()}/oauth/v1/token`, clientID: t.clientId, clientSecret: t.clientSecret, callbackURL, state: true, pkce: true },
        (accessToken, refreshToken, params, _profile, done) => {
          verified.push({ accessToken, refreshToken, params });
          done(null, { signedIn: true });
        },
      ),
    );

    const start = await fetch(`${app.url}/login`, { redirect: "manual" });
    expect(start.status).toBe(302);
    const cookie = start.headers.get("set-cookie")!.split(";")[0]!;
    const authorizeUrl = new URL(start.headers.get("location")!);
    expect(authorizeUrl.origin + authorizeUrl.pathname).toBe(`${workerUrl()}/oauth/authorize`);
    expect(authorizeUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizeUrl.searchParams.get("state")).toEqual(expect.any(String));

    const back = await consent(t, authorizeUrl.toString()); // the user signs in and consents
    expect(back.origin + back.pathname).toBe(callbackURL);
    const done = await fetch(back, { headers: { cookie }, redirect: "manual" });
    expect(done.status, await done.clone().text()).toBe(200);
    expect(await done.json()).toEqual({ signedIn: true });
    expect(verified).toHaveLength(1);
    expect(verified[0]!.params).toMatchObject({ token_type: "bearer", expires_in: 1800 });
    expect(await works(verified[0]!.accessToken)).toBe(true);

    // The code was single use, and the state with it: a second callback is refused by the strategy.
    expect((await fetch(back, { headers: { cookie }, redirect: "manual" })).status).toBe(401);
  });

  it("the Worker refuses the token request when the PKCE verifier does not match the challenge", async () => {
    const app = await passportApp();
    const callbackURL = `${app.url}/callback`;
    const t = await tenant({ redirectUris: [callbackURL] });
    app.use(
      new OAuth2Strategy(
        { authorizationURL: `${workerUrl()}/oauth/authorize`, tokenURL: `${workerUrl()}/oauth/v1/token`, clientID: t.clientId, clientSecret: t.clientSecret, callbackURL, state: true, pkce: true },
        (_a, _r, _p, _profile, done) => done(null, { signedIn: true }),
      ),
    );
    const start = await fetch(`${app.url}/login`, { redirect: "manual" });
    const cookie = start.headers.get("set-cookie")!.split(";")[0]!;
    const authorizeUrl = new URL(start.headers.get("location")!);
    // An attacker's challenge replaces the app's: the code is bound to it, and the app's verifier fails.
    authorizeUrl.searchParams.set("code_challenge", "A".repeat(43));
    const back = await consent(t, authorizeUrl.toString());
    const done = await fetch(back, { headers: { cookie }, redirect: "manual" });
    expect(done.status).toBe(500); // the strategy's error(): a TokenError carrying the OAuth answer
    expect(await done.text()).toContain("code_verifier does not match");
  });
});

describe("passport-hubspot-oauth2 1.0.3: token exchange", () => {
  it("its OAuth2 client, pointed at the Worker's token URL, exchanges a code from the consent it starts", async () => {
    const callbackURL = "http://127.0.0.1/callback";
    const t = await tenant({ redirectUris: [callbackURL] });
    const strategy = new HubspotStrategy(
      { authorizationURL: `${workerUrl()}/oauth/authorize`, tokenURL: `${workerUrl()}/oauth/v1/token`, clientID: t.clientId, clientSecret: t.clientSecret, callbackURL },
      (_a, _r, _p, _profile, done) => done(null, {}),
    );
    // The authorize redirect comes from the strategy's own middleware.
    let location = "";
    const s = Object.create(strategy) as typeof strategy;
    s.redirect = (url: string) => {
      location = url;
    };
    s.authenticate({ query: {}, session: {}, headers: {} }, { scope: SCOPES, state: "hs-1" });
    expect(location.startsWith(`${workerUrl()}/oauth/authorize?`)).toBe(true);
    const back = await consent(t, location);
    expect(back.searchParams.get("state")).toBe("hs-1");
    // The exchange the strategy makes on its callback (its profile call then goes to a hard-coded host,
    // api.hubapi.com, which the Worker cannot stand in for: docs/reference/clients.md).
    const tokens = await new Promise<{ access: string; refresh: string; results: Record<string, unknown> }>((ok, fail) =>
      strategy._oauth2.getOAuthAccessToken(back.searchParams.get("code")!, { grant_type: "authorization_code", redirect_uri: callbackURL }, (err, access, refresh, results) =>
        err ? fail(new Error(JSON.stringify(err))) : ok({ access, refresh, results }),
      ),
    );
    expect(tokens.results).toMatchObject({ token_type: "bearer", expires_in: 1800 });
    expect(await works(tokens.access)).toBe(true);
    expect(tokens.refresh).toEqual(expect.any(String));
  });
});
