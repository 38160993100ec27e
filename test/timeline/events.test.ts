/** Timeline events: writes, reads, value validation, idempotency, batches and credentials (docs/reference/timeline.md). */
import { describe, expect, it } from "vitest";
import { admin, call, expectError, tenant, type Tenant } from "../helpers/api";
import { createProp, createRecord, createType, eventPath, expectStored, getEvent, putEvent } from "./helpers";
import { accountD1 } from "../helpers/shards";

/** A contact event type with one property of each type, and a contact to put events on. */
async function setup(t: Tenant) {
  const type = await createType(t, { headerTemplate: "{{title}}" });
  await createProp(t, type.id, { name: "title", label: "Title", propertyType: "String" });
  await createProp(t, type.id, { name: "seats", label: "Seats", propertyType: "Numeric" });
  await createProp(t, type.id, { name: "startsAt", label: "Starts", propertyType: "Date" });
  await createProp(t, type.id, { name: "size", label: "Size", propertyType: "Enumeration", options: [{ label: "Large", value: "large" }, { label: "Small", value: "small" }] });
  const contact = await createRecord(t, "contacts", { email: `${t.portalId}@events.example` });
  return { typeId: type.id, contact };
}

const countEvents = async (portalId: number) =>
  (await (await accountD1(portalId)).prepare("select count(*) as n from timeline_events where portal_id = ?").bind(portalId).first<{ n: number }>())?.n;

