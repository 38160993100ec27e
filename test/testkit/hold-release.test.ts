/**
 * Releasing a hold on an app whose delivery log spans more databases than a request reads (docs/reference/testkit.md
 * "Hold"): the others are released by maintenance messages, one per database, each releasing that database's
 * held deliveries as the request would.
 */
import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { MAINTENANCE_MESSAGE_VERSION } from "../../src/services/maintenance/message";
import { RELEASE_JOB } from "../../src/services/webhooks/hold";
import { dev, subscribe, waitFor } from "../webhooks/helpers";
import { hold, hookedTestTenant, testEvent } from "./helpers";

describe("the hold's release by maintenance message", () => {
  it("sends one database's held deliveries and clears them there", async () => {
    const { t, path } = await hookedTestTenant();
    await subscribe(t, "contact.creation");
    expect((await hold(t, true)).status).toBe(200);
    const made = await testEvent(t, { subscriptionType: "contact.creation" });
    expect(made.status, made.text).toBe(202);
    await expect.poll(async () => (await dev(t, "GET", "/deliveries?status=held")).json.results.length, { timeout: 20_000 }).toBe(1);
    // The hold lifted as a release lifts it first; the release itself comes by the maintenance queue.
    await env.DB.prepare("delete from webhook_holds where app_id = ?").bind(t.appId).run();
    const batch = createMessageBatch("crm-edge-maintenance", [
      { id: "r1", timestamp: new Date(), attempts: 1, body: { v: MAINTENANCE_MESSAGE_VERSION, job: RELEASE_JOB, shard: t.shard, scheduledTime: Date.now(), subject: t.appId } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["r1"]);
    const got = await waitFor(path, (d) => d.length >= 1);
    expect(got[0]!.events.map((e) => e.eventId)).toEqual([made.json.eventId]);
    expect((await dev(t, "GET", "/deliveries?status=held")).json.results).toEqual([]);
  });
});
