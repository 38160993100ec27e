import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ADMIN, admin, call, expectError, unique } from "../helpers/api";

describe("operator API", () => {
  it("creates accounts, apps, private apps, installs and users with the contract shapes", async () => {
    const acct = await call("POST", "/admin/v1/accounts", { token: ADMIN, body: { name: "Acme", addons: ["transactional-email"] } });
    expect(acct.status).toBe(201);
    expect(acct.json).toEqual({ portalId: expect.any(Number), name: "Acme", addons: ["transactional-email"], shard: expect.stringMatching(/^SHARD_\d+$/) });

    const app = await call("POST", "/admin/v1/apps", { token: ADMIN, body: { name: "App", redirectUris: ["https://a.example/cb"], scopes: ["oauth", "timeline"] } });
    expect(app.status).toBe(201);
    expect(Object.keys(app.json).sort()).toEqual(["appId", "clientId", "clientSecret", "developerKey", "refreshTokenRotation"]);

    const pa = await call("POST", `/admin/v1/accounts/${acct.json.portalId}/private-apps`, { token: ADMIN, body: { name: "pa" } });
    expect(pa.status).toBe(201);
    expect(pa.json.token).toMatch(/^pat-/);

    const inst = await call("POST", `/admin/v1/accounts/${acct.json.portalId}/installs`, { token: ADMIN, body: { appId: app.json.appId } });
    expect(inst.status).toBe(201);
    expect(inst.json).toEqual({ access_token: expect.any(String), refresh_token: expect.any(String), expires_in: 1800, token_type: "bearer" });

    const user = await call("POST", `/admin/v1/accounts/${acct.json.portalId}/users`, { token: ADMIN, body: { email: "Op@Example.com", password: "long enough pw" } });
    expect(user.status).toBe(201);
    expect(user.json).toEqual({ userId: expect.any(Number), email: "op@example.com" });

    const dup = await call("POST", `/admin/v1/accounts/${acct.json.portalId}/users`, { token: ADMIN, body: { email: "op@example.com" } });
    expectError(dup, 409, "CONFLICT");

    const del = await call("DELETE", `/admin/v1/accounts/${acct.json.portalId}/installs/${app.json.appId}`, { token: ADMIN });
    expect(del.status).toBe(204);
    // Uninstalling revokes the install's tokens.
    expectError(await call("GET", "/crm/v3/objects/contacts", { token: inst.json.access_token }), 401, "INVALID_AUTHENTICATION");
    expectError(await call("DELETE", `/admin/v1/accounts/${acct.json.portalId}/installs/${app.json.appId}`, { token: ADMIN }), 404, "OBJECT_NOT_FOUND");
  });

  it.each([
    ["no token", undefined],
    ["wrong token", "not-the-admin-token"],
  ])("refuses %s with 401", async (_label, token) => {
    expectError(await call("POST", "/admin/v1/accounts", { token, body: { name: "x" } }), 401, "INVALID_AUTHENTICATION");
  });

  it("refuses an account's own tokens on the operator API", async () => {
    const acct = await admin("POST", "/admin/v1/accounts", { name: unique() });
    const pa = await admin("POST", `/admin/v1/accounts/${acct.portalId}/private-apps`, { name: "pa" });
    expectError(await call("POST", "/admin/v1/accounts", { token: pa.token, body: { name: "x" } }), 401, "INVALID_AUTHENTICATION");
  });

  it.each([
    ["POST", "/admin/v1/accounts", {}, "body: name: Invalid input: expected string, received undefined"],
    ["POST", "/admin/v1/accounts", { name: "" }, "name"],
    ["POST", "/admin/v1/accounts", { name: "x", addons: ["nope"] }, "addons.0"],
    ["POST", "/admin/v1/apps", { name: "x", redirectUris: [] }, "redirectUris"],
    ["POST", "/admin/v1/apps", { name: "x", redirectUris: ["not a url"] }, "redirectUris.0"],
    ["POST", "/admin/v1/apps", { name: "x", redirectUris: ["https://a.example"], scopes: ["root"] }, "scopes.0"],
    ["POST", "/admin/v1/accounts/abc/private-apps", { name: "x" }, "portalId"],
    ["POST", "/admin/v1/accounts/1/installs", { appId: "one" }, "appId"],
    ["POST", "/admin/v1/accounts/1/users", { email: "not-an-email" }, "email"],
    ["POST", "/admin/v1/accounts/1/users", { email: "a@b.co", password: "short" }, "password"],
  ])("%s %s %j → 400 naming %s", async (method, path, body, field) => {
    const res = expectError(await call(method, path, { token: ADMIN, body }), 400, "VALIDATION_ERROR");
    expect(res.message).toContain(field.split(":")[0] === "body" ? "name" : field);
  });

  it("unknown account or app → 404", async () => {
    expectError(await call("POST", "/admin/v1/accounts/999999999/private-apps", { token: ADMIN, body: { name: "x" } }), 404, "OBJECT_NOT_FOUND");
    const acct = await admin("POST", "/admin/v1/accounts", { name: unique() });
    expectError(await call("POST", `/admin/v1/accounts/${acct.portalId}/installs`, { token: ADMIN, body: { appId: 999999999 } }), 404, "OBJECT_NOT_FOUND");
  });
});

describe("installing is one write: nothing is left half-written", () => {
  it("when the tokens cannot be written, no install is left behind", async () => {
    const acct = await admin("POST", "/admin/v1/accounts", { name: unique() });
    const app = await admin("POST", "/admin/v1/apps", { name: unique(), redirectUris: ["https://a.example/cb"] });
    // A real storage failure between the two writes: the credentials table is briefly unavailable.
    await env.DB.prepare("alter table credentials rename to credentials_offline").run();
    try {
      const res = await call("POST", `/admin/v1/accounts/${acct.portalId}/installs`, { token: ADMIN, body: { appId: app.appId } });
      expect(res.status).toBe(500);
    } finally {
      await env.DB.prepare("alter table credentials_offline rename to credentials").run();
    }
    const left = await env.DB.prepare("select count(*) as n from installs where portal_id = ?").bind(acct.portalId).first<{ n: number }>();
    expect(left?.n).toBe(0);
    // And once storage is back, the same install works and its token is usable.
    const ok = await call("POST", `/admin/v1/accounts/${acct.portalId}/installs`, { token: ADMIN, body: { appId: app.appId } });
    expect(ok.status).toBe(201);
    expect((await call("GET", "/crm/v3/objects/contacts", { token: ok.json.access_token })).status).toBe(200);
  });
});
