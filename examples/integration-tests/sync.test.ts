/**
 * The sync itself, against a shop fixture: what it writes, that it is idempotent, and that it keeps to the
 * account's data. Every test has an account of its own (kit.ts), so they run in parallel.
 */
import { describe, it } from "vitest";
import { allDeals, contactsOfDeal, orders, testAccount } from "./kit";
import { ensureShopProperties, ORDER_ID_PROPERTY, STAGE, syncOrders, type ShopOrder } from "./sync";

const ada = (o: Partial<ShopOrder> = {}): ShopOrder => ({
  id: "ord_ada_1",
  number: "2001",
  total: 42,
  status: "paid",
  customer: { email: "ada@acme.example", firstName: "Ada", lastName: "Lovelace" },
  placedAt: "2026-03-10T09:00:00.000Z",
  ...o,
});

describe("syncing orders into deals", () => {
  it("makes one deal per order, with its name, amount, stage and close date", async ({ expect }) => {
    const t = await testAccount();
    const batch = orders(3);
    const r = await syncOrders(t.client, batch);
    expect(Object.keys(r.deals)).toEqual(batch.map((o) => o.id));
    for (const o of batch) {
      const d = await t.client.crm.deals.basicApi.getById(r.deals[o.id]!, ["dealname", "amount", "dealstage", "closedate", ORDER_ID_PROPERTY]);
      expect(d.properties).toMatchObject({ dealname: `Order #${o.number}`, amount: o.total.toFixed(2), dealstage: STAGE[o.status], [ORDER_ID_PROPERTY]: o.id });
      expect(new Date(d.properties.closedate!).toISOString()).toBe(o.placedAt);
    }
  });

  it("makes a contact for each new customer, with the order's names", async ({ expect }) => {
    const t = await testAccount();
    const r = await syncOrders(t.client, orders(4, { customers: 2 }));
    expect(Object.keys(r.contacts).sort()).toEqual(["customer0@shop.example", "customer1@shop.example"]);
    const c = await t.client.crm.contacts.basicApi.getById(r.contacts["customer1@shop.example"]!, ["firstname", "lastname"]);
    expect(c.properties).toMatchObject({ firstname: "Customer1", lastname: "Example" });
  });

  it("associates each deal with its customer's contact", async ({ expect }) => {
    const t = await testAccount();
    const batch = orders(4, { customers: 2 });
    const r = await syncOrders(t.client, batch);
    for (const o of batch) expect(await contactsOfDeal(t.client, r.deals[o.id]!)).toEqual([r.contacts[o.customer.email]]);
  });

  it("finds a customer the account already has (the fixture's Ada) instead of making a second contact", async ({ expect }) => {
    const t = await testAccount();
    const r = await syncOrders(t.client, [ada()]);
    expect(r.contacts["ada@acme.example"]).toBe(t.refs.ada);
    expect(await contactsOfDeal(t.client, r.deals.ord_ada_1!)).toEqual([t.refs.ada]);
  });

  it("matches a customer's email whatever its case", async ({ expect }) => {
    const t = await testAccount();
    const r = await syncOrders(t.client, [ada({ customer: { email: "ADA@Acme.Example" } })]);
    expect(r.contacts["ada@acme.example"]).toBe(t.refs.ada);
  });

  it("takes the customer's names from the order", async ({ expect }) => {
    const t = await testAccount();
    await syncOrders(t.client, [ada({ customer: { email: "ada@acme.example", firstName: "Augusta Ada", lastName: "King" } })]);
    const c = await t.client.crm.contacts.basicApi.getById(t.refs.ada!, ["firstname", "lastname"]);
    expect(c.properties).toMatchObject({ firstname: "Augusta Ada", lastname: "King" });
  });

  it("keeps a contact's names when the order has none", async ({ expect }) => {
    const t = await testAccount();
    await syncOrders(t.client, [ada({ customer: { email: "ada@acme.example" } })]);
    const c = await t.client.crm.contacts.basicApi.getById(t.refs.ada!, ["firstname", "lastname", "phone"]);
    expect(c.properties).toMatchObject({ firstname: "Ada", lastname: "Lovelace", phone: "+1 555 0100" });
  });

  it("leaves the fixture's deals as they were", async ({ expect }) => {
    const t = await testAccount();
    await syncOrders(t.client, orders(5));
    const d = await t.client.crm.deals.basicApi.getById(t.refs["order-1001"]!, ["dealname", "amount", "dealstage"]);
    expect(d.properties).toMatchObject({ dealname: "Order #1001", amount: "189.98", dealstage: "closedwon" });
    expect(await allDeals(t.client)).toHaveLength(2 + 5);
  });

  it("adds a new order of a fixture customer to him, beside his earlier deal", async ({ expect }) => {
    const t = await testAccount();
    const r = await syncOrders(t.client, [ada({ id: "ord_hank", number: "2002", customer: { email: "hank@globex.example" } })]);
    expect(r.contacts["hank@globex.example"]).toBe(t.refs.hank);
    const deals = await t.client.crm.associations.v4.basicApi.getPage("contacts", t.refs.hank!, "deals");
    expect(deals.results.map((x) => String(x.toObjectId)).sort()).toEqual([t.refs["order-1002"], r.deals.ord_hank].sort());
  });

  it("changes nothing when run twice: same deals, same contacts, same ids", async ({ expect }) => {
    const t = await testAccount();
    const batch = orders(6);
    const first = await syncOrders(t.client, batch);
    const second = await syncOrders(t.client, batch);
    expect(second).toEqual(first);
    expect(await allDeals(t.client)).toHaveLength(2 + 6);
  });

  it("associates a deal with its contact once, however often it runs", async ({ expect }) => {
    const t = await testAccount();
    const batch = orders(2);
    const r = await syncOrders(t.client, batch);
    await syncOrders(t.client, batch);
    await syncOrders(t.client, batch);
    expect(await contactsOfDeal(t.client, r.deals[batch[0]!.id]!)).toHaveLength(1);
  });

  it("updates a deal whose order's total changed", async ({ expect }) => {
    const t = await testAccount();
    const [o] = orders(1);
    const r = await syncOrders(t.client, [o!]);
    await syncOrders(t.client, [{ ...o!, total: 99.99 }]);
    const d = await t.client.crm.deals.basicApi.getById(r.deals[o!.id]!, ["amount"]);
    expect(d.properties.amount).toBe("99.99");
  });

  it("moves a deal to closed won when its order is paid", async ({ expect }) => {
    const t = await testAccount();
    const [o] = orders(1, { status: "pending" });
    const r = await syncOrders(t.client, [o!]);
    expect((await t.client.crm.deals.basicApi.getById(r.deals[o!.id]!, ["dealstage"])).properties.dealstage).toBe("appointmentscheduled");
    await syncOrders(t.client, [{ ...o!, status: "paid" }]);
    expect((await t.client.crm.deals.basicApi.getById(r.deals[o!.id]!, ["dealstage"])).properties.dealstage).toBe("closedwon");
  });

  it.for(Object.entries(STAGE))("puts a %s order in the stage %s", async ([status, stage], { expect }) => {
    const t = await testAccount();
    const [o] = orders(1, { status: status as ShopOrder["status"] });
    const r = await syncOrders(t.client, [o!]);
    expect((await t.client.crm.deals.basicApi.getById(r.deals[o!.id]!, ["dealstage", "pipeline"])).properties).toMatchObject({ dealstage: stage, pipeline: "default" });
  });

  it("writes amounts with two decimals", async ({ expect }) => {
    const t = await testAccount();
    const r = await syncOrders(t.client, [ada({ total: 12.5 })]);
    expect((await t.client.crm.deals.basicApi.getById(r.deals.ord_ada_1!, ["amount"])).properties.amount).toBe("12.50");
  });

  it("leaves out orders without a customer email, and syncs the rest", async ({ expect }) => {
    const t = await testAccount();
    const r = await syncOrders(t.client, [ada(), ada({ id: "ord_guest", customer: { email: "" } }), ada({ id: "ord_typo", customer: { email: "not-an-email" } })]);
    expect(r.skipped).toEqual([{ id: "ord_guest", reason: "no customer email" }, { id: "ord_typo", reason: "no customer email" }]);
    expect(Object.keys(r.deals)).toEqual(["ord_ada_1"]);
  });

  it("does nothing for no orders", async ({ expect }) => {
    const t = await testAccount();
    expect(await syncOrders(t.client, [])).toEqual({ deals: {}, contacts: {}, skipped: [] });
    expect(await allDeals(t.client)).toHaveLength(2);
  });

  it("gives one contact to a customer of several orders, every deal associated with it", async ({ expect }) => {
    const t = await testAccount();
    const batch = orders(5, { customers: 1 });
    const r = await syncOrders(t.client, batch);
    expect(Object.keys(r.contacts)).toEqual(["customer0@shop.example"]);
    const deals = await t.client.crm.associations.v4.basicApi.getPage("contacts", r.contacts["customer0@shop.example"]!, "deals");
    expect(deals.results.map((x) => String(x.toObjectId)).sort()).toEqual(Object.values(r.deals).sort());
  });

  it("syncs 150 orders, more than one batch call takes", async ({ expect }) => {
    const t = await testAccount();
    const r = await syncOrders(t.client, orders(150, { customers: 150 }));
    expect(Object.keys(r.deals)).toHaveLength(150);
    expect(Object.keys(r.contacts)).toHaveLength(150);
    expect(await allDeals(t.client)).toHaveLength(152);
  });

  it("syncs 250 orders of 120 customers, each deal with its own customer", async ({ expect }) => {
    const t = await testAccount();
    const batch = orders(250, { customers: 120 });
    const r = await syncOrders(t.client, batch);
    expect(Object.keys(r.contacts)).toHaveLength(120);
    const last = batch[249]!;
    expect(await contactsOfDeal(t.client, r.deals[last.id]!)).toEqual([r.contacts[last.customer.email]]);
  });

  it("works on an account without a fixture", async ({ expect }) => {
    const t = await testAccount({ fixture: null });
    const r = await syncOrders(t.client, orders(3));
    expect(await allDeals(t.client)).toHaveLength(3);
    expect(Object.keys(r.contacts)).toHaveLength(2);
  });

  it("works on an account loaded with a fixture of the test's own", async ({ expect }) => {
    const t = await testAccount({ fixture: { records: { contacts: [{ ref: "c", properties: { email: "customer0@shop.example", firstname: "Known" } }] } } });
    const r = await syncOrders(t.client, orders(2, { customers: 1 }));
    expect(r.contacts["customer0@shop.example"]).toBe(t.refs.c);
  });

  it("makes its deal property once: a second ensureShopProperties is harmless", async ({ expect }) => {
    const t = await testAccount();
    await ensureShopProperties(t.client);
    const p = await t.client.crm.properties.coreApi.getByName("deals", ORDER_ID_PROPERTY);
    expect(p).toMatchObject({ name: ORDER_ID_PROPERTY, hasUniqueValue: true });
  });

  it("relies on the property being unique: a second deal with a synced order id is refused", async ({ expect }) => {
    const t = await testAccount();
    const [o] = orders(1);
    await syncOrders(t.client, [o!]);
    const res = await t.call("POST", "/crm/v3/objects/deals", { properties: { dealname: "copy", [ORDER_ID_PROPERTY]: o!.id } });
    expect(res.status).toBe(400);
  });

  it("keeps deals its sync made when the shop's order list shrinks (it never deletes)", async ({ expect }) => {
    const t = await testAccount();
    const batch = orders(4);
    await syncOrders(t.client, batch);
    await syncOrders(t.client, batch.slice(0, 2));
    expect(await allDeals(t.client)).toHaveLength(2 + 4);
  });

  it("makes three calls for up to 100 orders, six for 101", async ({ expect }) => {
    const t = await testAccount();
    // A rule that only counts: it matches every CRM call and fails none (a rule must do something: 1 ms).
    await t.faults([{ match: { path: "/crm/**" }, latencyMs: 1 }]);
    await syncOrders(t.client, orders(100, { customers: 100 }));
    expect((await t.faultStats())[0]!.calls).toBe(3);
    await syncOrders(t.client, orders(101, { customers: 101, from: 7000 }));
    expect((await t.faultStats())[0]!.calls).toBe(3 + 6);
  });

  it("sees only its own account: another test account's sync is not in it", async ({ expect }) => {
    const [a, b] = await Promise.all([testAccount(), testAccount()]);
    await Promise.all([syncOrders(a.client, orders(3)), syncOrders(b.client, orders(5, { from: 9000 }))]);
    expect((await allDeals(a.client)).map((d) => d.properties[ORDER_ID_PROPERTY]).filter(Boolean).sort()).toEqual(["ord_5000", "ord_5001", "ord_5002"]);
    expect(await allDeals(b.client)).toHaveLength(2 + 5);
  });

  it("keeps the fixture's other records: companies, tickets and notes are untouched", async ({ expect }) => {
    const t = await testAccount();
    await syncOrders(t.client, orders(3));
    const ticket = await t.client.crm.tickets.basicApi.getById(t.refs["where-is-my-order"]!, ["subject"]);
    expect(ticket.properties.subject).toBe("Where is order #1002?");
    expect(await t.client.crm.companies.getAll()).toHaveLength(2);
  });
});
