/**
 * A test account's clock in the ecommerce sync consumer (docs/reference/testkit.md "Clock"): what the consumer
 * writes for the account (records' created and modified times, the link's processed time, sync errors, webhook
 * events' occurredAt) is stamped by its clock, in a batch that also carries a STANDARD account's messages,
 * which keep real time; the clock never changes which write wins; and the clocks cost no statement.
 */
import { createMessageBatch, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ADMIN, call, type Tenant } from "../helpers/api";
import { countingD1 } from "../helpers/counting-d1";
import { consumeSyncBatch } from "../../src/services/ecomm/consumer";
import { forgetDirectory } from "../../src/db/directory";
import { bridgeTenantOn, deliver, errorRow, linkRow, qmsg, type Origin } from "../ecomm/queue-helpers";
import { hookUp, subscribe, waitFor } from "../webhooks/helpers";

const DAY_MS = 86_400_000;
const SHARD = "SHARD_1";
const near = (ms: number, target: number) => expect(Math.abs(ms - target), `${new Date(ms).toISOString()} vs ${new Date(target).toISOString()}`).toBeLessThan(60_000);

/** A bridge account (app settings, store "shop") made a test account. */
async function testBridge(): Promise<{ t: Tenant; origin: Origin }> {
  const b = await bridgeTenantOn(SHARD);
  expect((await call("PATCH", `/admin/v1/accounts/${b.t.portalId}`, { token: ADMIN, body: { accountType: "DEVELOPER_TEST" } })).status).toBe(200);
  return b;
}

async function advanceDays(t: Tenant, days: number) {
  const res = await call("POST", `/admin/v1/accounts/${t.portalId}/clock`, { token: ADMIN, body: { advanceSeconds: days * 86_400 } });
  expect(res.status, res.text).toBe(200);
}

/** The record of a synced object, through the API: its v3 times and properties. */
async function synced(t: Tenant, origin: Origin, objectType: "PRODUCT" | "DEAL", ext: string) {
  const link = await linkRow(origin, objectType, ext);
  expect(link?.service_id, `${objectType} ${ext} has a record`).toBeTruthy();
  const res = await call("GET", `/crm/v3/objects/${objectType === "PRODUCT" ? "products" : "deals"}/${link!.service_id}?properties=createdate,hs_lastmodifieddate`, { token: t.pat });
  expect(res.status, res.text).toBe(200);
  const r = res.json as { createdAt: string; updatedAt: string; properties: Record<string, string> };
  return {
    link: link!,
    createdAt: Date.parse(r.createdAt),
    updatedAt: Date.parse(r.updatedAt),
    createdate: Date.parse(r.properties.createdate!),
    lastmodified: Date.parse(r.properties.hs_lastmodifieddate!),
  };
}

