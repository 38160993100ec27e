/** How timeline events find their record (docs/reference/timeline.md), visitor identification and objectProperty stamping. */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant, type Tenant } from "../helpers/api";
import { createProp, createRecord, createType, expectStored, findContact, getEvent, putEvent, readRecord, storedNames, timeline } from "./helpers";

const contactCount = async (t: Tenant) => (await call("GET", "/crm/v3/objects/contacts?limit=100", { token: t.pat })).json.results.length as number;
const timelineIds = async (t: Tenant, type: string, id: number) => (await timeline(t, type, id)).json.results.map((r: { id: string }) => r.id);
const identify = (t: Tenant, utk: string, email: string, token = t.pat) => call("POST", "/tracking/v1/identify", { token, body: { utk, email } });

describe("contact association: objectId, then a tied utk, then email", () => {
  it("a new email creates a contact holding only the email", async () => {
    const t = await tenant();
    const type = await createType(t);
    await expectStored(t, { id: "e", eventTypeId: type.id, email: "New.Person@Example.com" });
    const [contact] = await findContact(t, "New.Person@Example.com");
    expect(contact).toBeDefined();
    expect(await storedNames(t, Number(contact!.id))).toEqual(["email"]);
    expect((await getEvent(t, type.id, "e")).json.objectId).toBe(Number(contact!.id));
    expect(await timelineIds(t, "contacts", Number(contact!.id))).toEqual(["e"]);
  });

  it("an existing email (any case) uses that contact and creates none", async () => {
    const t = await tenant();
    const type = await createType(t);
    const id = await createRecord(t, "contacts", { email: "ann@example.com", firstname: "Ann" });
    await expectStored(t, { id: "e", eventTypeId: type.id, email: "ANN@example.com" });
    expect(await contactCount(t)).toBe(1);
    expect((await getEvent(t, type.id, "e")).json.objectId).toBe(id);
  });

  it("an objectId that names no contact is a 404 and creates nothing", async () => {
    const t = await tenant();
    const type = await createType(t);
    const company = await createRecord(t, "companies", { name: "Co" });
    expectError(await putEvent(t, { id: "e", eventTypeId: type.id, objectId: 99999999, email: "x@nobody.example" }), 404, "OBJECT_NOT_FOUND");
    // A record of another type is not a contact either.
    expectError(await putEvent(t, { id: "e", eventTypeId: type.id, objectId: company }), 404, "OBJECT_NOT_FOUND");
    expect(await contactCount(t)).toBe(0);
    expectError(await getEvent(t, type.id, "e"), 404, "OBJECT_NOT_FOUND");
  });

  it("an archived contact is not found", async () => {
    const t = await tenant();
    const type = await createType(t);
    const id = await createRecord(t, "contacts", { email: "gone@example.com" });
    await call("DELETE", `/crm/v3/objects/contacts/${id}`, { token: t.pat });
    expectError(await putEvent(t, { id: "e", eventTypeId: type.id, objectId: id }), 404, "OBJECT_NOT_FOUND");
  });

  it("a new email with the objectId of a contact updates that contact's email", async () => {
    const t = await tenant();
    const type = await createType(t);
    const id = await createRecord(t, "contacts", { email: "old@example.com", firstname: "Kim" });
    await expectStored(t, { id: "e", eventTypeId: type.id, objectId: id, email: "new@example.com" });
    expect(await readRecord(t, "contacts", id, ["email", "firstname"])).toMatchObject({ email: "new@example.com", firstname: "Kim" });
    expect(await contactCount(t)).toBe(1);
    // The new email now finds this contact.
    await expectStored(t, { id: "e2", eventTypeId: type.id, email: "NEW@example.com" });
    expect((await getEvent(t, type.id, "e2")).json.objectId).toBe(id);
    // A contact without an email gets one.
    const bare = await createRecord(t, "contacts", { firstname: "NoMail" });
    await expectStored(t, { id: "e3", eventTypeId: type.id, objectId: bare, email: "first@example.com" });
    expect((await readRecord(t, "contacts", bare, ["email"])).email).toBe("first@example.com");
  });

  it("an email that belongs to another contact is a 409 and changes nothing", async () => {
    const t = await tenant();
    const type = await createType(t);
    const a = await createRecord(t, "contacts", { email: "a@example.com" });
    await createRecord(t, "contacts", { email: "b@example.com" });
    expectError(await putEvent(t, { id: "e", eventTypeId: type.id, objectId: a, email: "b@example.com" }), 409, "CONFLICT");
    expect((await readRecord(t, "contacts", a, ["email"])).email).toBe("a@example.com");
    expectError(await getEvent(t, type.id, "e"), 404, "OBJECT_NOT_FOUND");
  });

  it("objectId wins over utk and email; utk wins over email", async () => {
    const t = await tenant();
    const type = await createType(t);
    const byId = await createRecord(t, "contacts", { email: "id@example.com" });
    const byEmail = await createRecord(t, "contacts", { email: "email@example.com" });
    const tied = (await identify(t, "utk-tied", "utk@example.com")).json.vid as number;
    await expectStored(t, { id: "1", eventTypeId: type.id, objectId: byId, utk: "utk-tied" });
    await expectStored(t, { id: "2", eventTypeId: type.id, utk: "utk-tied", email: "email@example.com" });
    await expectStored(t, { id: "3", eventTypeId: type.id, email: "email@example.com", utk: "fresh-utk" });
    expect(await timelineIds(t, "contacts", byId)).toEqual(["1"]);
    expect(await timelineIds(t, "contacts", tied)).toEqual(["2"]);
    expect(await timelineIds(t, "contacts", byEmail)).toEqual(["3"]);
  });

  it("utk alone creates nothing; the event stays invisible until the token is tied", async () => {
    const t = await tenant();
    const type = await createType(t);
    await expectStored(t, { id: "anon-1", eventTypeId: type.id, utk: "visitor-1", timestamp: 1000 });
    await expectStored(t, { id: "anon-2", eventTypeId: type.id, utk: "visitor-1", timestamp: 2000 });
    expect(await contactCount(t)).toBe(0);
    expect((await getEvent(t, type.id, "anon-1")).json).toMatchObject({ objectId: null, utk: "visitor-1" });
    const other = await createRecord(t, "contacts", { email: "bystander@example.com" });
    expect(await timelineIds(t, "contacts", other)).toEqual([]);

    // Tying the token (by other means) reveals its events on the contact.
    const res = await identify(t, "visitor-1", "visitor@example.com");
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ utk: "visitor-1", vid: expect.any(Number) });
    expect(await timelineIds(t, "contacts", res.json.vid)).toEqual(["anon-2", "anon-1"]);
    // Later utk-only events go straight to the contact.
    await expectStored(t, { id: "anon-3", eventTypeId: type.id, utk: "visitor-1", timestamp: 3000 });
    expect(await timelineIds(t, "contacts", res.json.vid)).toEqual(["anon-3", "anon-2", "anon-1"]);
    expect(await contactCount(t)).toBe(2);
  });

  it("email with utk ties the token, which also reveals its earlier events (even within one batch)", async () => {
    const t = await tenant();
    const type = await createType(t);
    await expectStored(t, { id: "before", eventTypeId: type.id, utk: "v2", timestamp: 1 });
    const res = await call("PUT", `/integrations/v1/${t.appId}/timeline/event/batch`, {
      token: t.oauth,
      body: {
        eventWrappers: [
          { id: "in-batch", eventTypeId: type.id, utk: "v3", timestamp: 2 },
          { id: "tie", eventTypeId: type.id, utk: "v2", email: "pair@example.com", timestamp: 3 },
          { id: "tie3", eventTypeId: type.id, utk: "v3", email: "pair@example.com", timestamp: 4 },
          { id: "after", eventTypeId: type.id, utk: "v2", timestamp: 5 },
        ],
      },
    });
    expect(res.status, res.text).toBe(204);
    const [contact] = await findContact(t, "pair@example.com");
    expect(await timelineIds(t, "contacts", Number(contact!.id))).toEqual(["after", "tie3", "tie", "in-batch", "before"]);
    expect(await contactCount(t)).toBe(1);
  });

  it("objectId with an untied utk ties the token to that contact", async () => {
    const t = await tenant();
    const type = await createType(t);
    const id = await createRecord(t, "contacts", { email: "known@example.com" });
    await expectStored(t, { id: "pending", eventTypeId: type.id, utk: "v4", timestamp: 1 });
    await expectStored(t, { id: "direct", eventTypeId: type.id, objectId: id, utk: "v4", timestamp: 2 });
    expect(await timelineIds(t, "contacts", id)).toEqual(["direct", "pending"]);
  });
});

