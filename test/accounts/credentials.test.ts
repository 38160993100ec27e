/**
 * Taking back and renewing an account's credentials (docs/how-to/account-lifecycle.md "Credentials"): deleting and
 * rotating a private app's token, rotating an app's client secret with a grace period for client
 * authentication while outbound signatures switch at once, deleting a user and setting a password.
 */
import { describe, expect, it } from "vitest";
import { verifySignature } from "../../src/lib/signature";
import { ADMIN, admin, call, expectError, tenant, type Tenant } from "../helpers/api";
import { integratorPath, integratorUrl, received, script } from "../helpers/integrator";
import { form, REDIRECT } from "../helpers/oauth-flow";
import { createRecord, defineCard, minted, viewPath } from "../cards/helpers";
import { signIn } from "../web/helpers";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const contacts = (token: string) => call("GET", "/crm/v3/objects/contacts?limit=1", { token });
const login = (email: string, password = "correct horse battery") =>
  call("POST", "/login", {
    raw: new URLSearchParams({ email, password }).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
/** A refresh-token grant authenticated with `secret` as the client secret. */
const refreshWith = (t: Tenant, secret: string) =>
  form("/oauth/v1/token", { grant_type: "refresh_token", refresh_token: t.refresh, client_id: t.clientId, client_secret: secret, redirect_uri: REDIRECT });

describe("private apps", () => {
  it("DELETE answers 204 and the token then gets 401; the account's other private apps keep working", async () => {
    const t = await tenant();
    const second = await admin("POST", `/admin/v1/accounts/${t.portalId}/private-apps`, { name: "second" });
    expect(second.privateAppId).toEqual(expect.any(Number));
    expect((await contacts(t.pat)).status).toBe(200); // cached in this isolate: the deletion must still take effect
    const res = await call("DELETE", `/admin/v1/accounts/${t.portalId}/private-apps/${t.privateAppId}`, { token: ADMIN });
    expect(res.status, res.text).toBe(204);
    expectError(await contacts(t.pat), 401, "INVALID_AUTHENTICATION");
    expect((await contacts(second.token)).status).toBe(200);
    expectError(await call("DELETE", `/admin/v1/accounts/${t.portalId}/private-apps/${t.privateAppId}`, { token: ADMIN }), 404, "OBJECT_NOT_FOUND");
  });

  it("rotate returns a new token that works at once; the old one gets 401", async () => {
    const t = await tenant();
    expect((await contacts(t.pat)).status).toBe(200);
    const res = await call("POST", `/admin/v1/accounts/${t.portalId}/private-apps/${t.privateAppId}/rotate`, { token: ADMIN });
    expect(res.status, res.text).toBe(200);
    expect(res.json.token).toMatch(/^pat-na1-/);
    expect(res.json.token).not.toBe(t.pat);
    expectError(await contacts(t.pat), 401, "INVALID_AUTHENTICATION");
    expect((await contacts(res.json.token)).status).toBe(200);
  });

  it("another account's id or a private app of another account is a 404 that changes nothing", async () => {
    const a = await tenant();
    const b = await tenant();
    for (const [method, suffix] of [["DELETE", ""], ["POST", "/rotate"]] as const) {
      expectError(await call(method, `/admin/v1/accounts/${b.portalId}/private-apps/${a.privateAppId}${suffix}`, { token: ADMIN }), 404, "OBJECT_NOT_FOUND");
    }
    expect((await contacts(a.pat)).status).toBe(200);
    expect((await contacts(b.pat)).status).toBe(200);
  });

  it.each([
    ["a non-numeric private app id", "abc", 400],
    ["private app id 0", "0", 400],
    ["an unknown private app", "999999999", 404],
  ])("%s: the error envelope", async (_name, id, status) => {
    const t = await tenant();
    const category = status === 400 ? "VALIDATION_ERROR" : "OBJECT_NOT_FOUND";
    expectError(await call("DELETE", `/admin/v1/accounts/${t.portalId}/private-apps/${id}`, { token: ADMIN }), status, category);
    expectError(await call("POST", `/admin/v1/accounts/${t.portalId}/private-apps/${id}/rotate`, { token: ADMIN }), status, category);
    expect((await contacts(t.pat)).status).toBe(200);
  });
});

describe("POST /admin/v1/apps/{appId}/rotate-secret", () => {
  it("the token endpoint accepts the old secret for graceSeconds and the new one at once; outbound signatures use the new one", async () => {
    const t = await tenant();
    const fetchPath = integratorPath("fetch");
    await defineCard(t, { dataFetchUri: `${integratorUrl()}${fetchPath}` });
    await script(fetchPath, { body: JSON.stringify({ results: [] }) });
    const record = await createRecord(t, "contacts", { firstname: "Ada" });

    const res = await call("POST", `/admin/v1/apps/${t.appId}/rotate-secret`, { token: ADMIN, body: { graceSeconds: 2 } });
    expect(res.status, res.text).toBe(200);
    const { clientSecret, previousSecretExpiresAt } = res.json;
    expect(clientSecret).toEqual(expect.any(String));
    expect(clientSecret).not.toBe(t.clientSecret);
    expect(previousSecretExpiresAt).toBeGreaterThan(Date.now());

    expect((await refreshWith(t, clientSecret)).status).toBe(200);
    expect((await refreshWith(t, t.clientSecret)).status).toBe(200);
    expect((await refreshWith(t, "not-a-secret")).status).toBe(400);

    // The card's data fetch right after the rotation is signed with the new secret, not the old one.
    expect((await call("GET", viewPath("contacts", record, t.userId), { token: t.oauth })).status).toBe(200);
    const [req] = await received(fetchPath);
    const signed = { method: req!.method, uri: req!.url, body: req!.body, headers: req!.headers };
    expect(await verifySignature({ ...signed, secret: clientSecret })).toEqual({ ok: true, version: "v3" });
    expect(await verifySignature({ ...signed, secret: t.clientSecret })).toEqual({ ok: false, reason: "v3 signature mismatch" });

    // Once the grace period is over, only the new secret authenticates.
    await sleep(Math.max(0, previousSecretExpiresAt - Date.now()) + 50);
    const late = await refreshWith(t, t.clientSecret);
    expect(late.status).toBe(400);
    expect(await late.json()).toMatchObject({ status: "BAD_CLIENT_SECRET", error: "invalid_client" });
    expect((await refreshWith(t, clientSecret)).status).toBe(200);
  });

  it("a card action offered before the rotation still runs in the grace period, signed with the new secret; not after a rotation without grace", async () => {
    const t = await tenant();
    const card = await defineCard(t);
    const record = await createRecord(t, "contacts", { firstname: "Ada" });
    const hookPath = `${card.actionBase}/go`;
    await script(hookPath, { body: JSON.stringify({ message: "done" }) });
    const action = { type: "ACTION_HOOK", httpMethod: "POST", uri: `${integratorUrl()}${hookPath}`, label: "Go" };
    const run = (a: unknown) => call("POST", `/crm/v3/objects/contacts/${record}/cards/${card.id}/actions`, { token: t.oauth, body: { userId: t.userId, action: a } });
    const before = await minted(t, card.id, record, action); // as a card view opened before the rotation offered it

    const { clientSecret } = await admin("POST", `/admin/v1/apps/${t.appId}/rotate-secret`, { graceSeconds: 60 });
    const res = await run(before);
    expect(res.status, res.text).toBe(200);
    const [req] = await received(hookPath);
    expect(await verifySignature({ method: req!.method, uri: req!.url, body: req!.body, headers: req!.headers, secret: clientSecret })).toEqual({ ok: true, version: "v3" });

    const again = await admin("POST", `/admin/v1/apps/${t.appId}/rotate-secret`, { graceSeconds: 0 });
    const stale = await minted(t, card.id, record, action, { secret: clientSecret });
    expectError(await run(stale), 400, "VALIDATION_ERROR");
    expect((await run(await minted(t, card.id, record, action, { secret: again.clientSecret }))).status).toBe(200);
  });

  it("graceSeconds 0 refuses the old secret at once; the default grace is one day", async () => {
    const t = await tenant();
    const now = await call("POST", `/admin/v1/apps/${t.appId}/rotate-secret`, { token: ADMIN, body: { graceSeconds: 0 } });
    expect(now.json.previousSecretExpiresAt).toBeNull();
    expect((await refreshWith(t, t.clientSecret)).status).toBe(400);
    expect((await refreshWith(t, now.json.clientSecret)).status).toBe(200);
    const before = Date.now();
    const byDefault = await call("POST", `/admin/v1/apps/${t.appId}/rotate-secret`, { token: ADMIN, body: {} });
    expect(byDefault.json.previousSecretExpiresAt).toBeGreaterThanOrEqual(before + 86_400_000);
    expect((await refreshWith(t, now.json.clientSecret)).status).toBe(200); // the previous one, in its grace period
    expect((await refreshWith(t, t.clientSecret)).status).toBe(400); // only one previous secret is kept
  });

  it.each([
    ["a negative grace", { graceSeconds: -1 }, "graceSeconds"],
    ["a fractional grace", { graceSeconds: 1.5 }, "graceSeconds"],
    ["a grace over 30 days", { graceSeconds: 30 * 86_400 + 1 }, "graceSeconds"],
    ["a string grace", { graceSeconds: "60" }, "graceSeconds"],
  ])("refuses %s with a 400 naming the field, and keeps the secret", async (_name, body, field) => {
    const t = await tenant();
    const err = expectError(await call("POST", `/admin/v1/apps/${t.appId}/rotate-secret`, { token: ADMIN, body }), 400, "VALIDATION_ERROR");
    expect(err.errors[0].context.propertyName).toEqual([field]);
    expect((await refreshWith(t, t.clientSecret)).status).toBe(200);
  });

  it("an unknown app is a 404; account and developer credentials cannot rotate a secret", async () => {
    const t = await tenant();
    expectError(await call("POST", "/admin/v1/apps/999999999/rotate-secret", { token: ADMIN, body: {} }), 404, "OBJECT_NOT_FOUND");
    for (const token of [t.developerKey, t.oauth, t.pat]) {
      expectError(await call("POST", `/admin/v1/apps/${t.appId}/rotate-secret`, { token, body: {} }), 401, "INVALID_AUTHENTICATION");
    }
    expect((await refreshWith(t, t.clientSecret)).status).toBe(200);
  });
});

describe("users", () => {
  it("DELETE ends the user's sessions and the user can no longer sign in", async () => {
    const t = await tenant();
    const browser = await signIn(t);
    const res = await call("DELETE", `/admin/v1/accounts/${t.portalId}/users/${t.userId}`, { token: ADMIN });
    expect(res.status, res.text).toBe(204);
    const home = await call("GET", "/app", { headers: { cookie: browser.cookie } });
    expect(home.status).toBe(302);
    expect(home.headers.get("location")).toMatch(/^\/login/);
    expect((await login(t.userEmail)).status).toBe(401);
    expectError(await call("DELETE", `/admin/v1/accounts/${t.portalId}/users/${t.userId}`, { token: ADMIN }), 404, "OBJECT_NOT_FOUND");
  });

  it("POST .../password sets a new password and ends the user's sessions", async () => {
    const t = await tenant();
    const browser = await signIn(t);
    const res = await call("POST", `/admin/v1/accounts/${t.portalId}/users/${t.userId}/password`, { token: ADMIN, body: { password: "a brand new passphrase" } });
    expect(res.status, res.text).toBe(204);
    expect((await call("GET", "/app", { headers: { cookie: browser.cookie } })).status).toBe(302);
    expect((await login(t.userEmail)).status).toBe(401);
    expect((await login(t.userEmail, "a brand new passphrase")).status).toBe(303);
  });

  it("another account's user is a 404 that changes nothing", async () => {
    const a = await tenant();
    const b = await tenant();
    expectError(await call("DELETE", `/admin/v1/accounts/${b.portalId}/users/${a.userId}`, { token: ADMIN }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("POST", `/admin/v1/accounts/${b.portalId}/users/${a.userId}/password`, { token: ADMIN, body: { password: "long enough!" } }), 404, "OBJECT_NOT_FOUND");
    expect((await login(a.userEmail)).status).toBe(303);
  });

  it.each([
    ["a short password", { password: "seven77" }, "password"],
    ["no password", {}, "password"],
    ["a password over 200 characters", { password: "x".repeat(201) }, "password"],
    ["a numeric password", { password: 12345678 }, "password"],
  ])("refuses %s with a 400 naming the field, and keeps the old password", async (_name, body, field) => {
    const t = await tenant();
    const err = expectError(await call("POST", `/admin/v1/accounts/${t.portalId}/users/${t.userId}/password`, { token: ADMIN, body }), 400, "VALIDATION_ERROR");
    expect(err.errors[0].context.propertyName).toEqual([field]);
    expect((await login(t.userEmail)).status).toBe(303);
  });

  it("a non-numeric user id is a 400", async () => {
    const t = await tenant();
    expectError(await call("DELETE", `/admin/v1/accounts/${t.portalId}/users/me`, { token: ADMIN }), 400, "VALIDATION_ERROR");
  });
});
