/**
 * End to end through the local queue: PUT /sync/messages, then the real consumer (miniflare delivers the
 * batch after max_batch_timeout), then the status endpoint, polled with a bound.
 */
import { describe, expect, it } from "vitest";
import { call, tenant } from "../helpers/api";
import { accountSettings, appSettings, BRIDGE, errored, processed, settingsBody, store, sync, waitForStatus } from "./helpers";

describe("ecommerce bridge end to end (PUT -> queue -> SyncOrder -> D1)", () => {
  it("creates a contact from a sync message (OAuth app settings)", async () => {
    const t = await tenant();
    await appSettings(t);
    await store(t.oauth);
    await sync(t.oauth, "CONTACT", [{ externalObjectId: "c1", changedAt: 1000, properties: { customer_email: "Ann@Example.com", firstname: "Ann", unmapped: "x" } }]);
    const s = await waitForStatus(t.oauth, "CONTACT", "c1", processed);
    expect(s).toMatchObject({ storeId: "shop", objectType: "CONTACT", externalObjectId: "c1", errors: [], numErrors: 0 });
    expect(typeof s.serviceId).toBe("number");
    const rec = await call("GET", `/crm/v3/objects/contacts/${s.serviceId}?properties=email,firstname,unmapped`, { token: t.oauth });
    expect(rec.json.properties).toMatchObject({ email: "Ann@Example.com", firstname: "Ann", unmapped: null });
  });

  it("a single-account OAuth integrator: settings without appId, a store, a contact (the account's settings govern)", async () => {
    const t = await tenant();
    const put = await call("PUT", `${BRIDGE}/settings`, { token: t.oauth, body: settingsBody() });
    expect(put.status, put.text).toBe(200);
    // What GET answers this caller is what governs its syncs (the app has no settings).
    expect((await call("GET", `${BRIDGE}/settings`, { token: t.oauth })).json).toEqual(put.json);
    await store(t.oauth);
    await sync(t.oauth, "CONTACT", [{ externalObjectId: "c1", properties: { customer_email: "solo@example.com", firstname: "Solo" } }]);
    const s = await waitForStatus(t.oauth, "CONTACT", "c1", (x) => processed(x) || errored(x));
    expect(s).toMatchObject({ errors: [], numErrors: 0, serviceId: expect.any(Number) });
    const rec = await call("GET", `/crm/v3/objects/contacts/${s.serviceId}`, { token: t.oauth });
    expect(rec.json.properties).toMatchObject({ email: "solo@example.com", firstname: "Solo" });
  });

  it("syncs products, deals and line items with their associations (private app, account settings)", async () => {
    const t = await tenant();
    await accountSettings(t);
    await store(t.pat);
    await sync(t.pat, "PRODUCT", [{ externalObjectId: "p1", properties: { title: "Pen", price: "2.5" } }]);
    await sync(t.pat, "CONTACT", [{ externalObjectId: "c1", properties: { customer_email: "buyer@example.com" } }]);
    await sync(t.pat, "DEAL", [{ externalObjectId: "d1", properties: { stage: "checkout_pending", name: "Order 1" }, associations: { CONTACT: ["c1"] } }]);
    const deal = await waitForStatus(t.pat, "DEAL", "d1", processed);
    await waitForStatus(t.pat, "PRODUCT", "p1", processed);
    await sync(t.pat, "LINE_ITEM", [{ externalObjectId: "li1", properties: { qty: 2 }, associations: { DEAL: ["d1"], PRODUCT: ["p1"] } }]);
    const li = await waitForStatus(t.pat, "LINE_ITEM", "li1", processed);
    const rec = await call("GET", `/crm/v3/objects/line_items/${li.serviceId}?associations=deals,products`, { token: t.pat });
    expect(rec.json.properties).toMatchObject({ quantity: "2" });
    expect(rec.json.associations.deals.results.map((r: { id: string }) => r.id)).toEqual([String(deal.serviceId)]);
    const d = await call("GET", `/crm/v3/objects/deals/${deal.serviceId}?associations=contacts`, { token: t.pat });
    expect(d.json.properties).toMatchObject({ dealstage: "checkout_pending", pipeline: "ecommerce", dealname: "Order 1" });
    expect(d.json.associations.contacts.results).toHaveLength(1);
  });

  it("surfaces a failed message in the status and the errors endpoints, and a later fix resolves it", async () => {
    const t = await tenant();
    await appSettings(t);
    await store(t.oauth);
    await sync(t.oauth, "CONTACT", [{ externalObjectId: "c1", changedAt: 1, properties: { firstname: "no email" } }]);
    const s = await waitForStatus(t.oauth, "CONTACT", "c1", errored);
    expect(s).toMatchObject({ serviceId: null, lastProcessedAt: null, errors: [{ type: "MISSING_REQUIRED_PROPERTY", status: "OPEN", changedAt: "1" }] });
    const errors = await call("GET", `${BRIDGE}/sync/errors/portal`, { token: t.oauth });
    expect(errors.json.results).toEqual([expect.objectContaining({ externalObjectId: "c1", type: "MISSING_REQUIRED_PROPERTY" })]);
    await sync(t.oauth, "CONTACT", [{ externalObjectId: "c1", changedAt: 2, properties: { customer_email: "fixed@example.com" } }]);
    const fixed = await waitForStatus(t.oauth, "CONTACT", "c1", processed);
    expect(fixed.numErrors).toBe(0);
    expect((await call("GET", `${BRIDGE}/sync/errors/portal`, { token: t.oauth })).json.results).toEqual([]);
  });

  it("DELETE stops syncing and keeps the record", async () => {
    const t = await tenant();
    await appSettings(t);
    await store(t.oauth);
    await sync(t.oauth, "PRODUCT", [{ externalObjectId: "p1", changedAt: 1, properties: { title: "Pen" } }]);
    const first = await waitForStatus(t.oauth, "PRODUCT", "p1", processed);
    await sync(t.oauth, "PRODUCT", [{ externalObjectId: "p1", changedAt: 2, action: "DELETE" }]);
    await waitForStatus(t.oauth, "PRODUCT", "p1", (s) => s.lastProcessedAt !== first.lastProcessedAt);
    const rec = await call("GET", `/crm/v3/objects/products/${first.serviceId}`, { token: t.oauth });
    expect(rec.status).toBe(200);
    expect(rec.json.properties.name).toBe("Pen");
  });

  it("the bridge routes are in the OpenAPI document", async () => {
    const doc = await call("GET", "/openapi.json");
    expect(doc.status).toBe(200);
    for (const p of ["/extensions/ecomm/v2/settings", "/extensions/ecomm/v2/sync/messages", "/extensions/ecomm/v2/sync/status/{storeId}/{objectType}/{externalObjectId}"]) {
      expect(Object.keys(doc.json.paths)).toContain(p);
    }
  });
});