describe("company and deal events: objectId names the record", () => {
  it.each([
    ["COMPANY", "companies"],
    ["DEAL", "deals"],
  ] as const)("%s events need the objectId of an existing %s", async (objectType, recordType) => {
    const t = await tenant();
    const type = await createType(t, { objectType });
    const record = await createRecord(t, recordType, { name: "Rec" });
    const contact = await createRecord(t, "contacts", { email: "c@example.com" });
    const missing = expectError(await putEvent(t, { id: "e", eventTypeId: type.id, email: "x@example.com" }), 400, "VALIDATION_ERROR");
    expect(missing.message).toContain("objectId");
    expectError(await putEvent(t, { id: "e", eventTypeId: type.id, objectId: 99999999 }), 404, "OBJECT_NOT_FOUND");
    expectError(await putEvent(t, { id: "e", eventTypeId: type.id, objectId: contact }), 404, "OBJECT_NOT_FOUND");
    expect(await contactCount(t)).toBe(1);
    await expectStored(t, { id: "e", eventTypeId: type.id, objectId: record, email: "ignored@example.com" });
    expect(await timelineIds(t, recordType, record)).toEqual(["e"]);
    expect(await timelineIds(t, "contacts", contact)).toEqual([]);
    expect(await contactCount(t)).toBe(1);
  });
});

