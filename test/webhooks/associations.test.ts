/**
 * `associationChange` events: every association write (v3 PUT/DELETE, v3 and v4 batches, v4 PUT and
 * default, associations given on create) emits one event per side of each association that changed, of
 * that side's subscription type (`contact.associationChange`, `company.associationChange`), with
 * `associationType`, `fromObjectId`, `toObjectId`, `associationRemoved` and `isPrimaryAssociation`. A no-op
 * (re-adding, removing what is not there) emits nothing, and another account's changes never reach the app.
 */
import { describe, expect, it } from "vitest";
import { call, tenant, type Tenant } from "../helpers/api";
import { deliveries, dev, eventsOf, hookUp, subscribe, waitForEvents } from "./helpers";

async function make(t: Tenant, type: string, properties: Record<string, string>, associations?: unknown[]) {
  const res = await call("POST", `/crm/v3/objects/${type}`, { token: t.oauth, body: { properties, ...(associations ? { associations } : {}) } });
  expect(res.status, res.text).toBe(201);
  return Number(res.json.id);
}

async function ok(t: Tenant, method: string, path: string, body?: unknown) {
  const res = await call(method, path, { token: t.oauth, body });
  expect(res.status, res.text).toBeLessThan(300);
  return res;
}

/** An account whose app is subscribed to contact and company association changes. */
async function hooked() {
  const t = await tenant();
  const path = await hookUp(t);
  const subs = { contact: Number(await subscribe(t, "contact.associationChange")), company: Number(await subscribe(t, "company.associationChange")) };
  return { t, path, subs };
}

/** The two events of one contact–company association change, the contact's side first. */
function bothSides(t: Tenant, subs: { contact: number; company: number }, contact: number, company: number, removed: boolean, primary = false) {
  const common = { eventId: expect.any(Number), portalId: t.portalId, appId: t.appId, occurredAt: expect.any(Number), attemptNumber: 0, changeSource: "API", associationRemoved: removed, isPrimaryAssociation: primary };
  return [
    { ...common, subscriptionId: subs.contact, subscriptionType: "contact.associationChange", objectId: contact, associationType: "CONTACT_TO_COMPANY", fromObjectId: contact, toObjectId: company },
    { ...common, subscriptionId: subs.company, subscriptionType: "company.associationChange", objectId: company, associationType: "COMPANY_TO_CONTACT", fromObjectId: company, toObjectId: contact },
  ];
}

const sorted = (events: Record<string, unknown>[]) => [...events].sort((a, b) => String(a.subscriptionType).localeCompare(String(b.subscriptionType)) * -1);

