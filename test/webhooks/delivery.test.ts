/**
 * Delivery of app webhooks against the real queue and the local receiver: retries with attemptNumber and
 * the same eventIds, the 5 s timeout, exhaustion and re-send through the delivery log, who gets nothing
 * (uninstalled app, paused subscription, no settings), isolation between accounts, the outbound guard at
 * delivery, and throttling.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { admin, call, expectError, tenant, type Tenant } from "../helpers/api";
import { integratorPath, integratorUrl, script } from "../helpers/integrator";
import { dev, deliveries, eventsOf, expectNothing, hookUp, subscribe, waitFor, waitForEvents } from "./helpers";

const createContact = (t: Tenant, firstname = "x") => call("POST", "/crm/v3/objects/contacts", { token: t.oauth, body: { properties: { firstname } } });

async function hooked(opts: { max?: number } = {}) {
  const t = await tenant();
  const path = await hookUp(t, opts);
  await subscribe(t, "contact.creation");
  return { t, path };
}

/** Polls the delivery log until its newest delivery has `status`. */
async function logUntil(t: Tenant, status: string, timeoutMs = 40_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await dev(t, "GET", "/deliveries");
    const d = res.json.results?.[0];
    if (d?.status === status) return d;
    if (Date.now() > until) throw new Error(`delivery log never reached ${status}: ${res.text}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe("retries", () => {
  it("delivers after the receiver fails twice: the same eventIds with attemptNumber 0, 1, 2, all in the log", async () => {
    const { t, path } = await hooked();
    await script(path, { status: 500, times: 2 });
    await createContact(t);
    const got = await waitFor(path, (d) => d.length >= 3);
    expect(got.map((d) => d.events.map((e) => e.attemptNumber))).toEqual([[0], [1], [2]]);
    expect(new Set(got.map((d) => d.events[0]!.eventId)).size).toBe(1);
    const log = await logUntil(t, "delivered");
    expect(log.attempts.map((a: { attemptNumber: number; statusCode: number; error: string | null }) => [a.attemptNumber, a.statusCode, a.error === null])).toEqual([
      [0, 500, false],
      [1, 500, false],
      [2, 200, true],
    ]);
    expect(log.eventCount).toBe(1);
    expect(log.eventIds).toEqual([got[0]!.events[0]!.eventId]);
  });

  it("a 4xx is retried like a 5xx", async () => {
    const { t, path } = await hooked();
    await script(path, { status: 404, times: 1 });
    await createContact(t);
    const got = await waitFor(path, (d) => d.length >= 2);
    expect(got.map((d) => d.events[0]!.attemptNumber)).toEqual([0, 1]);
  });

  it("no answer within 5 s is a failed attempt (timeout), retried", async () => {
    const { t, path } = await hooked();
    await script(path, { delayMs: 6_500, times: 1 });
    await createContact(t);
    const log = await logUntil(t, "delivered", 45_000);
    expect(log.attempts).toHaveLength(2);
    expect(log.attempts[0]).toMatchObject({ attemptNumber: 0, statusCode: null, error: expect.stringMatching(/^timeout/) });
    expect(log.attempts[1]).toMatchObject({ attemptNumber: 1, statusCode: 200, error: null });
  }, 60_000);

  it("after 10 retries the delivery is exhausted; the developer sees it and re-sends it once the receiver is back", async () => {
    const { t, path } = await hooked();
    await script(path, { status: 503 });
    await createContact(t);
    const exhausted = await logUntil(t, "exhausted", 50_000);
    expect(exhausted.attempts.map((a: { attemptNumber: number }) => a.attemptNumber)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(exhausted.lastError).toContain("503");
    expect((await deliveries(path)).map((d) => d.events[0]!.attemptNumber)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const listed = await dev(t, "GET", "/deliveries?status=exhausted");
    expect(listed.json.results.map((d: { id: string }) => d.id)).toEqual([exhausted.id]);

    await script(path, { status: 200 });
    const resent = await dev(t, "POST", `/deliveries/${exhausted.id}/resend`);
    expect(resent.status, resent.text).toBe(202);
    expect(resent.json.status).toBe("pending");
    const done = await logUntil(t, "delivered");
    expect(done.attempts.at(-1)).toMatchObject({ attemptNumber: 11, statusCode: 200 });
    expect((await deliveries(path)).at(-1)!.events[0]).toMatchObject({ eventId: exhausted.eventIds[0], attemptNumber: 11 });
    // Only an exhausted delivery can be re-sent.
    expectError(await dev(t, "POST", `/deliveries/${exhausted.id}/resend`), 409, "CONFLICT");
    expectError(await dev(t, "POST", "/deliveries/999999999/resend"), 404, "OBJECT_NOT_FOUND");
  }, 90_000);
});

describe("who gets events", () => {
  it("nothing for a paused subscription, an app without settings, or an uninstalled app; changes apply from their response on", async () => {
    const t = await tenant();
    const path = await hookUp(t);
    const sub = await subscribe(t, "contact.creation", undefined, false);
    await createContact(t, "paused");
    await expectNothing(path);

    expect((await dev(t, "PATCH", `/subscriptions/${sub}`, { active: true })).status).toBe(200);
    const first = await createContact(t, "active");
    expect((await waitForEvents(path, 1)).map((e) => e.objectId)).toEqual([Number(first.json.id)]);

    expect((await dev(t, "DELETE", "/settings")).status).toBe(204);
    await createContact(t, "no settings");
    await new Promise((r) => setTimeout(r, 2_500));
    expect(eventsOf(await deliveries(path))).toHaveLength(1);

    await hookUp(t, { path });
    const second = await createContact(t, "settings again");
    await waitForEvents(path, 2);

    await admin("DELETE", `/admin/v1/accounts/${t.portalId}/installs/${t.appId}`);
    await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { firstname: "uninstalled" } } });
    await new Promise((r) => setTimeout(r, 2_500));
    expect(eventsOf(await deliveries(path)).map((e) => e.objectId)).toEqual([Number(first.json.id), Number(second.json.id)]);
  }, 60_000);

  it("isolation: an account's changes reach only apps installed in it, each event naming that account", async () => {
    const a = await tenant();
    const b = await tenant();
    const aPath = await hookUp(a);
    await subscribe(a, "contact.creation");
    const bPath = await hookUp(b);
    await subscribe(b, "contact.creation");
    // A's app is also installed in B's account: it gets B's changes, as B's.
    const shared = (await admin("POST", `/admin/v1/accounts/${b.portalId}/installs`, { appId: a.appId })).access_token as string;
    const inA = await createContact(a, "in A");
    const inB = await call("POST", "/crm/v3/objects/contacts", { token: shared, body: { properties: { firstname: "in B" } } });
    const toA = await waitForEvents(aPath, 2);
    const toB = await waitForEvents(bPath, 1);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(eventsOf(await deliveries(bPath))).toEqual(toB);
    expect(toB).toEqual([expect.objectContaining({ portalId: b.portalId, appId: b.appId, objectId: Number(inB.json.id) })]);
    expect(toA.map((e) => [e.portalId, e.objectId]).sort()).toEqual(
      [
        [a.portalId, Number(inA.json.id)],
        [b.portalId, Number(inB.json.id)],
      ].sort(),
    );
    // Each app's delivery log holds only its own deliveries.
    const aLog = (await dev(a, "GET", "/deliveries")).json.results.flatMap((d: { eventIds: number[] }) => d.eventIds);
    const bLog = (await dev(b, "GET", "/deliveries")).json.results.flatMap((d: { eventIds: number[] }) => d.eventIds);
    expect(aLog.sort()).toEqual(toA.map((e) => e.eventId).sort());
    expect(bLog).toEqual(toB.map((e) => e.eventId));
    expectError(await dev(b, "GET", `/deliveries/${(await dev(a, "GET", "/deliveries")).json.results[0].id}`), 404, "OBJECT_NOT_FOUND");
  }, 60_000);
});

describe("delivery checks", () => {
  it("the outbound guard runs again at delivery: a target that became private is never called, the attempt says why", async () => {
    const { t, path } = await hooked();
    await env.DB.prepare("update webhook_settings set target_url = 'https://10.1.2.3/hook' where app_id = ?").bind(t.appId).run();
    await createContact(t);
    const log = await (async () => {
      const until = Date.now() + 20_000;
      for (;;) {
        const d = (await dev(t, "GET", "/deliveries")).json.results[0];
        if (d?.attempts.length) return d;
        if (Date.now() > until) throw new Error("no attempt");
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    expect(log.attempts[0]).toMatchObject({ attemptNumber: 0, statusCode: null, error: expect.stringMatching(/^blocked: .*10\.1\.2\.3/) });
    expect(await deliveries(path)).toEqual([]);
  });

  it("POSTs to the target URL exactly as configured, query included, as application/json", async () => {
    const t = await tenant();
    const path = integratorPath("exact");
    const put = await dev(t, "PUT", "/settings", { targetUrl: `${integratorUrl()}${path}?token=abc&b=2`, throttling: { maxConcurrentRequests: 1 } });
    expect(put.status).toBe(200);
    await subscribe(t, "contact.creation");
    await createContact(t);
    const [got] = await waitFor(path, (d) => d.length >= 1);
    expect(got!.method).toBe("POST");
    expect(got!.url).toBe(`${integratorUrl()}${path}?token=abc&b=2`);
    expect(got!.headers["content-type"]).toBe("application/json");
    expect(got!.headers["x-service-signature-version"]).toBe("v1");
    expect(got!.headers["x-service-request-timestamp"]).toMatch(/^\d{13}$/);
  });

  it("throttling: with maxConcurrentRequests 1 and one POST in flight, the next waits until the slot is free", async () => {
    const { t, path } = await hooked({ max: 1 });
    const until = Date.now() + 60_000;
    await env.DB.prepare("insert into webhook_inflight (app_id, lease_id, expires_at) values (?, 'held', ?)").bind(t.appId, until).run();
    await createContact(t);
    await expectNothing(path, 3_000);
    expect((await dev(t, "GET", "/deliveries")).json.results[0]).toMatchObject({ status: "pending", attempts: [] });
    await env.DB.prepare("delete from webhook_inflight where app_id = ? and lease_id = 'held'").bind(t.appId).run();
    const got = await waitForEvents(path, 1);
    // Waiting for a slot is not an attempt.
    expect(got[0]!.attemptNumber).toBe(0);
  });
});
