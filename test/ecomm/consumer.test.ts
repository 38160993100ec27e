import { describe, expect, it } from "vitest";
import { ASSOC_MAX_ATTEMPTS, backoffSeconds } from "../../src/services/ecomm/plan";
import { associations, bridgeTenant, deliver, errorRow, linkRow, qmsg, record } from "./queue-helpers";
import { accountD1 } from "../helpers/shards";

const contact = (id: string, email: string, changedAt?: number) => ({
  externalObjectId: id,
  changedAt,
  properties: { customer_email: email, firstname: id },
});

describe("sync consumer: acks, retries, idempotency", () => {
  it("acks each applied message after its effect is committed", async () => {
    const { origin } = await bridgeTenant();
    const res = await deliver([qmsg(origin, "CONTACT", contact("c1", "c1@example.com")), qmsg(origin, "CONTACT", contact("c2", "c2@example.com"))]);
    expect(res.acked(0) && res.acked(1)).toBe(true);
    expect(res.retryMessages).toEqual([]);
    const l1 = await linkRow(origin, "CONTACT", "c1");
    expect(l1?.service_id).toBeTypeOf("number");
    expect((await record(l1!.service_id!)).properties).toMatchObject({ email: "c1@example.com", firstname: "c1" });
  });

  it("acks stale messages without applying them, and a duplicate within one batch once", async () => {
    const { origin } = await bridgeTenant();
    const newer = qmsg(origin, "CONTACT", contact("c1", "new@example.com", 2000));
    const older = qmsg(origin, "CONTACT", contact("c1", "old@example.com", 1000));
    const res = await deliver([newer, older, newer]);
    expect([res.acked(0), res.acked(1), res.acked(2)]).toEqual([true, true, true]);
    const link = await linkRow(origin, "CONTACT", "c1");
    expect((await record(link!.service_id!)).properties.email).toBe("new@example.com");
  });

  it("redelivering an applied message changes nothing", async () => {
    const { origin } = await bridgeTenant();
    const m = qmsg(origin, "CONTACT", contact("c1", "c1@example.com"));
    await deliver([m]);
    const link = await linkRow(origin, "CONTACT", "c1");
    const before = await record(link!.service_id!);
    const again = await deliver([m], { attempts: 2 });
    expect(again.acked(0)).toBe(true);
    expect(await linkRow(origin, "CONTACT", "c1")).toEqual(link);
    expect(await record(link!.service_id!)).toEqual(before);
    const { n } = (await (await accountD1(origin.portalId)).prepare("select count(*) as n from crm_objects where portal_id = ?").bind(origin.portalId).first<{ n: number }>())!;
    expect(n).toBe(1);
  });

  it("acks a message that is not a v1 sync message (it can never be applied) and logs it", async () => {
    const res = await deliver([{ v: 99, hello: "world" }, "not even an object"]);
    expect(res.acked(0) && res.acked(1)).toBe(true);
  });

  it("retries a line item whose deal has not arrived, with backoff, then records MISSING_ASSOCIATED_OBJECT", async () => {
    const { origin } = await bridgeTenant();
    await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p1", properties: { title: "Pen" } })]);
    const li = qmsg(origin, "LINE_ITEM", { externalObjectId: "li1", properties: { qty: 2 }, associations: { DEAL: ["d-late"], PRODUCT: ["p1"] } });
    const first = await deliver([li], { attempts: 1, report: true });
    expect(first.retried(0)).toBe(true);
    expect(first.delayOf(0)).toBe(backoffSeconds(1));
    const third = await deliver([li], { attempts: 3, report: true });
    expect(third.retried(0)).toBe(true);
    expect(third.delayOf(0)).toBe(backoffSeconds(3));
    expect(backoffSeconds(3)).toBeGreaterThan(backoffSeconds(1));
    expect(await linkRow(origin, "LINE_ITEM", "li1")).toBeNull();

    const last = await deliver([li], { attempts: ASSOC_MAX_ATTEMPTS });
    expect(last.acked(0)).toBe(true);
    expect(await errorRow(origin, "LINE_ITEM", "li1")).toMatchObject({ type: "MISSING_ASSOCIATED_OBJECT", status: "OPEN" });
    expect((await errorRow(origin, "LINE_ITEM", "li1"))!.details).toContain("[hs_assoc__deal_id: d-late]");
  });

  it("applies a line item whose deal arrives in the same batch (types are applied in dependency order)", async () => {
    const { origin } = await bridgeTenant();
    const res = await deliver([
      qmsg(origin, "LINE_ITEM", { externalObjectId: "li1", properties: { qty: 3 }, associations: { DEAL: ["d1"], PRODUCT: ["p1"] } }),
      qmsg(origin, "DEAL", { externalObjectId: "d1", properties: { stage: "checkout_pending" } }),
      qmsg(origin, "PRODUCT", { externalObjectId: "p1", properties: { title: "Pen", price: "1.50" } }),
    ]);
    expect([res.acked(0), res.acked(1), res.acked(2)]).toEqual([true, true, true]);
    const li = (await linkRow(origin, "LINE_ITEM", "li1"))!.service_id!;
    const deal = (await linkRow(origin, "DEAL", "d1"))!.service_id!;
    const product = (await linkRow(origin, "PRODUCT", "p1"))!.service_id!;
    expect(await associations(origin.portalId, li)).toEqual([`deals:${deal}`, `products:${product}`]);
    expect(await associations(origin.portalId, deal)).toEqual([`line_items:${li}`]);
    expect(await associations(origin.portalId, product)).toEqual([`line_items:${li}`]);
  });

  it("retries every message with exponential backoff when the write fails, and writes nothing", async () => {
    const { origin } = await bridgeTenant();
    // A real fault, no mock: the errors table is briefly missing, so the batch's write fails.
    await (await accountD1(origin.portalId)).exec("alter table ecomm_sync_errors rename to ecomm_sync_errors_away");
    try {
      const res = await deliver([qmsg(origin, "CONTACT", contact("c1", "c1@example.com")), qmsg(origin, "CONTACT", contact("c2", "c2@example.com"))], { attempts: 3, report: true });
      expect([res.retried(0), res.retried(1)]).toEqual([true, true]);
      expect([res.delayOf(0), res.delayOf(1)]).toEqual([backoffSeconds(3), backoffSeconds(3)]);
      expect(res.explicitAcks).toEqual([]);
    } finally {
      await (await accountD1(origin.portalId)).exec("alter table ecomm_sync_errors_away rename to ecomm_sync_errors");
    }
    expect(await linkRow(origin, "CONTACT", "c1")).toBeNull();
    const { n } = (await (await accountD1(origin.portalId)).prepare("select count(*) as n from crm_objects where portal_id = ?").bind(origin.portalId).first<{ n: number }>())!;
    expect(n).toBe(0);
    // The retried delivery applies (the SyncOrder answers apply again for its recorded winner).
    const again = await deliver([qmsg(origin, "CONTACT", contact("c3", "c3@example.com"))]);
    expect(again.acked(0)).toBe(true);
  });

  it("isolates a message whose write fails: the others of the batch are committed and acked", async () => {
    const { origin } = await bridgeTenant();
    await deliver([qmsg(origin, "CONTACT", contact("c0", "c0@example.com"))]);
    await (await accountD1(origin.portalId)).exec("alter table crm_associations rename to crm_associations_away");
    let res;
    try {
      res = await deliver([
        qmsg(origin, "CONTACT", contact("c1", "c1@example.com")),
        qmsg(origin, "DEAL", { externalObjectId: "d1", properties: { stage: "processed" }, associations: { CONTACT: ["c0"] } }),
      ], { report: true });
    } finally {
      await (await accountD1(origin.portalId)).exec("alter table crm_associations_away rename to crm_associations");
    }
    expect(res.acked(0)).toBe(true);
    expect(res.retried(1)).toBe(true);
    expect(res.delayOf(1)).toBe(backoffSeconds(1));
    expect((await linkRow(origin, "CONTACT", "c1"))?.service_id).toBeTypeOf("number");
    expect(await linkRow(origin, "DEAL", "d1")).toBeNull();
  });

  it("drops (acks) messages of a store that was deleted after they were queued", async () => {
    const { t, origin } = await bridgeTenant();
    const m = qmsg(origin, "CONTACT", contact("c1", "c1@example.com"));
    await (await accountD1(t.portalId)).prepare("delete from ecomm_stores where portal_id = ?").bind(t.portalId).run();
    const res = await deliver([m]);
    expect(res.acked(0)).toBe(true);
    expect(await linkRow(origin, "CONTACT", "c1")).toBeNull();
  });
});

