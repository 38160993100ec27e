/**
 * The app webhooks management API `/webhooks/v3/{appId}` (docs/reference/webhooks.md): settings and subscriptions
 * with the developer key, exact statuses, the 207 of batch/update, 400s naming the field, the outbound
 * guard at PUT time, and isolation between apps.
 */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant } from "../helpers/api";
import { integratorUrl } from "../helpers/integrator";
import { dev, hooks } from "./helpers";

const settings = (targetUrl: string, maxConcurrentRequests: unknown = 10) => ({ targetUrl, throttling: { maxConcurrentRequests } });

describe("webhook settings", () => {
  it("PUT answers 200 with the stored settings, GET reads them, DELETE answers 204 and keeps subscriptions", async () => {
    const t = await tenant();
    expectError(await dev(t, "GET", "/settings"), 404, "OBJECT_NOT_FOUND");
    const put = await dev(t, "PUT", "/settings", settings("https://hooks.example.com/in?x=1"));
    expect(put.status, put.text).toBe(200);
    expect(put.json).toMatchObject({ targetUrl: "https://hooks.example.com/in?x=1", throttling: { maxConcurrentRequests: 10 } });
    expect(put.json.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect((await dev(t, "GET", "/settings")).json).toEqual(put.json);
    const sub = await dev(t, "POST", "/subscriptions", { eventType: "contact.creation" });
    expect(sub.status).toBe(201);
    const del = await dev(t, "DELETE", "/settings");
    expect(del.status).toBe(204);
    expectError(await dev(t, "GET", "/settings"), 404, "OBJECT_NOT_FOUND");
    expect((await dev(t, "GET", "/subscriptions")).json.results).toHaveLength(1);
  });

  it("accepts the developer key as Bearer too; no credential is a 401; an account token is a 403", async () => {
    const t = await tenant();
    const bearer = await call("PUT", `${hooks(t.appId)}/settings`, { token: t.developerKey, body: settings("https://hooks.example.com/b", 5) });
    expect(bearer.status, bearer.text).toBe(200);
    expectError(await call("GET", `${hooks(t.appId)}/settings`), 401, "INVALID_AUTHENTICATION");
    expectError(await call("GET", `${hooks(t.appId)}/settings`, { token: t.oauth }), 403, "FORBIDDEN");
  });

  it.each([
    ["targetUrl not absolute", settings("/relative/path"), "targetUrl"],
    ["targetUrl missing", { throttling: { maxConcurrentRequests: 1 } }, "targetUrl"],
    ["maxConcurrentRequests zero", settings("https://a.example.com/", 0), "maxConcurrentRequests"],
    ["maxConcurrentRequests fractional", settings("https://a.example.com/", 1.5), "maxConcurrentRequests"],
    ["maxConcurrentRequests a string", settings("https://a.example.com/", "10"), "maxConcurrentRequests"],
    ["throttling missing", { targetUrl: "https://a.example.com/" }, "throttling"],
    ["private host", settings("https://10.0.0.7/hook"), "targetUrl"],
    ["link-local metadata", settings("https://169.254.169.254/latest"), "targetUrl"],
    ["CGNAT host", settings("https://100.64.1.1/"), "targetUrl"],
    ["reserved host", settings("https://240.0.0.1/"), "targetUrl"],
    ["plain http to a public host", settings("http://hooks.example.com/"), "targetUrl"],
    ["internal name", settings("https://db.internal/"), "targetUrl"],
  ])("refuses %s with a 400 naming the field", async (_name, body, field) => {
    const t = await tenant();
    const err = expectError(await dev(t, "PUT", "/settings", body), 400, "VALIDATION_ERROR");
    expect(err.message).toContain(field);
    expectError(await dev(t, "GET", "/settings"), 404, "OBJECT_NOT_FOUND");
  });

  it("admits loopback only because this environment sets ALLOW_LOOPBACK_OUTBOUND=true", async () => {
    const t = await tenant();
    expect((await dev(t, "PUT", "/settings", settings(`${integratorUrl()}/x`))).status).toBe(200);
  });
});

describe("webhook subscriptions", () => {
  it("POST answers 201 with a string id; GET, PATCH and DELETE one; list them", async () => {
    const t = await tenant();
    const made = await dev(t, "POST", "/subscriptions", { eventType: "contact.propertyChange", propertyName: "email", active: false });
    expect(made.status, made.text).toBe(201);
    expect(made.json).toMatchObject({ id: expect.stringMatching(/^\d+$/), eventType: "contact.propertyChange", propertyName: "email", active: false });
    const id = made.json.id as string;
    expect((await dev(t, "GET", `/subscriptions/${id}`)).json).toEqual(made.json);
    const patched = await dev(t, "PATCH", `/subscriptions/${id}`, { active: true });
    expect(patched.status).toBe(200);
    expect(patched.json.active).toBe(true);
    const deal = await dev(t, "POST", "/subscriptions", { eventType: "deal.creation" });
    expect(deal.json.active).toBe(true);
    expect((await dev(t, "GET", "/subscriptions")).json.results.map((s: { id: string }) => s.id)).toEqual([id, deal.json.id]);
    expect((await dev(t, "DELETE", `/subscriptions/${id}`)).status).toBe(204);
    expectError(await dev(t, "GET", `/subscriptions/${id}`), 404, "OBJECT_NOT_FOUND");
    expectError(await dev(t, "DELETE", `/subscriptions/${id}`), 404, "OBJECT_NOT_FOUND");
  });

  it("supports creation, deletion, propertyChange and merge of contacts, companies and deals", async () => {
    const t = await tenant();
    for (const object of ["contact", "company", "deal"]) {
      for (const kind of ["creation", "deletion", "merge"]) expect((await dev(t, "POST", "/subscriptions", { eventType: `${object}.${kind}` })).status).toBe(201);
      expect((await dev(t, "POST", "/subscriptions", { eventType: `${object}.propertyChange`, propertyName: "name" })).status).toBe(201);
    }
  });

  it.each([
    ["an unknown eventType", { eventType: "contact.exploded" }, "eventType"],
    ["a missing eventType", { active: true }, "eventType"],
    ["a propertyChange without propertyName", { eventType: "company.propertyChange" }, "propertyName"],
    ["a propertyName on a creation", { eventType: "deal.creation", propertyName: "x" }, "propertyName"],
    ["a non-boolean active", { eventType: "deal.creation", active: "yes" }, "active"],
  ])("refuses %s with a 400 naming the field", async (_name, body, field) => {
    const t = await tenant();
    const err = expectError(await dev(t, "POST", "/subscriptions", body), 400, "VALIDATION_ERROR");
    expect(err.message).toContain(field);
    expect((await dev(t, "GET", "/subscriptions")).json.results).toEqual([]);
  });

  it("batch/update answers 200 when every id is known, 207 with errors naming the unknown ones", async () => {
    const t = await tenant();
    const a = await dev(t, "POST", "/subscriptions", { eventType: "contact.creation" });
    const b = await dev(t, "POST", "/subscriptions", { eventType: "contact.deletion" });
    const ok = await dev(t, "POST", "/subscriptions/batch/update", { inputs: [{ id: Number(a.json.id), active: false }, { id: Number(b.json.id), active: false }] });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json).toMatchObject({ status: "COMPLETE", results: [{ id: a.json.id, active: false }, { id: b.json.id, active: false }] });
    expect(ok.json.errors).toBeUndefined();
    const partial = await dev(t, "POST", "/subscriptions/batch/update", { inputs: [{ id: Number(a.json.id), active: true }, { id: 999999999, active: true }] });
    expect(partial.status, partial.text).toBe(207);
    expect(partial.json).toMatchObject({ status: "COMPLETE", numErrors: 1, results: [{ id: a.json.id, active: true }] });
    expect(partial.json.errors[0]).toMatchObject({ category: "OBJECT_NOT_FOUND", context: { ids: ["999999999"] } });
    expect(partial.json.errors[0].message).toContain("999999999");
    expectError(await dev(t, "POST", "/subscriptions/batch/update", { inputs: [] }), 400, "VALIDATION_ERROR");
  });
});

