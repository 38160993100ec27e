/**
 * The security headers set in one place (src/lib/security-headers.ts), one test per kind of answer:
 * `X-Content-Type-Options: nosniff` on all of them; `Referrer-Policy: same-origin` and `Cache-Control:
 * no-store` on the sign-in and consent pages.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, call, tenant } from "../helpers/api";
import { REDIRECT, signIn } from "../helpers/oauth-flow";
import { createPost, page, publish } from "../blog/helpers";

const nosniff = (res: { headers: Headers }) => expect(res.headers.get("x-content-type-options")).toBe("nosniff");
const credentialPage = (res: { headers: Headers }) => {
  nosniff(res);
  expect(res.headers.get("referrer-policy")).toBe("same-origin");
  expect(res.headers.get("cache-control")).toBe("no-store");
};

describe("security headers", () => {
  it("JSON answers carry nosniff", async () => {
    const t = await tenant();
    const res = await call("GET", "/crm/v3/objects/contacts", { token: t.pat });
    expect(res.status).toBe(200);
    nosniff(res);
  });

  it("error answers and 404s carry nosniff", async () => {
    const missing = await call("GET", "/no/such/route");
    expect(missing.status).toBe(404);
    nosniff(missing);
    const unauthorized = await call("GET", "/crm/v3/objects/contacts");
    expect(unauthorized.status).toBe(401);
    nosniff(unauthorized);
  });

  it("HTML pages of the app and the API reference carry nosniff", async () => {
    const t = await tenant();
    const app = await SELF.fetch(`${BASE}/app`, { headers: { cookie: await signIn(t) }, redirect: "manual" });
    expect(app.status).toBe(200);
    nosniff(app);
    const docs = await call("GET", "/docs");
    expect(docs.status).toBe(200);
    nosniff(docs);
  });

  it("redirects carry nosniff", async () => {
    const res = await call("GET", "/app");
    expect(res.status).toBeGreaterThanOrEqual(300);
    expect(res.status).toBeLessThan(400);
    nosniff(res);
  });

  it.each(["/login", "/login?next=%2Fapp%2Fcontacts"])("the sign-in page %s: nosniff, no referrer, no store", async (path) => {
    const res = await call("GET", path);
    expect(res.status).toBe(200);
    credentialPage(res);
  });

  it("a failed sign-in answer: nosniff, no referrer, no store", async () => {
    const res = await SELF.fetch(`${BASE}/login`, {
      method: "POST",
      body: new URLSearchParams({ email: "nobody@example.com", password: "wrong password" }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
      redirect: "manual",
    });
    expect(res.status).toBeGreaterThanOrEqual(200);
    credentialPage(res);
  });

  it("the consent page (it embeds the CSRF token): nosniff, no referrer, no store", async () => {
    const t = await tenant();
    const q = new URLSearchParams({ client_id: t.clientId, redirect_uri: REDIRECT, scope: "oauth", state: "s" });
    const res = await SELF.fetch(`${BASE}/oauth/authorize?${q}`, { headers: { cookie: await signIn(t) }, redirect: "manual" });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('name="csrf"');
    credentialPage(res);
    // Signed out, the same URL sends the browser to sign in: still not stored, no referrer.
    credentialPage(await SELF.fetch(`${BASE}/oauth/authorize?${q}`, { redirect: "manual" }));
  });

  it("public blog pages carry nosniff", async () => {
    const t = await tenant();
    const post = await createPost(t);
    await publish(t, post.id);
    const res = await page(post.url);
    expect(res.status).toBe(200);
    nosniff(res);
  });

  // Static files are served by Workers static assets before the Worker runs, with public/_headers' nosniff:
  // test/node/static-files.test.ts checks it on every file, as wrangler serves them.
});