describe("dead-letter consumer", () => {
  it("records an exhausted message as an UNKNOWN_ERROR sync error of its object and acks it", async () => {
    const { origin } = await bridgeTenant();
    const m = qmsg(origin, "PRODUCT", { externalObjectId: "p1", changedAt: 5000, properties: { title: "Pen" } });
    const res = await deliver([m, { junk: true }], { queue: "crm-edge-sync-dlq" });
    expect(res.acked(0) && res.acked(1)).toBe(true);
    const err = await errorRow(origin, "PRODUCT", "p1");
    expect(err).toMatchObject({ type: "UNKNOWN_ERROR", status: "OPEN", changed_at: 5000, app_id: origin.appId });
    expect(err!.details).toContain(m.id);
  });

  it("does not record a dead letter superseded by a newer applied message", async () => {
    const { origin } = await bridgeTenant();
    await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p1", changedAt: 9000, properties: { title: "New" } })]);
    const res = await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p1", changedAt: 1000, properties: { title: "Old" } })], { queue: "crm-edge-sync-dlq" });
    expect(res.acked(0)).toBe(true);
    expect(await errorRow(origin, "PRODUCT", "p1")).toBeNull();
  });

  it("retries dead letters with backoff when they cannot be recorded", async () => {
    const { origin } = await bridgeTenant();
    await (await accountD1(origin.portalId)).exec("alter table ecomm_sync_errors rename to ecomm_sync_errors_away");
    let res;
    try {
      res = await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p1" })], { queue: "crm-edge-sync-dlq", attempts: 2 });
    } finally {
      await (await accountD1(origin.portalId)).exec("alter table ecomm_sync_errors_away rename to ecomm_sync_errors");
    }
    expect(res.retried(0)).toBe(true);
  });
});

describe("backoff", () => {
  it("grows exponentially and is capped at 5 minutes", () => {
    expect([1, 2, 3, 4, 5, 6, 10].map(backoffSeconds)).toEqual([5, 10, 20, 40, 80, 160, 300]);
  });
});

describe("queue routing", () => {
  it("retries batches of an unknown queue", async () => {
    const res = await deliver([{}], { queue: "some-other-queue" });
    expect(res.retryBatch.retry).toBe(true);
  });
});