describe("objectProperty stamping", () => {
  it("writes the event's value onto the associated contact, existing or new", async () => {
    const t = await tenant();
    const type = await createType(t);
    await createProp(t, type.id, { name: "plan", label: "Plan", propertyType: "Enumeration", options: [{ label: "Pro", value: "pro" }, { label: "Free", value: "free" }], objectProperty: "plan_name" });
    await createProp(t, type.id, { name: "seats", label: "Seats", propertyType: "Numeric", contactProperty: "seat_count" });
    await createProp(t, type.id, { name: "note", label: "Note", propertyType: "String" });
    const id = await createRecord(t, "contacts", { email: "stamp@example.com", firstname: "Sam" });
    await expectStored(t, { id: "1", eventTypeId: type.id, objectId: id, plan: "free", seats: 3, note: "not stamped" });
    const names = ["email", "firstname", "plan_name", "seat_count", "note"];
    expect(await readRecord(t, "contacts", id, names)).toMatchObject({ email: "stamp@example.com", firstname: "Sam", plan_name: "free", seat_count: "3", note: null });
    // A later event overwrites; a value not sent leaves the property as it was.
    await expectStored(t, { id: "2", eventTypeId: type.id, email: "stamp@example.com", plan: "pro" });
    expect(await readRecord(t, "contacts", id, names)).toMatchObject({ plan_name: "pro", seat_count: "3" });
    // A contact created by the event is stamped too.
    await expectStored(t, { id: "3", eventTypeId: type.id, email: "fresh@example.com", plan: "pro" });
    const [fresh] = await findContact(t, "fresh@example.com", ["plan_name"]);
    expect(fresh!.properties).toMatchObject({ email: "fresh@example.com", plan_name: "pro" });
  });

  it("stamps companies, and never a record of a pending event", async () => {
    const t = await tenant();
    const companyType = await createType(t, { objectType: "COMPANY" });
    await createProp(t, companyType.id, { name: "tier", label: "Tier", propertyType: "String", objectProperty: "tier" });
    const company = await createRecord(t, "companies", { name: "Acme" });
    await expectStored(t, { id: "c", eventTypeId: companyType.id, objectId: company, tier: "gold" });
    expect(await readRecord(t, "companies", company, ["name", "tier"])).toMatchObject({ name: "Acme", tier: "gold" });

    const contactType = await createType(t);
    await createProp(t, contactType.id, { name: "tier", label: "Tier", propertyType: "String", objectProperty: "tier" });
    const bystander = await createRecord(t, "contacts", { email: "by@example.com" });
    await expectStored(t, { id: "p", eventTypeId: contactType.id, utk: "nobody-yet", tier: "gold" });
    expect((await readRecord(t, "contacts", bystander, ["tier"])).tier).toBeNull();
  });

  it("a refused event stamps nothing", async () => {
    const t = await tenant();
    const type = await createType(t);
    await createProp(t, type.id, { name: "tier", label: "Tier", propertyType: "String", objectProperty: "tier" });
    await createProp(t, type.id, { name: "n", label: "N", propertyType: "Numeric" });
    const id = await createRecord(t, "contacts", { email: "r@example.com" });
    expectError(await putEvent(t, { id: "x", eventTypeId: type.id, objectId: id, tier: "gold", n: "nan" }), 400, "VALIDATION_ERROR");
    expect((await readRecord(t, "contacts", id, ["tier"])).tier).toBeNull();
  });
});

