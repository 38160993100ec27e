/**
 * Deleting an account takes its events out of every webhook delivery, including the ones it shares with
 * another account (one app's events of one moment are delivered together): the delivery log keeps the other
 * account's events, every later attempt carries only those, and a delivery of the deleted account's events
 * that is still queued is dropped without writing it down.
 */
import { createExecutionContext, createMessageBatch, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { ADMIN, admin, call, tenant, unique, type Tenant } from "../helpers/api";
import { script } from "../helpers/integrator";
import { deliveries, dev, hookUp, subscribe, waitFor } from "../webhooks/helpers";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitUntilGone(portalId: number, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  while ((await call("GET", `/admin/v1/accounts/${portalId}`, { token: ADMIN })).status !== 404) {
    if (Date.now() > until) throw new Error("deletion did not finish");
    await sleep(250);
  }
}

/** A contact of the account, and the event a change of its email makes for the app's subscription. */
async function emailEvent(t: Tenant, appId: number, subscriptionId: string, eventId: number) {
  const email = `${unique("gone")}@example.com`;
  const made = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { email, firstname: "Erased" } } });
  expect(made.status, made.text).toBe(201);
  const event = {
    eventId, subscriptionId: Number(subscriptionId), portalId: t.portalId, appId, occurredAt: Date.now(),
    subscriptionType: "contact.propertyChange", objectId: Number(made.json.id), changeSource: "CRM", propertyName: "email", propertyValue: email,
  };
  return { email, event };
}

/** Every delivery-log row of the app: its events as stored, and their count. */
const logRows = (appId: number) =>
  env.DB.prepare("select id, events, event_count, status from webhook_deliveries where app_id = ? order by id").bind(appId).all<{ id: number; events: string; event_count: number; status: string }>().then((r) => r.results);

/** Runs one webhook queue batch through the Worker's queue handler, as the platform does. */
async function consume(queue: string, body: unknown) {
  const ctx = createExecutionContext();
  await worker.queue!(createMessageBatch(queue, [{ id: unique("q"), timestamp: new Date(), attempts: 1, body }]), env, ctx);
  await waitOnExecutionContext(ctx);
}

describe("deleting an account that shares webhook deliveries", () => {
  it("keeps the other account's events in the log and in every later attempt, and none of its own anywhere", { timeout: 240_000 }, async () => {
    const kept = await tenant();
    const gone = await tenant();
    // One app installed in both accounts, with a target that keeps failing.
    await admin("POST", `/admin/v1/accounts/${gone.portalId}/installs`, { appId: kept.appId });
    const path = await hookUp(kept);
    await script(path, { status: 503 });
    const subscriptionId = await subscribe(kept, "contact.propertyChange", "email");

    const base = Date.now() * 1000;
    const ofKept = await emailEvent(kept, kept.appId, subscriptionId, base + 1);
    const ofGone = await emailEvent(gone, kept.appId, subscriptionId, base + 2);
    await env.WEBHOOK_QUEUE.send({ v: 1, appId: kept.appId, deliveryId: null, attempt: 0, events: [ofKept.event, ofGone.event] }, { contentType: "json" });
    // The contacts' own changes are delivered too, and may be packed with this delivery: either way one
    // POST carries both accounts' events, and its log row holds both.
    const both = (events: { portalId?: unknown }[]) => [kept.portalId, gone.portalId].every((p) => events.some((e) => e.portalId === p));
    await waitFor(path, (d) => d.some((x) => both(x.events)), 60_000);
    await expect.poll(async () => (await logRows(kept.appId)).some((r) => both(JSON.parse(r.events))), { timeout: 60_000 }).toBe(true);

    expect((await call("DELETE", `/admin/v1/accounts/${gone.portalId}`, { token: ADMIN })).status).toBe(202);
    await waitUntilGone(gone.portalId);

    // The shared delivery is still there for the kept account, holding its event alone.
    const rows = await logRows(kept.appId);
    const shared = rows.find((r) => (JSON.parse(r.events) as { eventId: number }[]).some((e) => e.eventId === ofKept.event.eventId));
    expect(shared, JSON.stringify(rows)).toBeDefined();
    const left = JSON.parse(shared!.events) as { portalId: number }[];
    expect(left.length).toBeGreaterThan(0);
    expect(shared!.event_count).toBe(left.length);
    expect(new Set(left.map((e) => e.portalId))).toEqual(new Set([kept.portalId]));
    // Nothing of the deleted account in any delivery row: not its portal id, record id or email.
    const leftovers = await env.DB.prepare(
      "select count(*) as n from webhook_deliveries where instr(events, ?) > 0 or exists (select 1 from json_each(events) e where e.value ->> 'portalId' = ?)",
    ).bind(ofGone.email, gone.portalId).first<number>("n");
    expect(leftovers).toBe(0);

    // Every attempt from now on carries the kept account's event only.
    await script(path, { status: 200 });
    const before = (await deliveries(path)).length;
    // Its retries go on until delivered, or it was exhausted meanwhile and is sent again.
    const statusOf = async () => (await logRows(kept.appId)).find((r) => r.id === shared!.id)!.status;
    await expect.poll(statusOf, { timeout: 60_000 }).toMatch(/^(delivered|exhausted)$/);
    if ((await statusOf()) === "exhausted") {
      const resent = await dev(kept, "POST", `/deliveries/${shared!.id}/resend`);
      expect(resent.status, resent.text).toBe(202);
    }
    await expect.poll(statusOf, { timeout: 60_000 }).toBe("delivered");
    const later = (await deliveries(path)).slice(before);
    expect(later.length).toBeGreaterThan(0);
    for (const d of later) expect(new Set(d.events.map((e) => e.portalId))).toEqual(new Set([kept.portalId]));
  });

  it("drops a queued delivery of a deleted account's events without writing it to the log, first attempt or dead letter", { timeout: 120_000 }, async () => {
    const gone = await tenant();
    const path = await hookUp(gone);
    const subscriptionId = await subscribe(gone, "contact.propertyChange", "email");
    const { email, event } = await emailEvent(gone, gone.appId, subscriptionId, Date.now() * 1000 + 7);
    expect((await call("DELETE", `/admin/v1/accounts/${gone.portalId}`, { token: ADMIN })).status).toBe(202);
    await waitUntilGone(gone.portalId);

    const message = { v: 1, appId: gone.appId, deliveryId: null, attempt: 0, events: [event] };
    await consume("crm-edge-webhooks", message);
    await consume("crm-edge-webhooks-dlq", message);
    expect(await deliveries(path)).toEqual([]);
    const rows = await env.DB.prepare("select count(*) as n from webhook_deliveries where app_id = ? or instr(events, ?) > 0").bind(gone.appId, email).first<number>("n");
    expect(rows).toBe(0);
  });
});
