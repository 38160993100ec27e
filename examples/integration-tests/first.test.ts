/**
 * The first tests of the tutorial (docs/tutorials/test-your-integration.md): an account from the shop
 * fixture, one sync, a fault. test/node/example-integration.test.ts runs this file against the test Worker,
 * so CI keeps the example working.
 */
import { describe, it } from "vitest";
import { allDeals, contactsOfDeal, testAccount } from "./kit";
import { paidOrderDeals, syncOrders, type ShopOrder } from "./sync";

const order: ShopOrder = {
  id: "ord_1003",
  number: "1003",
  total: 149,
  status: "paid",
  customer: { email: "grace@acme.example", firstName: "Grace", lastName: "Hopper" },
  placedAt: "2026-03-04T15:30:00.000Z",
};

describe("first tests", () => {
  it("starts from the shop fixture: its records, named by ref", async ({ expect }) => {
    const t = await testAccount();
    expect(Object.keys(t.refs)).toEqual(expect.arrayContaining(["ada", "grace", "hank", "acme", "order-1001"]));
    expect(await allDeals(t.client)).toHaveLength(2);
  });

  it("turns an order into a deal associated with its customer", async ({ expect }) => {
    const t = await testAccount();
    const r = await syncOrders(t.client, [order]);
    expect(r.contacts["grace@acme.example"]).toBe(t.refs.grace);
    const deal = await t.client.crm.deals.basicApi.getById(r.deals.ord_1003!, ["dealname", "amount", "dealstage"]);
    expect(deal.properties).toMatchObject({ dealname: "Order #1003", amount: "149.00", dealstage: "closedwon" });
    expect(await contactsOfDeal(t.client, r.deals.ord_1003!)).toEqual([t.refs.grace]);
  });

  it("puts back a stage changed by hand in the CRM: the shop is the source of truth", async ({ expect }) => {
    const t = await testAccount();
    const r = await syncOrders(t.client, [order]);
    await t.client.crm.deals.basicApi.update(r.deals.ord_1003!, { properties: { dealstage: "closedlost" } });
    await syncOrders(t.client, [order]);
    expect((await t.client.crm.deals.basicApi.getById(r.deals.ord_1003!, ["dealstage"])).properties.dealstage).toBe("closedwon");
  });

  it("drops a refunded order's deal from the paid report", async ({ expect }) => {
    const t = await testAccount();
    await syncOrders(t.client, [order]);
    expect((await paidOrderDeals(t.client)).map((d) => d.orderId)).toEqual(["ord_1003"]);
    await syncOrders(t.client, [{ ...order, status: "refunded" }]);
    expect(await paidOrderDeals(t.client)).toEqual([]);
  });

  it("gets through a 500 on each of its three calls: the client retries", async ({ expect }) => {
    const t = await testAccount();
    await t.faults(
      ["/crm/v3/objects/contacts/batch/upsert", "/crm/v3/objects/deals/batch/upsert", "/crm/v4/associations/deals/contacts/batch/associate/default"].map((path) => ({
        match: { path },
        respond: { status: 500 },
        times: 1,
      })),
    );
    const r = await syncOrders(t.client, [order]);
    expect(Object.keys(r.deals)).toEqual(["ord_1003"]);
    expect((await t.faultStats()).map((rule) => rule.faults)).toEqual([1, 1, 1]);
  });
});
