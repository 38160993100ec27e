/**
 * Several sync queues (docs/explanation/scaling.md "Sync queues"): with two declared (SYNC_QUEUE and
 * SYNC_QUEUE_1), an account's messages go to the queue of its shard's group (shard ordinal mod 2), every
 * message of one account to the same queue, and both queues' consumers apply them.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { syncGroup, syncQueues } from "../../src/services/ecomm/sync-queues";
import { BASE, tenant } from "../helpers/api";
import { accountSettings, BRIDGE, processed, store, waitForStatus } from "./helpers";

/** A queue that records the accounts of the packs sent through it, then hands them to the real queue. */
function recording(inner: Queue) {
  const portals: number[] = [];
  const queue = {
    send: (body: unknown, o?: QueueSendOptions) => inner.send(body, o),
    // A pack carries its account once, beside its messages (src/services/ecomm/sync-message.ts).
    sendBatch: async (messages: Iterable<MessageSendRequest<{ portalId: number }>>, o?: QueueSendBatchOptions) => {
      const list = [...messages];
      for (const m of list) portals.push(m.body.portalId);
      await inner.sendBatch(list, o);
    },
  } as unknown as Queue;
  return { queue, portals };
}

async function put(token: string, e: Env, messages: unknown[]) {
  const request = new Request(`${BASE}${BRIDGE}/sync/messages`, {
    method: "PUT",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ storeId: "shop", objectType: "PRODUCT", messages }),
  });
  const ctx = createExecutionContext();
  const res = await worker.fetch(request as Parameters<typeof worker.fetch>[0], e, ctx);
  await waitOnExecutionContext(ctx);
  return res.status;
}

describe("two sync queues", () => {
  it("groups shards by ordinal mod N; the control plane is in group 0", () => {
    expect([null, "SHARD_1", "SHARD_2", "SHARD_3", "SHARD_10"].map((s) => syncGroup(s, 2))).toEqual([0, 1, 0, 1, 0]);
    expect(syncGroup("SHARD_7", 1)).toBe(0);
    const raw = env as unknown as Record<string, Queue>;
    expect(syncQueues(env)).toHaveLength(1);
    expect(syncQueues({ ...env, SYNC_QUEUE_1: raw.TEST_SYNC_QUEUE_1 } as Env)).toHaveLength(2);
    // A gap ends the list: SYNC_QUEUE_2 without SYNC_QUEUE_1 is not a third queue.
    expect(syncQueues({ ...env, SYNC_QUEUE_2: raw.TEST_SYNC_QUEUE_1 } as Env)).toHaveLength(1);
  });

  it("accounts on shards of different groups use different queues, each always the same one; both queues are consumed", async () => {
    const raw = env as unknown as Record<string, Queue>;
    const zero = recording(env.SYNC_QUEUE);
    const one = recording(raw.TEST_SYNC_QUEUE_1!);
    const e = { ...env, SYNC_QUEUE: zero.queue, SYNC_QUEUE_1: one.queue } as Env;
    const a = await tenant({ shard: "SHARD_1" }); // group 1
    const b = await tenant({ shard: "SHARD_2" }); // group 0
    for (const t of [a, b]) {
      await accountSettings(t);
      await store(t.pat);
    }
    for (let round = 0; round < 3; round++) {
      expect(await put(a.pat, e, [{ externalObjectId: `a${round}`, action: "UPSERT", changedAt: 1 + round, properties: { title: "A" } }])).toBe(204);
      expect(await put(b.pat, e, [{ externalObjectId: `b${round}`, action: "UPSERT", changedAt: 1 + round, properties: { title: "B" } }])).toBe(204);
    }
    expect(one.portals).toEqual([a.portalId, a.portalId, a.portalId]);
    expect(zero.portals).toEqual([b.portalId, b.portalId, b.portalId]);
    // Each queue's consumer (crm-edge-sync-1 reaches the sync consumer by its name) applies its messages.
    for (let round = 0; round < 3; round++) {
      await waitForStatus(a.pat, "PRODUCT", `a${round}`, processed);
      await waitForStatus(b.pat, "PRODUCT", `b${round}`, processed);
    }
  }, 60_000);
});