describe("the sync consumer stamps a test account's writes by its clock", () => {
  it("a product and a deal synced a day on are stamped a day ahead, as are their links and a sync error; a STANDARD account in the same batch keeps real time", async () => {
    const test = await testBridge();
    const plain = await bridgeTenantOn(SHARD);
    await advanceDays(test.t, 1);
    const res = await deliver([
      qmsg(test.origin, "PRODUCT", { externalObjectId: "p1", properties: { title: "Lamp", price: 10 } }),
      qmsg(plain.origin, "PRODUCT", { externalObjectId: "p1", properties: { title: "Chair", price: 20 } }),
      qmsg(test.origin, "DEAL", { externalObjectId: "d1", properties: { stage: "checkout_pending" } }),
      qmsg(test.origin, "DEAL", { externalObjectId: "d2", properties: { stage: "no_such_stage" } }),
    ]);
    for (let i = 0; i < 4; i++) expect(res.acked(i)).toBe(true);
    const ahead = Date.now() + DAY_MS;
    for (const [type, ext] of [["PRODUCT", "p1"], ["DEAL", "d1"]] as const) {
      const r = await synced(test.t, test.origin, type, ext);
      for (const at of [r.createdAt, r.updatedAt, r.createdate, r.lastmodified, r.link.processed_at!]) near(at, ahead);
    }
    near((await errorRow(test.origin, "DEAL", "d2"))!.errored_at, ahead);
    // The integrator's changedAt is kept as given: the abandonment window counts from it.
    expect((await linkRow(test.origin, "DEAL", "d1"))!.stage_entered_at).toBeLessThan(Date.now() + 1000);

    const theirs = await synced(plain.t, plain.origin, "PRODUCT", "p1");
    for (const at of [theirs.createdAt, theirs.updatedAt, theirs.link.processed_at!]) near(at, Date.now());

    // An update a day later (the direct path's update): modified two days ahead, created one.
    await advanceDays(test.t, 1);
    expect((await deliver([qmsg(test.origin, "PRODUCT", { externalObjectId: "p1", properties: { title: "Lamp 2" } })])).acked(0)).toBe(true);
    const updated = await synced(test.t, test.origin, "PRODUCT", "p1");
    near(updated.createdate, ahead);
    near(updated.lastmodified, Date.now() + 2 * DAY_MS);
    near(updated.link.processed_at!, Date.now() + 2 * DAY_MS);
  });

  it("an update joined to an existing contact by its email (the general statements) is stamped by the clock", async () => {
    const test = await testBridge();
    await advanceDays(test.t, 1);
    const email = `clock-${crypto.randomUUID()}@example.com`;
    const made = await call("POST", "/crm/v3/objects/contacts", { token: test.t.pat, body: { properties: { email } } });
    expect(made.status, made.text).toBe(201);
    await advanceDays(test.t, 1);
    expect((await deliver([qmsg(test.origin, "CONTACT", { externalObjectId: "c1", properties: { customer_email: email, firstname: "Ada" } })])).acked(0)).toBe(true);
    const link = await linkRow(test.origin, "CONTACT", "c1");
    expect(link!.service_id).toBe(Number(made.json.id));
    near(link!.processed_at!, Date.now() + 2 * DAY_MS);
    const res = await call("GET", `/crm/v3/objects/contacts/${made.json.id}?properties=firstname,createdate,lastmodifieddate`, { token: test.t.pat });
    expect(res.json.properties.firstname).toBe("Ada");
    near(Date.parse(res.json.properties.createdate), Date.now() + DAY_MS);
    near(Date.parse(res.json.updatedAt), Date.now() + 2 * DAY_MS);
  });

  it("a webhook event of a synced record carries the account's time as occurredAt, its signature real time", async () => {
    const test = await testBridge();
    const path = await hookUp(test.t);
    await subscribe(test.t, "product.creation");
    await advanceDays(test.t, 1);
    expect((await deliver([qmsg(test.origin, "PRODUCT", { externalObjectId: "hook-p", properties: { title: "Hooked" } })])).acked(0)).toBe(true);
    const [got] = await waitFor(path, (d) => d.length >= 1);
    const event = got!.events[0]!;
    expect(event.subscriptionType).toBe("product.creation");
    near(event.occurredAt as number, Date.now() + DAY_MS);
    near(Number(got!.headers["x-service-request-timestamp"]), Date.now());
  });

  it("the clock never changes which write wins: the most recent changedAt, the integrator's", async () => {
    const test = await testBridge();
    await advanceDays(test.t, 3);
    const base = Date.now() - 60_000;
    expect((await deliver([qmsg(test.origin, "PRODUCT", { externalObjectId: "lww", changedAt: base + 2000, properties: { title: "newer" } })])).acked(0)).toBe(true);
    // An older change arriving later, while the account's time is days ahead of both: stale.
    const late = await deliver([qmsg(test.origin, "PRODUCT", { externalObjectId: "lww", changedAt: base + 1000, properties: { title: "older" } })], { report: true });
    expect(late.report[0]!.reason).toMatch(/^stale/);
    const link = await linkRow(test.origin, "PRODUCT", "lww");
    expect(link!.changed_at).toBe(base + 2000);
    const res = await call("GET", `/crm/v3/objects/products/${link!.service_id}`, { token: test.t.pat });
    expect(res.json.properties.name).toBe("newer");
  });
});

