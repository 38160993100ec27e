/**
 * The hold on an app's deliveries (docs/reference/testkit.md "Webhooks"): while held, a test account's events
 * wait in the delivery log as `held` and nothing is POSTed; the release sends them in the order they were made,
 * packed up to 100 per POST; a STANDARD account's events of the same app are never held; holding an app
 * installed in a STANDARD account is a 409; only the operator token is accepted.
 */
import { describe, expect, it } from "vitest";
import { admin, ADMIN, call, expectError, tenant, type Tenant } from "../helpers/api";
import { script } from "../helpers/integrator";
import { deliveries, dev, eventsOf, expectNothing, subscribe, waitFor, waitForEvents } from "../webhooks/helpers";
import { expectSigned, hold, hookedTestTenant, testEvent } from "./helpers";

/** Polls the delivery log until its newest delivery has `status`. */
async function waitForLog(t: Tenant, status: string, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const d = (await dev(t, "GET", "/deliveries")).json.results?.[0];
    if (d?.status === status) return d;
    if (Date.now() > until) throw new Error(`the delivery log never showed ${status}: ${JSON.stringify(d)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const state = (appId: number) => call("GET", `/admin/v1/apps/${appId}/webhooks`, { token: ADMIN });

describe("hold", () => {
  it("held events wait in the log as held, and the release sends them in order in one signed POST", async () => {
    const { t, path } = await hookedTestTenant();
    await subscribe(t, "contact.creation");
    const on = await hold(t, true);
    expect(on.status, on.text).toBe(200);
    expect(on.json).toEqual({ appId: t.appId, held: true, heldAt: expect.any(String), heldDeliveries: 0, heldEvents: 0 });
    const ids: number[] = [];
    for (const i of [1, 2, 3]) {
      const res = await testEvent(t, { subscriptionType: "contact.propertyChange", propertyName: "n", propertyValue: String(i) });
      ids.push(res.json.eventId as number);
      // A real change between the test events: held the same way.
      if (i === 2) expect((await call("POST", "/crm/v3/objects/contacts", { token: t.oauth, body: { properties: { firstname: "held" } } })).status).toBe(201);
    }
    await expectNothing(path, 3_000);
    const waiting = await state(t.appId);
    expect(waiting.json).toMatchObject({ held: true, heldEvents: 4 });
    const log = await dev(t, "GET", "/deliveries?status=held");
    expect(log.status, log.text).toBe(200);
    expect(log.json.results.flatMap((d: { eventIds: number[] }) => d.eventIds)).toHaveLength(4);
    expect(log.json.results.every((d: { status: string; attempts: unknown[] }) => d.status === "held" && d.attempts.length === 0)).toBe(true);

    const off = await hold(t, false);
    expect(off.json).toEqual({ appId: t.appId, held: false, heldDeliveries: 0, heldEvents: 0 });
    const got = await waitFor(path, (d) => d.flatMap((x) => x.events).length >= 4);
    // One POST: the events packed together as a drain packs them, in the order they were made.
    expect(got).toHaveLength(1);
    const sent = got[0]!.events.map((e) => e.eventId as number);
    expect(sent).toEqual([...sent].sort((a, b) => a - b));
    expect(sent).toEqual(expect.arrayContaining(ids));
    expect(got[0]!.events.map((e) => e.subscriptionType)).toEqual(["contact.propertyChange", "contact.propertyChange", "contact.creation", "contact.propertyChange"]);
    expect(got[0]!.events.map((e) => e.attemptNumber)).toEqual([0, 0, 0, 0]);
    await expectSigned(got[0]!, t.clientSecret, path);
    expect((await dev(t, "GET", "/deliveries?status=held")).json.results).toEqual([]);
    const delivered = await dev(t, "GET", "/deliveries?status=delivered");
    expect(delivered.json.results[0]).toMatchObject({ eventCount: 4, eventIds: sent });
  });

  it("more than 100 held events are released in order, 100 to a POST", async () => {
    const { t, path } = await hookedTestTenant({ max: 1 });
    await subscribe(t, "contact.creation");
    await hold(t, true);
    for (const n of [100, 5]) {
      const res = await call("POST", "/crm/v3/objects/contacts/batch/create", { token: t.oauth, body: { inputs: Array.from({ length: n }, (_, i) => ({ properties: { firstname: `h${i}` } })) } });
      expect(res.status, res.text).toBe(201);
    }
    await expectNothing(path, 2_000);
    expect((await state(t.appId)).json.heldEvents).toBe(105);
    await hold(t, false);
    const got = await waitFor(path, (d) => d.flatMap((x) => x.events).length >= 105, 30_000);
    expect(got.map((d) => d.events.length).sort((a, b) => b - a)).toEqual([100, 5]);
    const all = eventsOf(got).map((e) => e.eventId as number);
    expect(new Set(all).size).toBe(105);
    const big = got.find((d) => d.events.length === 100)!.events.map((e) => e.eventId as number);
    // The first POST carries the 100 oldest events, in order.
    expect(big).toEqual(all.slice(0, 100));
  });

  it("a retry due while held waits in its own log row, and goes on with its next attemptNumber on release", async () => {
    const { t, path } = await hookedTestTenant();
    // The first attempt fails slowly (4 s, inside the 5 s timeout), so the hold begins before its retry is due.
    await script(path, { status: 503, delayMs: 4_000, times: 1 });
    const sent = await testEvent(t, { subscriptionType: "contact.creation", objectId: 9 });
    await waitFor(path, (d) => d.length >= 1);
    await hold(t, true);
    const held = await waitForLog(t, "held");
    expect(held).toMatchObject({ eventIds: [sent.json.eventId], attempts: [{ attemptNumber: 0, statusCode: 503 }] });
    expect((await deliveries(path)).length).toBe(1);
    await hold(t, false);
    const got = await waitFor(path, (d) => d.length >= 2);
    expect(got[1]!.events).toMatchObject([{ eventId: sent.json.eventId, attemptNumber: 1 }]);
    const done = await waitForLog(t, "delivered");
    expect(done.id).toBe(held.id);
    expect(done.attempts.map((a: { attemptNumber: number }) => a.attemptNumber)).toEqual([0, 1]);
  }, 30_000);

  it("a STANDARD account's events of a held app are delivered as usual; the test account's wait", async () => {
    const { t, path } = await hookedTestTenant();
    await subscribe(t, "contact.creation");
    await hold(t, true);
    // Installed in a STANDARD account after the hold began.
    const std = await admin("POST", "/admin/v1/accounts", { name: `std-${crypto.randomUUID()}` });
    const install = await admin("POST", `/admin/v1/accounts/${std.portalId}/installs`, { appId: t.appId });
    await call("POST", "/crm/v3/objects/contacts", { token: t.oauth, body: { properties: { firstname: "test" } } });
    await call("POST", "/crm/v3/objects/contacts", { token: install.access_token, body: { properties: { firstname: "prod" } } });
    const first = await waitForEvents(path, 1);
    expect(first.map((e) => e.portalId)).toEqual([std.portalId]);
    expect((await state(t.appId)).json.heldEvents).toBe(1);
    await hold(t, false);
    const all = await waitForEvents(path, 2);
    expect(all.map((e) => e.portalId).sort()).toEqual([std.portalId, t.portalId].sort());
  });

  it("holding an app installed in a STANDARD account is a 409 naming it; releasing is always allowed", async () => {
    const std = await tenant();
    const res = await hold(std, true);
    const body = expectError(res, 409, "CONFLICT");
    expect(body.message).toContain(`account ${std.portalId}`);
    expect(body.message).toContain("STANDARD");
    expect((await state(std.appId)).json).toMatchObject({ held: false });
    expect((await hold(std, false)).status).toBe(200);
  });

  it("the developer's settings and the hold are independent: replacing the settings keeps the hold", async () => {
    const { t } = await hookedTestTenant();
    await hold(t, true);
    await dev(t, "PUT", "/settings", { targetUrl: "https://hooks.example.com/other", throttling: { maxConcurrentRequests: 3 } });
    expect((await state(t.appId)).json.held).toBe(true);
    await hold(t, false);
  });

  it.each([[{}, "held"], [{ held: "yes" }, "held"], [{ held: true, extra: 1 }, "extra"]])("bad body %j is a 400 naming %s", async (body, field) => {
    const { t } = await hookedTestTenant();
    const res = await call("PATCH", `/admin/v1/apps/${t.appId}/webhooks`, { token: ADMIN, body });
    expectError(res, 400, "VALIDATION_ERROR");
    expect(res.text).toContain(field);
  });

  it("no such app is a 404; only the operator token is accepted", async () => {
    const { t } = await hookedTestTenant();
    expectError(await call("PATCH", "/admin/v1/apps/999999999/webhooks", { token: ADMIN, body: { held: true } }), 404, "OBJECT_NOT_FOUND");
    expectError(await state(999999999), 404, "OBJECT_NOT_FOUND");
    for (const token of [undefined, t.oauth, t.pat, t.developerKey]) {
      expect((await call("PATCH", `/admin/v1/apps/${t.appId}/webhooks`, { token, body: { held: true } })).status).toBe(401);
      expect((await call("GET", `/admin/v1/apps/${t.appId}/webhooks`, { token })).status).toBe(401);
    }
    expect((await state(t.appId)).json.held).toBe(false);
  });
});
