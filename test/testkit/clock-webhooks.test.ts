/**
 * Webhook deliveries and test accounts' clocks (docs/reference/testkit.md "Clock"): the events of an account
 * whose clock was moved are never delivered with other accounts' events, so each delivery's retries follow one
 * clock: a mixed first attempt POSTs the real-time accounts' events, and the moved account's events go as a
 * delivery of their own, retried when that account's clock passes the retry. Deliveries of accounts on real
 * time are not split.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { admin, ADMIN, call, tenant, type Tenant } from "../helpers/api";
import { script } from "../helpers/integrator";
import { deliverWave, type DeliveryDeps } from "../../src/services/webhooks/deliver";
import { WEBHOOK_MESSAGE_VERSION, type WebhookEvent, type WebhookQueueMessage } from "../../src/services/webhooks/message";
import { controlDb } from "../../src/db/shards";
import { loopbackAllowed, outboundResolver } from "../../src/lib/outbound";
import { deliveries, dev, hookUp, waitFor } from "../webhooks/helpers";
import { recordingD1 } from "./helpers";

/** A queue that keeps what is sent to it (with its delay) instead of delivering it. */
function keptQueue() {
  const sent: { body: WebhookQueueMessage; delaySeconds?: number }[] = [];
  const queue = { sendBatch: async (b: MessageSendRequest<WebhookQueueMessage>[]) => void sent.push(...b.map((m) => ({ body: m.body, delaySeconds: m.delaySeconds }))) } as unknown as Queue;
  return { queue, sent };
}

/** Deliveries with an hour's retry base (45 to 75 minutes to the first retry); the queue keeps what they send. */
function depsWith(queue: Queue): DeliveryDeps {
  return { env, control: controlDb(env), queue, allowLoopback: loopbackAllowed(env), resolver: outboundResolver(env), retryBase: 3600, now: () => Date.now() };
}

let nextId = 9_000_000_000 + Math.floor(Math.random() * 1e9);
const event = (portalId: number, appId: number): WebhookEvent => {
  const eventId = nextId++;
  return { eventId, subscriptionId: 1, portalId, appId, occurredAt: Date.now(), subscriptionType: "contact.creation", objectId: eventId, changeSource: "API" };
};
const first = (appId: number, events: WebhookEvent[]): WebhookQueueMessage => ({ v: WEBHOOK_MESSAGE_VERSION, appId, deliveryId: null, attempt: 0, events });

/** A test account with the app hooked to a receiver, and a STANDARD account with the same app installed. */
async function twoAccounts(): Promise<{ t: Tenant; std: number; path: string }> {
  const t = await tenant({ accountType: "DEVELOPER_TEST" });
  const path = await hookUp(t);
  const std = await admin("POST", "/admin/v1/accounts", { name: `std-${crypto.randomUUID()}` });
  await admin("POST", `/admin/v1/accounts/${std.portalId}/installs`, { appId: t.appId });
  return { t, std: std.portalId as number, path };
}

const advance = async (t: Tenant, seconds: number) => expect((await call("POST", `/admin/v1/accounts/${t.portalId}/clock`, { token: ADMIN, body: { advanceSeconds: seconds } })).status).toBe(200);

