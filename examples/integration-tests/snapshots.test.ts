/**
 * Snapshots, restore and reset: a test puts its account back as it was, so several scenarios can start
 * from the same data in one account, and what the integration wrote can be undone.
 */
import { describe, it } from "vitest";
import { admin, allDeals, orders, testAccount } from "./kit";
import { ensureShopProperties, ORDER_ID_PROPERTY, syncOrders } from "./sync";

describe("snapshots and restore around a sync", () => {
  it("undoes a sync: after a restore the synced deals and contacts are gone", async ({ expect }) => {
    const t = await testAccount();
    await t.snapshot("before");
    const r = await syncOrders(t.client, orders(4));
    await t.restore("before");
    expect(await allDeals(t.client)).toHaveLength(2);
    const res = await t.call("GET", `/crm/v3/objects/contacts/${r.contacts["customer0@shop.example"]}`);
    expect(res.status).toBe(404);
  });

  it("brings the fixture's records back with their ids", async ({ expect }) => {
    const t = await testAccount();
    await t.snapshot("start");
    await syncOrders(t.client, orders(2));
    await t.restore("start");
    const d = await t.client.crm.deals.basicApi.getById(t.refs["order-1001"]!, ["dealname"]);
    expect(d.properties.dealname).toBe("Order #1001");
  });

  it("puts back a record the test changed", async ({ expect }) => {
    const t = await testAccount();
    await t.snapshot("start");
    await t.client.crm.contacts.basicApi.update(t.refs.ada!, { properties: { firstname: "Changed" } });
    await t.restore("start");
    expect((await t.client.crm.contacts.basicApi.getById(t.refs.ada!, ["firstname"])).properties.firstname).toBe("Ada");
  });

  it("puts back a record the test archived", async ({ expect }) => {
    const t = await testAccount();
    await t.snapshot("start");
    await t.client.crm.deals.basicApi.archive(t.refs["order-1002"]!);
    await t.restore("start");
    expect((await t.client.crm.deals.basicApi.getById(t.refs["order-1002"]!, ["amount"])).properties.amount).toBe("19.99");
  });

  it("keeps the test's token working across a restore and a reset", async ({ expect }) => {
    const t = await testAccount();
    await t.snapshot("s");
    await t.restore("s");
    await t.reset();
    expect((await t.call("GET", "/crm/v3/objects/deals?limit=1")).status).toBe(200);
  });

  it("runs three scenarios in one account, each from the same start", async ({ expect }) => {
    const t = await testAccount();
    await t.snapshot("shop");
    for (const n of [1, 3, 5]) {
      await t.restore("shop");
      await syncOrders(t.client, orders(n));
      expect(await allDeals(t.client)).toHaveLength(2 + n);
    }
  });

  it("gives new ids to deals synced again after a restore: ids are never handed out twice", async ({ expect }) => {
    const t = await testAccount();
    await t.snapshot("s");
    const batch = orders(2);
    const first = await syncOrders(t.client, batch);
    await t.restore("s");
    const second = await syncOrders(t.client, batch);
    for (const o of batch) expect(second.deals[o.id]).not.toBe(first.deals[o.id]);
  });

  it("counts what it copied", async ({ expect }) => {
    const t = await testAccount();
    const snap = await t.snapshot("counted");
    expect(Object.values(snap.counts).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(14);
  });

  it("restores an earlier and then a later snapshot", async ({ expect }) => {
    const t = await testAccount();
    await t.snapshot("empty-shop");
    await syncOrders(t.client, orders(3));
    await t.snapshot("synced");
    await t.restore("empty-shop");
    expect(await allDeals(t.client)).toHaveLength(2);
    await t.restore("synced");
    expect(await allDeals(t.client)).toHaveLength(5);
  });

  it("lists the account's snapshots, oldest first, and forgets a deleted one", async ({ expect }) => {
    const t = await testAccount();
    await t.snapshot("one");
    await t.snapshot("two");
    const list = await admin<{ results: { name: string }[] }>("GET", `/accounts/${t.portalId}/snapshots`);
    expect(list.results.map((s) => s.name)).toEqual(["one", "two"]);
    await admin("DELETE", `/accounts/${t.portalId}/snapshots/one`);
    await expect(t.restore("one")).rejects.toThrow("404");
  });

  it("reset empties the account: no fixture, no synced deals", async ({ expect }) => {
    const t = await testAccount();
    await syncOrders(t.client, orders(2));
    await t.reset();
    expect(await allDeals(t.client)).toHaveLength(0);
    expect(await t.client.crm.contacts.getAll()).toHaveLength(0);
  });

  it("reset takes the integration's property too: it is made again before the next sync", async ({ expect }) => {
    const t = await testAccount();
    await t.reset();
    expect((await t.call("GET", `/crm/v3/properties/deals/${ORDER_ID_PROPERTY}`)).status).toBe(404);
    await ensureShopProperties(t.client);
    const r = await syncOrders(t.client, orders(1));
    expect(Object.keys(r.deals)).toEqual(["ord_5000"]);
  });

  it("gets a snapshot back after a reset", async ({ expect }) => {
    const t = await testAccount();
    await syncOrders(t.client, orders(2));
    await t.snapshot("synced");
    await t.reset();
    await t.restore("synced");
    expect(await allDeals(t.client)).toHaveLength(4);
  });

  it("leaves the fault rules in place: they are the account's controls, not its data", async ({ expect }) => {
    const t = await testAccount();
    await t.snapshot("s");
    await t.faults([{ match: { path: "/crm/v3/owners" }, respond: { status: 503 } }]);
    await t.restore("s");
    expect((await t.call("GET", "/crm/v3/owners")).status).toBe(503);
  });

  it("keeps a sync after a restore idempotent", async ({ expect }) => {
    const t = await testAccount();
    await t.snapshot("s");
    const batch = orders(3);
    await syncOrders(t.client, batch);
    await t.restore("s");
    const a = await syncOrders(t.client, batch);
    const b = await syncOrders(t.client, batch);
    expect(b).toEqual(a);
    expect(await allDeals(t.client)).toHaveLength(5);
  });
});
