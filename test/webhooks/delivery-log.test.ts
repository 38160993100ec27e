/**
 * The app's delivery log across databases (docs/reference/webhooks.md "The delivery log"): each delivery is
 * stored with its account, on the account's shard; the app's developer lists the deliveries of every account
 * the app is installed in, newest first, paged by an opaque cursor, and never another app's.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { makeDb } from "../../src/db/client";
import { openDelivery } from "../../src/services/webhooks/log";
import type { WebhookEvent } from "../../src/services/webhooks/message";
import { admin, expectError, tenant } from "../helpers/api";
import { armFaults, disarmFaults } from "../reliability/fault-injector";
import { dev } from "./helpers";

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
