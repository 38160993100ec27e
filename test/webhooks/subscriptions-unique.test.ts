/**
 * One subscription per event type and property: a second one is refused with 409 (each change would
 * otherwise arrive twice in one delivery), also when both requests come at once, and a change is delivered
 * once.
 */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant } from "../helpers/api";
import { deliveries, dev, eventsOf, hookUp, subscribe, waitForEvents } from "./helpers";

describe("a second subscription to the same event type and property", () => {
  it("is refused with 409 CONFLICT naming the existing one; other properties and types are not", async () => {
    const t = await tenant();
    const first = await subscribe(t, "contact.propertyChange", "firstname");
    const again = await dev(t, "POST", "/subscriptions", { eventType: "contact.propertyChange", propertyName: "firstname", active: false });
    const err = expectError(again, 409, "CONFLICT");
    expect(err.message).toBe(`A subscription to contact.propertyChange of firstname already exists (id ${first}): each event type and property can be subscribed to once.`);
    await subscribe(t, "contact.propertyChange", "lastname");
    await subscribe(t, "contact.creation");
    expectError(await dev(t, "POST", "/subscriptions", { eventType: "contact.creation" }), 409, "CONFLICT");
    // Another app may subscribe to the same.
    const other = await tenant();
    await subscribe(other, "contact.propertyChange", "firstname");
    const listed = await dev(t, "GET", "/subscriptions");
    expect(listed.json.results.map((r: { eventType: string; propertyName?: string }) => `${r.eventType}:${r.propertyName ?? ""}`).sort()).toEqual([
      "contact.creation:",
      "contact.propertyChange:firstname",
      "contact.propertyChange:lastname",
    ]);
  });

  it("makes one subscription when two identical requests come at once, and a change arrives once", { timeout: 60_000 }, async () => {
    const t = await tenant();
    const path = await hookUp(t);
    const body = { eventType: "contact.propertyChange", propertyName: "firstname" };
    const both = await Promise.all([dev(t, "POST", "/subscriptions", body), dev(t, "POST", "/subscriptions", body)]);
    expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
    const made = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { firstname: "Once" } } });
    expect(made.status, made.text).toBe(201);
    expect((await waitForEvents(path, 1)).filter((e) => e.propertyName === "firstname")).toHaveLength(1);
    // The queue's batch timeout is a second: a duplicate would have arrived by now.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(eventsOf(await deliveries(path)).filter((e) => e.propertyName === "firstname")).toHaveLength(1);
  });
});