describe("POST /tracking/v1/identify", () => {
  it("ties a token to an existing contact, or creates the contact; re-identifying moves only pending events", async () => {
    const t = await tenant();
    const type = await createType(t);
    const existing = await createRecord(t, "contacts", { email: "known@example.com" });
    const res = await identify(t, "browser", "Known@Example.com", t.oauth);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ utk: "browser", vid: existing });
    await expectStored(t, { id: "1", eventTypeId: type.id, utk: "browser" });
    // The browser is now someone else's: their pending events follow, the first contact keeps its own.
    const moved = await identify(t, "browser", "other@example.com");
    expect(moved.json.vid).not.toBe(existing);
    await expectStored(t, { id: "2", eventTypeId: type.id, utk: "browser" });
    expect(await timelineIds(t, "contacts", existing)).toEqual(["1"]);
    expect(await timelineIds(t, "contacts", moved.json.vid)).toEqual(["2"]);
  });

  it.each([
    ["missing utk", { email: "a@example.com" }, "utk"],
    ["missing email", { utk: "x" }, "email"],
    ["invalid email", { utk: "x", email: "nope" }, "email"],
  ])("refuses %s with 400", async (_label, body, field) => {
    const t = await tenant();
    const err = expectError(await call("POST", "/tracking/v1/identify", { token: t.pat, body }), 400, "VALIDATION_ERROR");
    expect(err.errors[0].context.propertyName).toEqual([field]);
  });

  it("requires an account token with contact write access", async () => {
    const t = await tenant();
    const readOnly = await tenant({ scopes: ["crm.objects.contacts.read", "timeline"] });
    const body = { utk: "x", email: "a@example.com" };
    expectError(await call("POST", "/tracking/v1/identify", { body }), 401, "INVALID_AUTHENTICATION");
    expectError(await call("POST", "/tracking/v1/identify", { token: t.developerKey, body }), 403, "FORBIDDEN");
    expectError(await call("POST", "/tracking/v1/identify", { token: readOnly.pat, body }), 403, "MISSING_SCOPES");
  });

  it("is per account: tying a token in one account reveals nothing in another", async () => {
    const a = await tenant();
    const b = await tenant();
    const type = await createType(a);
    await expectStored(a, { id: "p", eventTypeId: type.id, utk: "shared-browser" });
    const inB = await identify(b, "shared-browser", "someone@example.com");
    expect(inB.status).toBe(200);
    expect((await getEvent(a, type.id, "p")).json.objectId).toBeNull();
    expect(await contactCount(a)).toBe(0);
  });
});
