/**
 * Every public write path emits its webhook events, delivered end to end: the write (its outbox rows in its
 * own batch), the drain after the response, the real webhook queue and consumer, the local receiver.
 * Exact event shapes; v3 CRM objects, v1 contacts (single, batch, delete, merge) and the ecommerce sync.
 */
import { describe, expect, it } from "vitest";
import { admin, BASE, call, send, tenant, type Tenant } from "../helpers/api";
import { deliver, qmsg } from "../ecomm/queue-helpers";
import { bridgeTenant } from "../ecomm/queue-helpers";
import { eventsOf, hookUp, subscribe, waitFor, waitForEvents } from "./helpers";

const V1 = "/contacts/v1/contact";

/** A tenant whose app is subscribed to `types` (`type` or `type:property`), delivering to a fresh path. */
async function subscribed(types: string[], t?: Tenant) {
  const who = t ?? (await tenant());
  const path = await hookUp(who);
  const subs: Record<string, number> = {};
  for (const spec of types) {
    const [type, prop] = spec.split(":");
    subs[spec] = Number(await subscribe(who, type!, prop));
  }
  return { t: who, path, subs };
}

const byType = (events: Record<string, unknown>[], type: string) => events.filter((e) => e.subscriptionType === type);

describe("CRM v3 objects", () => {
  it("a contact's creation, property change and deletion, each with the exact event shape", async () => {
    const { t, path, subs } = await subscribed(["contact.creation", "contact.propertyChange:firstname", "contact.deletion"]);
    const before = Date.now();
    const made = await call("POST", "/crm/v3/objects/contacts", { token: t.oauth, body: { properties: { firstname: "Ann", lastname: "Lee" } } });
    expect(made.status).toBe(201);
    const id = Number(made.json.id);
    const first = await waitForEvents(path, 2);
    expect(byType(first, "contact.creation")).toEqual([
      {
        eventId: expect.any(Number),
        subscriptionId: subs["contact.creation"],
        portalId: t.portalId,
        appId: t.appId,
        occurredAt: expect.any(Number),
        subscriptionType: "contact.creation",
        attemptNumber: 0,
        objectId: id,
        changeSource: "API",
      },
    ]);
    expect(byType(first, "contact.propertyChange")).toEqual([
      expect.objectContaining({ subscriptionId: subs["contact.propertyChange:firstname"], objectId: id, propertyName: "firstname", propertyValue: "Ann", attemptNumber: 0 }),
    ]);
    expect(first[0]!.occurredAt as number).toBeGreaterThanOrEqual(before);

    // lastname is not subscribed; an unchanged firstname is no change.
    await call("PATCH", `/crm/v3/objects/contacts/${id}`, { token: t.oauth, body: { properties: { lastname: "Kim", firstname: "Ann" } } });
    await call("PATCH", `/crm/v3/objects/contacts/${id}`, { token: t.oauth, body: { properties: { firstname: "Anna" } } });
    await call("DELETE", `/crm/v3/objects/contacts/${id}`, { token: t.oauth });
    const all = await waitForEvents(path, 4);
    expect(all.slice(2).map((e) => [e.subscriptionType, e.objectId, e.propertyValue])).toEqual([
      ["contact.propertyChange", id, "Anna"],
      ["contact.deletion", id, undefined],
    ]);
    expect(new Set(all.map((e) => e.eventId)).size).toBe(4);
  });

  it("companies and deals: creation, propertyChange and deletion", async () => {
    const { t, path } = await subscribed(["company.creation", "company.propertyChange:name", "company.deletion", "deal.creation", "deal.propertyChange:dealstage", "deal.deletion"]);
    const company = Number((await call("POST", "/crm/v3/objects/companies", { token: t.oauth, body: { properties: { name: "Acme" } } })).json.id);
    const deal = Number((await call("POST", "/crm/v3/objects/deals", { token: t.oauth, body: { properties: { dealname: "D" } } })).json.id);
    await call("PATCH", `/crm/v3/objects/companies/${company}`, { token: t.oauth, body: { properties: { name: "Acme Inc" } } });
    await call("PATCH", `/crm/v3/objects/deals/${deal}`, { token: t.oauth, body: { properties: { dealstage: "closedwon" } } });
    await call("DELETE", `/crm/v3/objects/companies/${company}`, { token: t.oauth });
    await call("DELETE", `/crm/v3/objects/deals/${deal}`, { token: t.oauth });
    const events = await waitForEvents(path, 7);
    expect(events.map((e) => `${e.subscriptionType}:${e.objectId}:${e.propertyValue ?? ""}`).sort()).toEqual(
      [
        `company.creation:${company}:`,
        `company.propertyChange:${company}:Acme`,
        `company.propertyChange:${company}:Acme Inc`,
        `company.deletion:${company}:`,
        `deal.creation:${deal}:`,
        `deal.propertyChange:${deal}:closedwon`,
        `deal.deletion:${deal}:`,
      ].sort(),
    );
  });
});

