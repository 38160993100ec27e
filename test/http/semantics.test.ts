/**
 * HTTP semantics every route gets from the router, read from the route table so that routes
 * added later get them too: HEAD on every GET route (RFC 9110 section 9.3.2), OPTIONS with `Allow` on every
 * route (section 9.3.7), and `WWW-Authenticate: Bearer` on every 401 (RFC 6750 section 3).
 */
import { describe, expect, it } from "vitest";
import { allRoutes } from "../../src/routes";
import { call, expectError, tenant } from "../helpers/api";

/** A concrete path for a route pattern: every parameter becomes a plausible id. */
const concrete = (path: string) => path.replace(/:objectType/g, "contacts").replace(/:[A-Za-z_]+/g, "1").replace(/\/\*$/, "/x");

/** Headers that differ between two answers by nature (each request has its own id). */
const VOLATILE = new Set(["x-service-correlation-id", "date", "content-length", "set-cookie"]);
const comparable = (h: Headers) => [...h.entries()].filter(([k]) => !VOLATILE.has(k));

const getRoutes = allRoutes.filter((r) => r.method === "GET");

describe("HEAD on every GET route", () => {
  it.each(getRoutes.map((r) => [r.path, r] as const))("HEAD %s: the GET's status and headers, no body", async (_p, r) => {
    const path = concrete(r.path);
    const get = await call("GET", path);
    const head = await call("HEAD", path);
    expect(head.status).toBe(get.status);
    expect(head.text).toBe("");
    expect(comparable(head.headers)).toEqual(comparable(get.headers));
  });

  it("with a credential too: the same 200 and rate-limit headers as the GET, and it is counted", async () => {
    const t = await tenant();
    const get = await call("GET", "/crm/v3/objects/contacts", { token: t.pat });
    const head = await call("HEAD", "/crm/v3/objects/contacts", { token: t.pat });
    expect(get.status).toBe(200);
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
    expect(head.headers.get("content-type")).toBe(get.headers.get("content-type"));
    expect(Number(head.headers.get("x-service-ratelimit-remaining"))).toBe(Number(get.headers.get("x-service-ratelimit-remaining")) - 1);
  });

  it("HEAD on a path with no GET → 405 with Allow, no body", async () => {
    const res = await call("HEAD", "/oauth/v1/token");
    expect(res.status).toBe(405);
    expect(res.text).toBe("");
    expect(res.headers.get("allow")).toBe("POST, OPTIONS");
  });
});

describe("OPTIONS on every route", () => {
  const paths = [...new Set(allRoutes.map((r) => r.path))];
  it.each(paths)("OPTIONS %s → 204 with Allow listing its methods", async (p) => {
    const path = concrete(p);
    const res = await call("OPTIONS", path);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    const allow = (res.headers.get("allow") ?? "").split(", ");
    for (const r of allRoutes.filter((x) => x.path === p)) expect(allow).toContain(r.method);
    if (allow.includes("GET")) expect(allow).toContain("HEAD");
    expect(allow).toContain("OPTIONS");
  });

  it("OPTIONS on an unknown path → 404", async () => {
    expectError(await call("OPTIONS", "/no/such/route"), 404, "OBJECT_NOT_FOUND");
  });

  it("a 405 lists HEAD and OPTIONS in its Allow too", async () => {
    const res = await call("POST", "/contacts/v1/lists/all/contacts/all");
    expectError(res, 405, "METHOD_NOT_ALLOWED");
    expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });
});

describe("every 401 carries WWW-Authenticate: Bearer (RFC 6750 section 3)", () => {
  const LIST = "/crm/v3/objects/contacts";
  it("no credential: a bare Bearer challenge, no error code", async () => {
    const res = await call("GET", LIST);
    expectError(res, 401, "INVALID_AUTHENTICATION");
    const h = res.headers.get("www-authenticate") ?? "";
    expect(h).toMatch(/^Bearer\b/);
    expect(h).not.toContain("error=");
  });

  it.each([
    ["an unknown token", { authorization: "Bearer oat-nope" }],
    ["a malformed Authorization header", { authorization: "Bearer" }],
    ["an account hapikey", {}],
  ])("%s: error=\"invalid_token\"", async (what, headers) => {
    const path = what === "an account hapikey" ? `${LIST}?hapikey=not-a-developer-key` : LIST;
    const res = await call("GET", path, { headers });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer .*error="invalid_token"/);
  });

  it("an expired token: error=\"invalid_token\"", async () => {
    const { expire } = await import("../helpers/auth-suite");
    const t = await tenant();
    await expire(t.oauth);
    const res = await call("GET", LIST, { token: t.oauth });
    expectError(res, 401, "EXPIRED_AUTHENTICATION");
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer .*error="invalid_token"/);
  });

  it("the operator API with a wrong token, and the web app's JSON endpoints without a session", async () => {
    const op = await call("GET", "/admin/v1/accounts", { token: "wrong" });
    if (op.status === 401) expect(op.headers.get("www-authenticate")).toMatch(/^Bearer .*error="invalid_token"/);
    const opPost = await call("POST", "/admin/v1/accounts", { token: "wrong", body: { name: "x" } });
    expect(opPost.status).toBe(401);
    expect(opPost.headers.get("www-authenticate")).toMatch(/^Bearer .*error="invalid_token"/);
  });

  it("every 401 any GET route gives without a credential carries the challenge", async () => {
    for (const r of getRoutes) {
      const res = await call("GET", concrete(r.path));
      if (res.status === 401) expect(res.headers.get("www-authenticate"), r.path).toMatch(/^Bearer\b/);
    }
  });
});
