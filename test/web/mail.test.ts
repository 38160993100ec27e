/**
 * The sent mail page (/app/mail): the signed-in user's account's mail only, newest first, every value escaped
 * and HTML bodies shown as source, linked from the navigation.
 */
import { describe, expect, it } from "vitest";
import { ADMIN, call, tenant, type Tenant } from "../helpers/api";
import { page, signIn } from "./helpers";

const ADDON = { addons: ["transactional-email"] };

async function sendSmtp(t: Tenant, subject: string, extra: Record<string, unknown> = {}) {
  const token = await call("POST", "/marketing/v3/transactional/smtp-tokens", { token: t.oauth, body: { createContact: false, campaignName: "c" } });
  const res = await call("POST", "/admin/v1/smtp/messages", {
    token: ADMIN,
    body: { userName: token.json.id, password: token.json.password, from: "shop@example.com", to: ["buyer@example.com"], subject, text: "plain", ...extra },
  });
  expect(res.status, res.text).toBe(201);
  return token.json.id as string;
}

describe("GET /app/mail", () => {
  it("shows the signed-in account's sent mail only, escaped, and is in the navigation", async () => {
    const a = await tenant(ADDON);
    const b = await tenant(ADDON);
    const userName = await sendSmtp(a, `<script>alert("a")</script> order`, { html: `<img src=x onerror="alert(1)">`, bcc: ["audit@example.com"] });
    expect((await call("POST", "/marketing/v3/transactional/single-email/send", { token: a.oauth, body: { emailId: 777, message: { to: "api@example.com" } } })).status).toBe(200);
    await sendSmtp(b, "B's secret subject");

    const res = await page(await signIn(a), "/app/mail");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(res.text).toContain(`<a href="/app/mail" aria-current="page">Sent mail</a>`);
    expect(res.text).toContain("&lt;script&gt;alert(&quot;a&quot;)&lt;/script&gt; order");
    expect(res.text).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(res.text).not.toContain("<script>alert");
    expect(res.text).not.toContain("<img src=x");
    expect(res.text).toContain(userName);
    expect(res.text).toContain("audit@example.com");
    expect(res.text).toContain("Email 777");
    expect(res.text).toContain("api@example.com");
    // Newest first: the HTTP send came after the SMTP mail.
    expect(res.text.indexOf("Email 777")).toBeLessThan(res.text.indexOf("order"));
    expect(res.text).not.toContain("B&#39;s secret subject");
    expect(res.text).not.toContain("secret subject");

    const other = await page(await signIn(b), "/app/mail");
    expect(other.text).toContain("secret subject");
    expect(other.text).not.toContain("api@example.com");
    expect(other.text).not.toContain(userName);
  });

  it("pages older mail, says when there is none, and sends a signed-out visitor to sign in", async () => {
    const t = await tenant(ADDON);
    const b = await signIn(t);
    expect((await page(b, "/app/mail")).text).toContain("No mail sent yet.");
    for (let i = 1; i <= 26; i++) await sendSmtp(t, `mail number ${i};`);
    const first = await page(b, "/app/mail");
    expect(first.text).toContain("mail number 26;");
    expect(first.text).not.toContain("mail number 1;");
    const next = /<a href="\/app\/mail\?after=(\d+)" rel="next">Older<\/a>/.exec(first.text);
    expect(next).not.toBeNull();
    const second = await page(b, `/app/mail?after=${next![1]}`);
    expect(second.text).toContain("mail number 1;");
    expect(second.text).not.toContain("mail number 2;");
    expect(second.text).not.toContain('rel="next"');

    const out = await page(null, "/app/mail");
    expect(out.status).toBe(302);
    expect(out.headers.get("location")).toContain("/login");
    expect((await page(b, "/app/mail?after=x")).status).toBe(400);
  });
});
