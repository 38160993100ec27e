/**
 * Sending mail from outside the Worker: the unmodified @hubspot/api-client's single send, and the local SMTP
 * endpoint of `npm run dev` (scripts/smtp-server.mjs) driven by nodemailer over loopback, with an account's
 * SMTP API token. Both land in the account's sent mail, read back through the operator API.
 */
import { Client } from "@hubspot/api-client";
import { EmailSendStatusViewStatusEnum } from "@hubspot/api-client/lib/codegen/marketing/transactional/models/EmailSendStatusView";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { startSmtpServer } from "../../scripts/smtp-server.mjs";
import { admin, rejection, tenant, workerUrl, type NodeTenant } from "./helpers";

const ADDON = { addons: ["transactional-email"] };

interface SentEmail {
  tokenUserName: string | null;
  from: string | null;
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string | null;
  text: string | null;
  html: string | null;
  emailId: number | null;
  extra: Record<string, unknown> | null;
}
const sentMail = async (t: NodeTenant) => (await admin<{ results: SentEmail[] }>("GET", `/admin/v1/accounts/${t.portalId}/emails`)).results;

async function smtpToken(t: NodeTenant) {
  const client = new Client({ accessToken: t.oauth, basePath: workerUrl() });
  const token = await client.marketing.transactional.publicSMTPTokensApi.createToken({ createContact: false, campaignName: "Receipts" });
  return { userName: token.id, password: token.password! };
}

describe("@hubspot/api-client 14.0.1: marketing.transactional.singleSendApi.sendEmail", () => {
  it("sends, and the answer is the client's EmailSendStatusView", async () => {
    const t = await tenant(ADDON);
    const client = new Client({ accessToken: t.oauth, basePath: workerUrl() });
    const status = await client.marketing.transactional.singleSendApi.sendEmail({
      emailId: 31337,
      message: { to: "buyer@example.com", _from: "shop@example.com", sendId: "order-42", cc: ["boss@example.com"], replyTo: ["help@example.com"] },
      contactProperties: { firstname: "Ada" },
      customProperties: { orderNumber: 42 },
    });
    expect(status.status).toBe(EmailSendStatusViewStatusEnum.Complete);
    expect(status.statusId).toMatch(/^\d+$/);
    expect(status.requestedAt).toBeInstanceOf(Date);
    expect(status.sendResult).toBe("SENT");
    expect(await sentMail(t)).toEqual([
      expect.objectContaining({
        tokenUserName: null,
        from: "shop@example.com",
        to: ["buyer@example.com"],
        cc: ["boss@example.com"],
        emailId: 31337,
        extra: { replyTo: ["help@example.com"], sendId: "order-42", contactProperties: { firstname: "Ada" }, customProperties: { orderNumber: 42 } },
      }),
    ]);
  });

  it("rejects an account without the add-on with 403, and sends nothing", async () => {
    const t = await tenant();
    const client = new Client({ accessToken: t.oauth, basePath: workerUrl() });
    const err = await rejection<{ code: number }>(client.marketing.transactional.singleSendApi.sendEmail({ emailId: 1, message: { to: "a@example.com" } }));
    expect(err.code).toBe(403);
    expect(await sentMail(t)).toEqual([]);
  });
});

describe("the local SMTP endpoint (scripts/smtp-server.mjs) with nodemailer", () => {
  let server: Awaited<ReturnType<typeof startSmtpServer>>;
  beforeAll(async () => {
    server = await startSmtpServer({ apiBase: workerUrl(), adminToken: inject("adminToken"), port: 0 });
  });
  afterAll(async () => {
    await server?.close();
  });
  const transport = (auth: { user: string; pass: string }) =>
    nodemailer.createTransport({ host: "127.0.0.1", port: server.port, secure: false, ignoreTLS: true, auth, connectionTimeout: 10_000 });

  it("records mail sent with an account's token in that account, blind copies included", async () => {
    const t = await tenant(ADDON);
    const other = await tenant(ADDON);
    const token = await smtpToken(t);
    const info = await transport({ user: token.userName, pass: token.password }).sendMail({
      from: '"Shop" <shop@example.com>',
      to: "buyer@example.com",
      cc: "boss@example.com",
      bcc: "audit@example.com",
      subject: "Your order <42>",
      text: "Thanks for your order.",
      html: "<p>Thanks for your <b>order</b>.</p>",
    });
    expect(info.response).toMatch(/^250 /);
    expect(await sentMail(t)).toEqual([
      expect.objectContaining({
        tokenUserName: token.userName,
        from: "shop@example.com",
        to: ["buyer@example.com"],
        cc: ["boss@example.com"],
        bcc: ["audit@example.com"],
        subject: "Your order <42>",
        text: "Thanks for your order.",
        html: "<p>Thanks for your <b>order</b>.</p>",
        emailId: null,
      }),
    ]);
    expect(await sentMail(other)).toEqual([]);
  });

  it("refuses a wrong password, and the old one after a reset, with 535 and records nothing", async () => {
    const t = await tenant(ADDON);
    const token = await smtpToken(t);
    const mail = { from: "shop@example.com", to: "buyer@example.com", subject: "s", text: "t" };
    const wrong = await rejection<{ responseCode: number }>(transport({ user: token.userName, pass: `${token.password}x` }).sendMail(mail));
    expect(wrong.responseCode).toBe(535);

    const client = new Client({ accessToken: t.oauth, basePath: workerUrl() });
    const reset = await client.marketing.transactional.publicSMTPTokensApi.resetPassword(token.userName);
    const old = await rejection<{ responseCode: number }>(transport({ user: token.userName, pass: token.password }).sendMail(mail));
    expect(old.responseCode).toBe(535);
    expect(await sentMail(t)).toEqual([]);

    await transport({ user: token.userName, pass: reset.password! }).sendMail(mail);
    expect(await sentMail(t)).toHaveLength(1);
  });

  it("refuses mail without AUTH", async () => {
    const t = await tenant(ADDON);
    const plain = nodemailer.createTransport({ host: "127.0.0.1", port: server.port, secure: false, ignoreTLS: true });
    const err = await rejection<{ responseCode: number }>(plain.sendMail({ from: "a@example.com", to: "b@example.com", text: "x" }));
    expect(err.responseCode).toBe(530);
    expect(await sentMail(t)).toEqual([]);
  });
});
