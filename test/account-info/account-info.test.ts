/**
 * `/account-info/v3` (docs/reference/account-info.md): the settings the operator sets, the UTC offset of the
 * time zone now (daylight saving included), and the private apps' requests today from the usage data, read
 * through the Analytics Engine SQL API (played by the local integrator).
 */
import { describe, expect, it } from "vitest";
import { admin, call, expectError, tenant } from "../helpers/api";
import { callWithEnv } from "../cards/helpers";
import { integratorPath, integratorUrl, received, script } from "../helpers/integrator";
import { localDay } from "../../src/services/account-info/details";
import { utcOffset } from "../../src/lib/zones";

describe("GET /account-info/v3/details", () => {
  it("answers the defaults, then what the operator sets", async () => {
    const t = await tenant();
    const res = await call("GET", "/account-info/v3/details", { token: t.pat });
    expect(res.json).toEqual({
      portalId: t.portalId,
      accountType: "STANDARD",
      timeZone: "UTC",
      companyCurrency: "USD",
      additionalCurrencies: [],
      utcOffset: "+00:00",
      utcOffsetMilliseconds: 0,
      uiDomain: "crm.test",
      dataHostingLocation: "na1",
    });
    const patched = await admin("PATCH", `/admin/v1/accounts/${t.portalId}`, { timeZone: "Asia/Kolkata", companyCurrency: "EUR", additionalCurrencies: ["GBP"], accountType: "SANDBOX" });
    expect(patched).toMatchObject({ status: "active", timeZone: "Asia/Kolkata", companyCurrency: "EUR", additionalCurrencies: ["GBP"], accountType: "SANDBOX" });
    const after = await call("GET", "/account-info/v3/details", { token: t.oauth });
    expect(after.json).toMatchObject({ accountType: "SANDBOX", timeZone: "Asia/Kolkata", companyCurrency: "EUR", additionalCurrencies: ["GBP"], utcOffset: "+05:30", utcOffsetMilliseconds: 19_800_000 });
  });

  it("an account made with settings has them; the offset follows daylight saving", async () => {
    const acct = await admin("POST", "/admin/v1/accounts", { name: "tz", timeZone: "US/Eastern", accountType: "DEVELOPER_TEST" });
    expect(acct).toMatchObject({ portalId: expect.any(Number) });
    expect(await admin("GET", `/admin/v1/accounts/${acct.portalId}`)).toMatchObject({ timeZone: "US/Eastern", accountType: "DEVELOPER_TEST", companyCurrency: "USD" });
    expect(utcOffset("US/Eastern", Date.parse("2026-01-15T12:00:00Z"))).toEqual({ utcOffset: "-05:00", utcOffsetMilliseconds: -18_000_000 });
    expect(utcOffset("US/Eastern", Date.parse("2026-07-15T12:00:00Z"))).toEqual({ utcOffset: "-04:00", utcOffsetMilliseconds: -14_400_000 });
    // The day of 8 March 2026 in New York has 23 hours (clocks go forward).
    const day = localDay("America/New_York", Date.parse("2026-03-08T12:00:00Z"));
    expect(new Date(day.start).toISOString()).toBe("2026-03-08T05:00:00.000Z");
    expect(new Date(day.end).toISOString()).toBe("2026-03-09T04:00:00.000Z");
  });

  it.each([
    ["an unknown time zone", { timeZone: "Mars/Olympus" }, "timeZone"],
    ["a currency that is not ISO 4217", { companyCurrency: "usd" }, "companyCurrency"],
    ["an unknown additional currency", { additionalCurrencies: ["XYZ"] }, "additionalCurrencies.0"],
    ["an unknown account type", { accountType: "PREMIUM" }, "accountType"],
    ["nothing to change", {}, "status"],
  ])("operator PATCH: %s is a 400 naming it", async (_n, body, field) => {
    const t = await tenant();
    const res = expectError(await call("PATCH", `/admin/v1/accounts/${t.portalId}`, { token: "test-admin-token", body }), 400, "VALIDATION_ERROR");
    expect(res.errors[0].context.propertyName).toEqual([field]);
    expect((await call("GET", "/account-info/v3/details", { token: t.pat })).json.timeZone).toBe("UTC");
  });

  it("answers the caller's own account only", async () => {
    const a = await tenant();
    const b = await tenant();
    expect((await call("GET", "/account-info/v3/details", { token: b.pat })).json.portalId).toBe(b.portalId);
    expect((await call("GET", "/account-info/v3/details", { token: a.oauth })).json.portalId).toBe(a.portalId);
  });
});

describe("GET /account-info/v3/api-usage/daily/private-apps", () => {
  it("without analytics access: FAILED with 0, the limit the rate limit allows in a day and the next local midnight", async () => {
    const t = await tenant({ rateLimit: 100 });
    const res = await call("GET", "/account-info/v3/api-usage/daily/private-apps", { token: t.pat });
    expect(res.json.results).toEqual([
      { name: "private-apps-api-calls-daily", usageLimit: 864_000, currentUsage: 0, collectedAt: expect.any(String), fetchStatus: "FAILED", resetsAt: expect.stringMatching(/T00:00:00\.000Z$/) },
    ]);
  });

  it("sums the account's private-app requests since its local midnight from one SQL API query", async () => {
    const t = await tenant();
    await admin("PATCH", `/admin/v1/accounts/${t.portalId}`, { timeZone: "Asia/Tokyo" });
    const path = integratorPath("ae-usage");
    await script(path, { status: 200, body: JSON.stringify({ meta: [{ name: "requests" }], data: [{ requests: "1234" }] }), headers: { "content-type": "application/json" } });
    const res = await callWithEnv({ USAGE_SQL_URL: `${integratorUrl()}${path}`, USAGE_SQL_TOKEN: "analytics-read-token" }, "GET", "/account-info/v3/api-usage/daily/private-apps", { token: t.pat });
    expect(res.json.results[0]).toMatchObject({ currentUsage: 1234, fetchStatus: "SUCCESS", resetsAt: expect.stringMatching(/T15:00:00\.000Z$/) });
    const [sent] = await received(path);
    expect(sent!.body).toContain(`index1 = '${t.portalId}'`);
    expect(sent!.body).toContain("blob4 = 'private_app'");
  });
});
