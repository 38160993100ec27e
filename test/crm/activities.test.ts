/**
 * Activities (notes, tasks, calls, meetings, emails, communications, postal mail) and leads are CRM objects
 * with the generic faces: create with associations by the real service's type ids, read, list, search,
 * v4 association pages, and values checked on write (fixed enumeration options, `hs_timestamp` required).
 */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant } from "../helpers/api";
import { make } from "./helpers";

const assoc = (id: string, associationTypeId: number) => ({ to: { id }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId }] });
const at = "2026-11-01T10:00:00.000Z";

describe("activities as CRM objects", () => {
  it("a note made on a contact (202) reads back with its body and shows from the contact (v4 page, 201 back)", async () => {
    const t = await tenant();
    const ada = await make(t, "contacts", { email: "ada@example.com" });
    const res = await call("POST", "/crm/v3/objects/notes", { token: t.pat, body: { properties: { hs_timestamp: at, hs_note_body: "Called about the renewal" }, associations: [assoc(ada, 202)] } });
    expect(res.status, res.text).toBe(201);
    const note = res.json.id as string;
    const read = await call("GET", `/crm/v3/objects/notes/${note}?properties=hs_note_body,hs_timestamp&associations=contacts`, { token: t.pat });
    expect(read.json.properties).toMatchObject({ hs_note_body: "Called about the renewal", hs_timestamp: at });
    expect(read.json.associations.contacts.results).toEqual([{ id: ada, type: "notes_to_contacts" }]);
    const page = await call("GET", `/crm/v4/objects/contacts/${ada}/associations/notes`, { token: t.pat });
    expect(page.json.results).toEqual([{ toObjectId: Number(note), associationTypes: [{ category: "HUBSPOT_DEFINED", typeId: 201, label: null }] }]);
    const byTypeId = await call("GET", `/crm/v4/objects/0-46/${note}/associations/0-1`, { token: t.pat });
    expect(byTypeId.json.results[0].associationTypes[0].typeId).toBe(202);
  });

  it.each([
    ["notes", "contacts", 202], ["calls", "contacts", 194], ["tasks", "contacts", 204], ["meetings", "contacts", 200], ["emails", "contacts", 198],
    ["notes", "deals", 214], ["tasks", "companies", 192], ["calls", "tickets", 220], ["communications", "contacts", 82], ["postal_mail", "contacts", 454],
  ])("%s → %s with type id %i", async (from, to, typeId) => {
    const t = await tenant();
    const target = await make(t, to, to === "contacts" ? { email: "x@example.com" } : {});
    const res = await call("POST", `/crm/v3/objects/${from}`, { token: t.pat, body: { properties: { hs_timestamp: at }, associations: [assoc(target, typeId)] } });
    expect(res.status, res.text).toBe(201);
    const back = await call("GET", `/crm/v3/objects/${to}/${target}?associations=${from}`, { token: t.pat });
    expect(back.json.associations[from].results.map((r: { id: string }) => r.id)).toEqual([res.json.id]);
  });

  it("an unknown hs_task_status is a 400 naming the field and its options; nothing is created", async () => {
    const t = await tenant();
    const res = await call("POST", "/crm/v3/objects/tasks", { token: t.pat, body: { properties: { hs_timestamp: at, hs_task_subject: "Follow up", hs_task_status: "SOMEDAY" } } });
    expectError(res, 400, "VALIDATION_ERROR");
    expect(res.json.errors[0].context.propertyName).toEqual(["properties.hs_task_status"]);
    expect(res.json.errors[0].message).toContain("NOT_STARTED");
    const list = await call("GET", "/crm/v3/objects/tasks", { token: t.pat });
    expect(list.json.results).toEqual([]);
  });

  it("batch create names each bad input; an update may clear an enumeration", async () => {
    const t = await tenant();
    const bad = await call("POST", "/crm/v3/objects/calls/batch/create", {
      token: t.pat,
      body: { inputs: [{ properties: { hs_timestamp: at, hs_call_direction: "OUTBOUND" } }, { properties: { hs_call_direction: "SIDEWAYS" } }] },
    });
    expectError(bad, 400, "VALIDATION_ERROR");
    expect(bad.json.errors.flatMap((e: { context: { propertyName: string[] } }) => e.context.propertyName).sort()).toEqual(["inputs.1.properties.hs_call_direction", "inputs.1.properties.hs_timestamp"]);
    const call1 = await make(t, "calls", { hs_timestamp: at, hs_call_direction: "INBOUND" });
    const cleared = await call("PATCH", `/crm/v3/objects/calls/${call1}`, { token: t.pat, body: { properties: { hs_call_direction: "" } } });
    expect(cleared.status, cleared.text).toBe(200);
    const wrong = await call("PATCH", `/crm/v3/objects/calls/${call1}`, { token: t.pat, body: { properties: { hs_call_status: "DONE" } } });
    expectError(wrong, 400, "VALIDATION_ERROR");
  });

  it("hs_timestamp is required to create an activity, not to update one", async () => {
    const t = await tenant();
    const res = await call("POST", "/crm/v3/objects/meetings", { token: t.pat, body: { properties: { hs_meeting_title: "Kick-off" } } });
    expectError(res, 400, "VALIDATION_ERROR");
    expect(res.json.errors[0].context.propertyName).toEqual(["properties.hs_timestamp"]);
    const id = await make(t, "meetings", { hs_timestamp: at, hs_meeting_title: "Kick-off" });
    const upd = await call("PATCH", `/crm/v3/objects/meetings/${id}`, { token: t.pat, body: { properties: { hs_meeting_outcome: "COMPLETED" } } });
    expect(upd.status, upd.text).toBe(200);
  });

  it("the properties API lists an activity's built-in properties with their options", async () => {
    const t = await tenant();
    const res = await call("GET", "/crm/v3/properties/tasks/hs_task_priority", { token: t.pat });
    expect(res.json).toMatchObject({ name: "hs_task_priority", type: "enumeration", groupName: "task", hubspotDefined: true });
    expect(res.json.options.map((o: { value: string }) => o.value)).toEqual(["NONE", "LOW", "MEDIUM", "HIGH"]);
  });

  it("search finds notes by their body; a read without properties answers the activity defaults", async () => {
    const t = await tenant();
    const id = await make(t, "notes", { hs_timestamp: at, hs_note_body: "Renewal due in March" });
    await make(t, "notes", { hs_timestamp: at, hs_note_body: "Other" });
    const found = await call("POST", "/crm/v3/objects/notes/search", { token: t.pat, body: { query: "renewal" } });
    expect(found.json.results.map((r: { id: string }) => r.id)).toEqual([id]);
    const read = await call("GET", `/crm/v3/objects/notes/${id}`, { token: t.pat });
    expect(Object.keys(read.json.properties).sort()).toEqual(["createdate", "hs_createdate", "hs_lastmodifieddate", "hs_object_id", "lastmodifieddate"]);
    expect(read.json.properties.hs_createdate).toBe(read.json.createdAt);
  });

  it("leads need the leads scopes; activities the contacts scopes", async () => {
    const t = await tenant({ scopes: ["crm.objects.contacts.read", "crm.objects.contacts.write"] });
    expect((await call("POST", "/crm/v3/objects/notes", { token: t.pat, body: { properties: { hs_timestamp: at } } })).status).toBe(201);
    expectError(await call("GET", "/crm/v3/objects/leads", { token: t.pat }), 403, "MISSING_SCOPES");
  });

  it("another account's contact cannot be the target of a note", async () => {
    const [a, b] = [await tenant(), await tenant()];
    const theirs = await make(b, "contacts", { email: "b@example.com" });
    const res = await call("POST", "/crm/v3/objects/notes", { token: a.pat, body: { properties: { hs_timestamp: at }, associations: [assoc(theirs, 202)] } });
    expectError(res, 400, "VALIDATION_ERROR");
    expect((await call("GET", `/crm/v3/objects/contacts/${theirs}?associations=notes`, { token: b.pat })).json.associations ?? {}).toEqual({});
  });
});
