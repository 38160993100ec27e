/**
 * Webhook deliveries and test accounts' clocks (docs/reference/testkit.md "Clock"): a delivery carries one
 * account's events (docs/reference/webhooks.md "The delivery log"), so each delivery's retries follow one
 * clock: a test account's retry comes due when its clock passes it, a STANDARD account's by real time. A
 * message queued with several accounts' events (as drains packed them before) is split by the consumer.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { admin, ADMIN, call, tenant, type Tenant } from "../helpers/api";
import { script } from "../helpers/integrator";
import { consumeWebhookBatch, deliverWave, type DeliveryDeps } from "../../src/services/webhooks/deliver";
import { deliveryMessages } from "../../src/services/webhooks/drain";
import { WEBHOOK_MESSAGE_VERSION, type WebhookEvent, type WebhookQueueMessage } from "../../src/services/webhooks/message";
import { controlDb } from "../../src/db/shards";
import { loopbackAllowed, outboundResolver } from "../../src/lib/outbound";
import { deliveries, dev, hookUp, waitFor } from "../webhooks/helpers";

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

describe("deliveries of a test account whose clock moved, beside a STANDARD account's", () => {
  it("go one account per delivery: the test account's retry comes due by its clock, the STANDARD account's by real time", async () => {
    const { t, std, path } = await twoAccounts();
    await advance(t, 60);
    await script(path, { status: 500, times: 2 });
    const kept = keptQueue();
    const deps = depsWith(kept.queue);
    const prod = [event(std, t.appId), event(std, t.appId)];
    const mine = [event(t.portalId, t.appId)];
    // The accounts' events interleaved, as a drain of one database claims them: one message per account.
    const messages = deliveryMessages([prod[0]!, mine[0]!, prod[1]!]);
    expect(messages.map((m) => [m.portalId, m.events])).toEqual([
      [std, prod],
      [t.portalId, mine],
    ]);
    expect(await deliverWave(messages, deps)).toEqual(["retry", "retry"]);
    expect((await deliveries(path)).map((d) => d.events.map((e) => e.eventId)).sort()).toEqual([prod.map((e) => e.eventId), [mine[0]!.eventId]].sort());
    const retries = kept.sent.filter((s) => s.body.attempt === 1);
    expect(retries.map((r) => r.body.events)).toEqual([prod, mine]);
    expect(retries.every((r) => r.delaySeconds! >= 45 * 60)).toBe(true);
    // The test account's retry comes due by its clock: 80 minutes on, it is POSTed (by the real queue) at once.
    await advance(t, 80 * 60);
    const got = await waitFor(path, (d) => d.length >= 3);
    expect(got[2]!.events.map((e) => [e.eventId, e.attemptNumber])).toEqual([[mine[0]!.eventId, 1]]);
    // The STANDARD account's retry is not due by real time: never sent by the move.
    await new Promise((r) => setTimeout(r, 1000));
    expect(await deliveries(path)).toHaveLength(3);
  });

  it("a message queued with several accounts' events is split by the consumer: one POST and one log row per account", async () => {
    const { t, std, path } = await twoAccounts();
    const events = [event(std, t.appId), event(t.portalId, t.appId), event(std, t.appId)];
    const settled = { acked: 0, retried: 0 };
    const body = first(t.appId, events);
    const batch = {
      queue: "crm-edge-webhooks",
      messages: [{ id: "mixed", body, attempts: 1, timestamp: new Date(), ack: () => settled.acked++, retry: () => settled.retried++ }],
      ackAll() {},
      retryAll() {},
    } as unknown as MessageBatch<unknown>;
    expect(await consumeWebhookBatch(batch, env)).toEqual({ delivered: 2 });
    expect(settled.retried).toBe(0);
    const posted = await waitFor(path, (d) => d.length >= 2);
    expect(posted.map((d) => d.events.map((e) => e.portalId)).sort()).toEqual([[std, std], [t.portalId]].sort());
    const logged = (await dev(t, "GET", "/deliveries")).json.results as { eventIds: number[] }[];
    expect(logged.map((d) => d.eventIds).sort()).toEqual([[events[0]!.eventId, events[2]!.eventId], [events[1]!.eventId]].sort());
  });
});