describe("v1 contacts", () => {
  it("create, update by vid and by email, createOrUpdate, delete", async () => {
    const { t, path } = await subscribed(["contact.creation", "contact.propertyChange:firstname", "contact.deletion"]);
    const prop = (property: string, value: string) => ({ properties: [{ property, value }] });
    const made = await call("POST", V1, { token: t.oauth, body: { properties: [{ property: "email", value: "v1@example.com" }] } });
    expect(made.status, made.text).toBe(200);
    const vid = made.json.vid as number;
    expect((await call("POST", `${V1}/vid/${vid}/profile`, { token: t.oauth, body: prop("firstname", "One") })).status).toBe(204);
    expect((await call("POST", `${V1}/email/v1@example.com/profile`, { token: t.oauth, body: prop("firstname", "Two") })).status).toBe(204);
    const upsert = await call("POST", `${V1}/createOrUpdate/email/new-v1@example.com`, { token: t.oauth, body: prop("firstname", "Three") });
    expect(upsert.json.isNew).toBe(true);
    expect((await call("DELETE", `${V1}/vid/${vid}`, { token: t.oauth })).status).toBe(200);
    const events = await waitForEvents(path, 6);
    expect(events.map((e) => [e.subscriptionType, e.objectId, e.propertyValue])).toEqual([
      ["contact.creation", vid, undefined],
      ["contact.propertyChange", vid, "One"],
      ["contact.propertyChange", vid, "Two"],
      ["contact.creation", upsert.json.vid, undefined],
      ["contact.propertyChange", upsert.json.vid, "Three"],
      ["contact.deletion", vid, undefined],
    ]);
    // An unknown vid stays a 404 and emits nothing.
    expect((await call("DELETE", `${V1}/vid/999999999999`, { token: t.oauth })).status).toBe(404);
  });

  it("a batch emits one event per created or changed contact, with the created contacts' ids", async () => {
    const { t, path } = await subscribed(["contact.creation", "contact.propertyChange:firstname"]);
    const existing = (await call("POST", V1, { token: t.oauth, body: { properties: [{ property: "email", value: "old@example.com" }] } })).json.vid as number;
    await waitForEvents(path, 1);
    const entry = (email: string, firstname: string) => ({ email, properties: [{ property: "firstname", value: firstname }] });
    const res = await call("POST", `${V1}/batch`, { token: t.oauth, body: [entry("b1@example.com", "B1"), entry("old@example.com", "Old"), entry("b2@example.com", "B2")] });
    expect(res.status, res.text).toBe(202);
    const events = (await waitForEvents(path, 6)).slice(1);
    const ids = new Map<string, number>();
    for (const email of ["b1@example.com", "b2@example.com"]) {
      ids.set(email, (await call("GET", `${V1}/email/${email}/profile`, { token: t.oauth })).json.vid as number);
    }
    expect(events.map((e) => [e.subscriptionType, e.objectId, e.propertyValue ?? null]).sort()).toEqual(
      [
        ["contact.creation", ids.get("b1@example.com"), null],
        ["contact.creation", ids.get("b2@example.com"), null],
        ["contact.propertyChange", ids.get("b1@example.com"), "B1"],
        ["contact.propertyChange", ids.get("b2@example.com"), "B2"],
        ["contact.propertyChange", existing, "Old"],
      ].sort(),
    );
  });

  it("a merge: contact.merge with primaryObjectId, mergedObjectIds, newObjectId and numberOfPropertiesMoved, and the survivor's property changes", async () => {
    const { t, path, subs } = await subscribed(["contact.merge", "contact.propertyChange:firstname"]);
    const a = (await call("POST", V1, { token: t.oauth, body: { properties: [{ property: "email", value: "a@example.com" }] } })).json.vid as number;
    const b = (await call("POST", V1, { token: t.oauth, body: { properties: [{ property: "email", value: "b@example.com" }, { property: "firstname", value: "Bee" }] } })).json.vid as number;
    await waitForEvents(path, 1); // b's firstname
    // The merge answers a bare SUCCESS under a JSON content type (as recorded), so it is sent without `call`.
    const merged = await send(
      new Request(`${BASE}${V1}/merge-vids/${a}`, { method: "POST", headers: { authorization: `Bearer ${t.oauth}`, "content-type": "application/json" }, body: JSON.stringify({ vidToMerge: b }) }),
    );
    expect(merged.status, await merged.text()).toBe(200);
    const events = (await waitForEvents(path, 3)).slice(1);
    expect(byType(events, "contact.merge")).toEqual([
      {
        eventId: expect.any(Number),
        subscriptionId: subs["contact.merge"],
        portalId: t.portalId,
        appId: t.appId,
        occurredAt: expect.any(Number),
        subscriptionType: "contact.merge",
        attemptNumber: 0,
        objectId: a,
        changeSource: "API",
        primaryObjectId: a,
        mergedObjectIds: [b],
        newObjectId: a,
        numberOfPropertiesMoved: 1,
      },
    ]);
    expect(byType(events, "contact.propertyChange")).toEqual([expect.objectContaining({ objectId: a, propertyName: "firstname", propertyValue: "Bee" })]);
  });

  it("more than 100 events go out in POSTs of at most 100 (150 contacts: 100 + 50)", async () => {
    const { t, path } = await subscribed(["contact.creation"]);
    const body = Array.from({ length: 150 }, (_, i) => ({ email: `many${i}@example.com`, properties: [] }));
    expect((await call("POST", `${V1}/batch`, { token: t.oauth, body })).status).toBe(202);
    const got = await waitFor(path, (d) => eventsOf(d).length >= 150);
    expect(got.map((d) => d.events.length).sort((x, y) => x - y)).toEqual([50, 100]);
    expect(new Set(eventsOf(got).map((e) => e.objectId)).size).toBe(150);
  });
});