describe("a delivery mixing a moved clock's events with other accounts'", () => {
  it("is split: the STANDARD account's events retry by real time, the test account's by its clock", async () => {
    const { t, std, path } = await twoAccounts();
    await advance(t, 60);
    await script(path, { status: 500, times: 2 });
    const kept = keptQueue();
    const deps = depsWith(kept.queue);
    const prod = [event(std, t.appId), event(std, t.appId)];
    const mine = [event(t.portalId, t.appId)];
    // One first attempt, the accounts' events interleaved (as a drain of one database packs them).
    expect(await deliverWave([first(t.appId, [prod[0]!, mine[0]!, prod[1]!])], deps)).toEqual(["retry"]);

    // The POST carried the STANDARD account's events only; the test account's went back to the queue as their own delivery.
    const posts = await deliveries(path);
    expect(posts.map((d) => d.events.map((e) => e.eventId))).toEqual([prod.map((e) => e.eventId)]);
    const split = kept.sent.find((s) => s.body.attempt === 0)!;
    expect(split.body).toMatchObject({ appId: t.appId, deliveryId: expect.any(Number), events: mine });
    expect(split.delaySeconds).toBeUndefined();
    const realRetry = kept.sent.find((s) => s.body.attempt === 1)!;
    expect(realRetry.body.events).toEqual(prod);
    expect(realRetry.delaySeconds).toBeGreaterThanOrEqual(45 * 60);
    const log = (await dev(t, "GET", `/deliveries/${split.body.deliveryId}`)).json;
    expect(log).toMatchObject({ status: "pending", eventIds: [mine[0]!.eventId], attempts: [] });

    // The test account's delivery, when the queue hands it back: alone, and failing too.
    expect(await deliverWave([split.body], deps)).toEqual(["retry"]);
    expect((await deliveries(path)).map((d) => d.events.map((e) => e.eventId))).toEqual([prod.map((e) => e.eventId), [mine[0]!.eventId]]);
    // Its retry comes due by the test account's clock: 80 minutes on, it is POSTed (by the real queue) at once.
    await advance(t, 80 * 60);
    const got = await waitFor(path, (d) => d.length >= 3);
    expect(got[2]!.events.map((e) => [e.eventId, e.attemptNumber])).toEqual([[mine[0]!.eventId, 1]]);
    // The STANDARD account's retry is not due by real time: never sent by the move.
    await new Promise((r) => setTimeout(r, 1000));
    expect(await deliveries(path)).toHaveLength(3);
  });

  it("a test account's events with a clock moved ahead of another's each go alone; the real-time accounts' stay together", async () => {
    const { t, std, path } = await twoAccounts();
    const other = await admin("POST", "/admin/v1/accounts", { name: `t2-${crypto.randomUUID()}`, accountType: "SANDBOX" });
    await admin("POST", `/admin/v1/accounts/${other.portalId}/installs`, { appId: t.appId });
    const still = await admin("POST", "/admin/v1/accounts", { name: `t3-${crypto.randomUUID()}`, accountType: "SANDBOX" }); // a test account on real time
    await admin("POST", `/admin/v1/accounts/${still.portalId}/installs`, { appId: t.appId });
    await advance(t, 3600);
    expect((await call("POST", `/admin/v1/accounts/${other.portalId}/clock`, { token: ADMIN, body: { advanceSeconds: 7200 } })).status).toBe(200);
    const kept = keptQueue();
    const events = [event(other.portalId, t.appId), event(std, t.appId), event(t.portalId, t.appId), event(still.portalId, t.appId), event(other.portalId, t.appId)];
    expect(await deliverWave([first(t.appId, events)], depsWith(kept.queue))).toEqual(["delivered"]);
    const [posted] = await deliveries(path);
    expect(posted!.events.map((e) => e.portalId)).toEqual([std, still.portalId]);
    expect(kept.sent.map((s) => s.body.events.map((e) => e.portalId))).toEqual([[other.portalId, other.portalId], [t.portalId]]);
  });

  it("a delivery of accounts on real time only (a test account whose clock was not moved among them) is not split: one POST, nothing sent back, no delivery opened", async () => {
    const { t, std, path } = await twoAccounts();
    const kept = keptQueue();
    const { db, seen } = recordingD1(env.DB);
    const deps = { ...depsWith(kept.queue), control: controlDb({ ...env, DB: db } as Env) };
    expect(await deliverWave([first(t.appId, [event(std, t.appId), event(t.portalId, t.appId)])], deps)).toEqual(["delivered"]);
    expect((await deliveries(path))[0]!.events).toHaveLength(2);
    expect(kept.sent).toEqual([]);
    // The clocks came with the wave's read of its targets: no delivery was opened for a split.
    expect(seen.some((s) => s.includes("into webhook_deliveries (app_id, events, event_count, status, attempts, created_at"))).toBe(false);
  });
});