describe("the clocks cost the consumer nothing", () => {
  /** Every statement of one consumer batch (control plane and the shard), the directory read afresh. */
  async function statements(bodies: unknown[]) {
    forgetDirectory();
    const shard = countingD1(env[SHARD]);
    const control = countingD1(env.DB);
    const batch = createMessageBatch("crm-edge-sync", bodies.map((body, i) => ({ id: `clock-${crypto.randomUUID()}-${i}`, timestamp: new Date(), attempts: 1, body })));
    const settled = await consumeSyncBatch(batch, { ...env, [SHARD]: shard, DB: control } as Env);
    expect(settled.map((s) => s.reason.startsWith("applied"))).toEqual(bodies.map(() => true));
    return [...control.counts.log, ...shard.counts.log].map((l) => l.sql);
  }
  const products = (origin: Origin, round: string) =>
    Array.from({ length: 20 }, (_, i) => qmsg(origin, "PRODUCT", { externalObjectId: `p-${i}`, properties: { title: `${round} ${i}`, price: i } }));

  it("a STANDARD account's batch, a former test account's with its clock row left, and a moved clock's run the same statements; the clock is read only in the accounts statement", async () => {
    const plain = await bridgeTenantOn(SHARD);
    const former = await testBridge();
    await advanceDays(former.t, 10);
    expect((await call("PATCH", `/admin/v1/accounts/${former.t.portalId}`, { token: ADMIN, body: { accountType: "STANDARD" } })).status).toBe(200);
    const moved = await testBridge();
    await advanceDays(moved.t, 10);
    for (const round of ["new", "update"]) {
      const a = await statements(products(plain.origin, round));
      const b = await statements(products(former.origin, round));
      const c = await statements(products(moved.origin, round));
      expect(b.length, b.join("\n---\n")).toBe(a.length);
      expect(c.length, c.join("\n---\n")).toBe(a.length);
      const clocks = a.filter((s) => s.includes("account_quirks"));
      expect(clocks).toHaveLength(1);
      // The directory's read of the batch's accounts, their shards and clocks (the log keeps each statement's start).
      expect(clocks[0]).toMatch(/^select "portal_id", "shard", \(case when "accounts"\."account_type"/);
    }
    // The former test account's writes keep real time (its leftover clock row is ignored), the moved one's do not.
    near((await linkRow(former.origin, "PRODUCT", "p-3"))!.processed_at!, Date.now());
    near((await linkRow(moved.origin, "PRODUCT", "p-3"))!.processed_at!, Date.now() + 10 * DAY_MS);
  });

  it("a batch whose accounts this isolate knows reads no account at all, test accounts' clocks included", async () => {
    const moved = await testBridge();
    await advanceDays(moved.t, 1);
    const first = await statements(products(moved.origin, "first"));
    expect(first.some((s) => s.includes("account_quirks"))).toBe(true);
    // The same isolate, the directory still fresh: the second batch takes shard and clock from it.
    const shard = countingD1(env[SHARD]);
    const control = countingD1(env.DB);
    const batch = createMessageBatch("crm-edge-sync", products(moved.origin, "second").map((body, i) => ({ id: `clock-again-${crypto.randomUUID()}-${i}`, timestamp: new Date(), attempts: 1, body })));
    await consumeSyncBatch(batch, { ...env, [SHARD]: shard, DB: control } as Env);
    const read = control.counts.log.map((l) => l.sql);
    expect(read.filter((s) => s.includes("account_quirks") || s.startsWith('select "portal_id", "shard"'))).toEqual([]);
    near((await linkRow(moved.origin, "PRODUCT", "p-3"))!.processed_at!, Date.now() + DAY_MS);
  });
});
