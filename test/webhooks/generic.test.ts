/**
 * Activities and leads through the generic subscription types (`object.creation`, `object.deletion`,
 * `object.propertyChange` with an `objectTypeId`), as the real service offers them: the subscription API
 * (create, read, list, one per type and property, bad input), and their events delivered end to end with
 * `objectTypeId` in the payload. Classic subscriptions see none of them.
 */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant, type Tenant } from "../helpers/api";
import { newSchema } from "../schemas/helpers";
import { dev, expectNothing, hookUp, waitForEvents } from "./helpers";

async function subscribeGeneric(t: Tenant, eventType: string, objectTypeId: string, propertyName?: string) {
  const res = await dev(t, "POST", "/subscriptions", { eventType, objectTypeId, ...(propertyName ? { propertyName } : {}) });
  expect(res.status, res.text).toBe(201);
  return Number(res.json.id);
}

const at = "2026-11-01T10:00:00.000Z";

describe("generic subscriptions of activities and leads", () => {
  it("are created, read and listed with their objectTypeId; one per event type, object type and property", async () => {
    const t = await tenant();
    const res = await dev(t, "POST", "/subscriptions", { eventType: "object.propertyChange", objectTypeId: "0-27", propertyName: "hs_task_status", active: false });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toEqual({ id: expect.any(String), eventType: "object.propertyChange", objectTypeId: "0-27", propertyName: "hs_task_status", active: false, createdAt: expect.any(String), updatedAt: expect.any(String) });
    expect((await dev(t, "GET", `/subscriptions/${res.json.id}`)).json).toEqual(res.json);
    // The same event type for another object type, or another property, is another subscription.
    await subscribeGeneric(t, "object.propertyChange", "0-46", "hs_task_status");
    await subscribeGeneric(t, "object.propertyChange", "0-27", "hs_task_subject");
    const again = await dev(t, "POST", "/subscriptions", { eventType: "object.propertyChange", objectTypeId: "0-27", propertyName: "hs_task_status" });
    expectError(again, 409, "CONFLICT");
    expect(again.json.message).toBe(`A subscription to object.propertyChange of 0-27 (tasks) and property hs_task_status already exists (id ${res.json.id}): each event type and property can be subscribed to once.`);
    const list = (await dev(t, "GET", "/subscriptions")).json.results as { eventType: string; objectTypeId?: string }[];
    expect(list.map((s) => [s.eventType, s.objectTypeId])).toEqual([["object.propertyChange", "0-27"], ["object.propertyChange", "0-46"], ["object.propertyChange", "0-27"]]);
  });

  it.each([
    ["no objectTypeId", { eventType: "object.creation" }, "objectTypeId"],
    ["an unknown objectTypeId", { eventType: "object.creation", objectTypeId: "0-999" }, "objectTypeId"],
    ["a type with classic types (contacts)", { eventType: "object.creation", objectTypeId: "0-1" }, "objectTypeId"],
    ["objectTypeId on a classic type", { eventType: "contact.creation", objectTypeId: "0-46" }, "objectTypeId"],
    ["object.propertyChange without propertyName", { eventType: "object.propertyChange", objectTypeId: "0-46" }, "propertyName"],
    ["a generic type crm-edge does not emit", { eventType: "object.merge", objectTypeId: "0-46" }, "eventType"],
  ])("refuses %s with a 400 naming the field; nothing is created", async (_, body, field) => {
    const t = await tenant();
    const res = await dev(t, "POST", "/subscriptions", body);
    expectError(res, 400, "VALIDATION_ERROR");
    expect(JSON.stringify(res.json)).toContain(field);
    expect((await dev(t, "GET", "/subscriptions")).json.results).toEqual([]);
  });

  it("deliver a note's creation, a task's property change and a call's deletion with objectTypeId; classic subscriptions get none", async () => {
    const t = await tenant();
    const path = await hookUp(t);
    const subs = {
      noteCreated: await subscribeGeneric(t, "object.creation", "0-46"),
      taskStatus: await subscribeGeneric(t, "object.propertyChange", "0-27", "hs_task_status"),
      callDeleted: await subscribeGeneric(t, "object.deletion", "0-48"),
      leadCreated: await subscribeGeneric(t, "object.creation", "0-136"),
    };
    // Classic contact subscriptions: an activity is not a contact.
    for (const eventType of ["contact.creation", "contact.deletion"]) expect((await dev(t, "POST", "/subscriptions", { eventType })).status).toBe(201);

    const make = async (type: string, properties: Record<string, string>) => {
      const res = await call("POST", `/crm/v3/objects/${type}`, { token: t.oauth, body: { properties } });
      expect(res.status, res.text).toBe(201);
      return Number(res.json.id);
    };
    const note = await make("notes", { hs_timestamp: at, hs_note_body: "hello" });
    const task = await make("tasks", { hs_timestamp: at, hs_task_subject: "Follow up", hs_task_status: "NOT_STARTED" });
    const callId = await make("calls", { hs_timestamp: at, hs_call_title: "Intro" });
    const lead = await make("leads", { hs_lead_name: "Acme expansion" });
    await make("meetings", { hs_timestamp: at }); // no subscription of meetings
    expect((await call("PATCH", `/crm/v3/objects/tasks/${task}`, { token: t.oauth, body: { properties: { hs_task_status: "COMPLETED" } } })).status).toBe(200);
    expect((await call("DELETE", `/crm/v3/objects/calls/${callId}`, { token: t.oauth })).status).toBe(204);

    const events = await waitForEvents(path, 5);
    const common = { eventId: expect.any(Number), portalId: t.portalId, appId: t.appId, occurredAt: expect.any(Number), attemptNumber: 0, changeSource: "API" };
    expect(events).toEqual([
      { ...common, subscriptionId: subs.noteCreated, subscriptionType: "object.creation", objectId: note, objectTypeId: "0-46" },
      // Created with a status: a propertyChange at creation, as for classic types.
      { ...common, subscriptionId: subs.taskStatus, subscriptionType: "object.propertyChange", objectId: task, objectTypeId: "0-27", propertyName: "hs_task_status", propertyValue: "NOT_STARTED" },
      { ...common, subscriptionId: subs.leadCreated, subscriptionType: "object.creation", objectId: lead, objectTypeId: "0-136" },
      { ...common, subscriptionId: subs.taskStatus, subscriptionType: "object.propertyChange", objectId: task, objectTypeId: "0-27", propertyName: "hs_task_status", propertyValue: "COMPLETED" },
      { ...common, subscriptionId: subs.callDeleted, subscriptionType: "object.deletion", objectId: callId, objectTypeId: "0-48" },
    ]);
    // The payload's field order: objectTypeId after objectId, as deliveryBody writes it.
    expect(Object.keys(events[0]!)).toEqual(["eventId", "subscriptionId", "portalId", "appId", "occurredAt", "subscriptionType", "attemptNumber", "objectId", "objectTypeId", "changeSource"]);
  });

  it("a batch create of notes emits one creation per note; a paused generic subscription emits nothing", async () => {
    const t = await tenant();
    const path = await hookUp(t);
    const sub = await subscribeGeneric(t, "object.creation", "0-46");
    const res = await call("POST", "/crm/v3/objects/notes/batch/create", { token: t.oauth, body: { inputs: [1, 2, 3].map((i) => ({ properties: { hs_timestamp: at, hs_note_body: `n${i}` } })) } });
    expect(res.status, res.text).toBe(201);
    const ids = (res.json.results as { id: string }[]).map((r) => Number(r.id)).sort((a, b) => a - b);
    const events = await waitForEvents(path, 3);
    expect(events.map((e) => [e.subscriptionType, e.objectTypeId, e.objectId])).toEqual(ids.map((id) => ["object.creation", "0-46", id]));

    const quiet = await hookUp(t);
    expect((await dev(t, "PATCH", `/subscriptions/${sub}`, { active: false })).status).toBe(200);
    await call("POST", "/crm/v3/objects/notes", { token: t.oauth, body: { properties: { hs_timestamp: at } } });
    await expectNothing(quiet);
  });

  it("a custom object type's records: creation, property change and deletion with its 2-<n> objectTypeId; another type's records send none", async () => {
    const t = await tenant();
    const path = await hookUp(t);
    const [car, boat] = [await newSchema(t, "car"), await newSchema(t, "boat")];
    const subs = {
      created: await subscribeGeneric(t, "object.creation", car.objectTypeId),
      model: await subscribeGeneric(t, "object.propertyChange", car.objectTypeId, "model"),
      deleted: await subscribeGeneric(t, "object.deletion", car.objectTypeId),
    };
    const made = await call("POST", `/crm/v3/objects/${car.fullyQualifiedName}`, { token: t.pat, body: { properties: { model: "T", year: "1908" } } });
    expect(made.status, made.text).toBe(201);
    const id = Number(made.json.id);
    expect((await call("POST", `/crm/v3/objects/${boat.objectTypeId}`, { token: t.pat, body: { properties: { model: "Dinghy" } } })).status).toBe(201);
    expect((await call("PATCH", `/crm/v3/objects/${car.objectTypeId}/${id}`, { token: t.pat, body: { properties: { model: "A", year: "1927" } } })).status).toBe(200);
    expect((await call("DELETE", `/crm/v3/objects/${car.objectTypeId}/${id}`, { token: t.pat })).status).toBe(204);
    const events = await waitForEvents(path, 4);
    expect(events.map((e) => [e.subscriptionId, e.subscriptionType, e.objectTypeId, e.objectId, e.propertyValue])).toEqual([
      [subs.created, "object.creation", car.objectTypeId, id, undefined],
      [subs.model, "object.propertyChange", car.objectTypeId, id, "T"],
      [subs.model, "object.propertyChange", car.objectTypeId, id, "A"],
      [subs.deleted, "object.deletion", car.objectTypeId, id, undefined],
    ]);
  });

  it("a custom object type id that is malformed is a 400 naming objectTypeId", async () => {
    const t = await tenant();
    const res = await dev(t, "POST", "/subscriptions", { eventType: "object.creation", objectTypeId: "2-x" });
    expectError(res, 400, "VALIDATION_ERROR");
    expect(res.text).toContain("objectTypeId");
  });
});
