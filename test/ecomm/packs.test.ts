/**
 * Packs (src/services/ecomm/sync-message.ts): PUT /sync/messages puts up to 100 sync messages in one queue message.
 * The consumer decides each sync message on its own and settles the queue message once all are decided:
 * acked when every one was, retried whole (longest delay) otherwise; the dead-letter consumer records the
 * messages of an exhausted pack that were not applied.
 */
import { createMessageBatch, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { PACK_OVERHEAD_BYTES, packMessages, queueBytes, syncMessagesOf, type SyncQueueMessage, type SyncQueuePack } from "../../src/services/ecomm/sync-message";
import { MAX_QUEUE_MESSAGE_BYTES } from "../../src/lib/queue-limits";
import { backoffSeconds } from "../../src/services/ecomm/plan";
import { consumeSyncBatch } from "../../src/services/ecomm/consumer";
import { bridgeTenant, countingQueue, deliver, errorRow, linkRow, qmsg, record, type Origin } from "./queue-helpers";
import { hookUp, subscribe, waitForEvents } from "../webhooks/helpers";
import { accountD1 } from "../helpers/shards";

/** Messages of one request: they share their receive time, as packMessages expects. */
const products = (origin: Origin, n: number, from = 0) => {
  const msgs = Array.from({ length: n }, (_, i) => qmsg(origin, "PRODUCT", { externalObjectId: `p-${from + i}`, changedAt: 1000, properties: { title: `Product ${from + i}` } }));
  return msgs.map((m) => ({ ...m, receivedAt: msgs[0]!.receivedAt }));
};

const pack = (msgs: SyncQueueMessage[]): SyncQueuePack => packMessages(msgs).packs[0]!;

describe("packMessages", () => {
  it("puts up to 100 messages in a pack, their shared fields once, and unpacks them as they were", async () => {
    const { origin } = await bridgeTenant();
    const msgs = products(origin, 250);
    const { packs } = packMessages(msgs);
    expect(packs.map((p) => p.messages.length)).toEqual([100, 100, 50]);
    expect(packs[0]).toMatchObject({ v: 2, portalId: origin.portalId, appId: origin.appId, storeId: "shop", objectType: "PRODUCT" });
    expect(packs.flatMap((p) => syncMessagesOf(p)!)).toEqual(msgs);
    // The shared fields once: about half the bytes of the same messages one by one.
    expect(JSON.stringify(packs[0]).length).toBeLessThan(0.6 * msgs.slice(0, 100).reduce((n, m) => n + JSON.stringify(m).length, 0));
  });

  it("closes a pack before it outgrows one queue message", async () => {
    const { origin } = await bridgeTenant();
    const big = Array.from({ length: 7 }, (_, i) => qmsg(origin, "PRODUCT", { externalObjectId: `b-${i}`, properties: { description: "x".repeat(40_000) } }));
    const { packs, bytes } = packMessages(big);
    expect(packs.map((p) => p.messages.length)).toEqual([3, 3, 1]);
    for (const [i, p] of packs.entries()) {
      expect(JSON.stringify(p).length + 100).toBeLessThanOrEqual(bytes[i]!);
      expect(bytes[i]).toBeLessThanOrEqual(MAX_QUEUE_MESSAGE_BYTES);
    }
    expect(bytes[0]).toBe(PACK_OVERHEAD_BYTES + big.slice(0, 3).reduce((n, m) => n + queueBytes(m), 0));
  });

  it("refuses a pack that is not one (the consumer drops it as unreadable)", () => {
    expect(syncMessagesOf({ v: 2, messages: [] })).toBeNull();
    expect(syncMessagesOf({ v: 2, portalId: 1, appId: null, storeId: "s", storeGen: "g", objectType: "PRODUCT", receivedAt: 1, messages: [{ id: "m" }] })).toBeNull();
  });
});

describe("sync consumer: packs", () => {
  it("applies every message of a pack and acks it once", async () => {
    const { origin } = await bridgeTenant();
    const res = await deliver([pack(products(origin, 100))], { report: true });
    expect(res.acked(0)).toBe(true);
    expect(res.report.filter((s) => s.action === "ack")).toHaveLength(100);
    for (const i of [0, 99]) {
      const link = await linkRow(origin, "PRODUCT", `p-${i}`);
      expect((await record(link!.service_id!)).properties.name).toBe(`Product ${i}`);
    }
  });

  it("applies a batch of more than 100 sync messages, 100 at a time", async () => {
    const { origin } = await bridgeTenant();
    const res = await deliver([pack(products(origin, 100)), pack(products(origin, 100, 100)), products(origin, 1, 200)[0]], { report: true });
    expect([res.acked(0), res.acked(1), res.acked(2)]).toEqual([true, true, true]);
    expect(res.report.map((s) => s.reason.split(" ")[0])).toEqual(Array(201).fill("applied"));
    for (const i of [0, 150, 200]) expect((await linkRow(origin, "PRODUCT", `p-${i}`))?.processed_at).toBeTypeOf("number");
  });

  it("retries the whole pack when one message must wait, and drops its applied messages when it comes back", async () => {
    const { origin } = await bridgeTenant();
    await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p1", properties: { title: "Pen" } }), qmsg(origin, "DEAL", { externalObjectId: "d1", properties: { stage: "checkout_pending" } })]);
    // A line item whose deal has not arrived is retried (plan.ts); the other is applied at once.
    const liPack = pack([
      qmsg(origin, "LINE_ITEM", { externalObjectId: "li-wait", properties: { qty: 1 }, associations: { DEAL: ["d-late"], PRODUCT: ["p1"] } }),
      qmsg(origin, "LINE_ITEM", { externalObjectId: "li-ready", properties: { qty: 1 }, associations: { DEAL: ["d1"], PRODUCT: ["p1"] } }),
    ]);
    const first = await deliver([liPack], { attempts: 2, report: true });
    expect(first.retried(0)).toBe(true);
    expect(first.acked(0)).toBe(false);
    expect(first.delayOf(0)).toBe(backoffSeconds(2));
    const applied = await linkRow(origin, "LINE_ITEM", "li-ready");
    expect(applied?.processed_at).toBeTypeOf("number");
    expect(await linkRow(origin, "LINE_ITEM", "li-wait")).toBeNull();

    const back = await deliver([liPack], { attempts: 3, report: true });
    expect(back.retried(0)).toBe(true);
    expect(back.delayOf(0)).toBe(backoffSeconds(3));
    expect(back.report.filter((s) => s.action === "ack").map((s) => s.reason)).toEqual(["already applied (redelivery)"]);
    expect(await linkRow(origin, "LINE_ITEM", "li-ready")).toEqual(applied);
  });

  it("sends the webhook events of the whole queue batch in one call, not one per 100 sync messages", async () => {
    const { t, origin } = await bridgeTenant();
    const path = await hookUp(t);
    await subscribe(t, "product.creation");
    const { queue, calls } = countingQueue(env.WEBHOOK_QUEUE);
    const packs = [pack(products(origin, 100)), pack(products(origin, 100, 100))];
    const batch = createMessageBatch("crm-edge-sync", packs.map((body, i) => ({ id: `wh-${Date.now()}-${i}`, timestamp: new Date(), attempts: 1, body })));
    const settled = await consumeSyncBatch(batch, { ...env, WEBHOOK_QUEUE: queue });
    expect(settled.filter((x) => x.reason.startsWith("applied"))).toHaveLength(200);
    // 200 creation events: 2 queue messages of 100 events, in one sendBatch.
    expect(calls).toEqual([2]);
    // Delivered through the real queue, which also takes them out of the outbox: no claimed rows are left
    // for a later file of this runtime whose drain reads the whole shard's outbox.
    expect(await waitForEvents(path, 200)).toHaveLength(200);
    const left = await (await accountD1(t.portalId)).prepare("select count(*) as n from webhook_outbox where portal_id = ?").bind(t.portalId).first<{ n: number }>();
    expect(left?.n).toBe(0);
  });

  it("a dead-lettered pack records its messages that were not applied, and not those that were", async () => {
    const { origin } = await bridgeTenant();
    const [applied, lost] = products(origin, 2);
    await deliver([applied!]);
    const res = await deliver([pack([applied!, lost!])], { queue: "crm-edge-sync-dlq" });
    expect(res.acked(0)).toBe(true);
    expect(await errorRow(origin, "PRODUCT", applied!.message.externalObjectId)).toBeNull();
    expect(await errorRow(origin, "PRODUCT", lost!.message.externalObjectId)).toMatchObject({ type: "UNKNOWN_ERROR", status: "OPEN" });
  });
});
