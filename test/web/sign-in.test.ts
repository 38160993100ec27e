/**
 * Sign-in hardening (security audit of the web sign-in): `next` never leads off the app, a sign-in form
 * posted by another site is refused (login CSRF), and failed sign-ins are throttled per email address and
 * per client address in the real RateLimiter Durable Object, before any password is hashed.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RateLimiter } from "../../src/durable-objects/rate-limiter";
import { sha256Hex } from "../../src/lib/crypto";
import { clientAddress, LOGIN_FAILURES_PER_ADDRESS, LOGIN_FAILURES_PER_EMAIL, LOGIN_WINDOW_MS } from "../../src/lib/login-throttle";
import { admin, BASE, call, tenant, unique } from "../helpers/api";

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
    for (let i = 0; i < LOGIN_FAILURES_PER_EMAIL + 1; i++) {
      expect((await login({ email: t.userEmail, password: "guess" }, { origin: "https://evil.example" })).status).toBe(403);
    }
    expect((await login({ email: t.userEmail, password: PASSWORD })).status).toBe(303);
  });
});

describe("throttled sign-in", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Pins the clock the Worker reads at the start of a fixed window, so a test never straddles two. */
  function freezeAtWindowStart() {
    vi.useFakeTimers({ toFake: ["Date"] });
    const now = Date.now();
    const start = now - (now % LOGIN_WINDOW_MS) + LOGIN_WINDOW_MS;
    vi.setSystemTime(start);
    return start;
  }

  async function fail(email: string, times: number, headers: Record<string, string> = {}) {
    for (let i = 0; i < times; i++) {
      const res = await login({ email, password: `wrong ${i}` }, headers);
      expect(res.status, `failure ${i + 1}`).toBe(401);
      expect(alertOf(res.text)).toBe("Wrong email or password.");
    }
  }

  it(`after ${LOGIN_FAILURES_PER_EMAIL} failures for an email: 429 with Retry-After, even for the right password; another email is unaffected; the window ends`, async () => {
    const start = freezeAtWindowStart();
    const t = await tenant();
    const other = await tenant();
    await fail(t.userEmail, LOGIN_FAILURES_PER_EMAIL);

    const wrong = await login({ email: t.userEmail, password: "wrong again", next: "/app/contacts" });
    expect(wrong.status).toBe(429);
    expect(wrong.headers.get("content-type")).toContain("text/html");
    expect(wrong.headers.get("retry-after")).toBe(String(LOGIN_WINDOW_MS / 1000 + 1));
    expect(alertOf(wrong.text)).toBe("Too many failed sign-ins. Try again in 15 minute(s).");
    expect(wrong.text).toContain('name="next" value="/app/contacts"');

    // The right password is refused too while throttled, and under another spelling of the address.
    const right = await login({ email: ` ${t.userEmail.toUpperCase()} `, password: PASSWORD });
    expect(right.status).toBe(429);
    expect(right.headers.get("set-cookie")).toBeNull();

    expect((await login({ email: other.userEmail, password: PASSWORD })).status).toBe(303);

    vi.setSystemTime(start + LOGIN_WINDOW_MS - 1);
    expect((await login({ email: t.userEmail, password: PASSWORD })).status).toBe(429);
    vi.setSystemTime(start + LOGIN_WINDOW_MS + 1);
    const later = await login({ email: t.userEmail, password: PASSWORD });
    expect(later.status).toBe(303);
    expect(later.headers.get("set-cookie")).toMatch(/^crm_session=/);
  });

  it("throttled attempts are not counted: only the failures are, and they slide out of the window", async () => {
    const start = freezeAtWindowStart();
    const t = await tenant();
    await fail(t.userEmail, LOGIN_FAILURES_PER_EMAIL);
    for (let i = 0; i < 5; i++) expect((await login({ email: t.userEmail, password: "x" })).status).toBe(429);
    const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`login-email:${await sha256Hex(t.userEmail)}`));
    // The rolling window is exact, not approximated: the ten failures, made at `start`, count until a window later.
    expect(await runInDurableObject(stub, (_l: RateLimiter, state) => state.storage.kv.get("log"))).toEqual([[start + LOGIN_WINDOW_MS, LOGIN_FAILURES_PER_EMAIL]]);
    vi.setSystemTime(start + LOGIN_WINDOW_MS - 1);
    expect((await login({ email: t.userEmail, password: "x" })).status).toBe(429);
    // Then all ten slide out together: ten more failures before the next refusal.
    vi.setSystemTime(start + LOGIN_WINDOW_MS);
    await fail(t.userEmail, LOGIN_FAILURES_PER_EMAIL);
    expect((await login({ email: t.userEmail, password: PASSWORD })).status).toBe(429);
  });

  it("a successful sign-in is not counted, and does not erase earlier failures", async () => {
    freezeAtWindowStart();
    const t = await tenant();
    for (let i = 0; i < LOGIN_FAILURES_PER_EMAIL + 5; i++) expect((await login({ email: t.userEmail, password: PASSWORD })).status).toBe(303);
    await fail(t.userEmail, LOGIN_FAILURES_PER_EMAIL - 1);
    expect((await login({ email: t.userEmail, password: PASSWORD })).status).toBe(303);
    await fail(t.userEmail, 1); // the tenth failure: still counted after the success in between
    expect((await login({ email: t.userEmail, password: PASSWORD })).status).toBe(429);
  });

  it("an unknown email is throttled like a known one (no way to tell them apart)", async () => {
    freezeAtWindowStart();
    const email = `${unique("nobody")}@example.com`;
    await fail(email, LOGIN_FAILURES_PER_EMAIL);
    expect((await login({ email, password: "x" })).status).toBe(429);
  });

  it("two users of one address in different accounts share its count (the count is by address)", async () => {
    freezeAtWindowStart();
    const t = await tenant();
    const other = await tenant();
    await admin("POST", `/admin/v1/accounts/${other.portalId}/users`, { email: t.userEmail, password: "another password" });
    await fail(t.userEmail, LOGIN_FAILURES_PER_EMAIL);
    expect((await login({ email: t.userEmail, password: "another password" })).status).toBe(429);
  });

  it(`after ${LOGIN_FAILURES_PER_ADDRESS} failures from one client address (cf-connecting-ip), any email from it is refused; other addresses are not`, async () => {
    const start = freezeAtWindowStart();
    const t = await tenant();
    const ip = `198.51.100.${1 + Math.floor(Math.random() * 250)}`;
    // The address's earlier failures, over many emails (fewer than ten each), filled in directly.
    const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`login-ip:${ip}`));
    await runInDurableObject(stub, (l: RateLimiter) => l.take(LOGIN_FAILURES_PER_ADDRESS, LOGIN_WINDOW_MS, start, LOGIN_FAILURES_PER_ADDRESS - 1));
    await fail(`${unique("spray")}@example.com`, 1, { "cf-connecting-ip": ip }); // the 50th
    const res = await login({ email: t.userEmail, password: PASSWORD }, { "cf-connecting-ip": ip });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    // The refused attempt was not left counted against the email.
    expect((await login({ email: t.userEmail, password: PASSWORD }, { "cf-connecting-ip": "203.0.113.9" })).status).toBe(303);
    expect((await login({ email: t.userEmail, password: PASSWORD })).status).toBe(303);
  });

  it("IPv6 clients are counted by their /64", async () => {
    freezeAtWindowStart();
    const t = await tenant();
    const prefix = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:${Math.floor(Math.random() * 0xffff).toString(16)}`;
    const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`login-ip:${clientAddress(`${prefix}::1`)}`));
    await runInDurableObject(stub, (l: RateLimiter) => l.take(LOGIN_FAILURES_PER_ADDRESS, LOGIN_WINDOW_MS, Date.now(), LOGIN_FAILURES_PER_ADDRESS));
    expect((await login({ email: t.userEmail, password: PASSWORD }, { "cf-connecting-ip": `${prefix}:abcd:ef01:2345:6789` })).status).toBe(429);
    expect((await login({ email: t.userEmail, password: PASSWORD }, { "cf-connecting-ip": "2001:db8:ffff:ffff::1" })).status).toBe(303);
  });

  it.each([
    ["192.0.2.7", "192.0.2.7"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["2001:0DB8:0000:0001:0000:0000:0000:0001", "2001:db8:0:1::/64"],
    ["::1", "0:0:0:0::/64"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["fe80::1%eth0", null],
    ["not an address", null],
    ["", null],
  ])("clientAddress(%j) = %j", (header, expected) => {
    expect(clientAddress(header)).toBe(expected);
  });
});
