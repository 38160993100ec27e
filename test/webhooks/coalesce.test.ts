/**
 * The webhook consumer packs first attempts of one app into deliveries of up to 100 events, and takes the
 * events out of the outbox when the queue hands them over (not when they are sent).
 */
import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { coalesce } from "../../src/services/webhooks/coalesce";
import { CLAIM_MS, drainOutbox } from "../../src/services/webhooks/drain";
import { MAX_EVENTS_PER_DELIVERY, type WebhookEvent, type WebhookQueueMessage } from "../../src/services/webhooks/message";
import { call, tenant } from "../helpers/api";
import { accountD1, accountDb } from "../helpers/shards";
import { armFaults, disarmFaults, InjectedFault } from "../reliability/fault-injector";
import { deliveries, dev, hookUp, subscribe, waitFor } from "./helpers";

afterEach(() => disarmFaults());

const event = (eventId: number, appId = 1): WebhookEvent => ({
  eventId, subscriptionId: 2, portalId: 3, appId, occurredAt: 4, subscriptionType: "contact.creation", objectId: eventId, changeSource: "API",
});
const first = (appId: number, ids: number[]): WebhookQueueMessage => ({ v: 1, appId, deliveryId: null, attempt: 0, events: ids.map((i) => event(i, appId)) });
const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

describe("packing a batch", () => {
  it("joins first attempts of one app up to 100 events, never splits a message, keeps apps and attempted deliveries apart", () => {
    const items = [
      { source: "a", message: first(1, range(1, 40)) },
      { source: "b", message: first(2, [500]) },
      { source: "c", message: first(1, range(41, 40)) },
      // 40 + 40 + 30 > 100: starts the app's next delivery, whole.
      { source: "d", message: first(1, range(81, 30)) },
      // A retry keeps its delivery log row and its attempt number.
      { source: "e", message: { ...first(1, [900]), deliveryId: 7, attempt: 3 } },
      { source: "f", message: first(1, range(111, 20)) },
    ];
    const packed = coalesce(items);
    expect(packed.map((p) => [p.sources, p.delivery.appId, p.delivery.events.length])).toEqual([
      [["a", "c"], 1, 80],
      [["b"], 2, 1],
      [["d", "f"], 1, 50],
      [["e"], 1, 1],
    ]);
    expect(packed[0]!.delivery.events.map((e) => e.eventId)).toEqual(range(1, 80));
    expect(packed[3]!.delivery).toMatchObject({ deliveryId: 7, attempt: 3 });
    // The messages themselves are left as they were (a retried source is sent again as it came).
    expect(items[0]!.message.events).toHaveLength(40);
  });

  it("a full message goes alone, and no delivery passes 100 events", () => {
    const packed = coalesce([first(1, range(1, 100)), first(1, [101]), first(1, range(102, 99))].map((message, i) => ({ source: i, message })));
    expect(packed.map((p) => p.sources)).toEqual([[0], [1, 2]]);
    expect(Math.max(...packed.map((p) => p.delivery.events.length))).toBeLessThanOrEqual(MAX_EVENTS_PER_DELIVERY);
  });

  it("keeps a delivery within a queue message's size: large events start a new one", () => {
    // At the outbox's cut (20,000 characters), 40 KB each in UTF-8: three fit a queue message, four do not.
    const big = (id: number) => ({ ...event(id), propertyName: "notes", propertyValue: "é".repeat(20_000) });
    const msg = (ids: number[]): WebhookQueueMessage => ({ v: 1, appId: 1, deliveryId: null, attempt: 0, events: ids.map(big) });
    const packed = coalesce([msg([1, 2]), msg([3]), msg([4, 5]), msg([6])].map((message, i) => ({ source: i, message })));
    expect(packed.map((p) => p.sources)).toEqual([[0, 1], [2, 3]]);
  });
});

describe("the consumer", () => {
  it("POSTs three drained messages of one app as one delivery, and only then are their outbox rows gone", async () => {
    const t = await tenant();
    const path = await hookUp(t);
    await subscribe(t, "contact.creation");
    // The writes' own drains crash, so the rows wait in the outbox for the drains below.
    armFaults((point) => {
      if (point === "webhook:send") throw new InjectedFault(point);
    });
    const sent: MessageSendRequest[][] = [];
    const capture = { sendBatch: async (batch: MessageSendRequest[]) => void sent.push(batch) } as unknown as Queue;
    // The drain claims every due row of the database, and other files' accounts share it: only this app's count.
    const mine = () => sent.flat().filter((m) => (m.body as WebhookQueueMessage).appId === t.appId);
    // Other files' drains share the database too, and any drain reclaims a row once its claim is CLAIM_MS old.
    // So this account's rows are held as claimed until just before `later` (days ahead): only the drains
    // below, at `later`, can take them.
    const later = Date.now() + 10 * 86_400_000;
    const db = await accountDb(t.portalId);
    const d1 = await accountD1(t.portalId);
    const hold = () => d1.prepare("update webhook_outbox set claimed_at = ? where portal_id = ? and (claimed_at is null or claimed_at < ?)").bind(later - CLAIM_MS, t.portalId, later - CLAIM_MS).run();
    const ids: number[] = [];
    for (const name of ["one", "two", "three"]) {
      const made = await call("POST", "/crm/v3/objects/contacts", { token: t.oauth, body: { properties: { firstname: name } } });
      expect(made.status).toBe(201);
      ids.push(Number(made.json.id));
      await hold();
      disarmFaults();
      await drainOutbox(db, capture, later);
      expect(mine()).toHaveLength(ids.length);
      armFaults((point) => {
        if (point === "webhook:send") throw new InjectedFault(point);
      });
    }
    disarmFaults();
    expect(mine()).toHaveLength(3);

    // Sent, not yet taken: the rows stay, claimed, so no drain within the claim sends them again.
    const rows = async () => (await d1.prepare("select id from webhook_outbox where portal_id = ?").bind(t.portalId).all()).results;
    expect(await rows()).toHaveLength(3);
    await drainOutbox(db, capture, later + 1);
    expect(mine()).toHaveLength(3);

    const batch = createMessageBatch(
      "crm-edge-webhooks",
      mine().map((m, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: 1, body: m.body })),
    );
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(["m0", "m1", "m2"]);
    expect(await rows()).toEqual([]);
    const got = await waitFor(path, (d) => d.length >= 1);
    expect(got).toHaveLength(1);
    expect(got[0]!.events.map((e) => e.objectId)).toEqual(ids);
    expect((await deliveries(path)).length).toBe(1);
    // One delivery in the log, with the three events' ids.
    const log = (await dev(t, "GET", "/deliveries")).json.results as { status: string; eventCount: number; eventIds: number[] }[];
    expect(log).toEqual([expect.objectContaining({ status: "delivered", eventCount: 3, eventIds: got[0]!.events.map((e) => e.eventId) })]);
  });
});