describe("PUT and POST event", () => {
  it.each(["PUT", "POST"])("%s stores the event and answers 204 with no body", async (method) => {
    const t = await tenant();
    const { typeId, contact } = await setup(t);
    const res = await putEvent(t, { id: "signup:1", eventTypeId: typeId, objectId: contact, title: "Intro" }, t.oauth, method);
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe("");
    expect(res.headers.get("content-type")).toBeNull();
    expect((await getEvent(t, typeId, "signup:1")).status).toBe(200);
  });

  it("GET returns the stored event: custom values as strings at the top level", async () => {
    const t = await tenant();
    const { typeId, contact } = await setup(t);
    const iframe = { linkLabel: "View", iframeLabel: "Details", iframeUri: "https://example.com/x", width: 600, height: 400 };
    await expectStored(t, {
      id: "e-1",
      eventTypeId: String(typeId),
      objectId: String(contact),
      utk: "tok-abc",
      timestamp: "1476279600000",
      title: "Intro",
      seats: 12,
      startsAt: 1476279600000,
      size: "large",
      extraData: { any: { nested: ["json", 1, null] } },
      timelineIFrame: iframe,
      notAProperty: "ignored",
    });
    const res = await getEvent(t, typeId, "e-1");
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({
      id: "e-1",
      eventTypeId: typeId,
      objectId: contact,
      utk: "tok-abc",
      timestamp: 1476279600000,
      title: "Intro",
      seats: "12",
      startsAt: "1476279600000",
      size: "large",
      extraData: { any: { nested: ["json", 1, null] } },
      timelineIFrame: iframe,
    });
  });

  it("defaults the timestamp to the time the request is received", async () => {
    const t = await tenant();
    const { typeId, contact } = await setup(t);
    const before = Date.now();
    await expectStored(t, { id: "now", eventTypeId: typeId, objectId: contact });
    const after = Date.now();
    const { timestamp } = (await getEvent(t, typeId, "now")).json;
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(timestamp).toBeLessThanOrEqual(after);
  });

  it("is idempotent on the event id: the same id replaces the event and keeps its time when none is sent", async () => {
    const t = await tenant();
    const { typeId, contact } = await setup(t);
    await expectStored(t, { id: "same", eventTypeId: typeId, objectId: contact, title: "first", seats: "1", timestamp: 1000 });
    await expectStored(t, { id: "same", eventTypeId: typeId, objectId: contact, title: "second" });
    await expectStored(t, { id: "same", eventTypeId: typeId, objectId: contact, title: "third" });
    expect(await countEvents(t.portalId)).toBe(1);
    const ev = (await getEvent(t, typeId, "same")).json;
    expect(ev).toMatchObject({ title: "third", timestamp: 1000 });
    expect(ev).not.toHaveProperty("seats");
    await expectStored(t, { id: "same", eventTypeId: typeId, objectId: contact, timestamp: 2000 });
    expect((await getEvent(t, typeId, "same")).json.timestamp).toBe(2000);
  });

  it("keeps equal event ids of different event types apart", async () => {
    const t = await tenant();
    const { typeId, contact } = await setup(t);
    const other = await createType(t, { name: "Other" });
    await expectStored(t, { id: "x", eventTypeId: typeId, objectId: contact });
    await expectStored(t, { id: "x", eventTypeId: other.id, objectId: contact });
    expect(await countEvents(t.portalId)).toBe(2);
  });

  it.each([
    ["missing id", { id: undefined }, "id"],
    ["empty id", { id: "" }, "id"],
    ["missing eventTypeId", { eventTypeId: undefined }, "eventTypeId"],
    ["timestamp not epoch ms", { timestamp: "2024-01-01" }, "timestamp"],
    ["invalid email", { objectId: undefined, email: "not-an-email" }, "email"],
    ["objectId not numeric", { objectId: "abc" }, "objectId"],
    ["String given a number", { title: 5 }, "title"],
    ["Numeric given text", { seats: "twelve" }, "seats"],
    ["Numeric given a boolean", { seats: true }, "seats"],
    ["Date given an ISO date", { startsAt: "2024-01-01T00:00:00Z" }, "startsAt"],
    ["Date given a fraction", { startsAt: 1.5 }, "startsAt"],
    ["Enumeration outside its options", { size: "huge" }, "size"],
    ["iframe with a javascript: URI", { timelineIFrame: { linkLabel: "a", iframeLabel: "b", iframeUri: "javascript:alert(1)", width: 1, height: 1 } }, "timelineIFrame.iframeUri"],
    ["iframe width as text", { timelineIFrame: { linkLabel: "a", iframeLabel: "b", iframeUri: "https://x.example", width: "600", height: 1 } }, "timelineIFrame.width"],
    ["iframe height fractional", { timelineIFrame: { linkLabel: "a", iframeLabel: "b", iframeUri: "https://x.example", width: 1, height: 1.5 } }, "timelineIFrame.height"],
    ["iframe without labels", { timelineIFrame: { iframeUri: "https://x.example", width: 1, height: 1 } }, "timelineIFrame.linkLabel"],
    ["no record at all", { objectId: undefined }, "objectId"],
  ])("refuses %s with 400 and stores nothing", async (_label, patch, field) => {
    const t = await tenant();
    const { typeId, contact } = await setup(t);
    const body = JSON.parse(JSON.stringify({ id: "bad", eventTypeId: typeId, objectId: contact, ...patch }));
    const err = expectError(await putEvent(t, body), 400, "VALIDATION_ERROR");
    expect(err.message).toContain(field);
    expect(err.errors[0].context.propertyName).toEqual([field]);
    expect(await countEvents(t.portalId)).toBe(0);
  });

  it("accepts numeric strings for Numeric and Date, and null for an absent value", async () => {
    const t = await tenant();
    const { typeId, contact } = await setup(t);
    await expectStored(t, { id: "n", eventTypeId: typeId, objectId: contact, seats: " -1.5e3 ", startsAt: "-5", title: null });
    expect((await getEvent(t, typeId, "n")).json).toMatchObject({ seats: "-1.5e3", startsAt: "-5" });
    expect((await getEvent(t, typeId, "n")).json).not.toHaveProperty("title");
  });

  it("answers 404 for an unknown event type or one of another app", async () => {
    const t = await tenant();
    const other = await tenant();
    const foreign = await createType(other);
    const { contact } = await setup(t);
    expectError(await putEvent(t, { id: "a", eventTypeId: 99999999, objectId: contact }), 404, "OBJECT_NOT_FOUND");
    expectError(await putEvent(t, { id: "a", eventTypeId: foreign.id, objectId: contact }), 404, "OBJECT_NOT_FOUND");
    expectError(await getEvent(t, foreign.id, "a"), 404, "OBJECT_NOT_FOUND");
    expect(await countEvents(t.portalId)).toBe(0);
  });

  it("reads back an event whose id holds any characters (percent-encoded in the path)", async () => {
    const t = await tenant();
    const { typeId, contact } = await setup(t);
    const id = "petspot:signup/1 é?#%";
    await expectStored(t, { id, eventTypeId: typeId, objectId: contact });
    expect((await getEvent(t, typeId, id)).json.id).toBe(id);
    expectError(await call("GET", `${eventPath(t.appId)}/${typeId}/%E0%A4%A`, { token: t.oauth }), 400, "VALIDATION_ERROR");
  });

  it("GET of an unknown event id is a 404", async () => {
    const t = await tenant();
    const { typeId } = await setup(t);
    expectError(await getEvent(t, typeId, "nope"), 404, "OBJECT_NOT_FOUND");
  });
});