describe("isolation between apps", () => {
  it("another app's developer key reaches neither the settings, the subscriptions nor the deliveries (404)", async () => {
    const a = await tenant();
    const b = await tenant();
    await dev(a, "PUT", "/settings", settings("https://hooks.example.com/a"));
    const sub = await dev(a, "POST", "/subscriptions", { eventType: "contact.creation" });
    const asB = (method: string, path: string, body?: unknown) =>
      call(method, `${hooks(a.appId)}${path}?hapikey=${encodeURIComponent(b.developerKey)}`, { body });
    for (const [method, path, body] of [
      ["GET", "/settings"],
      ["PUT", "/settings", settings("https://evil.example.com/")],
      ["DELETE", "/settings"],
      ["GET", "/subscriptions"],
      ["POST", "/subscriptions", { eventType: "contact.creation" }],
      ["GET", `/subscriptions/${sub.json.id}`],
      ["PATCH", `/subscriptions/${sub.json.id}`, { active: false }],
      ["DELETE", `/subscriptions/${sub.json.id}`],
      ["POST", "/subscriptions/batch/update", { inputs: [{ id: Number(sub.json.id), active: false }] }],
      ["GET", "/deliveries"],
    ] as [string, string, unknown?][]) {
      expectError(await asB(method, path, body), 404, "OBJECT_NOT_FOUND");
    }
    // B's own key on B's app cannot name A's subscription either.
    expectError(await dev(b, "GET", `/subscriptions/${sub.json.id}`), 404, "OBJECT_NOT_FOUND");
    expectError(await dev(b, "PATCH", `/subscriptions/${sub.json.id}`, { active: false }), 404, "OBJECT_NOT_FOUND");
    expect((await dev(a, "GET", "/settings")).json.targetUrl).toBe("https://hooks.example.com/a");
    expect((await dev(a, "GET", `/subscriptions/${sub.json.id}`)).json.active).toBe(true);
  });
});
