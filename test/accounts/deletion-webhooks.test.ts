/**
 * Deleting an account takes its events out of every webhook delivery: its own delivery log (an account table,
 * one account per delivery) goes with its data; a delivery of the control plane's older log that it shares
 * with another account (deliveries then mixed accounts) keeps the other account's events, and every later
 * attempt carries only those; a delivery of the deleted account's events that is still queued is dropped
 * without writing it down.
 */
import { createExecutionContext, createMessageBatch, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { ADMIN, admin, call, tenant, unique, type Tenant } from "../helpers/api";
import { script } from "../helpers/integrator";
import { deliveries, dev, hookUp, subscribe } from "../webhooks/helpers";

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

/** Every delivery-log row of the app in the control plane: its events as stored, and their count. */
const logRows = (appId: number) =>
  env.DB.prepare("select id, events, event_count, status from webhook_deliveries where app_id = ? order by id").bind(appId).all<{ id: number; events: string; event_count: number; status: string }>().then((r) => r.results);

/** The account's delivery log rows on every database. */
const ownRows = async (portalId: number) => {
  let n = 0;
  for (const d1 of [env.DB, env.SHARD_1, env.SHARD_2]) n += (await d1.prepare("select count(*) as n from webhook_deliveries where portal_id = ?").bind(portalId).first<number>("n"))!;
  return n;
};

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
    // A retrying delivery of the control plane's older log, shared by both accounts (no portal_id).
    const legacy = await env.DB.prepare(
      "insert into webhook_deliveries (id, app_id, events, event_count, status, attempts, created_at, updated_at) values ((select seq + 1 from id_sequences where name = 'webhook_deliveries'), ?, ?, 2, 'retrying', 1, ?, ?) returning id",
    )
      .bind(kept.appId, JSON.stringify([ofKept.event, ofGone.event]), Date.now(), Date.now())
      .first<number>("id");
    // The contacts' own changes are delivered, each account's alone, and logged with each account.
    await expect.poll(async () => (await ownRows(gone.portalId)) > 0 && (await ownRows(kept.portalId)) > 0, { timeout: 60_000 }).toBe(true);

    expect((await call("DELETE", `/admin/v1/accounts/${gone.portalId}`, { token: ADMIN })).status).toBe(202);
    await waitUntilGone(gone.portalId);

    // The deleted account's own log is gone with its data; the kept account's stays.
    expect(await ownRows(gone.portalId)).toBe(0);
    expect(await ownRows(kept.portalId)).toBeGreaterThan(0);
    // The shared delivery is still there for the kept account, holding its event alone.
    const rows = await logRows(kept.appId);
    const shared = rows.find((r) => r.id === legacy);
    expect(shared, JSON.stringify(rows)).toBeDefined();
    const left = JSON.parse(shared!.events) as { portalId: number }[];
    expect(left.length).toBeGreaterThan(0);
    expect(shared!.event_count).toBe(left.length);
    expect(new Set(left.map((e) => e.portalId))).toEqual(new Set([kept.portalId]));
    // Nothing of the deleted account in any delivery row of any database: not its portal id, record id or email.
    for (const d1 of [env.DB, env.SHARD_1, env.SHARD_2]) {
      const leftovers = await d1
        .prepare("select count(*) as n from webhook_deliveries where instr(events, ?) > 0 or exists (select 1 from json_each(events) e where e.value ->> 'portalId' = ?)")
        .bind(ofGone.email, gone.portalId)
        .first<number>("n");
      expect(leftovers).toBe(0);
    }

    // Every attempt from now on carries the kept account's event only: the older log's retry, as it was queued.
    await script(path, { status: 200 });
    const before = (await deliveries(path)).length;
    await env.WEBHOOK_QUEUE.send({ v: 1, appId: kept.appId, deliveryId: legacy, attempt: 1, events: [ofKept.event, ofGone.event] }, { contentType: "json" });
    // Its retries go on until delivered, or it was exhausted meanwhile and is sent again.
    const statusOf = async () => (await logRows(kept.appId)).find((r) => r.id === legacy)!.status;
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
    for (const d1 of [env.DB, env.SHARD_1, env.SHARD_2]) {
      const rows = await d1.prepare("select count(*) as n from webhook_deliveries where app_id = ? or instr(events, ?) > 0").bind(gone.appId, email).first<number>("n");
      expect(rows).toBe(0);
    }
  });
});
