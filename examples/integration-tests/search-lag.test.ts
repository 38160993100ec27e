/**
 * The search index's lag: the real service shows a record in search a few seconds after it is written. The
 * sync never searches (it upserts by email and by order id), and these tests hold it to that; the report of
 * paid orders does search, and must wait for the index.
 */
import { describe, it } from "vitest";
import { admin, allDeals, eventually, orders, testAccount } from "./kit";
import { paidOrderDeals, syncOrders } from "./sync";

/** A lag the tests wait out. */
const LAG = 2_000;
/** A lag no test waits out: where a test checks that a record is hidden, a slow machine must not end the lag first. */
const HIDDEN = 30_000;

describe("search lag", () => {
  it("without it, a search sees deals synced a moment ago", async ({ expect }) => {
    const t = await testAccount();
    await syncOrders(t.client, orders(3, { status: "paid" }));
    expect(await paidOrderDeals(t.client)).toHaveLength(3);
  });

  it("with it, a search right after the sync does not see the new deals", async ({ expect }) => {
    const t = await testAccount();
    await t.searchLag(HIDDEN);
    await syncOrders(t.client, orders(3, { status: "paid" }));
    expect(await paidOrderDeals(t.client)).toHaveLength(0);
  });

  it("with it, the deals show in search once the lag has passed", async ({ expect }) => {
    const t = await testAccount();
    await t.searchLag(LAG);
    await syncOrders(t.client, orders(3, { status: "paid" }));
    expect(await eventually(async () => (await paidOrderDeals(t.client)).length === 3, LAG + 8_000)).toBe(true);
  });

  it("counts the hidden records out of the search's total too", async ({ expect }) => {
    const t = await testAccount();
    await t.searchLag(HIDDEN);
    await syncOrders(t.client, orders(2, { status: "paid" }));
    const res = await t.client.crm.deals.searchApi.doSearch({ filterGroups: [{ filters: [{ propertyName: "shop_order_id", operator: "HAS_PROPERTY" }] }] } as never);
    expect(res.total).toBe(0);
  });

  it("does not hide a deal from a read by id", async ({ expect }) => {
    const t = await testAccount();
    await t.searchLag(LAG);
    const r = await syncOrders(t.client, orders(1));
    expect((await t.client.crm.deals.basicApi.getById(r.deals.ord_5000!, ["shop_order_id"])).properties.shop_order_id).toBe("ord_5000");
  });

  it("does not hide deals from the list of all deals", async ({ expect }) => {
    const t = await testAccount();
    await t.searchLag(LAG);
    await syncOrders(t.client, orders(4));
    expect(await allDeals(t.client)).toHaveLength(6);
  });

  it("cannot make the sync write twice: it upserts, it never searches first", async ({ expect }) => {
    const t = await testAccount();
    await t.searchLag(LAG);
    const batch = orders(3);
    const a = await syncOrders(t.client, batch);
    const b = await syncOrders(t.client, batch);
    expect(b).toEqual(a);
    expect(await allDeals(t.client)).toHaveLength(5);
  });

  it("breaks an integration that searches before it creates: the contact it did not find exists (409)", async ({ expect }) => {
    const t = await testAccount();
    await t.searchLag(HIDDEN);
    const email = "new.customer@shop.example";
    // The naive way: search for the customer, create when not found.
    const findOrCreate = async () => {
      const found = await t.client.crm.contacts.searchApi.doSearch({ filterGroups: [{ filters: [{ propertyName: "email", operator: "EQ", value: email }] }] } as never);
      if (found.results[0]) return found.results[0].id;
      return (await t.client.crm.contacts.basicApi.create({ properties: { email }, associations: [] })).id;
    };
    await findOrCreate();
    await expect(findOrCreate()).rejects.toMatchObject({ code: 409 });
  });

  it("hides a record again after each write: a synced deal leaves search when it changes", async ({ expect }) => {
    const t = await testAccount();
    const r = await syncOrders(t.client, orders(1, { status: "paid" }));
    // Long enough that the update and the search after it come within it, short enough to wait out first.
    await t.searchLag(5_000);
    expect(await eventually(async () => (await paidOrderDeals(t.client)).length === 1, 15_000)).toBe(true);
    await t.client.crm.deals.basicApi.update(r.deals.ord_5000!, { properties: { amount: "500" } });
    expect(await paidOrderDeals(t.client)).toHaveLength(0);
  });

  it("is off again when set back to 0", async ({ expect }) => {
    const t = await testAccount();
    await t.searchLag(LAG);
    await t.searchLag(0);
    await syncOrders(t.client, orders(2, { status: "paid" }));
    expect(await paidOrderDeals(t.client)).toHaveLength(2);
  });

  it("is one of the account's quirks, read back as set", async ({ expect }) => {
    const t = await testAccount();
    await t.searchLag(1_500);
    expect(await admin("GET", `/accounts/${t.portalId}/quirks`)).toEqual({ portalId: t.portalId, searchLagMs: 1_500 });
  });

  it("applies to the account that set it only", async ({ expect }) => {
    const [lagging, prompt] = await Promise.all([testAccount(), testAccount()]);
    await lagging.searchLag(HIDDEN);
    await Promise.all([syncOrders(lagging.client, orders(2, { status: "paid" })), syncOrders(prompt.client, orders(2, { status: "paid" }))]);
    expect(await paidOrderDeals(lagging.client)).toHaveLength(0);
    expect(await paidOrderDeals(prompt.client)).toHaveLength(2);
  });
});
