/**
 * Secrets never leak (OWASP API3, excessive data exposure): a scripted session creates and uses every kind of
 * secret — operator token, client secret, developer key, install and OAuth-flow access and refresh
 * tokens, private-app token, authorization code, session cookie, user password, SMTP passwords — through
 * success and error paths (bad logins, refused tokens, 500s forced through a test route and through a
 * missing table). Every console line the Worker writes is captured (it runs in this isolate), among them
 * the structured line of every request, queue batch and cron run, and every exchange is
 * recorded. No secret may appear in any log line, and none in any response except its one
 * reveal (the response that created it) and the introspection of that same token.
 */
import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { forgetCredentials } from "../../src/lib/credential-cache";
import { route } from "../../src/http/route";
import { buildRouter } from "../../src/router";
import { allRoutes } from "../../src/routes";
import { createExecutionContext, createMessageBatch, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../src/index";
import { ADMIN, BASE, send, unique } from "../helpers/api";
import { REDIRECT } from "../helpers/oauth-flow";
import { tick } from "../helpers/maintenance";

interface Exchange {
  step: string;
  request: string;
  status: number;
  response: string;
}

const logs: string[] = [];
const exchanges: Exchange[] = [];
const secrets = new Map<string, string>(); // name -> value
let appFailureId = "";
/** Secrets whose introspection endpoint may echo them (the caller presents the token itself). */
const INTROSPECTED = ["access-tokens", "refresh-tokens"];

function format(arg: unknown): string {
  if (arg instanceof Error) return `${arg.name}: ${arg.message}\n${arg.stack ?? ""}${arg.cause ? `\ncause: ${format(arg.cause)}` : ""}`;
  if (typeof arg === "string") return arg;
  try {
    return JSON.stringify(arg);
  } catch {
    return String(arg);
  }
}

/** A route that fails after authenticating the caller, like any handler with a bug. */
const boom = route({
  method: "GET",
  path: "/__test/boom",
  summary: "always fails (test only)",
  tag: "test",
  auth: { kinds: ["oauth", "private_app"] },
  responses: {},
  handler: () => {
    throw new TypeError("cannot read properties of undefined (reading 'x')");
  },
});
const testRouter = buildRouter([...allRoutes, boom]);

interface Opts {
  bearer?: string;
  headers?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  router?: typeof testRouter;
}

async function http(step: string, method: string, path: string, opts: Opts = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
  let body: string | undefined;
  if (opts.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(opts.json);
  } else if (opts.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(opts.form).toString();
  }
  const request = new Request(`${BASE}${path}`, { method, headers, body, redirect: "manual" });
  let res: Response;
  if (opts.router) {
    const ctx = createExecutionContext();
    res = await opts.router.fetch(request, env, ctx);
    await waitOnExecutionContext(ctx);
  } else {
    res = await send(request);
  }
  const text = await res.text();
  exchanges.push({
    step,
    request: `${method} ${path}\n${JSON.stringify(headers)}\n${body ?? ""}`,
    status: res.status,
    response: `${JSON.stringify([...res.headers])}\n${text}`,
  });
  return { status: res.status, headers: res.headers, text, json: text && (res.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : undefined };
}

const keep = (name: string, value: string) => {
  expect(value, name).toBeTruthy();
  secrets.set(name, value);
  return value;
};

/** Runs `fn` with a table renamed away, so the statements that use it fail as a broken database would. */
async function withoutTable<T>(table: string, fn: () => Promise<T>): Promise<T> {
  await env.DB.exec(`alter table ${table} rename to ${table}_away`);
  try {
    return await fn();
  } finally {
    await env.DB.exec(`alter table ${table}_away rename to ${table}`);
  }
}

beforeAll(async () => {
  for (const level of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logs.push(`${level}: ${args.map(format).join(" ")}`);
    });
  }
  secrets.set("operator token", ADMIN);

  // Operator provisioning: every credential is revealed once, in the response that creates it.
  const password = keep("user password", `pw-${crypto.randomUUID()}`);
  const acct = (await http("create account", "POST", "/admin/v1/accounts", { bearer: ADMIN, json: { name: unique("acct"), addons: ["transactional-email"] } })).json;
  // Rotation opted in (refresh tokens are otherwise stable), so that a rotated refresh token and its replay pass through the logs too.
  const app = (await http("create app", "POST", "/admin/v1/apps", { bearer: ADMIN, json: { name: unique("app"), redirectUris: [REDIRECT], refreshTokenRotation: true } })).json;
  keep("client secret", app.clientSecret);
  keep("developer key", app.developerKey);
  const install = (await http("install", "POST", `/admin/v1/accounts/${acct.portalId}/installs`, { bearer: ADMIN, json: { appId: app.appId } })).json;
  const access = keep("install access token", install.access_token);
  keep("install refresh token", install.refresh_token);
  const pat = keep("private-app token", (await http("private app", "POST", `/admin/v1/accounts/${acct.portalId}/private-apps`, { bearer: ADMIN, json: { name: "pa" } })).json.token);
  const email = `${unique("u")}@example.com`;
  await http("create user", "POST", `/admin/v1/accounts/${acct.portalId}/users`, { bearer: ADMIN, json: { email, password } });

  // Sign-in: a wrong password, then the right one.
  const wrong = keep("mistyped password", `${password}-typo`);
  expect((await http("bad login", "POST", "/login", { form: { email, password: wrong } })).status).toBe(401);
  expect((await http("bad login, unknown user", "POST", "/login", { form: { email: `x${email}`, password } })).status).toBe(401);
  const login = await http("login", "POST", "/login", { form: { email, password, next: "/app" } });
  const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
  keep("session cookie", cookie.split("=")[1]!);

  // The OAuth flow: consent, code, exchange, refresh with rotation, replay of the rotated token, revocation.
  const q = new URLSearchParams({ client_id: app.clientId, redirect_uri: REDIRECT, scope: "oauth crm.objects.contacts.read", state: "s" });
  const consent = await http("consent page", "GET", `/oauth/authorize?${q}`, { headers: { cookie } });
  const csrf = /name="csrf" value="([^"]+)"/.exec(consent.text)![1]!;
  const approved = await http("approve", "POST", "/oauth/authorize", { headers: { cookie }, form: { ...Object.fromEntries(q), csrf, decision: "approve" } });
  const code = keep("authorization code", new URL(approved.headers.get("location")!).searchParams.get("code")!);
  const client = { client_id: app.clientId, client_secret: app.clientSecret, redirect_uri: REDIRECT };
  expect((await http("exchange, wrong secret", "POST", "/oauth/v1/token", { form: { ...client, client_secret: "wrong", grant_type: "authorization_code", code } })).status).toBe(400);
  const tokens = (await http("exchange", "POST", "/oauth/v1/token", { form: { ...client, grant_type: "authorization_code", code } })).json;
  keep("flow access token", tokens.access_token);
  const firstRefresh = keep("flow refresh token", tokens.refresh_token);
  const rotated = (await http("refresh", "POST", "/oauth/v1/token", { form: { ...client, grant_type: "refresh_token", refresh_token: firstRefresh } })).json;
  const rotatedAccess = keep("rotated access token", rotated.access_token);
  const rotatedRefresh = keep("rotated refresh token", rotated.refresh_token);
  await http("introspect access", "GET", `/oauth/v1/access-tokens/${rotatedAccess}`);
  await http("introspect refresh", "GET", `/oauth/v1/refresh-tokens/${rotatedRefresh}`);
  expect((await http("replay rotated refresh", "POST", "/oauth/v1/token", { form: { ...client, grant_type: "refresh_token", refresh_token: firstRefresh } })).status).toBe(400);
  expect((await http("revoked family in use", "GET", "/crm/v3/objects/contacts", { bearer: rotatedAccess })).status).toBe(401);
  await http("revoke refresh", "DELETE", `/oauth/v1/refresh-tokens/${rotatedRefresh}`);
  // Last: a replayed code revokes what it issued (RFC 6749 section 4.1.2).
  expect((await http("code replay", "POST", "/oauth/v1/token", { form: { ...client, grant_type: "authorization_code", code } })).status).toBe(400);

  // Using the credentials, and refused uses of them.
  await http("list contacts (oauth)", "GET", "/crm/v3/objects/contacts", { bearer: access });
  await http("create contact (pat)", "POST", "/crm/v3/objects/contacts", { bearer: pat, json: { properties: { email: `${unique("c")}@example.com` } } });
  await http("list contacts (pat)", "GET", "/crm/v3/objects/contacts?limit=1", { bearer: pat });
  await http("account key as hapikey", "GET", `/crm/v3/objects/contacts?hapikey=${pat}`);
  await http("developer key on an account route", "GET", "/crm/v3/objects/contacts", { bearer: app.developerKey });
  await http("developer key as hapikey", "GET", `/integrations/v1/${app.appId}/timeline/event-types?hapikey=${app.developerKey}`);
  await http("sync errors with hapikey", "GET", `/extensions/ecomm/v2/sync/errors/app/${app.appId}?hapikey=${app.developerKey}&limit=1`);
  await http("operator token on an account route", "GET", "/crm/v3/objects/contacts", { bearer: ADMIN });
  await http("malformed header", "GET", "/crm/v3/objects/contacts", { headers: { authorization: `Basic ${btoa(`x:${pat}`)}` } });
  await http("operator token as hapikey", "POST", `/admin/v1/accounts?hapikey=${ADMIN}`, { json: { name: "x" } });

  // SMTP tokens: the password is shown at creation and at reset only.
  const smtp = (await http("smtp create", "POST", "/email/public/v1/smtpapi/tokens", { bearer: access, json: { campaignName: "c" } })).json;
  keep("smtp password", smtp.password);
  await http("smtp list", "GET", "/email/public/v1/smtpapi/tokens", { bearer: access });
  const reset = (await http("smtp reset", "POST", `/email/public/v1/smtpapi/tokens/${encodeURIComponent(smtp.userName)}/password-reset`, { bearer: access })).json;
  keep("smtp password after reset", reset.password);
  await http("smtp list after reset", "GET", "/email/public/v1/smtpapi/tokens", { bearer: access });
  await http("smtp reset unknown", "POST", "/email/public/v1/smtpapi/tokens/nobody%40x/password-reset", { bearer: access });
  await http("smtp with a private app", "GET", "/email/public/v1/smtpapi/tokens", { bearer: pat });

  // 500s: a handler that throws after authentication, and real statements failing on a missing table.
  expect((await http("test route throws", "GET", "/__test/boom", { bearer: pat, router: testRouter })).status).toBe(500);
  // As in a fresh isolate, the lookup must reach D1: this one's cached copy of the token is dropped.
  const missing = await withoutTable("credentials", () => {
    forgetCredentials();
    return http("credential lookup fails", "GET", "/crm/v3/objects/contacts", { bearer: pat });
  });
  expect(missing.status).toBe(500);
  const exchangeFails = await withoutTable("auth_codes", () => http("code exchange fails", "POST", "/oauth/v1/token", { form: { ...client, grant_type: "authorization_code", code } }));
  expect(exchangeFails.status).toBe(500);
  const userFails = await withoutTable("users", () =>
    http("user creation fails", "POST", `/admin/v1/accounts/${acct.portalId}/users`, { bearer: ADMIN, json: { email: `y${email}`, password } }),
  );
  expect(userFails.status).toBe(500);
  // The generated client secret would be a bound value of the failing insert.
  const appFails = await withoutTable("apps", () => http("app creation fails", "POST", "/admin/v1/apps", { bearer: ADMIN, json: { name: unique("app"), redirectUris: [REDIRECT] } }));
  expect(appFails.status).toBe(500);
  appFailureId = appFails.json.correlationId;

  // Work outside requests logs its own lines: a sync batch carrying a secret as a property
  // value, a dead letter, and a cron run.
  const body = {
    v: 1, id: `000000000000001-${unique("m")}-000`, portalId: acct.portalId, appId: app.appId, storeId: "shop", storeGen: "g",
    objectType: "CONTACT", receivedAt: Date.now(), message: { externalObjectId: "c-1", action: "UPSERT", changedAt: 1, properties: { note: pat } },
  };
  for (const queue of ["crm-edge-sync", "crm-edge-sync-dlq"]) {
    const ctx = createExecutionContext();
    await worker.queue(createMessageBatch(queue, [{ id: unique("q"), timestamp: new Date(), attempts: 1, body }]), env, ctx);
    await waitOnExecutionContext(ctx);
  }
  // The tick, and the maintenance queue's batches that run its jobs.
  await tick(Date.now());
}, 60_000);

