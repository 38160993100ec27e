/**
 * Sign-in hardening (security audit of the web sign-in): `next` never leads off the app, and a sign-in
 * form posted by another site is refused (login CSRF).
 */
import { describe, expect, it } from "vitest";
import { BASE, call, tenant } from "../helpers/api";

const PASSWORD = "correct horse battery";

function login(fields: Record<string, string>, headers: Record<string, string> = {}) {
  return call("POST", "/login", {
    raw: new URLSearchParams(fields).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
  });
}

/** The error line of the sign-in page. */
const alertOf = (html: string) => /<p class="error" role="alert">([^<]*)<\/p>/.exec(html)?.[1];

describe("where sign-in returns to (next)", () => {
  it.each([
    ["/\\evil.example/x"],
    ["/\\evil.example"],
    ["/\t/evil.example/x"],
    ["/%09/evil.example/x"],
    ["/%5C%5Cevil.example"],
    ["https://evil.example/app"],
    ["//evil.example/app"],
    ["///evil.example/app"],
    ["\\\\evil.example/app"],
    ["/\n/evil.example/app"],
    ["http://crm.test/app"], // this host, another origin (scheme)
    ["https://crm.test:8443/app"],
    ["javascript:alert(1)"],
    ["/app/../../evil.example"],
    ["/app/../..//evil.example"],
    ["/login"],
    ["/logout"],
    ["/admin/v1/accounts"],
    ["/application"],
    ["/oauth/v1/token"],
  ])("next=%j lands on /app", async (next) => {
    const t = await tenant();
    const res = await login({ email: t.userEmail, password: PASSWORD, next });
    expect(res.status, res.text).toBe(303);
    expect(res.headers.get("location")).toBe("/app");
    // The sign-in page does not carry it into its form either.
    const form = await call("GET", `/login?next=${encodeURIComponent(next)}`);
    expect(form.text).toContain('name="next" value="/app"');
  });

  it("the OAuth consent page, with its query, is returned to (the consent flow's own next)", async () => {
    const t = await tenant();
    const q = new URLSearchParams({ client_id: t.clientId, redirect_uri: "https://app.example.com/callback", scope: "oauth crm.objects.contacts.read", state: "s 1" });
    const authorize = await call("GET", `/oauth/authorize?${q}`);
    expect(authorize.status).toBe(302);
    const loginUrl = new URL(authorize.headers.get("location")!, BASE);
    const next = loginUrl.searchParams.get("next")!;
    expect(next).toBe(`/oauth/authorize?${q}`);
    const form = await call("GET", `${loginUrl.pathname}${loginUrl.search}`);
    expect(form.text).toContain(`name="next" value="${next.replace(/&/g, "&amp;")}"`);
    const res = await login({ email: t.userEmail, password: PASSWORD, next });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(next);
  });

  it.each(["/app", "/app/contacts?q=ada%20l&after=5", "/app/deals/12", "/app/stores", `${BASE}/app/tickets/3`])("next=%s is returned to as a path", async (next) => {
    const t = await tenant();
    const res = await login({ email: t.userEmail, password: PASSWORD, next });
    expect(res.headers.get("location")).toBe(next.replace(BASE, ""));
  });
});

describe("login CSRF: a sign-in form posted by another site", () => {
  it.each([
    ["a foreign Origin", { origin: "https://evil.example" }],
    ["Origin null (sandboxed or opaque)", { origin: "null" }],
    ["this host on another scheme", { origin: "http://crm.test" }],
    ["Sec-Fetch-Site: cross-site", { "sec-fetch-site": "cross-site" }],
    ["Sec-Fetch-Site: same-site (a sibling host)", { "sec-fetch-site": "same-site" }],
    ["Sec-Fetch-Site: cross-site with a forged same Origin", { "sec-fetch-site": "cross-site", origin: BASE }],
  ])("%s → 403, no session cookie", async (_name, headers) => {
    const t = await tenant();
    const res = await login({ email: t.userEmail, password: PASSWORD, next: "/app" }, headers);
    expect(res.status).toBe(403);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(res.headers.get("location")).toBeNull();
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(alertOf(res.text)).toContain("sent from another site");
  });

  it.each([
    ["this origin, as a browser sends it", { origin: BASE, "sec-fetch-site": "same-origin" }],
    ["Origin only", { origin: BASE }],
    ["Sec-Fetch-Site only", { "sec-fetch-site": "same-origin" }],
    ["neither header (not a browser)", {}],
  ])("%s → signed in", async (_name, headers) => {
    const t = await tenant();
    const res = await login({ email: t.userEmail, password: PASSWORD }, headers);
    expect(res.status).toBe(303);
    expect(res.headers.get("set-cookie")).toMatch(/^crm_session=/);
  });

  it("a refused cross-site post is not counted as a failed sign-in", async () => {
    const t = await tenant();
    for (let i = 0; i < 11; i++) {
      expect((await login({ email: t.userEmail, password: "guess" }, { origin: "https://evil.example" })).status).toBe(403);
    }
    expect((await login({ email: t.userEmail, password: PASSWORD })).status).toBe(303);
  });
});