describe("associationChange events", () => {
  it("v3 PUT and DELETE emit both sides once; re-adding and removing again emit nothing", async () => {
    const { t, path, subs } = await hooked();
    const contact = await make(t, "contacts", { firstname: "Ada" });
    const company = await make(t, "companies", { name: "Acme" });
    const assoc = `/crm/v3/objects/contacts/${contact}/associations/companies/${company}`;
    await ok(t, "PUT", assoc);
    await ok(t, "PUT", assoc); // already associated: no event
    const added = await waitForEvents(path, 2);
    expect(sorted(added)).toEqual(bothSides(t, subs, contact, company, false));
    // The deletion, from the company's side this time.
    await ok(t, "DELETE", `/crm/v3/objects/companies/${company}/associations/contacts/${contact}`);
    await ok(t, "DELETE", assoc); // not associated any more: no event
    const all = await waitForEvents(path, 4);
    expect(sorted(all.slice(2))).toEqual(bothSides(t, subs, contact, company, true));
    await new Promise((r) => setTimeout(r, 2_000));
    expect(eventsOf(await deliveries(path))).toHaveLength(4);
  }, 60_000);

  it("v4 PUT with the Primary label, v4 DELETE, and the v3 and v4 batches emit for the pairs that changed", async () => {
    const { t, path, subs } = await hooked();
    const contact = await make(t, "contacts", { firstname: "Grace" });
    const [c1, c2] = [await make(t, "companies", { name: "One" }), await make(t, "companies", { name: "Two" })];
    // v4 PUT with the built-in Primary type (contact → company 1): isPrimaryAssociation on both sides.
    await ok(t, "PUT", `/crm/v4/objects/contacts/${contact}/associations/companies/${c1}`, [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 1 }]);
    let events = await waitForEvents(path, 2);
    expect(sorted(events)).toEqual(bothSides(t, subs, contact, c1, false, true));
    // v3 batch create of c1 (already there) and c2 (new): only c2 emits.
    await ok(t, "POST", "/crm/v3/associations/contacts/companies/batch/create", {
      inputs: [{ from: { id: String(contact) }, to: { id: String(c1) }, type: "contact_to_company" }, { from: { id: String(contact) }, to: { id: String(c2) }, type: "contact_to_company" }],
    });
    events = await waitForEvents(path, 4);
    expect(sorted(events.slice(2))).toEqual(bothSides(t, subs, contact, c2, false));
    // v4 batch archive from the company side: c1 was primary, so its removal says so.
    await ok(t, "POST", "/crm/v4/associations/companies/contacts/batch/archive", { inputs: [{ from: { id: String(c1) }, to: [{ id: String(contact) }] }] });
    events = await waitForEvents(path, 6);
    expect(sorted(events.slice(4))).toEqual(bothSides(t, subs, contact, c1, true, true));
    // v4 DELETE of c2, then the v4 default PUT of c1 again.
    await ok(t, "DELETE", `/crm/v4/objects/contacts/${contact}/associations/companies/${c2}`);
    events = await waitForEvents(path, 8);
    expect(sorted(events.slice(6))).toEqual(bothSides(t, subs, contact, c2, true));
    await ok(t, "PUT", `/crm/v4/objects/contacts/${contact}/associations/default/companies/${c1}`);
    events = await waitForEvents(path, 10);
    expect(sorted(events.slice(8))).toEqual(bothSides(t, subs, contact, c1, false));
    // v3 batch archive of a pair that is not associated (c2): nothing.
    await ok(t, "POST", "/crm/v3/associations/contacts/companies/batch/archive", { inputs: [{ from: { id: String(contact) }, to: { id: String(c2) }, type: "contact_to_company" }] });
    await new Promise((r) => setTimeout(r, 2_500));
    expect(eventsOf(await deliveries(path))).toHaveLength(10);
  }, 90_000);

  it("a record created with associations emits both sides with its new id", async () => {
    const { t, path, subs } = await hooked();
    const company = await make(t, "companies", { name: "Acme" });
    const contact = await make(t, "contacts", { firstname: "New" }, [{ to: { id: String(company) }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 279 }] }]);
    const events = await waitForEvents(path, 2);
    expect(sorted(events)).toEqual(bothSides(t, subs, contact, company, false));
    // A batch create with associations: the same, for each new record.
    const res = await ok(t, "POST", "/crm/v3/objects/contacts/batch/create", {
      inputs: [
        { properties: { firstname: "B1" }, associations: [{ to: { id: String(company) }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 279 }] }] },
        { properties: { firstname: "B2" }, associations: [{ to: { id: String(company) }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 279 }] }] },
      ],
    });
    const ids = (res.json.results as { id: string; properties: { firstname: string } }[]).map((r) => Number(r.id));
    const more = await waitForEvents(path, 6);
    const byContact = (id: number) => sorted(more.slice(2).filter((e) => e.fromObjectId === id || e.toObjectId === id));
    for (const id of ids) expect(byContact(id)).toEqual(bothSides(t, subs, id, company, false));
  }, 60_000);

  it("isolation: another account's association changes never reach this app", async () => {
    const { t, path, subs } = await hooked();
    const other = await tenant();
    await hookUp(other);
    await subscribe(other, "contact.associationChange");
    const theirs = [await make(other, "contacts", { firstname: "B" }), await make(other, "companies", { name: "B" })];
    await ok(other, "PUT", `/crm/v3/objects/contacts/${theirs[0]}/associations/companies/${theirs[1]}`);
    // This account's own change, after the other's: only it arrives.
    const mine = [await make(t, "contacts", { firstname: "A" }), await make(t, "companies", { name: "A" })];
    await ok(t, "PUT", `/crm/v3/objects/contacts/${mine[0]}/associations/companies/${mine[1]}`);
    const events = await waitForEvents(path, 2);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(sorted(eventsOf(await deliveries(path)))).toEqual(bothSides(t, subs, mine[0]!, mine[1]!, false));
    expect(events.every((e) => e.portalId === t.portalId)).toBe(true);
  }, 60_000);

  it("a batch of 100 pairs, created with the records and archived at once, emits 200 events each way", async () => {
    const { t, path } = await hooked();
    const company = await make(t, "companies", { name: "Big" });
    const inputs = Array.from({ length: 100 }, (_, i) => ({ properties: { firstname: `n${i}` }, associations: [{ to: { id: String(company) }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 279 }] }] }));
    const res = await ok(t, "POST", "/crm/v3/objects/contacts/batch/create", { inputs });
    const ids = new Set((res.json.results as { id: string }[]).map((r) => Number(r.id)));
    const added = await waitForEvents(path, 200, 40_000);
    expect(added.filter((e) => e.subscriptionType === "contact.associationChange" && ids.has(e.objectId as number) && e.toObjectId === company)).toHaveLength(100);
    expect(added.filter((e) => e.subscriptionType === "company.associationChange" && e.objectId === company && ids.has(e.toObjectId as number))).toHaveLength(100);
    await ok(t, "POST", "/crm/v4/associations/companies/contacts/batch/archive", { inputs: [{ from: { id: String(company) }, to: [...ids].map((id) => ({ id: String(id) })) }] });
    const all = await waitForEvents(path, 400, 40_000);
    const removed = all.slice(200);
    expect(removed.every((e) => e.associationRemoved === true)).toBe(true);
    expect(new Set(removed.filter((e) => e.subscriptionType === "contact.associationChange").map((e) => e.objectId))).toEqual(ids);
  }, 120_000);

  it("an activity's side is the generic object.associationChange with its objectTypeId", async () => {
    const t = await tenant();
    const path = await hookUp(t);
    const sub = await dev(t, "POST", "/subscriptions", { eventType: "object.associationChange", objectTypeId: "0-46" });
    expect(sub.status, sub.text).toBe(201);
    const contact = await make(t, "contacts", { firstname: "N" });
    const note = await make(t, "notes", { hs_timestamp: "2026-11-01T10:00:00.000Z", hs_note_body: "hi" }, [{ to: { id: String(contact) }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 202 }] }]);
    const [event] = await waitForEvents(path, 1);
    expect(event).toMatchObject({ subscriptionId: Number(sub.json.id), subscriptionType: "object.associationChange", objectTypeId: "0-46", objectId: note, associationType: "NOTE_TO_CONTACT", fromObjectId: note, toObjectId: contact, associationRemoved: false, isPrimaryAssociation: false });
  });

  it("the subscription API takes every associationChange type but products'", async () => {
    const t = await tenant();
    for (const eventType of ["contact.associationChange", "company.associationChange", "deal.associationChange", "ticket.associationChange", "line_item.associationChange"]) {
      await subscribe(t, eventType);
    }
    const res = await call("POST", `/webhooks/v3/${t.appId}/subscriptions?hapikey=${t.developerKey}`, { body: { eventType: "product.associationChange" } });
    expect(res.status).toBe(400);
    const generic = await call("POST", `/webhooks/v3/${t.appId}/subscriptions?hapikey=${t.developerKey}`, { body: { eventType: "object.associationChange", objectTypeId: "0-46" } });
    expect(generic.status, generic.text).toBe(201);
  });

  it("only the subscribed side is delivered: a deal's subscription gets DEAL_TO_CONTACT", async () => {
    const t = await tenant();
    const path = await hookUp(t);
    await subscribe(t, "deal.associationChange");
    const contact = await make(t, "contacts", { firstname: "C" });
    const deal = await make(t, "deals", { dealname: "D" });
    await ok(t, "PUT", `/crm/v4/objects/contacts/${contact}/associations/default/deals/${deal}`);
    const [event] = await waitForEvents(path, 1);
    expect(event).toMatchObject({ subscriptionType: "deal.associationChange", objectId: deal, associationType: "DEAL_TO_CONTACT", fromObjectId: deal, toObjectId: contact, associationRemoved: false, isPrimaryAssociation: false });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(eventsOf(await deliveries(path))).toHaveLength(1);
  });
});
