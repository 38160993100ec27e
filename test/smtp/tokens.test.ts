/** SMTP API tokens: one-time passwords, add-on and credential rules. */
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { verifySmtpCredentials } from "../../src/services/smtp/tokens";
import { call, expectError, tenant, type Tenant } from "../helpers/api";
import { SMTP_TOKEN_CREATED, SMTP_TOKEN_LISTED, SMTP_TOKEN_RESET } from "../fixtures/legacy-shapes";
import { expectShape, TOKENS } from "../blog/helpers";
import { accountD1 } from "../helpers/shards";

const ADDON = { addons: ["transactional-email"] };

async function createToken(t: Tenant, body: Record<string, unknown> = {}) {
  const res = await call("POST", TOKENS, { token: t.oauth, body: { createContact: true, campaignName: "Transactional", createdBy: "ops@example.com", ...body } });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

const encoded = (userName: string) => encodeURIComponent(userName); // `@` → `%40`, as clients send it

afterEach(() => vi.restoreAllMocks());

describe("POST /email/public/v1/smtpapi/tokens", () => {
  it("creates a token and reveals its password once (201)", async () => {
    const t = await tenant(ADDON);
    const token = await createToken(t);
    expect(token).toMatchObject({
      portalId: t.portalId,
      campaignName: "Transactional",
      createdBy: "ops@example.com",
      appId: t.appId,
      deleted: false,
      passwordHash: null,
    });
    expect(token.userName).toMatch(new RegExp(`^[a-z0-9]{10}@${t.portalId}\\.smtp\\.crm-edge\\.local$`));
    expect(token.password).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(Number.isInteger(token.emailCampaignId)).toBe(true);
    expect(typeof token.createdAt).toBe("number");
    // The documented create and reset shapes: every key, same JSON types (passwordHash is null in the reset one).
    expectShape(token, SMTP_TOKEN_CREATED);
    expectShape(token, SMTP_TOKEN_RESET);
    expect((await verifySmtpCredentials(env, token.userName, token.password)).ok).toBe(true);
  });

  it("accepts the documented request body (no createContact) and defaults createdBy", async () => {
    const t = await tenant(ADDON);
    // The documented request carries createdBy and campaignName only (test/traffic/content-replays.test.ts
    // sends the documented example itself).
    const res = await call("POST", TOKENS, { token: t.oauth, body: { createdBy: "ops@example.com", campaignName: "Receipts" } });
    expect(res.status, res.text).toBe(201);
    expect(res.json.createdBy).toBe("ops@example.com");
    const noCreatedBy = await call("POST", TOKENS, { token: t.oauth, body: { campaignName: "x" } });
    expect(noCreatedBy.json.createdBy).toBe(`app-${t.appId}`); // the test install carries no user
    const check = await verifySmtpCredentials(env, noCreatedBy.json.userName, noCreatedBy.json.password);
    expect(check).toMatchObject({ ok: true, createContact: false, portalId: t.portalId });
  });

  it("never stores the password in clear", async () => {
    const t = await tenant(ADDON);
    const token = await createToken(t);
    const row = await (await accountD1(t.portalId)).prepare("select * from smtp_tokens where user_name = ?").bind(token.userName).first<Record<string, unknown>>();
    expect(row).not.toBeNull();
    expect(String(row!.password_hash)).toMatch(/^pbkdf2\$100000\$/);
    for (const value of Object.values(row!)) expect(String(value)).not.toContain(token.password);
  });

  it("issues a different userName and password each time", async () => {
    const t = await tenant(ADDON);
    const a = await createToken(t);
    const b = await createToken(t);
    expect(a.userName).not.toBe(b.userName);
    expect(a.password).not.toBe(b.password);
    expect((await verifySmtpCredentials(env, a.userName, b.password)).ok).toBe(false);
  });

  it.each([
    ["no campaignName", { createContact: true }, "campaignName"],
    ["empty campaignName", { campaignName: " " }, "campaignName must not be empty"],
    ["createContact not boolean", { campaignName: "x", createContact: "yes" }, "createContact"],
    ["createdBy too long", { campaignName: "x", createdBy: "a".repeat(255) }, "createdBy"],
  ])("rejects %s with 400", async (_label, body, message) => {
    const t = await tenant(ADDON);
    const err = expectError(await call("POST", TOKENS, { token: t.oauth, body }), 400, "VALIDATION_ERROR");
    expect(err.message).toContain(message);
  });
});

describe("GET /email/public/v1/smtpapi/tokens", () => {
  it("lists the account's tokens as a bare array, never with passwords", async () => {
    const t = await tenant(ADDON);
    const a = await createToken(t, { campaignName: "A" });
    const b = await createToken(t, { campaignName: "B" });
    const res = await call("GET", TOKENS, { token: t.oauth });
    expect(res.status).toBe(200);
    expect(Array.isArray(res.json)).toBe(true);
    expect(res.json.map((x: { userName: string }) => x.userName)).toEqual([a.userName, b.userName]);
    for (const item of res.json) {
      expectShape(item, SMTP_TOKEN_LISTED);
      expect(Object.keys(item).sort()).toEqual(Object.keys(SMTP_TOKEN_LISTED).sort());
    }
    expect(res.text).not.toContain(a.password);
    expect(res.text).not.toContain(b.password);
    expect(res.text).not.toContain("pbkdf2");
  });

  it("is empty for a new account", async () => {
    const t = await tenant(ADDON);
    expect((await call("GET", TOKENS, { token: t.oauth })).json).toEqual([]);
  });
});

describe("POST /email/public/v1/smtpapi/tokens/:userName/password-reset", () => {
  it("returns a new password; the old one stops working at once", async () => {
    const t = await tenant(ADDON);
    const token = await createToken(t);
    const res = await call("POST", `${TOKENS}/${encoded(token.userName)}/password-reset`, { token: t.oauth });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ userName: token.userName, emailCampaignId: token.emailCampaignId, createdAt: token.createdAt, passwordHash: null });
    expect(res.json.password).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(res.json.password).not.toBe(token.password);
    expectShape(res.json, SMTP_TOKEN_RESET);
    expect((await verifySmtpCredentials(env, token.userName, token.password)).ok).toBe(false);
    expect((await verifySmtpCredentials(env, token.userName, res.json.password)).ok).toBe(true);
    // The list still never shows it.
    expect((await call("GET", TOKENS, { token: t.oauth })).text).not.toContain(res.json.password);
  });

  it("accepts the userName unencoded too", async () => {
    const t = await tenant(ADDON);
    const token = await createToken(t);
    expect((await call("POST", `${TOKENS}/${token.userName}/password-reset`, { token: t.oauth })).status).toBe(200);
  });

  it("answers 404 for an unknown userName, without a password in the body", async () => {
    const t = await tenant(ADDON);
    const res = await call("POST", `${TOKENS}/nobody%40${t.portalId}.smtp.crm-edge.local/password-reset`, { token: t.oauth });
    const err = expectError(res, 404, "OBJECT_NOT_FOUND");
    expect(err).not.toHaveProperty("password");
  });

  it("answers 400 for a userName that is not valid URL encoding", async () => {
    const t = await tenant(ADDON);
    const err = expectError(await call("POST", `${TOKENS}/abc%E0%A4%A/password-reset`, { token: t.oauth }), 400, "VALIDATION_ERROR");
    expect(err.message).toContain("userName");
  });
});

