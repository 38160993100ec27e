/**
 * A test account's clock (docs/reference/testkit.md "Clock"): the operator moves it forward, and the account's
 * records, tokens, checkouts, scheduled posts and search lag follow it; the due work runs before the answer;
 * DELETE returns to real time; STANDARD accounts get a 409 and their calls read nothing more; other accounts
 * keep real time.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { buildRouter } from "../../src/router";
import { ADMIN, BASE, call, expectError, tenant, unique, type Tenant } from "../helpers/api";
import { createPost, publish, V2 } from "../blog/helpers";
import { bridgeTenant, deliver, linkRow, qmsg, record } from "../ecomm/queue-helpers";
import { deliverWave, type DeliveryDeps } from "../../src/services/webhooks/deliver";
import { WEBHOOK_MESSAGE_VERSION, type WebhookQueueMessage } from "../../src/services/webhooks/message";
import { controlDb } from "../../src/db/shards";
import { loopbackAllowed, outboundResolver } from "../../src/lib/outbound";
import { script } from "../helpers/integrator";
import { deliveries, hookUp, waitFor } from "../webhooks/helpers";
import { recordingD1 } from "./helpers";

const DAY_S = 86_400;
const clock = (t: Tenant) => `/admin/v1/accounts/${t.portalId}/clock`;
const advance = async (t: Tenant, body: unknown) => {
  const res = await call("POST", clock(t), { token: ADMIN, body });
  expect(res.status, res.text).toBe(200);
  return res.json as { now: string; offsetSeconds: number };
};
const testTenant = () => tenant({ accountType: "DEVELOPER_TEST" });
const near = (iso: string, ms: number) => expect(Math.abs(Date.parse(iso) - ms)).toBeLessThan(60_000);

describe("the clock's controls", () => {
  it("GET, POST and DELETE round trip", async () => {
    const t = await testTenant();
    const start = await call("GET", clock(t), { token: ADMIN });
    expect(start.status, start.text).toBe(200);
    expect(start.json.offsetSeconds).toBe(0);
    near(start.json.now, Date.now());

    const moved = await advance(t, { advanceSeconds: 3600 });
    expect(moved.offsetSeconds).toBeGreaterThanOrEqual(3600);
    expect(moved.offsetSeconds).toBeLessThan(3601);
    near(moved.now, Date.now() + 3600_000);

    const target = new Date(Date.now() + 30 * DAY_S * 1000).toISOString();
    const to = await advance(t, { now: target });
    expect(Math.abs(Date.parse(to.now) - Date.parse(target))).toBeLessThan(1000);
    expect((await call("GET", clock(t), { token: ADMIN })).json.offsetSeconds).toBeGreaterThan(29 * DAY_S);

    expect((await call("DELETE", clock(t), { token: ADMIN })).status).toBe(204);
    expect((await call("GET", clock(t), { token: ADMIN })).json.offsetSeconds).toBe(0);
  });

  it.each([
    ["both fields", { advanceSeconds: 1, now: "2030-01-01T00:00:00Z" }, "now"],
    ["neither field", {}, "advanceSeconds"],
    ["a string advanceSeconds", { advanceSeconds: "60" }, "advanceSeconds"],
    ["a negative advanceSeconds", { advanceSeconds: -1 }, "advanceSeconds"],
    ["a now that is not a date-time", { now: "tomorrow" }, "now"],
    ["a now in the past", { now: "2001-01-01T00:00:00Z" }, "now"],
    ["an unknown field", { advanceSecond: 1 }, ""],
  ])("%s is a 400 naming the field", async (_, body, field) => {
    const t = await testTenant();
    const err = expectError(await call("POST", clock(t), { token: ADMIN, body }), 400, "VALIDATION_ERROR");
    expect(err.message).toContain(field);
    expect((await call("GET", clock(t), { token: ADMIN })).json.offsetSeconds).toBe(0);
  });

  it("a now earlier than the account's moved time is a 400: the clock never goes back", async () => {
    const t = await testTenant();
    await advance(t, { advanceSeconds: 2 * DAY_S });
    const err = expectError(await call("POST", clock(t), { token: ADMIN, body: { now: new Date(Date.now() + DAY_S * 1000).toISOString() } }), 400, "VALIDATION_ERROR");
    expect(err.message).toMatch(/^now /);
    expect(err.errors[0].context.propertyName).toEqual(["now"]);
  });

  it.each([["GET"], ["POST"], ["DELETE"]])("%s on a STANDARD account is a 409 naming accountType", async (method) => {
    const t = await tenant();
    const res = await call(method, clock(t), { token: ADMIN, body: method === "POST" ? { advanceSeconds: 1 } : undefined });
    expect(expectError(res, 409, "CONFLICT").message).toContain("accountType STANDARD");
  });

  it("only the operator token: account credentials are refused, an unknown account is a 404", async () => {
    const t = await testTenant();
    expectError(await call("GET", clock(t), { token: t.pat }), 401, "INVALID_AUTHENTICATION");
    expectError(await call("POST", clock(t), { token: t.oauth, body: { advanceSeconds: 1 } }), 401, "INVALID_AUTHENTICATION");
    expectError(await call("DELETE", clock(t)), 401, "INVALID_AUTHENTICATION");
    expectError(await call("GET", "/admin/v1/accounts/999999999/clock", { token: ADMIN }), 404, "OBJECT_NOT_FOUND");
  });
});

describe("what the account does by its clock", () => {
  it("a record created after advancing 30 days is stamped 30 days ahead, on the v3 and v1 faces; another account keeps real time", async () => {
    const t = await testTenant();
    const other = await testTenant();
    await advance(t, { advanceSeconds: 30 * DAY_S });
    const ahead = Date.now() + 30 * DAY_S * 1000;
    const v3 = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { email: `${unique("c")}@example.com` } } });
    expect(v3.status, v3.text).toBe(201);
    near(v3.json.createdAt, ahead);
    near(v3.json.updatedAt, ahead);
    near(v3.json.properties.createdate, ahead);
    near(v3.json.properties.lastmodifieddate, ahead);
    // The install's access token has expired by now (30 days on): the private app token does not expire.
    const v1 = await call("GET", `/contacts/v1/contact/vid/${v3.json.id}/profile`, { token: t.pat });
    expect(v1.status, v1.text).toBe(200);
    expect(Math.abs(Number(v1.json.properties.createdate.value) - ahead)).toBeLessThan(60_000);
    expect(Math.abs(Number(v1.json.properties.lastmodifieddate.value) - ahead)).toBeLessThan(60_000);
    const created = await call("POST", "/contacts/v1/contact", { token: t.pat, body: { properties: [{ property: "email", value: `${unique("v")}@example.com` }] } });
    expect(created.status, created.text).toBe(200);
    expect(Math.abs(Number(created.json.properties.createdate.value) - ahead)).toBeLessThan(60_000);

    const theirs = await call("POST", "/crm/v3/objects/contacts", { token: other.pat, body: { properties: { email: `${unique("o")}@example.com` } } });
    near(theirs.json.createdAt, Date.now());
    // Back to real time: new records are stamped now again.
    expect((await call("DELETE", clock(t), { token: ADMIN })).status).toBe(204);
    const later = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { email: `${unique("c")}@example.com` } } });
    near(later.json.createdAt, Date.now());
  });

  it("an OAuth access token expires once the clock passes its expiry; one issued after the move lives its full time", async () => {
    const t = await testTenant();
    expect((await call("GET", "/crm/v3/objects/contacts?limit=1", { token: t.oauth })).status).toBe(200);
    await advance(t, { advanceSeconds: 1801 });
    const res = await call("GET", "/crm/v3/objects/contacts?limit=1", { token: t.oauth });
    expect(expectError(res, 401, "EXPIRED_AUTHENTICATION").message).toContain("expired");
    expect((await call("GET", `/oauth/v1/access-tokens/${t.oauth}`)).status).toBe(404);

    const form = new URLSearchParams({ grant_type: "refresh_token", client_id: t.clientId, client_secret: t.clientSecret, refresh_token: t.refresh }).toString();
    const refreshed = await call("POST", "/oauth/v1/token", { raw: form, headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(refreshed.status, refreshed.text).toBe(200);
    const fresh = refreshed.json.access_token as string;
    const used = await call("GET", "/crm/v3/objects/contacts?limit=1", { token: fresh });
    expect(used.status, used.text).toBe(200);
    const info = await call("GET", `/oauth/v1/access-tokens/${fresh}`);
    expect(info.json.expires_in).toBeGreaterThan(1700);
    await advance(t, { advanceSeconds: 1801 });
    expectError(await call("GET", "/crm/v3/objects/contacts?limit=1", { token: fresh }), 401, "EXPIRED_AUTHENTICATION");
  });

  it("a scheduled blog post publishes when the clock passes its publish date", async () => {
    const t = await testTenant();
    const due = Date.now() + 2 * DAY_S * 1000;
    const post = await createPost(t, { publish_date: due });
    await publish(t, post.id);
    const get = async () => (await call("GET", `${V2}/blog-posts/${post.id}`, { token: t.pat })).json;
    await advance(t, { advanceSeconds: DAY_S });
    expect((await get()).state).toBe("SCHEDULED");
    await advance(t, { advanceSeconds: DAY_S + 60 });
    expect((await get()).state).toBe("PUBLISHED");
  });

  it("a checkout left pending is abandoned when the clock passes the 24 hours", async () => {
    const { t, origin } = await bridgeTenant();
    expect((await call("PATCH", `/admin/v1/accounts/${t.portalId}`, { token: ADMIN, body: { accountType: "SANDBOX" } })).status).toBe(200);
    const res = await deliver([qmsg(origin, "DEAL", { externalObjectId: "d1", changedAt: Date.now(), properties: { stage: "checkout_pending" } })]);
    expect(res.acked(0)).toBe(true);
    const stage = async () => (await record((await linkRow(origin, "DEAL", "d1"))!.service_id!)).properties.dealstage;
    expect(await stage()).toBe("checkout_pending");
    await advance(t, { advanceSeconds: 23 * 3600 });
    expect(await stage()).toBe("checkout_pending");
    await advance(t, { advanceSeconds: 3600 + 60 });
    expect(await stage()).toBe("checkout_abandoned");
  });

  it("a failed webhook delivery is retried when the clock passes its retry time; the delayed retry that follows is dropped", async () => {
    const t = await testTenant();
    const path = await hookUp(t);
    await script(path, { status: 500, times: 1 });
    await advance(t, { advanceSeconds: 60 });
    // The first attempt, with an hour's retry base: the queue's delayed retry is caught here, never sent.
    const delayed: WebhookQueueMessage[] = [];
    const queue = { sendBatch: async (b: { body: WebhookQueueMessage }[]) => void delayed.push(...b.map((m) => m.body)) } as unknown as Queue;
    const deps: DeliveryDeps = { env, control: controlDb(env), queue, allowLoopback: loopbackAllowed(env), resolver: outboundResolver(env), retryBase: 3600, now: () => Date.now() };
    const eventId = 8_000_000_000 + Math.floor(Math.random() * 1e9);
    const event = { eventId, subscriptionId: 1, portalId: t.portalId, appId: t.appId, occurredAt: Date.now(), subscriptionType: "contact.creation", objectId: eventId, changeSource: "API" };
    expect(await deliverWave([{ v: WEBHOOK_MESSAGE_VERSION, appId: t.appId, deliveryId: null, attempt: 0, events: [event] }], deps)).toEqual(["retry"]);
    expect(delayed).toHaveLength(1);
    expect((await deliveries(path)).length).toBe(1);
    // The retry waits 45 to 75 minutes (an hour, ±25 %): not due 30 minutes on, due 80 minutes on.
    await advance(t, { advanceSeconds: 1800 });
    await new Promise((r) => setTimeout(r, 1500));
    expect((await deliveries(path)).length).toBe(1);
    await advance(t, { advanceSeconds: 3000 });
    const got = await waitFor(path, (d) => d.length >= 2);
    expect(got[1]!.events.map((e) => e.eventId)).toEqual([eventId]);
    // The queue's delayed retry, when it comes, finds that attempt made.
    expect(await deliverWave(delayed, deps)).toEqual(["stale"]);
    await new Promise((r) => setTimeout(r, 500));
    expect((await deliveries(path)).length).toBe(2);
  });

  it("the search lag is measured by the account's clock", async () => {
    const t = await testTenant();
    expect((await call("PATCH", `/admin/v1/accounts/${t.portalId}/quirks`, { token: ADMIN, body: { searchLagMs: 60_000 } })).status).toBe(200);
    await advance(t, { advanceSeconds: 7 * DAY_S });
    const city = unique("city");
    const made = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { city } } });
    expect(made.status, made.text).toBe(201);
    const search = async () =>
      (await call("POST", "/crm/v3/objects/contacts/search", { token: t.pat, body: { filterGroups: [{ filters: [{ propertyName: "city", operator: "EQ", value: city }] }] } })).json.total as number;
    // Written at the account's time: still within the lag by that time (real time would say it is a week old).
    expect(await search()).toBe(0);
    await advance(t, { advanceSeconds: 61 });
    expect(await search()).toBe(1);
  });
});

describe("production never pays", () => {
  /** Every control-plane statement of one call with the account's private app token. */
  async function statements(t: Tenant) {
    const { db, seen } = recordingD1(env.DB);
    const res = await buildRouter().fetch(
      new Request(`${BASE}/crm/v3/objects/contacts`, { method: "POST", headers: { authorization: `Bearer ${t.pat}`, "content-type": "application/json" }, body: JSON.stringify({ properties: { firstname: "x" } }) }),
      { ...env, DB: db },
      createExecutionContext(),
    );
    expect(res.status).toBe(201);
    return { seen, createdAt: Date.parse(((await res.json()) as { createdAt: string }).createdAt) };
  }

  it("a STANDARD account's call runs the same statements with or without a clock row left from when it was a test account, and keeps real time", async () => {
    const plain = await tenant();
    const former = await testTenant();
    await advance(former, { advanceSeconds: 10 * DAY_S });
    expect((await call("PATCH", `/admin/v1/accounts/${former.portalId}`, { token: ADMIN, body: { accountType: "STANDARD" } })).status).toBe(200);
    const a = await statements(plain);
    const b = await statements(former);
    expect(b.seen.length).toBe(a.seen.length);
    // The clock is read in the credential's own statement, and nowhere else.
    expect(a.seen.filter((s) => s.includes("account_quirks"))).toHaveLength(1);
    expect(a.seen.filter((s) => s.includes("account_quirks"))[0]).toContain("credentials");
    expect(Math.abs(b.createdAt - Date.now())).toBeLessThan(60_000);
  });
});
