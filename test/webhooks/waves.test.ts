/**
 * The webhook consumer handles a batch's deliveries in waves: one control-plane round trip for the wave's
 * targets and throttling slots before its POSTs, one for the slots' release after, and one on each database
 * holding the deliveries' log (the account's shard) for their attempts' records.
 * Run here on hand-made queue batches against the real D1, queue and local receiver, with D1 counted.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { consumeWebhookBatch } from "../../src/services/webhooks/deliver";
import { WEBHOOK_MESSAGE_VERSION, type WebhookEvent, type WebhookQueueMessage } from "../../src/services/webhooks/message";
import { tenant, type Tenant } from "../helpers/api";
import { countingD1 } from "../helpers/counting-d1";
import { SHARDS } from "../helpers/shards";
import { dev, eventsOf, hookUp, waitFor } from "./helpers";

let nextEventId = 9_000_000_000 + Math.floor(Math.random() * 1e8) * 100;

/** `n` contact.creation events of the tenant's account for its app (ids never written to any outbox). */
const events = (t: Tenant, n: number): WebhookEvent[] =>
  Array.from({ length: n }, () => {
    const id = nextEventId++;
    return { eventId: id, subscriptionId: 1, portalId: t.portalId, appId: t.appId, occurredAt: Date.now(), subscriptionType: "contact.creation", objectId: id, changeSource: "API" };
  });

/** A queue batch of first attempts, one message per event list; counts what the consumer acks and retries. */
function batchOf(t: Tenant, lists: WebhookEvent[][]) {
  const settled = { acked: 0, retried: 0 };
  const messages = lists.map((list, i) => {
    const body: WebhookQueueMessage = { v: WEBHOOK_MESSAGE_VERSION, appId: t.appId, deliveryId: null, attempt: 0, events: list };
    return { id: `m${i}`, body, attempts: 1, timestamp: new Date(), ack: () => settled.acked++, retry: () => settled.retried++ };
  });
  return { batch: { queue: "crm-edge-webhooks", messages, ackAll() {}, retryAll() {} } as unknown as MessageBatch<unknown>, settled };
}

describe("delivery in waves", () => {
  it("three deliveries of one batch cost two control-plane round trips together and one on the account's shard, and each arrives whole", async () => {
    // On a shard of its own, so the outbox delete (on the account's shard) is not among the counted round trips.
    const t = await tenant({ shard: SHARDS[0] });
    const path = await hookUp(t, { max: 10 });
    // 60 + 60 + 60 events: no two fit one delivery of 100, so the batch makes three POSTs.
    // A first batch puts the account's shard in this isolate's directory, as a running consumer has it.
    await consumeWebhookBatch(batchOf(t, [events(t, 1)]).batch, env);
    // 60 + 60 + 60 events: no two fit one delivery of 100, so the batch makes three POSTs.
    const lists = [events(t, 60), events(t, 60), events(t, 60)];
    const { batch, settled } = batchOf(t, lists);
    const db = countingD1(env.DB);
    const shard = countingD1(env[SHARDS[0]]);
    const outcomes = await consumeWebhookBatch(batch, { ...env, DB: db, [SHARDS[0]]: shard });
    expect(outcomes).toEqual({ delivered: 3 });
    expect(settled).toEqual({ acked: 3, retried: 0 });
    // Before: the targets (one statement for the app) and three slots; after: three releases.
    expect(db.counts.roundTrips).toBe(2);
    expect(db.counts.statements).toBe(1 + 3 + 3);
    // On the account's shard: the outbox rows' delete (180 ids: two statements of at most 100), then the three
    // deliveries' records (each opened with its attempt).
    expect(shard.counts.roundTrips).toBe(2);
    expect(shard.counts.statements).toBe(2 + 3 * 2);
    const got = (await waitFor(path, (d) => d.length >= 4)).filter((d) => d.events.length > 1);
    expect(got.map((d) => d.events.length)).toEqual([60, 60, 60]);
    expect(eventsOf(got).map((e) => e.eventId)).toEqual(lists.flat().map((e) => e.eventId));
    const log = (await dev(t, "GET", "/deliveries")).json.results as { status: string; eventCount: number }[];
    expect(log.filter((d) => d.status === "delivered").length).toBe(4);
  });

  it("slots are taken in order within the wave: with maxConcurrentRequests 1, one POST goes now and the others wait, then arrive", async () => {
    const t = await tenant();
    const path = await hookUp(t, { max: 1 });
    const lists = [events(t, 60), events(t, 60), events(t, 60)];
    const { batch, settled } = batchOf(t, lists);
    const outcomes = await consumeWebhookBatch(batch, env);
    expect(outcomes).toEqual({ delivered: 1, throttled: 2 });
    expect(settled).toEqual({ acked: 3, retried: 0 });
    // The waiting ones go through the real queue again, a second later, without using an attempt.
    const got = await waitFor(path, (d) => eventsOf(d).length >= 180, 30_000);
    expect(eventsOf(got).map((e) => e.eventId)).toEqual(lists.flat().map((e) => e.eventId));
    expect(got.flatMap((d) => d.events).every((e) => e.attemptNumber === 0)).toBe(true);
    expect(await env.DB.prepare("select count(*) as n from webhook_inflight where app_id = ?").bind(t.appId).first("n")).toBe(0);
  });
});