describe("DELETE /email/public/v1/smtpapi/tokens/:userName", () => {
  it("deletes a token (204): it leaves the list and can no longer authenticate or be reset", async () => {
    const t = await tenant(ADDON);
    const keep = await createToken(t);
    const token = await createToken(t);
    const res = await call("DELETE", `${TOKENS}/${encoded(token.userName)}`, { token: t.oauth });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    const list = await call("GET", TOKENS, { token: t.oauth });
    expect(list.json.map((x: { userName: string }) => x.userName)).toEqual([keep.userName]);
    expect((await verifySmtpCredentials(env, token.userName, token.password)).ok).toBe(false);
    expectError(await call("POST", `${TOKENS}/${encoded(token.userName)}/password-reset`, { token: t.oauth }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("DELETE", `${TOKENS}/${encoded(token.userName)}`, { token: t.oauth }), 404, "OBJECT_NOT_FOUND");
    expect((await verifySmtpCredentials(env, keep.userName, keep.password)).ok).toBe(true);
  });
});

describe("verifySmtpCredentials", () => {
  it("accepts only the current password of a live token", async () => {
    const t = await tenant(ADDON);
    const token = await createToken(t);
    const ok = await verifySmtpCredentials(env, token.userName.toUpperCase(), token.password);
    expect(ok).toEqual({ ok: true, portalId: t.portalId, userName: token.userName, emailCampaignId: token.emailCampaignId, createContact: true });
    expect(await verifySmtpCredentials(env, token.userName, `${token.password}x`)).toEqual({ ok: false });
    expect(await verifySmtpCredentials(env, token.userName, "")).toEqual({ ok: false });
    expect(await verifySmtpCredentials(env, `nobody@${t.portalId}.smtp.crm-edge.local`, token.password)).toEqual({ ok: false });
  });
});

describe("SMTP API tokens: credentials, add-on and isolation", () => {
  const routes = (userName: string): [string, string, unknown?][] => [
    ["POST", TOKENS, { campaignName: "x" }],
    ["GET", TOKENS],
    ["POST", `${TOKENS}/${encodeURIComponent(userName)}/password-reset`],
    ["DELETE", `${TOKENS}/${encodeURIComponent(userName)}`],
  ];

  it("require an OAuth access token with the transactional-email scope", async () => {
    const t = await tenant(ADDON);
    const token = await createToken(t);
    const noScope = await tenant({ ...ADDON, scopes: ["content", "contacts"] });
    for (const [method, path, body] of routes(token.userName)) {
      expectError(await call(method, path, { body }), 401, "INVALID_AUTHENTICATION");
      // OAuth only: a private app token or the developer key is refused even with the scope.
      expectError(await call(method, path, { body, token: t.pat }), 403, "FORBIDDEN");
      expectError(await call(method, path, { body, token: t.developerKey }), 403, "FORBIDDEN");
      const err = expectError(await call(method, path, { body, token: noScope.oauth }), 403, "MISSING_SCOPES");
      expect(err.errors[0].context.requiredScopes).toEqual(["transactional-email"]);
    }
    expect((await verifySmtpCredentials(env, token.userName, token.password)).ok).toBe(true);
  });

  it("require the transactional email add-on (403 otherwise)", async () => {
    const t = await tenant(); // no add-on
    for (const [method, path, body] of routes(`x@${t.portalId}.smtp.crm-edge.local`)) {
      const err = expectError(await call(method, path, { body, token: t.oauth }), 403, "FORBIDDEN");
      expect(err.message).toContain("add-on");
    }
    const rows = await (await accountD1(t.portalId)).prepare("select count(*) as n from smtp_tokens where portal_id = ?").bind(t.portalId).first<{ n: number }>();
    expect(rows!.n).toBe(0);
  });

  it("keep each account's tokens to itself (404, nothing changes)", async () => {
    const a = await tenant(ADDON);
    const b = await tenant(ADDON);
    const token = await createToken(a);
    expect((await call("GET", TOKENS, { token: b.oauth })).json).toEqual([]);
    for (const [method, path] of routes(token.userName).slice(2)) {
      const res = await call(method, path, { token: b.oauth });
      expectError(res, 404, "OBJECT_NOT_FOUND");
    }
    expect((await verifySmtpCredentials(env, token.userName, token.password)).ok).toBe(true);
    expect((await call("GET", TOKENS, { token: a.oauth })).json).toHaveLength(1);
  });

  it("never write a password to the logs", async () => {
    const t = await tenant(ADDON);
    const spies = (["log", "info", "warn", "error", "debug"] as const).map((m) => vi.spyOn(console, m));
    const token = await createToken(t);
    const reset = await call("POST", `${TOKENS}/${encoded(token.userName)}/password-reset`, { token: t.oauth });
    await call("POST", `${TOKENS}/${encoded(token.userName)}/password-reset`, { token: "bogus" });
    const logged = spies.flatMap((s) => s.mock.calls.map((c) => c.map(String).join(" "))).join("\n");
    expect(logged).not.toContain(token.password);
    expect(logged).not.toContain(reset.json.password);
  });
});