describe("PUT event/batch", () => {
  it("stores every event and answers 204 (the documentation's example shape)", async () => {
    const t = await tenant();
    const { typeId, contact } = await setup(t);
    await createProp(t, typeId, { name: "timeprop", label: "Time", propertyType: "Date" });
    const res = await call("PUT", `${eventPath(t.appId)}/batch`, {
      token: t.oauth,
      body: {
        eventWrappers: [
          { id: "789", objectId: contact, eventTypeId: String(typeId), timestamp: "1491062400000" },
          { id: "790", email: "test@batch.example", eventTypeId: String(typeId), timeprop: "1491105600000", extraData: { name: "JohnDoe", weather: "Cloudy" } },
        ],
      },
    });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe("");
    expect((await getEvent(t, typeId, "789")).json).toMatchObject({ objectId: contact, timestamp: 1491062400000 });
    expect((await getEvent(t, typeId, "790")).json).toMatchObject({ email: "test@batch.example", timeprop: "1491105600000", extraData: { weather: "Cloudy" } });
  });

  it("accepts POST and exactly 100 events", async () => {
    const t = await tenant();
    const { typeId, contact } = await setup(t);
    const eventWrappers = Array.from({ length: 100 }, (_, i) => ({ id: `b${i}`, eventTypeId: typeId, objectId: contact, seats: i }));
    const res = await call("POST", `${eventPath(t.appId)}/batch`, { token: t.oauth, body: { eventWrappers } });
    expect(res.status, res.text).toBe(204);
    expect(await countEvents(t.portalId)).toBe(100);
  });

  it("handles the heaviest batch: 100 events that each create a contact, tie a token and stamp a property", async () => {
    const t = await tenant();
    const type = await createType(t);
    await createProp(t, type.id, { name: "plan", label: "Plan", propertyType: "String", objectProperty: "plan_name" });
    const eventWrappers = Array.from({ length: 100 }, (_, i) => ({ id: `h${i}`, eventTypeId: type.id, email: `heavy${i}@example.com`, utk: `utk-${i}`, plan: `p${i}` }));
    const res = await call("PUT", `${eventPath(t.appId)}/batch`, { token: t.oauth, body: { eventWrappers } });
    expect(res.status, res.text).toBe(204);
    const rows = await (await accountD1(t.portalId)).prepare(
      "select count(*) as n, sum(json_extract(properties, '$.plan_name') = 'p' || substr(email, 6, instr(email, '@') - 6)) as stamped from crm_objects where portal_id = ? and object_type = 'contacts'",
    )
      .bind(t.portalId)
      .first<{ n: number; stamped: number }>();
    expect(rows).toEqual({ n: 100, stamped: 100 });
    const ties = await (await accountD1(t.portalId)).prepare("select count(*) as n from timeline_utks where portal_id = ?").bind(t.portalId).first<{ n: number }>();
    expect(ties?.n).toBe(100);
    expect((await getEvent(t, type.id, "h42")).json.objectId).toEqual(expect.any(Number));
  });

  it.each([
    ["101 events", (typeId: number, contact: number) => Array.from({ length: 101 }, (_, i) => ({ id: `b${i}`, eventTypeId: typeId, objectId: contact })), 400, "eventWrappers"],
    ["no events", () => [], 400, "eventWrappers"],
    ["a bad value in the last event", (typeId: number, contact: number) => [{ id: "ok", eventTypeId: typeId, objectId: contact }, { id: "bad", eventTypeId: typeId, objectId: contact, seats: "x" }], 400, "eventWrappers.1.seats"],
    ["a malformed last event", (typeId: number, contact: number) => [{ id: "ok", eventTypeId: typeId, objectId: contact }, { eventTypeId: typeId }], 400, "eventWrappers.1.id"],
    ["an unknown contact in the last event", (typeId: number, contact: number) => [{ id: "ok", eventTypeId: typeId, objectId: contact }, { id: "x", eventTypeId: typeId, objectId: 99999999 }], 404, "eventWrappers.1"],
    ["a new email, then an unknown event type", (typeId: number) => [{ id: "ok", eventTypeId: typeId, email: "new@batch.example" }, { id: "x", eventTypeId: 99999999, email: "a@b.co" }], 404, "eventWrappers.1"],
  ])("refuses %s and writes nothing", async (_label, events, status, where) => {
    const t = await tenant();
    const { typeId, contact } = await setup(t);
    const res = await call("PUT", `${eventPath(t.appId)}/batch`, { token: t.oauth, body: { eventWrappers: events(typeId, contact) } });
    const err = expectError(res, status, status === 400 ? "VALIDATION_ERROR" : "OBJECT_NOT_FOUND");
    expect(err.message).toContain(where);
    expect(await countEvents(t.portalId)).toBe(0);
    const contacts = await call("GET", "/crm/v3/objects/contacts?limit=100", { token: t.pat });
    expect(contacts.json.results).toHaveLength(1); // no contact created by the refused batch
  });
});

