/**
 * Sign-in hardening (security audit of the web sign-in): `next` never leads off the app.
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
