/**
 * Suspending and resuming an account (docs/how-to/account-lifecycle.md "Suspend"): while suspended every credential
 * of the account (OAuth tokens and the token endpoint, private-app tokens, web sign-in and sessions) gets 403
 * in the one error format naming the suspension, and its SMTP credentials are refused; other accounts are
 * unaffected; sync messages accepted before are applied; resuming restores the very same credentials.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { verifySmtpCredentials } from "../../src/services/smtp/tokens";
import { TOKENS } from "../blog/helpers";
import { ADMIN, admin, call, expectError, tenant } from "../helpers/api";
import { refresh } from "../helpers/oauth-flow";
import { signIn } from "../web/helpers";
import { bridgeTenant, deliver, linkRow, qmsg } from "../ecomm/queue-helpers";

const contacts = (token: string) => call("GET", "/crm/v3/objects/contacts?limit=1", { token });
const login = (email: string) =>
  call("POST", "/login", {
    raw: new URLSearchParams({ email, password: "correct horse battery" }).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
const created = async (res: ReturnType<typeof call>) => {
  const r = await res;
  expect(r.status, r.text).toBe(201);
  return r.json;
};
const suspended = (res: Awaited<ReturnType<typeof call>>, portalId: number) =>
  expect(expectError(res, 403, "FORBIDDEN").message).toMatch(new RegExp(`Account ${portalId} is suspended`));

describe("PATCH /admin/v1/accounts/{portalId}", () => {
  it("suspends every credential of the account with a 403 naming the suspension, and resuming restores the same ones", async () => {
    const t = await tenant({ addons: ["transactional-email"] });
    const other = await tenant({ shard: t.shard });
    const browser = await signIn(t);
    const smtp = await created(call("POST", TOKENS, { token: t.oauth, body: { campaignName: "c" } }));
    expect((await verifySmtpCredentials(env, smtp.userName, smtp.password)).ok).toBe(true);
    // Used once before: the isolate has the credentials cached, and the suspension must still take effect.
    expect((await contacts(t.pat)).status).toBe(200);
    expect((await contacts(t.oauth)).status).toBe(200);

    const res = await call("PATCH", `/admin/v1/accounts/${t.portalId}`, { token: ADMIN, body: { status: "suspended" } });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ portalId: t.portalId, status: "suspended", shard: t.shard });
    expect((await admin("GET", `/admin/v1/accounts/${t.portalId}`)).status).toBe("suspended");

    suspended(await contacts(t.pat), t.portalId);
    suspended(await contacts(t.oauth), t.portalId);
    suspended(await call("GET", "/app", { headers: { cookie: browser.cookie } }), t.portalId);
    suspended(await login(t.userEmail), t.portalId);
    const refused = await refresh(t, t.refresh);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ status: "error", category: "FORBIDDEN", message: expect.stringMatching(/is suspended/) });
    expect((await verifySmtpCredentials(env, smtp.userName, smtp.password)).ok).toBe(false);
    // A wrong password is still only a wrong password: the suspension is not revealed before it.
    const wrong = await call("POST", "/login", {
      raw: new URLSearchParams({ email: t.userEmail, password: "not the password" }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(wrong.status).toBe(401);
    // Another account on the same shard is unaffected, and the operator still reads the account.
    expect((await contacts(other.pat)).status).toBe(200);
    expect((await contacts(other.oauth)).status).toBe(200);
    expect((await login(other.userEmail)).status).toBe(303);

    const back = await call("PATCH", `/admin/v1/accounts/${t.portalId}`, { token: ADMIN, body: { status: "active" } });
    expect(back.json).toMatchObject({ status: "active" });
    expect((await contacts(t.pat)).status).toBe(200);
    expect((await contacts(t.oauth)).status).toBe(200);
    expect((await call("GET", "/app", { headers: { cookie: browser.cookie } })).status).toBe(200);
    expect((await login(t.userEmail)).status).toBe(303);
    expect((await refresh(t, t.refresh)).status).toBe(200);
    expect((await verifySmtpCredentials(env, smtp.userName, smtp.password)).ok).toBe(true);
  });

  it("applies sync messages accepted before the suspension", async () => {
    const { t, origin } = await bridgeTenant();
    const msg = qmsg(origin, "PRODUCT", { externalObjectId: "p-before", changedAt: 1000, properties: { title: "Accepted" } });
    await admin("PATCH", `/admin/v1/accounts/${t.portalId}`, { status: "suspended" });
    const settled = await deliver([msg]);
    expect(settled.acked(0)).toBe(true);
    expect(await linkRow(origin, "PRODUCT", "p-before")).toMatchObject({ message_id: msg.id });
    // New messages are refused at the door: the integrator's credentials are suspended.
    suspended(await call("PUT", `/extensions/ecomm/v2/sync/messages`, { token: t.oauth, body: { storeId: origin.storeId, objectType: "PRODUCT", messages: [] } }), t.portalId);
  });

  it.each([
    ["deleting", { status: "deleting" }],
    ["an unknown status", { status: "paused" }],
    ["the wrong case", { status: "SUSPENDED" }],
    ["no status", {}],
    ["a number", { status: 1 }],
  ])("refuses %s with a 400 naming the field", async (_name, body) => {
    const t = await tenant();
    const err = expectError(await call("PATCH", `/admin/v1/accounts/${t.portalId}`, { token: ADMIN, body }), 400, "VALIDATION_ERROR");
    expect(err.errors[0].context.propertyName).toEqual(["status"]);
    expect((await admin("GET", `/admin/v1/accounts/${t.portalId}`)).status).toBe("active");
  });

  it.each([
    ["a non-numeric id", "/admin/v1/accounts/abc", 400],
    ["id 0", "/admin/v1/accounts/0", 400],
    ["an unknown account", "/admin/v1/accounts/999999999", 404],
  ])("answers %s with the error envelope", async (_name, path, status) => {
    expectError(await call("PATCH", path, { token: ADMIN, body: { status: "suspended" } }), status, status === 400 ? "VALIDATION_ERROR" : "OBJECT_NOT_FOUND");
  });

  it("is the operator's alone: an account's own credentials cannot suspend or resume it", async () => {
    const t = await tenant();
    const other = await tenant();
    for (const token of [t.pat, t.oauth, other.pat, t.developerKey]) {
      expectError(await call("PATCH", `/admin/v1/accounts/${t.portalId}`, { token, body: { status: "suspended" } }), 401, "INVALID_AUTHENTICATION");
    }
    expect((await admin("GET", `/admin/v1/accounts/${t.portalId}`)).status).toBe("active");
  });
});
