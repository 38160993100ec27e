/**
 * The app's delivery log across databases (docs/reference/webhooks.md "The delivery log"): each delivery is
 * stored with its account, on the account's shard; the app's developer lists the deliveries of every account
 * the app is installed in, newest first, paged by an opaque cursor, and never another app's.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { makeDb } from "../../src/db/client";
import { consumeWebhookBatch } from "../../src/services/webhooks/deliver";
import { openDelivery } from "../../src/services/webhooks/log";
import { WEBHOOK_MESSAGE_VERSION, type WebhookEvent } from "../../src/services/webhooks/message";
import { admin, expectError, tenant } from "../helpers/api";
import { armFaults, disarmFaults } from "../reliability/fault-injector";
import { dev, hookUp, waitFor } from "./helpers";

let nextId = 7_000_000_000 + Math.floor(Math.random() * 1e8) * 10;
const event = (portalId: number, appId: number): WebhookEvent => {
  const eventId = nextId++;
  return { eventId, subscriptionId: 1, portalId, appId, occurredAt: Date.now(), subscriptionType: "contact.creation", objectId: eventId, changeSource: "API" };
};

describe("the delivery log of an app installed in accounts on two shards", () => {
  it("lists every install's deliveries newest first across the shards, pages with the cursor, and never another app's", async () => {
    const a = await tenant({ shard: "SHARD_1" });
    // A second account of A's app, on the other shard.
    const second = await admin("POST", "/admin/v1/accounts", { name: `second-${crypto.randomUUID()}`, shard: "SHARD_2" });
    await admin("POST", `/admin/v1/accounts/${second.portalId}/installs`, { appId: a.appId });
    // Another app, installed in an account on SHARD_1 beside A's.
    const other = await tenant({ shard: "SHARD_1" });
    const s1 = makeDb(env.SHARD_1);
    const s2 = makeDb(env.SHARD_2);
    const t0 = Date.now();
    const first = await openDelivery(s1, a.appId, [event(a.portalId, a.appId)], t0);
    const middle = await openDelivery(s2, a.appId, [event(second.portalId, a.appId)], t0 + 1);
    const last = await openDelivery(s1, a.appId, [event(a.portalId, a.appId)], t0 + 2);
    const foreign = await openDelivery(s1, other.appId, [event(other.portalId, other.appId)], t0 + 3);
    // Ids come from each shard's own range.
    expect(Math.floor(first / 100_000_000_000)).toBe(1);
    expect(Math.floor(middle / 100_000_000_000)).toBe(2);

    const all = await dev(a, "GET", "/deliveries");
    expect(all.status, all.text).toBe(200);
    expect(all.json.results.map((d: { id: string }) => Number(d.id))).toEqual([last, middle, first]);
    expect(all.json.paging).toBeUndefined();
    // One at a time: the cursor continues across the shards, every delivery once.
    const seen: number[] = [];
    let before: string | undefined;
    for (let i = 0; i < 5; i++) {
      const page = await dev(a, "GET", `/deliveries?limit=1${before ? `&before=${encodeURIComponent(before)}` : ""}`);
      expect(page.status, page.text).toBe(200);
      seen.push(...page.json.results.map((d: { id: string }) => Number(d.id)));
      before = page.json.paging?.next.before;
      if (!before) break;
    }
    expect(seen).toEqual([last, middle, first]);
    // A delivery id as `before` (as pages of the control plane's older log gave): the deliveries of smaller ids.
    expect((await dev(a, "GET", `/deliveries?before=${middle}`)).json.results.map((d: { id: string }) => Number(d.id))).toEqual([last, first]);
    expectError(await dev(a, "GET", "/deliveries?before=not-a-cursor"), 400, "VALIDATION_ERROR");

    // Each delivery is found by id, on whichever shard holds it; another app's is a 404 to A's developer.
    expect((await dev(a, "GET", `/deliveries/${middle}`)).json).toMatchObject({ id: String(middle), status: "pending", eventCount: 1 });
    expectError(await dev(a, "GET", `/deliveries/${foreign}`), 404, "OBJECT_NOT_FOUND");
    expect((await dev(other, "GET", "/deliveries")).json.results.map((d: { id: string }) => Number(d.id))).toEqual([foreign]);

    // A shard that cannot be read is named, and the others still answer.
    armFaults((point, ids) => {
      if (point === "shard:open" && ids.includes("SHARD_2")) throw new Error("injected outage of SHARD_2");
    });
    try {
      const down = await dev(a, "GET", "/deliveries");
      expect(down.status, down.text).toBe(200);
      expect(down.json.unavailableShards).toEqual(["SHARD_2"]);
      expect(down.json.results.map((d: { id: string }) => Number(d.id))).toEqual([last, first]);
    } finally {
      disarmFaults();
    }
  });
});

describe("a delivery of an account that is moving", () => {
  it("is POSTed, but its record is refused by the fence: the queue message goes again, and is recorded once the account is writable", async () => {
    const t = await tenant({ shard: "SHARD_1" });
    const path = await hookUp(t);
    const events = [event(t.portalId, t.appId)];
    const settled = { acked: 0, retried: 0 };
    const batch = () =>
      ({
        queue: "crm-edge-webhooks",
        messages: [{ id: "m", body: { v: WEBHOOK_MESSAGE_VERSION, appId: t.appId, portalId: t.portalId, deliveryId: null, attempt: 0, events }, attempts: 1, timestamp: new Date(), ack: () => settled.acked++, retry: () => settled.retried++ }],
        ackAll() {},
        retryAll() {},
      }) as unknown as MessageBatch<unknown>;
    // Fenced as a move fences its source: every write of the account's rows is refused there.
    await env.SHARD_1.prepare("insert into account_fences (portal_id, state, created_at) values (?, 'moving', ?)").bind(t.portalId, Date.now()).run();
    try {
      expect(await consumeWebhookBatch(batch(), env)).toEqual({ unrecorded: 1 });
      expect(settled).toEqual({ acked: 0, retried: 1 });
      expect((await dev(t, "GET", "/deliveries")).json.results).toEqual([]);
    } finally {
      await env.SHARD_1.prepare("delete from account_fences where portal_id = ?").bind(t.portalId).run();
    }
    // The queue's retry: POSTed again (a duplicate for the receiver, never a loss) and logged.
    expect(await consumeWebhookBatch(batch(), env)).toEqual({ delivered: 1 });
    expect(settled).toEqual({ acked: 1, retried: 1 });
    const posts = await waitFor(path, (d) => d.length >= 2);
    expect(posts.map((d) => d.events.map((e) => e.eventId))).toEqual([[events[0]!.eventId], [events[0]!.eventId]]);
    expect((await dev(t, "GET", "/deliveries")).json.results).toEqual([expect.objectContaining({ status: "delivered", eventIds: [events[0]!.eventId] })]);
  });
});
