/**
 * Each queue's batches reach their consumer by the end of the queue's name, so a deployment whose queues
 * carry another prefix (staging's `crm-edge-staging-*`) is served as production's `crm-edge-*` is, and the
 * further sync queues of shard groups (`-sync-<n>`) reach the sync consumer.
 */
import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { queueRole } from "../../src/queue/consumer";
import { MAINTENANCE_MESSAGE_VERSION } from "../../src/services/maintenance/message";

describe("queue names", () => {
  it.each([
    ["crm-edge-sync", "sync"],
    ["crm-edge-staging-sync", "sync"],
    ["crm-edge-sync-dlq", "sync-dlq"],
    // The further sync queues of shard groups (src/services/ecomm/sync-queues.ts).
    ["crm-edge-sync-1", "sync"],
    ["crm-edge-staging-sync-12", "sync"],
    ["crm-edge-sync-x", undefined],
    ["crm-edge-staging-webhooks", "webhooks"],
    ["crm-edge-staging-webhooks-dlq", "webhooks-dlq"],
    ["crm-edge-maintenance", "maintenance"],
    ["crm-edge-staging-maintenance-dlq", "maintenance-dlq"],
    ["crm-edge-syncs", undefined],
    ["other", undefined],
  ])("%s → %s", (name, role) => {
    expect(queueRole(name)).toBe(role);
  });

  it("a staging-named maintenance batch runs its job and is acknowledged; an unknown queue's batch is retried", async () => {
    const body = { v: MAINTENANCE_MESSAGE_VERSION, job: "publish-scheduled-posts", shard: "DB", scheduledTime: Date.now() };
    const staging = createMessageBatch("crm-edge-staging-maintenance", [{ id: "m1", timestamp: new Date(), attempts: 1, body }]);
    const ctx = createExecutionContext();
    await worker.queue(staging, env, ctx);
    const done = await getQueueResult(staging, ctx);
    expect(done.explicitAcks).toEqual(["m1"]);
    expect(done.retryMessages).toEqual([]);

    const unknown = createMessageBatch("somebody-elses-queue", [{ id: "u1", timestamp: new Date(), attempts: 1, body }]);
    const ctx2 = createExecutionContext();
    await worker.queue(unknown, env, ctx2);
    expect((await getQueueResult(unknown, ctx2)).retryBatch.retry).toBe(true);
  });
});