describe("event credentials: only an OAuth token of the account, with the timeline scope", () => {
  it("requires a credential", async () => {
    const t = await tenant();
    const { typeId, contact } = await setup(t);
    expectError(await call("PUT", eventPath(t.appId), { body: { id: "a", eventTypeId: typeId, objectId: contact } }), 401, "INVALID_AUTHENTICATION");
  });

  it("refuses the developer key (hapikey or Bearer) and private-app tokens with 403", async () => {
    const t = await tenant();
    const { typeId, contact } = await setup(t);
    const body = { id: "a", eventTypeId: typeId, objectId: contact };
    expectError(await call("PUT", `${eventPath(t.appId)}?hapikey=${t.developerKey}`, { body }), 403, "FORBIDDEN");
    expectError(await putEvent(t, body, t.developerKey), 403, "FORBIDDEN");
    expectError(await putEvent(t, body, t.pat), 403, "FORBIDDEN");
    expectError(await call("PUT", `${eventPath(t.appId)}/batch`, { token: t.pat, body: { eventWrappers: [body] } }), 403, "FORBIDDEN");
    expectError(await getEvent(t, typeId, "a", t.pat), 403, "FORBIDDEN");
    expect(await countEvents(t.portalId)).toBe(0);
  });

  it("refuses an OAuth token without the timeline scope with 403 MISSING_SCOPES", async () => {
    const t = await tenant({ scopes: ["crm.objects.contacts.read", "crm.objects.contacts.write"] });
    const type = await createType(t);
    const res = await putEvent(t, { id: "a", eventTypeId: type.id, email: "a@scope.example" });
    const err = expectError(res, 403, "MISSING_SCOPES");
    expect(err.errors[0].context.requiredScopes).toEqual(["timeline"]);
  });

  it("another app's OAuth token gets 404 on this app's path", async () => {
    const a = await tenant();
    const b = await tenant();
    const { typeId, contact } = await setup(a);
    await expectStored(a, { id: "mine", eventTypeId: typeId, objectId: contact });
    expectError(await call("PUT", eventPath(a.appId), { token: b.oauth, body: { id: "x", eventTypeId: typeId, email: "x@y.co" } }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("GET", `${eventPath(a.appId)}/${typeId}/mine`, { token: b.oauth }), 404, "OBJECT_NOT_FOUND");
  });
});

describe("account isolation", () => {
  it("the same app installed in another account sees none of this account's records or events", async () => {
    const a = await tenant();
    const { typeId, contact } = await setup(a);
    await expectStored(a, { id: "shared-id", eventTypeId: typeId, objectId: contact, title: "A's" });
    const acct = await admin("POST", "/admin/v1/accounts", { name: "B" });
    const install = await admin("POST", `/admin/v1/accounts/${acct.portalId}/installs`, { appId: a.appId });
    const asB = install.access_token as string;
    // A's contact id means nothing in B's account.
    expectError(await putEvent(a, { id: "x", eventTypeId: typeId, objectId: contact }, asB), 404, "OBJECT_NOT_FOUND");
    expectError(await getEvent(a, typeId, "shared-id", asB), 404, "OBJECT_NOT_FOUND");
    // B writing the same event id creates B's own event and leaves A's untouched.
    await putEvent(a, { id: "shared-id", eventTypeId: typeId, email: "b@b.example", title: "B's" }, asB);
    expect((await getEvent(a, typeId, "shared-id")).json).toMatchObject({ title: "A's", objectId: contact });
    expect((await getEvent(a, typeId, "shared-id", asB)).json).toMatchObject({ title: "B's" });
  });
});