describe("ecommerce bridge sync", () => {
  it("a synced contact's creation and property changes (changeSource INTEGRATION), only when a value changes", async () => {
    const { t, origin } = await bridgeTenant();
    const { path } = await subscribed(["contact.creation", "contact.propertyChange:firstname"], t);
    await deliver([qmsg(origin, "CONTACT", { externalObjectId: "c1", properties: { customer_email: "sync@example.com", firstname: "Syn" } })]);
    const first = await waitForEvents(path, 2);
    const id = first[0]!.objectId;
    expect(first.map((e) => [e.subscriptionType, e.changeSource, e.propertyValue ?? null]).sort()).toEqual([
      ["contact.creation", "INTEGRATION", null],
      ["contact.propertyChange", "INTEGRATION", "Syn"],
    ]);
    await deliver([qmsg(origin, "CONTACT", { externalObjectId: "c1", properties: { firstname: "Syn" } })]);
    await deliver([qmsg(origin, "CONTACT", { externalObjectId: "c1", properties: { firstname: "Sync" } })]);
    const all = await waitForEvents(path, 3);
    expect(all.slice(2)).toEqual([expect.objectContaining({ subscriptionType: "contact.propertyChange", objectId: id, propertyValue: "Sync" })]);
  });

  it("a sync batch of 100 objects is one delivery per app", async () => {
    const { t, origin } = await bridgeTenant();
    const { path } = await subscribed(["contact.creation"], t);
    // A second app installed in the same account, with its own settings and subscription.
    const other = await tenant();
    await admin("POST", `/admin/v1/accounts/${t.portalId}/installs`, { appId: other.appId });
    const otherPath = await hookUp(other);
    await subscribe(other, "contact.creation");
    const msgs = Array.from({ length: 100 }, (_, i) => qmsg(origin, "CONTACT", { externalObjectId: `bulk-${i}`, properties: { customer_email: `bulk${i}@example.com` } }));
    await deliver(msgs);
    const mine = await waitFor(path, (d) => eventsOf(d).length >= 100);
    const theirs = await waitFor(otherPath, (d) => eventsOf(d).length >= 100);
    expect(mine.map((d) => d.events.length)).toEqual([100]);
    expect(theirs.map((d) => d.events.length)).toEqual([100]);
    expect(eventsOf(theirs).every((e) => e.appId === other.appId && e.portalId === t.portalId)).toBe(true);
  });
});