afterAll(() => {
  vi.restoreAllMocks();
});

describe("secrets in a scripted session", () => {
  it("every kind of secret was exercised, and the Worker did log (so the capture works)", () => {
    expect([...secrets.keys()].sort()).toEqual(
      [
        "authorization code", "client secret", "developer key", "flow access token", "flow refresh token", "install access token",
        "install refresh token", "mistyped password", "operator token", "private-app token", "rotated access token", "rotated refresh token",
        "session cookie", "smtp password", "smtp password after reset", "user password",
      ].sort(),
    );
    expect(logs.filter((l) => l.includes("unhandled error")).length).toBeGreaterThanOrEqual(5); // the five 500s
    expect(exchanges.length).toBeGreaterThanOrEqual(40);
    // The structured lines were captured too: one per exchange, per queue batch, per cron run.
    const structured = (type: string) => logs.filter((l) => l.startsWith(`log: {"type":"${type}"`));
    expect(structured("request")).toHaveLength(exchanges.length);
    expect(structured("queue_batch").filter((l) => l.includes('"queue":"crm-edge-sync'))).toHaveLength(2);
    expect(structured("queue_batch").filter((l) => l.includes('"queue":"crm-edge-maintenance"')).length).toBeGreaterThanOrEqual(1);
    expect(structured("cron")).toHaveLength(1);
  });

  it("no secret appears in any log line", () => {
    const leaks = logs.flatMap((line) => [...secrets].filter(([, v]) => line.includes(v)).map(([name]) => `${name} in: ${line.slice(0, 300)}`));
    expect(leaks).toEqual([]);
  });

  it("no secret appears in any response but its one reveal (or the introspection of that very token)", () => {
    const leaks: string[] = [];
    for (const [name, value] of secrets) {
      const shown = exchanges.filter((x) => x.response.includes(value));
      const reveals = shown.filter((x) => !x.request.includes(value));
      const echoes = shown.filter((x) => x.request.includes(value) && !INTROSPECTED.some((p) => x.request.includes(`/oauth/v1/${p}/${value}`)));
      if (reveals.length > 1) leaks.push(`${name} shown again in: ${reveals.slice(1).map((x) => x.step).join(", ")}`);
      for (const x of echoes) leaks.push(`${name} echoed back by: ${x.step}`);
    }
    expect(leaks).toEqual([]);
  });

  it("the secrets the service generates are each revealed exactly once, where they are created", () => {
    const revealedIn = (value: string) => exchanges.filter((x) => x.response.includes(value) && !x.request.includes(value)).map((x) => x.step);
    expect(revealedIn(secrets.get("client secret")!)).toEqual(["create app"]);
    expect(revealedIn(secrets.get("private-app token")!)).toEqual(["private app"]);
    expect(revealedIn(secrets.get("smtp password")!)).toEqual(["smtp create"]);
    expect(revealedIn(secrets.get("smtp password after reset")!)).toEqual(["smtp reset"]);
    expect(revealedIn(secrets.get("authorization code")!)).toEqual(["approve"]);
    expect(revealedIn(secrets.get("session cookie")!)).toEqual(["login"]);
    expect(revealedIn(secrets.get("user password")!)).toEqual([]);
    expect(revealedIn(secrets.get("operator token")!)).toEqual([]);
  });

  it("a 500's log line names the failure and its correlation id, never the statement's bound values", () => {
    const lines = logs.filter((l) => l.includes("unhandled error"));
    for (const line of lines) {
      expect(line).toMatch(/\[[0-9a-f-]{36}\] unhandled error: /);
      expect(line, line.slice(0, 400)).not.toMatch(/params: /);
    }
    // The failed app insert: its log line names the failure; the only id in it is the correlation id
    // (the client id, client secret and developer key it tried to store are UUIDs too).
    const appLine = lines.find((l) => l.includes(appFailureId))!;
    expect(appLine).toContain("no such table: apps");
    expect(appLine.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g)).toEqual([appFailureId]);
  });
});
