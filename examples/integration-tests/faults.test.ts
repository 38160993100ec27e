/**
 * The integration when the service fails the way the real one sometimes does: fault rules of the test kit
 * make chosen calls answer 429 or 5xx, and the tests check that the client's retries carry the sync through,
 * and that a sync that gave up is finished by running it again.
 */
import { describe, it } from "vitest";
import { allDeals, orders, testAccount } from "./kit";
import { ORDER_ID_PROPERTY, paidOrderDeals, syncOrders } from "./sync";

/** The calls a sync makes, by the path of each. */
const STEPS = {
  contacts: "/crm/v3/objects/contacts/batch/upsert",
  deals: "/crm/v3/objects/deals/batch/upsert",
  associations: "/crm/v4/associations/deals/contacts/batch/associate/default",
};
const STEP_NAMES = Object.keys(STEPS) as (keyof typeof STEPS)[];
const cases = (statuses: number[]) => statuses.flatMap((status) => STEP_NAMES.map((step) => [status, step] as const));

describe("a sync through faults", () => {
  it.for(cases([500, 502, 503, 504]))("gets through one %i on the %s call: the client retries", async ([status, step], { expect }) => {
    const t = await testAccount();
    await t.faults([{ match: { method: "POST", path: STEPS[step] }, respond: { status }, times: 1 }]);
    const r = await syncOrders(t.client, orders(4));
    expect(Object.keys(r.deals)).toHaveLength(4);
    const [rule] = await t.faultStats();
    expect(rule).toMatchObject({ faults: 1, timesLeft: 0, calls: 2 });
  });

  it.for([500, 502, 503, 504])("gets through two %i in a row on the deals call, on its third attempt", async (status, { expect }) => {
    const t = await testAccount();
    await t.faults([{ match: { path: STEPS.deals }, respond: { status }, times: 2 }]);
    const r = await syncOrders(t.client, orders(3));
    expect(Object.keys(r.deals)).toHaveLength(3);
    expect((await t.faultStats())[0]).toMatchObject({ calls: 3, faults: 2 });
  });

  it.for(STEP_NAMES)("waits out a per-second 429 (SECONDLY) on the %s call", async (step, { expect }) => {
    const t = await testAccount();
    await t.faults([{ match: { path: STEPS[step] }, respond: { status: 429, policyName: "SECONDLY" }, times: 1 }]);
    const started = Date.now();
    const r = await syncOrders(t.client, orders(2));
    expect(Object.keys(r.deals)).toHaveLength(2);
    // The client waits 1 s after a secondly limit.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
  });

  it("waits out the ten-secondly 429, as the client does (10 s)", async ({ expect }) => {
    const t = await testAccount();
    await t.faults([{ match: { path: STEPS.contacts }, respond: { status: 429 }, times: 1 }]);
    const started = Date.now();
    await syncOrders(t.client, orders(2));
    expect(Date.now() - started).toBeGreaterThanOrEqual(10_000);
    expect((await t.faultStats())[0]).toMatchObject({ faults: 1 });
  });

  it("gives up on a daily 429: the client does not retry it, and the sync says why", async ({ expect }) => {
    const t = await testAccount();
    await t.faults([{ match: { path: STEPS.contacts }, respond: { status: 429, policyName: "DAILY" } }]);
    await expect(syncOrders(t.client, orders(2))).rejects.toMatchObject({ code: 429, body: { policyName: "DAILY" } });
    expect((await t.faultStats())[0]).toMatchObject({ calls: 1 });
  });

  it("fails when the faults outlast the retries, and writes no deal", async ({ expect }) => {
    const t = await testAccount();
    await t.faults([{ match: { path: STEPS.contacts }, respond: { status: 503 } }]);
    await expect(syncOrders(t.client, orders(3))).rejects.toMatchObject({ code: 503 });
    expect(await allDeals(t.client)).toHaveLength(2);
  });

  it("finishes on the next run a sync that failed half way (deals written, associations not)", async ({ expect }) => {
    const t = await testAccount();
    const batch = orders(3);
    await t.faults([{ match: { path: STEPS.associations }, respond: { status: 500 }, times: 3 }]);
    await expect(syncOrders(t.client, batch)).rejects.toMatchObject({ code: 500 });
    expect(await allDeals(t.client)).toHaveLength(2 + 3);
    const r = await syncOrders(t.client, batch);
    expect(await allDeals(t.client)).toHaveLength(2 + 3);
    const assoc = await t.client.crm.associations.v4.basicApi.getPage("deals", r.deals[batch[0]!.id]!, "contacts");
    expect(assoc.results).toHaveLength(1);
  });

  it("gives up after the client's three attempts, and succeeds once the faults are spent", async ({ expect }) => {
    const t = await testAccount();
    await t.faults([{ match: { path: STEPS.deals }, respond: { status: 500 }, times: 3 }]);
    await expect(syncOrders(t.client, orders(1))).rejects.toMatchObject({ code: 500 });
    expect((await t.faultStats())[0]).toMatchObject({ calls: 3, faults: 3, timesLeft: 0 });
    expect(Object.keys((await syncOrders(t.client, orders(1))).deals)).toEqual(["ord_5000"]);
  });

  it("marks a faulted answer with the rule that gave it, in the one error envelope", async ({ expect }) => {
    const t = await testAccount();
    await t.faults([{ match: { path: "/crm/v3/objects/deals/*" }, respond: { status: 503 }, times: 1 }]);
    const res = await t.call("GET", `/crm/v3/objects/deals/${t.refs["order-1001"]}`);
    expect(res.status).toBe(503);
    expect(res.headers.get("x-service-fault-rule")).toBeTruthy();
    expect(res.headers.get("retry-after")).toBe("1");
    expect(await res.json()).toMatchObject({ status: "error", category: "SERVICE_UNAVAILABLE" });
    expect((await t.call("GET", `/crm/v3/objects/deals/${t.refs["order-1001"]}`)).status).toBe(200);
  });

  it("is untouched by a rule that matches only GETs: the sync only POSTs", async ({ expect }) => {
    const t = await testAccount();
    await t.faults([{ match: { method: "GET", path: "/crm/**" }, respond: { status: 500 } }]);
    await syncOrders(t.client, orders(2));
    expect((await t.faultStats())[0]).toMatchObject({ calls: 0, faults: 0 });
  });

  it("fails the same calls on every run with a seeded probability", async ({ expect }) => {
    const t = await testAccount();
    const rule = { match: { path: "/crm/v3/owners" }, respond: { status: 500 }, probability: 0.5, seed: 11 };
    const pattern = async () => {
      await t.faults([rule]); // PUT starts the rule's count again
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) statuses.push((await t.call("GET", "/crm/v3/owners")).status);
      return statuses;
    };
    const first = await pattern();
    expect(first).toContain(500);
    expect(first).toContain(200);
    expect(await pattern()).toEqual(first);
  });

  it("gets through a flaky service that fails a third of the sync's calls", async ({ expect }) => {
    const t = await testAccount();
    await t.faults([{ match: { method: "POST", path: "/crm/**" }, respond: { status: 502 }, probability: 0.3, seed: 3 }]);
    const r = await syncOrders(t.client, orders(30, { customers: 10 }));
    expect(Object.keys(r.deals)).toHaveLength(30);
  });

  it("is slowed, not broken, by a delay on every call", async ({ expect }) => {
    const t = await testAccount();
    await t.faults([{ match: { path: "/crm/**" }, latencyMs: 400 }]);
    const started = Date.now();
    await syncOrders(t.client, orders(2));
    expect(Date.now() - started).toBeGreaterThanOrEqual(3 * 400);
    expect((await t.faultStats())[0]).toMatchObject({ calls: 3, faults: 3 });
  });

  it("retries a search that hit the search API's own per-second limit", async ({ expect }) => {
    const t = await testAccount();
    await syncOrders(t.client, orders(3, { status: "paid" }));
    // Absent a policyName, a 429 on a search path is the SECONDLY one, as the real search API's.
    await t.faults([{ match: { path: "/crm/v3/objects/deals/search" }, respond: { status: 429 }, times: 1 }]);
    const paid = await paidOrderDeals(t.client);
    expect(paid.map((d) => d.orderId).sort()).toEqual(["ord_5000", "ord_5001", "ord_5002"]);
  });

  it("retries a search that met a gateway timeout (504)", async ({ expect }) => {
    const t = await testAccount();
    await syncOrders(t.client, orders(2, { status: "paid" }));
    await t.faults([{ match: { path: "/crm/v3/objects/deals/search" }, respond: { status: 504 }, times: 2 }]);
    expect(await paidOrderDeals(t.client)).toHaveLength(2);
  });

  it("counts what each rule saw: calls, faults and faults left", async ({ expect }) => {
    const t = await testAccount();
    await t.faults([
      { match: { path: STEPS.contacts }, respond: { status: 503 }, times: 1 },
      { match: { path: STEPS.deals }, respond: { status: 500 }, times: 5 },
    ]);
    await expect(syncOrders(t.client, orders(2))).rejects.toMatchObject({ code: 500 });
    const [contacts, deals] = await t.faultStats();
    expect(contacts).toMatchObject({ calls: 2, faults: 1, timesLeft: 0 });
    expect(deals).toMatchObject({ calls: 3, faults: 3, timesLeft: 2 });
  });

  it("answers as usual again once the rules are removed", async ({ expect }) => {
    const t = await testAccount();
    await t.faults([{ match: { path: "/crm/**" }, respond: { status: 503 } }]);
    await expect(syncOrders(t.client, orders(1))).rejects.toMatchObject({ code: 503 });
    await t.clearFaults();
    const r = await syncOrders(t.client, orders(1));
    expect((await t.client.crm.deals.basicApi.getById(r.deals.ord_5000!, [ORDER_ID_PROPERTY])).properties[ORDER_ID_PROPERTY]).toBe("ord_5000");
  });
});
