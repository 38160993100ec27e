/**
 * Sent mail: the operator's SMTP submission (what the dev SMTP server and a relay call) and the transactional
 * single send, both recorded per account in sent_emails on the account's own shard.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sendSingle } from "../../src/services/smtp/mail";
import { ADMIN, call, expectError, tenant, type Tenant } from "../helpers/api";
import { integratorPath, integratorUrl, received, script } from "../helpers/integrator";
import { accountD1, accountDb } from "../helpers/shards";

const ADDON = { addons: ["transactional-email"] };
const V3 = "/marketing/v3/transactional/smtp-tokens";
const SEND = "/marketing/v3/transactional/single-email/send";
const MESSAGES = "/admin/v1/smtp/messages";

async function smtpToken(t: Tenant) {
  const res = await call("POST", V3, { token: t.oauth, body: { createContact: false, campaignName: "Receipts" } });
  expect(res.status, res.text).toBe(201);
  return { userName: res.json.id as string, password: res.json.password as string };
}

const mail = (extra: Record<string, unknown> = {}) => ({ from: "shop@example.com", to: ["buyer@example.com"], subject: "Your order", text: "Thanks!", ...extra });
const emails = async (portalId: number) => call("GET", `/admin/v1/accounts/${portalId}/emails`, { token: ADMIN });
const rowCount = async (t: Tenant) =>
  (await (await accountD1(t.portalId)).prepare("select count(*) as n from sent_emails where portal_id = ?").bind(t.portalId).first<number>("n"))!;

describe("POST /admin/v1/smtp/messages", () => {
  it("records mail sent with a good token in the token's account", async () => {
    const t = await tenant(ADDON);
    const token = await smtpToken(t);
    const verified = await call("POST", "/admin/v1/smtp/verify", { token: ADMIN, body: token });
    expect(verified.status, verified.text).toBe(200);
    expect(verified.json).toEqual({ portalId: t.portalId, userName: token.userName });

    const res = await call("POST", MESSAGES, { token: ADMIN, body: { ...token, ...mail({ cc: ["boss@example.com"], html: "<p>Thanks!</p>" }) } });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toEqual({ id: expect.stringMatching(/^\d+$/), status: "COMPLETE" });

    const list = await emails(t.portalId);
    expect(list.status, list.text).toBe(200);
    expect(list.json.results).toEqual([
      expect.objectContaining({
        id: res.json.id,
        portalId: t.portalId,
        tokenUserName: token.userName,
        from: "shop@example.com",
        to: ["buyer@example.com"],
        cc: ["boss@example.com"],
        bcc: [],
        subject: "Your order",
        text: "Thanks!",
        html: "<p>Thanks!</p>",
        emailId: null,
        status: "COMPLETE",
        sendResult: "SENT",
      }),
    ]);
    expect(list.text).not.toContain(token.password);
  });

  it("refuses a wrong password with 401 in the error envelope and stores nothing", async () => {
    const t = await tenant(ADDON);
    const token = await smtpToken(t);
    expectError(await call("POST", MESSAGES, { token: ADMIN, body: { ...token, password: `${token.password}x`, ...mail() } }), 401, "INVALID_AUTHENTICATION");
    expectError(await call("POST", MESSAGES, { token: ADMIN, body: { userName: `nobody@${t.portalId}.smtp.crm-edge.local`, password: token.password, ...mail() } }), 401, "INVALID_AUTHENTICATION");
    expectError(await call("POST", "/admin/v1/smtp/verify", { token: ADMIN, body: { ...token, password: "wrong" } }), 401, "INVALID_AUTHENTICATION");
    expect(await rowCount(t)).toBe(0);
  });

  it("refuses the old password once the token's password is reset", async () => {
    const t = await tenant(ADDON);
    const token = await smtpToken(t);
    const reset = await call("POST", `${V3}/${encodeURIComponent(token.userName)}/password-reset`, { token: t.oauth });
    expect(reset.status).toBe(200);
    expectError(await call("POST", MESSAGES, { token: ADMIN, body: { ...token, ...mail() } }), 401, "INVALID_AUTHENTICATION");
    expect(await rowCount(t)).toBe(0);
    expect((await call("POST", MESSAGES, { token: ADMIN, body: { ...token, password: reset.json.password, ...mail() } })).status).toBe(201);
    expect(await rowCount(t)).toBe(1);
  });

  it("lands another account's token in that account only", async () => {
    const a = await tenant(ADDON);
    const b = await tenant({ ...ADDON, shard: "SHARD_2" });
    const tokenB = await smtpToken(b);
    expect((await call("POST", MESSAGES, { token: ADMIN, body: { ...tokenB, ...mail({ subject: "from B" }) } })).status).toBe(201);
    expect((await emails(a.portalId)).json.results).toEqual([]);
    expect((await emails(b.portalId)).json.results.map((m: { subject: string }) => m.subject)).toEqual(["from B"]);
    expect(await rowCount(a)).toBe(0);
  });

  it("answers bad input with 400 naming the field, an oversized body with 400 or 413, and needs the operator token", async () => {
    const t = await tenant(ADDON);
    const token = await smtpToken(t);
    const noTo = expectError(await call("POST", MESSAGES, { token: ADMIN, body: { ...token, ...mail({ to: [] }) } }), 400, "VALIDATION_ERROR");
    expect(JSON.stringify(noTo)).toContain("to");
    const badFrom = expectError(await call("POST", MESSAGES, { token: ADMIN, body: { ...token, ...mail({ from: "not an address" }) } }), 400, "VALIDATION_ERROR");
    expect(badFrom.message).toContain("from");
    const big = expectError(await call("POST", MESSAGES, { token: ADMIN, body: { ...token, ...mail({ text: "x".repeat(256 * 1024 + 1) }) } }), 400, "VALIDATION_ERROR");
    expect(big.message).toContain("text");
    expectError(await call("POST", MESSAGES, { token: ADMIN, body: { ...token, ...mail({ text: "x".repeat(1024 * 1024 + 1) }) } }), 413, "PAYLOAD_TOO_LARGE");
    expect(await rowCount(t)).toBe(0);
    expect((await call("POST", MESSAGES, { token: t.pat, body: { ...token, ...mail() } })).status).toBe(401);
    expectError(await call("GET", "/admin/v1/accounts/999999999/emails", { token: ADMIN }), 404, "OBJECT_NOT_FOUND");
  });

  it("pages an account's sent mail newest first", async () => {
    const t = await tenant(ADDON);
    const token = await smtpToken(t);
    for (const subject of ["one", "two", "three"]) {
      expect((await call("POST", MESSAGES, { token: ADMIN, body: { ...token, ...mail({ subject }) } })).status).toBe(201);
    }
    const first = await call("GET", `/admin/v1/accounts/${t.portalId}/emails?limit=2`, { token: ADMIN });
    expect(first.json.results.map((m: { subject: string }) => m.subject)).toEqual(["three", "two"]);
    const next = await call("GET", `/admin/v1/accounts/${t.portalId}/emails?limit=2&after=${first.json.paging.next.after}`, { token: ADMIN });
    expect(next.json.results.map((m: { subject: string }) => m.subject)).toEqual(["one"]);
    expect(next.json.paging).toBeUndefined();
  });
});

describe("POST /marketing/v3/transactional/single-email/send", () => {
  const body = {
    emailId: 4242,
    message: { to: "buyer@example.com", from: "shop@example.com", cc: ["boss@example.com"], replyTo: ["help@example.com"], sendId: "order-1001" },
    contactProperties: { firstname: "Ada" },
    customProperties: { orderNumber: 1001 },
  };

  it("records the send and answers 200 with the client's EmailSendStatusView", async () => {
    const t = await tenant(ADDON);
    const res = await call("POST", SEND, { token: t.oauth, body });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({
      statusId: expect.stringMatching(/^\d+$/),
      status: "COMPLETE",
      sendResult: "SENT",
      requestedAt: expect.any(String),
      startedAt: expect.any(String),
      completedAt: expect.any(String),
    });
    expect(new Date(res.json.requestedAt).toISOString()).toBe(res.json.requestedAt);
    const list = (await emails(t.portalId)).json.results;
    expect(list).toEqual([
      expect.objectContaining({
        id: res.json.statusId,
        tokenUserName: null,
        from: "shop@example.com",
        to: ["buyer@example.com"],
        cc: ["boss@example.com"],
        bcc: [],
        emailId: 4242,
        extra: { replyTo: ["help@example.com"], sendId: "order-1001", contactProperties: { firstname: "Ada" }, customProperties: { orderNumber: 1001 } },
        status: "COMPLETE",
      }),
    ]);
    // A private-app token with the scope sends too.
    expect((await call("POST", SEND, { token: t.pat, body: { emailId: 1, message: { to: "x@example.com" } } })).status).toBe(200);
  });

  it("answers bad input with 400 naming the field", async () => {
    const t = await tenant(ADDON);
    const noEmail = expectError(await call("POST", SEND, { token: t.oauth, body: { message: { to: "a@example.com" } } }), 400, "VALIDATION_ERROR");
    expect(noEmail.message).toContain("emailId");
    const noTo = expectError(await call("POST", SEND, { token: t.oauth, body: { emailId: 1, message: {} } }), 400, "VALIDATION_ERROR");
    expect(noTo.message).toContain("message.to");
    const badCc = expectError(await call("POST", SEND, { token: t.oauth, body: { emailId: 1, message: { to: "a@example.com", cc: "b@example.com" } } }), 400, "VALIDATION_ERROR");
    expect(badCc.message).toContain("cc");
    expectError(await call("POST", SEND, { token: t.oauth, raw: "{", headers: { "content-type": "application/json" } }), 400, "VALIDATION_ERROR");
    expect(await rowCount(t)).toBe(0);
  });

  it("needs the transactional-email scope and the add-on (403)", async () => {
    const scoped = await tenant({ ...ADDON, scopes: ["crm.objects.contacts.read"] });
    expectError(await call("POST", SEND, { token: scoped.oauth, body }), 403, "MISSING_SCOPES");
    expectError(await call("POST", SEND, { token: scoped.pat, body }), 403, "MISSING_SCOPES");
    const noAddon = await tenant();
    expectError(await call("POST", SEND, { token: noAddon.oauth, body }), 403, "FORBIDDEN");
    expect(await rowCount(scoped)).toBe(0);
    expect(await rowCount(noAddon)).toBe(0);
    expectError(await call("POST", SEND, { body }), 401, "INVALID_AUTHENTICATION");
  });

  it("keeps account A's mail out of account B's", async () => {
    const a = await tenant(ADDON);
    const b = await tenant({ ...ADDON, shard: a.shard });
    expect((await call("POST", SEND, { token: a.oauth, body })).status).toBe(200);
    expect((await emails(b.portalId)).json.results).toEqual([]);
    expect(await rowCount(b)).toBe(0);
    expect((await emails(a.portalId)).json.results).toHaveLength(1);
  });

  it("hands the mail to EMAIL_RELAY_URL when one is set, and records a refusal as UNDELIVERABLE", async () => {
    const t = await tenant(ADDON);
    const db = await accountDb(t.portalId);
    const path = integratorPath("relay");
    const relayEnv = { ...env, EMAIL_RELAY_URL: `${integratorUrl()}${path}` };
    const input = { emailId: 7, message: { to: "buyer@example.com", sendId: "s-1" } };
    const sent = await sendSingle(relayEnv, db, t.portalId, input, Date.now());
    expect(sent).toMatchObject({ status: "COMPLETE", sendResult: "SENT" });
    const [req] = await received(path);
    expect(req?.method).toBe("POST");
    expect(JSON.parse(req!.body)).toEqual({ id: String(sent.id), portalId: t.portalId, emailId: 7, from: null, to: ["buyer@example.com"], cc: [], bcc: [], sendId: "s-1" });

    await script(path, { status: 503 });
    const refused = await sendSingle(relayEnv, db, t.portalId, input, Date.now());
    expect(refused).toMatchObject({ status: "COMPLETE", sendResult: "UNDELIVERABLE", statusDetail: "relay answered 503" });
    const listed = (await emails(t.portalId)).json.results;
    expect(listed.map((m: { sendResult: string }) => m.sendResult)).toEqual(["UNDELIVERABLE", "SENT"]);
    expect(JSON.stringify(listed)).not.toContain("relay answered");
  });
});
