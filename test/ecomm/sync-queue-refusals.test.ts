/**
 * A sendBatch the queue refuses (Queues' transient "overloaded" / "Too Many Requests" / internal errors)
 * is retried shortly; if the queue keeps refusing, the request gets 503 with Retry-After. The real queue
 * binding is used throughout: the test wraps it so that its first calls throw, as the platform's would.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { QUEUE_BUSY_RETRY_AFTER_S, SEND_RETRY_DELAYS_MS } from "../../src/services/ecomm/enqueue";
import { BASE, tenant } from "../helpers/api";
import { accountSettings, BRIDGE, processed, store, waitForStatus } from "./helpers";
import { countingQueue } from "./queue-helpers";

/** The real SYNC_QUEUE, except that its first `refusals` sendBatch calls throw. */
const refusingQueue = (refusals: number) => countingQueue(env.SYNC_QUEUE, refusals);

async function put(token: string, queue: Queue, messages: unknown[]) {
  const request = new Request(`${BASE}${BRIDGE}/sync/messages`, {
    method: "PUT",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ storeId: "shop", objectType: "PRODUCT", messages }),
  });
  const ctx = createExecutionContext();
  const res = await worker.fetch(request as Parameters<typeof worker.fetch>[0], { ...env, SYNC_QUEUE: queue }, ctx);
  await waitOnExecutionContext(ctx);
  return { status: res.status, headers: res.headers, json: res.status === 204 ? null : ((await res.json()) as Record<string, unknown>) };
}

describe("PUT /sync/messages when the queue refuses a sendBatch", () => {
  it("retries the refused call and answers 204; the messages are applied", async () => {
    const t = await tenant();
    await accountSettings(t);
    await store(t.pat);
    const { queue, calls } = refusingQueue(1);
    const res = await put(t.pat, queue, [{ externalObjectId: "p1", action: "UPSERT", changedAt: 1, properties: { title: "Pen" } }]);
    expect(res.status).toBe(204);
    expect(calls).toEqual([1, 1]);
    await waitForStatus(t.pat, "PRODUCT", "p1", processed);
  });

  it("answers 503 with Retry-After and the error envelope once every retry is refused", async () => {
    const t = await tenant();
    await accountSettings(t);
    await store(t.pat);
    const { queue, calls } = refusingQueue(Infinity);
    const res = await put(t.pat, queue, [{ externalObjectId: "p1", action: "UPSERT", changedAt: 1 }]);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe(String(QUEUE_BUSY_RETRY_AFTER_S));
    expect(res.json).toMatchObject({ status: "error", category: "INTERNAL_ERROR", message: expect.stringContaining("Send the whole request again") });
    expect(res.headers.get("x-service-correlation-id")).toBe(res.json!.correlationId);
    expect(calls).toHaveLength(SEND_RETRY_DELAYS_MS.length + 1);
  });

  it("sends a 200-message request as 2 queue messages (packs of 100) in one call", async () => {
    const t = await tenant();
    await accountSettings(t);
    await store(t.pat);
    const { queue, calls } = refusingQueue(0);
    const messages = Array.from({ length: 200 }, (_, i) => ({ externalObjectId: `p-${i}`, action: "UPSERT", changedAt: 1 }));
    const res = await put(t.pat, queue, messages);
    expect(res.status).toBe(204);
    expect(calls).toEqual([2]);
    for (const i of [0, 199]) await waitForStatus(t.pat, "PRODUCT", `p-${i}`, processed);
  });

  it("retries each sendBatch call of a large request on its own", async () => {
    const t = await tenant();
    await accountSettings(t);
    await store(t.pat);
    const { queue, calls } = refusingQueue(1);
    // About 40 KB each: 3 to a pack (128 KB), 2 packs to a call (256 KB): calls of 2 and 1 packs.
    const messages = Array.from({ length: 8 }, (_, i) => ({ externalObjectId: `p-${i}`, action: "UPSERT", changedAt: 1, properties: { description: "x".repeat(40_000) } }));
    const res = await put(t.pat, queue, messages);
    expect(res.status).toBe(204);
    expect(calls).toEqual([2, 1, 2]);
    for (const i of [0, 7]) await waitForStatus(t.pat, "PRODUCT", `p-${i}`, processed);
  });
});
