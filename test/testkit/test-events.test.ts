/**
 * Webhook test events (docs/reference/testkit.md "Webhooks"): a test account's app gets a delivery as real as
 * any (the payload shape, both signatures checked as a receiver checks them, retries, the delivery log);
 * bad input is a 400 naming the field; a STANDARD account, an account without the app, an app without
 * settings are 409s; only the operator token is accepted.
 */
import { describe, expect, it } from "vitest";
import { ADMIN, call, expectError, tenant } from "../helpers/api";
import { script } from "../helpers/integrator";
import { dev, subscribe, waitFor } from "../webhooks/helpers";
import { expectSigned, hookedTestTenant, testEvent } from "./helpers";

describe("test events", () => {
  it("a propertyChange test event arrives signed, in the shape of every event, with the app's subscription id, and is in the delivery log", async () => {
    const { t, path } = await hookedTestTenant();
    const sub = Number(await subscribe(t, "contact.propertyChange", "email"));
    const res = await testEvent(t, { subscriptionType: "contact.propertyChange", objectId: 4242, propertyName: "email", propertyValue: "ann@example.com" });
    expect(res.status, res.text).toBe(202);
    expect(res.json).toEqual({
      eventId: expect.any(Number),
      subscriptionId: sub,
      portalId: t.portalId,
      appId: t.appId,
      occurredAt: expect.any(Number),
      subscriptionType: "contact.propertyChange",
      objectId: 4242,
      changeSource: "API",
      propertyName: "email",
      propertyValue: "ann@example.com",
    });
    const [got] = await waitFor(path, (d) => d.length >= 1);
    // The documented field order, attemptNumber included.
    expect(Object.keys(got!.events[0]!)).toEqual(["eventId", "subscriptionId", "portalId", "appId", "occurredAt", "subscriptionType", "attemptNumber", "objectId", "changeSource", "propertyName", "propertyValue"]);
    expect(got!.events).toEqual([{ ...res.json, attemptNumber: 0 }]);
    await expectSigned(got!, t.clientSecret, path);
    const log = await dev(t, "GET", "/deliveries");
    expect(log.json.results[0]).toMatchObject({ status: "delivered", eventIds: [res.json.eventId], eventCount: 1 });
  });

  it("is retried like any delivery: the same eventId with attemptNumber 0, 1", async () => {
    const { t, path } = await hookedTestTenant();
    await script(path, { status: 503, times: 1 });
    const res = await testEvent(t, { subscriptionType: "deal.creation" });
    expect(res.status, res.text).toBe(202);
    // No subscription of that type: subscriptionId 0; no objectId: the sample id.
    expect(res.json).toMatchObject({ subscriptionId: 0, objectId: 123, subscriptionType: "deal.creation" });
    const got = await waitFor(path, (d) => d.length >= 2);
    expect(got.map((d) => d.events.map((e) => [e.eventId, e.attemptNumber]))).toEqual([[[res.json.eventId, 0]], [[res.json.eventId, 1]]]);
    await expectSigned(got[1]!, t.clientSecret, path);
  });

  it("merge and generic types carry their own fields", async () => {
    const { t, path } = await hookedTestTenant();
    const merge = await testEvent(t, { subscriptionType: "contact.merge", objectId: 7 });
    const task = await testEvent(t, { subscriptionType: "object.creation", objectTypeId: "0-27", objectId: 8 });
    const link = await testEvent(t, { subscriptionType: "deal.associationChange", objectId: 9 });
    expect(merge.json).toMatchObject({ primaryObjectId: 7, mergedObjectIds: [] });
    expect(task.json).toMatchObject({ objectTypeId: "0-27", objectId: 8 });
    const association = { associationType: "DEAL_TO_CONTACT", fromObjectId: 9, toObjectId: 123, associationRemoved: false, isPrimaryAssociation: false };
    expect(link.json).toMatchObject({ objectId: 9, ...association });
    const got = await waitFor(path, (d) => d.flatMap((x) => x.events).length >= 3);
    const events = got.flatMap((d) => d.events);
    expect(events.find((e) => e.subscriptionType === "contact.merge")).toMatchObject({ primaryObjectId: 7, mergedObjectIds: [] });
    expect(events.find((e) => e.subscriptionType === "object.creation")).toMatchObject({ objectTypeId: "0-27", objectId: 8 });
    expect(events.find((e) => e.subscriptionType === "deal.associationChange")).toMatchObject(association);
  });

  it.each([
    [{ subscriptionType: "contact.wobble" }, "subscriptionType"],
    [{ subscriptionType: 5 }, "subscriptionType"],
    [{ subscriptionType: "contact.propertyChange" }, "propertyName"],
    [{ subscriptionType: "contact.creation", propertyName: "email" }, "propertyName"],
    [{ subscriptionType: "object.creation" }, "objectTypeId"],
    [{ subscriptionType: "object.creation", objectTypeId: "0-1" }, "objectTypeId"],
    [{ subscriptionType: "contact.creation", objectId: -3 }, "objectId"],
    [{ subscriptionType: "contact.creation", portalId: "x" }, "portalId"],
    [{ subscriptionType: "contact.creation", extra: 1 }, "extra"],
  ])("bad input %j is a 400 naming %s", async (body, field) => {
    const { t } = await hookedTestTenant();
    const res = await testEvent(t, body);
    expectError(res, 400, "VALIDATION_ERROR");
    expect(res.text).toContain(field);
  });

  it("a STANDARD account is a 409 naming its accountType; so are an account without the app and an app without settings", async () => {
    const std = await tenant();
    await dev(std, "PUT", "/settings", { targetUrl: "https://hooks.example.com/x", throttling: { maxConcurrentRequests: 1 } });
    const res = await testEvent(std, { subscriptionType: "contact.creation" });
    expect(expectError(res, 409, "CONFLICT").message).toContain("STANDARD");
    const { t } = await hookedTestTenant();
    const other = await tenant({ accountType: "SANDBOX" });
    expect(expectError(await testEvent(t, { subscriptionType: "contact.creation", portalId: other.portalId }), 409, "CONFLICT").message).toContain("not installed");
    expect(expectError(await testEvent(other, { subscriptionType: "contact.creation" }), 409, "CONFLICT").message).toContain("no webhook settings");
  });

  it("no such app or account is a 404", async () => {
    const { t } = await hookedTestTenant();
    expectError(await call("POST", "/admin/v1/apps/999999999/webhooks/test-events", { token: ADMIN, body: { portalId: t.portalId, subscriptionType: "contact.creation" } }), 404, "OBJECT_NOT_FOUND");
    expectError(await testEvent(t, { subscriptionType: "contact.creation", portalId: 999999999 }), 404, "OBJECT_NOT_FOUND");
  });

  it("only the operator token is accepted: none, an account token or the app's developer key is a 401", async () => {
    const { t } = await hookedTestTenant();
    for (const token of [undefined, t.oauth, t.pat, t.developerKey]) {
      const res = await call("POST", `/admin/v1/apps/${t.appId}/webhooks/test-events`, { token, body: { portalId: t.portalId, subscriptionType: "contact.creation" } });
      expect(res.status, res.text).toBe(401);
    }
  });
});
