import { describe, expect, it } from "vitest";
import { call, tenant } from "../helpers/api";
import { appSettings, processed, store, sync, waitForStatus } from "./helpers";

describe("ecommerce bridge end to end (PUT -> queue -> SyncOrder -> D1)", () => {
  it("creates a contact from a sync message", async () => {
    const t = await tenant();
    await appSettings(t);
    await store(t.oauth);
    await sync(t.oauth, "CONTACT", [{ externalObjectId: "c1", changedAt: 1000, properties: { customer_email: "Ann@Example.com", firstname: "Ann", unmapped: "x" } }]);
    const s = await waitForStatus(t.oauth, "CONTACT", "c1", processed);
    expect(s).toMatchObject({ storeId: "shop", objectType: "CONTACT", externalObjectId: "c1", errors: [], numErrors: 0 });
    expect(typeof s.serviceId).toBe("number");
    const rec = await call("GET", `/crm/v3/objects/contacts/${s.serviceId}`, { token: t.oauth });
    expect(rec.json.properties).toMatchObject({ email: "Ann@Example.com", firstname: "Ann" });
    expect(rec.json.properties.unmapped).toBeUndefined();
  });
});
