/**
 * Working on a record in the web app (docs/reference/web.md, "Working on a record"): the association and
 * activity forms of the record page. Each write answers 303 back to the page and is visible through the v3
 * and v4 APIs; a form without the session's CSRF token, another account's ids and bad values write nothing;
 * the API's own 400s are shown next to the field they name.
 */
import { describe, expect, it } from "vitest";
import { call, tenant, type Tenant } from "../helpers/api";
import { page, signIn, type Browser } from "./helpers";

async function create(t: Tenant, type: string, properties: Record<string, string>) {
  const res = await call("POST", `/crm/v3/objects/${type}`, { token: t.pat, body: { properties } });
  expect(res.status, res.text).toBe(201);
  return Number(res.json.id);
}

/** Posts a form as a browser does (urlencoded), with the session's CSRF token unless told otherwise. */
function post(b: Browser, path: string, fields: Record<string, string>, csrf: string | null = b.csrf) {
  const form = new URLSearchParams(fields);
  if (csrf !== null) form.set("csrf", csrf);
  return call("POST", path, { raw: form.toString(), headers: { cookie: b.cookie, "content-type": "application/x-www-form-urlencoded" } });
}

/** The ids of the record's associated records of a type, through the v4 API, with their labels. */
async function linked(t: Tenant, from: string, id: number, to: string) {
  const res = await call("GET", `/crm/v4/objects/${from}/${id}/associations/${to}`, { token: t.pat });
  expect(res.status, res.text).toBe(200);
  return (res.json.results as { toObjectId: number; associationTypes: { label: string | null }[] }[]).map((r) => ({
    id: r.toObjectId,
    labels: r.associationTypes.flatMap((x) => (x.label ? [x.label] : [])),
  }));
}

const readObject = async (t: Tenant, type: string, id: number, props: string) => (await call("GET", `/crm/v3/objects/${type}/${id}?properties=${props}`, { token: t.pat })).json;

describe("activities from the record page", () => {
  it("logs a note, a call and a meeting and creates a task, each associated with the record and shown on its page", async () => {
    const t = await tenant();
    const b = await signIn(t);
    const ada = await create(t, "contacts", { firstname: "Ada", lastname: "Lovelace" });
    const path = `/app/contacts/${ada}`;
    const before = await page(b, path);
    // The forms carry the session's token; every field is labelled.
    expect(before.text).toContain(`<form class="work-form" method="post" action="${path}/activities"><input type="hidden" name="csrf" value="${b.csrf}">`);
    expect(before.text).toContain(`<label for="notes-hs-note-body">Note</label><textarea id="notes-hs-note-body" name="hs_note_body" required`);

    const note = await post(b, `${path}/activities`, { kind: "notes", hs_note_body: "Asked about <pricing>\nand terms" });
    expect(note.status, note.text).toBe(303);
    expect(note.headers.get("location")).toBe(`${path}#activities-h`);
    const owner = (await call("GET", `/crm/v3/owners/${t.userId}?idProperty=userId`, { token: t.pat })).json.id as string;
    const task = await post(b, `${path}/activities`, { kind: "tasks", hs_task_subject: "Send the quote", hs_timestamp: "2026-12-01T09:30", tz: "Europe/Berlin", hubspot_owner_id: owner, hs_task_priority: "HIGH" });
    expect(task.status, task.text).toBe(303);
    const callRes = await post(b, `${path}/activities`, { kind: "calls", hs_call_title: "Discovery", hs_call_direction: "INBOUND", duration: "25", hs_call_body: "Went well" });
    expect(callRes.status, callRes.text).toBe(303);
    const meeting = await post(b, `${path}/activities`, { kind: "meetings", hs_meeting_title: "Kick-off", hs_meeting_start_time: "2026-12-02T10:00", hs_meeting_end_time: "2026-12-02T11:15" });
    expect(meeting.status, meeting.text).toBe(303);

    // Through the v4 API: each is associated with the contact.
    const [notes, tasks, calls, meetings] = await Promise.all(["notes", "tasks", "calls", "meetings"].map((to) => linked(t, "contacts", ada, to)));
    expect([notes, tasks, calls, meetings].map((l) => l?.length)).toEqual([1, 1, 1, 1]);
    // Through the v3 API: the values the forms set.
    const n = await readObject(t, "notes", notes![0]!.id, "hs_note_body,hs_timestamp");
    expect(n.properties.hs_note_body).toBe("<p>Asked about &lt;pricing&gt;<br>and terms</p>");
    expect(Date.parse(n.properties.hs_timestamp)).toBeGreaterThan(Date.now() - 60_000);
    const k = await readObject(t, "tasks", tasks![0]!.id, "hs_task_subject,hs_timestamp,hs_task_status,hubspot_owner_id,hs_task_priority");
    // 09:30 in Berlin (UTC+1 in December) is 08:30 UTC.
    expect(k.properties).toMatchObject({ hs_task_subject: "Send the quote", hs_timestamp: "2026-12-01T08:30:00.000Z", hs_task_status: "NOT_STARTED", hubspot_owner_id: owner, hs_task_priority: "HIGH" });
    const c = await readObject(t, "calls", calls![0]!.id, "hs_call_title,hs_call_direction,hs_call_duration,hs_call_body");
    expect(c.properties).toMatchObject({ hs_call_title: "Discovery", hs_call_direction: "INBOUND", hs_call_duration: "1500000", hs_call_body: "<p>Went well</p>" });
    const m = await readObject(t, "meetings", meetings![0]!.id, "hs_meeting_title,hs_meeting_start_time,hs_meeting_end_time,hs_timestamp");
    // Without the browser's zone (no script) a time is read as UTC.
    expect(m.properties).toMatchObject({ hs_meeting_title: "Kick-off", hs_meeting_start_time: "2026-12-02T10:00:00.000Z", hs_meeting_end_time: "2026-12-02T11:15:00.000Z", hs_timestamp: "2026-12-02T10:00:00.000Z" });

    // The page shows them at once, each with its buttons.
    const after = (await page(b, path)).text;
    expect(after).toContain("<p>Asked about &lt;pricing&gt;<br>and terms</p>");
    expect(after).toContain(`Send the quote <span class="badge badge-default">Not started</span>`);
    expect(after).toContain(`action="${path}/activities/${tasks![0]!.id}/complete"`);
    expect(after).toContain(`aria-label="Mark complete: task Send the quote"`);
    expect(after).toContain("Inbound call · 25 min");
  });

  it("completes a task and deletes an activity; another record's activity is the 404 page", async () => {
    const t = await tenant();
    const b = await signIn(t);
    const ada = await create(t, "contacts", { firstname: "Ada" });
    const bob = await create(t, "contacts", { firstname: "Bob" });
    expect((await post(b, `/app/contacts/${ada}/activities`, { kind: "tasks", hs_task_subject: "Call back", hs_timestamp: "2026-12-01T09:30" })).status).toBe(303);
    expect((await post(b, `/app/contacts/${ada}/activities`, { kind: "notes", hs_note_body: "old" })).status).toBe(303);
    const [task] = await linked(t, "contacts", ada, "tasks");
    const [note] = await linked(t, "contacts", ada, "notes");

    // Bob's page cannot complete Ada's task.
    expect((await post(b, `/app/contacts/${bob}/activities/${task!.id}/complete`, {})).status).toBe(404);
    // A note is not a task.
    expect((await post(b, `/app/contacts/${ada}/activities/${note!.id}/complete`, {})).status).toBe(400);
    const done = await post(b, `/app/contacts/${ada}/activities/${task!.id}/complete`, {});
    expect(done.status, done.text).toBe(303);
    const k = await readObject(t, "tasks", task!.id, "hs_task_status,hs_task_completion_date");
    expect(k.properties.hs_task_status).toBe("COMPLETED");
    expect(k.properties.hs_task_completion_date).toMatch(/^\d{4}-\d\d-\d\dT/);
    const html = (await page(b, `/app/contacts/${ada}`)).text;
    expect(html).toContain(`Call back <span class="badge badge-success">Completed</span>`);
    expect(html).not.toContain(`/activities/${task!.id}/complete"`);

    expect((await post(b, `/app/contacts/${ada}/activities/${note!.id}/delete`, {})).status).toBe(303);
    expect((await call("GET", `/crm/v3/objects/notes/${note!.id}`, { token: t.pat })).status).toBe(404);
    expect(await linked(t, "contacts", ada, "notes")).toEqual([]);
  });

  it("a form without the session's CSRF token is refused with 403 and writes nothing", async () => {
    const t = await tenant();
    const b = await signIn(t);
    const ada = await create(t, "contacts", { firstname: "Ada" });
    const co = await create(t, "companies", { name: "Acme" });
    for (const csrf of [null, "wrong", ""]) {
      const res = await post(b, `/app/contacts/${ada}/activities`, { kind: "notes", hs_note_body: "x" }, csrf);
      expect(res.status).toBe(403);
      expect(res.text).toContain("This form was refused");
      expect((await post(b, `/app/contacts/${ada}/associations`, { toType: "companies", toId: String(co) }, csrf)).status).toBe(403);
    }
    expect(await linked(t, "contacts", ada, "notes")).toEqual([]);
    expect(await linked(t, "contacts", ada, "companies")).toEqual([]);
    // Signed out, a form goes to the sign-in page.
    const out = await call("POST", `/app/contacts/${ada}/activities`, { raw: "kind=notes", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(out.status).toBe(302);
    expect(out.headers.get("location")).toMatch(/^\/login\?next=/);
  });

  it("bad values are shown next to their fields, the API's own 400s included, and nothing is written", async () => {
    const t = await tenant();
    const b = await signIn(t);
    const ada = await create(t, "contacts", { firstname: "Ada" });
    const path = `/app/contacts/${ada}/activities`;

    const empty = await post(b, path, { kind: "notes", hs_note_body: "  " });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain(`aria-describedby="notes-hs-note-body-error" aria-invalid="true"`);
    expect(empty.text).toContain(`<p class="field-error" id="notes-hs-note-body-error">The note is required.</p>`);

    // The owner and the priority are checked by the API's own checks: their messages sit at their fields.
    const task = await post(b, path, { kind: "tasks", hs_task_subject: "Kept <value>", hs_timestamp: "2026-12-01T09:30", hubspot_owner_id: "999999", hs_task_priority: "URGENT" });
    expect(task.status).toBe(400);
    expect(task.text).toMatch(/<p class="field-error" id="tasks-hubspot-owner-id-error">&quot;999999&quot; is not an owner of this account/);
    expect(task.text).toMatch(/<p class="field-error" id="tasks-hs-task-priority-error">&quot;URGENT&quot; was not one of the allowed options for hs_task_priority/);
    expect(task.text).toContain(`value="Kept &lt;value&gt;"`);

    const meeting = await post(b, path, { kind: "meetings", hs_meeting_title: "M", hs_meeting_start_time: "2026-12-02T10:00", hs_meeting_end_time: "2026-12-02T09:00" });
    expect(meeting.status).toBe(400);
    expect(meeting.text).toContain(`id="meetings-hs-meeting-end-time-error">The end is before the start.`);
    const badTime = await post(b, path, { kind: "tasks", hs_task_subject: "T", hs_timestamp: "2026-02-30T10:00" });
    expect(badTime.text).toContain(`id="tasks-hs-timestamp-error">The due date must be a date and time`);
    const callRes = await post(b, path, { kind: "calls", hs_call_title: "C", hs_call_direction: "SIDEWAYS", duration: "-3" });
    expect(callRes.status).toBe(400);
    expect(callRes.text).toContain(`id="calls-duration-error">The duration is a whole number of minutes`);
    expect((await post(b, path, { kind: "emails" })).status).toBe(400);

    for (const type of ["notes", "tasks", "meetings", "calls"]) expect(await linked(t, "contacts", ada, type)).toEqual([]);
  });

  it("another account's record is the 404 page and nothing is written", async () => {
    const [a, other] = await Promise.all([tenant(), tenant()]);
    const b = await signIn(other);
    const theirs = await create(a, "contacts", { firstname: "Ada" });
    const res = await post(b, `/app/contacts/${theirs}/activities`, { kind: "notes", hs_note_body: "sneaky" });
    expect(res.status).toBe(404);
    expect(res.text).not.toContain("Ada");
    expect(await linked(a, "contacts", theirs, "notes")).toEqual([]);
    expect((await post(b, `/app/products/1/activities`, { kind: "notes", hs_note_body: "x" })).status).toBe(404);
  });
});

describe("associations from the record page", () => {
  it("finds a company by name, associates it with a label and without, shows the labels, and removes it", async () => {
    const t = await tenant();
    const b = await signIn(t);
    const ada = await create(t, "contacts", { firstname: "Ada" });
    const acme = await create(t, "companies", { name: "Acme Corp" });
    const globex = await create(t, "companies", { name: "Globex" });
    const label = await call("POST", "/crm/v4/associations/contacts/companies/labels", { token: t.pat, body: { name: "billing", label: "Billing contact" } });
    expect(label.status, label.text).toBe(200);
    const billing = label.json.results[0].typeId as number;
    const path = `/app/contacts/${ada}`;

    expect((await page(b, path)).text).toContain(`<form class="assoc-add" method="get" action="${path}/associate"`);
    const found = await page(b, `${path}/associate?type=companies&q=acme`);
    expect(found.status).toBe(200);
    expect(found.text).toContain(`<input type="hidden" name="toId" value="${acme}">`);
    expect(found.text).not.toContain(`value="${globex}"`);
    // The pair's labels: the built-in Primary and the account's.
    expect(found.text).toContain(`<option value="1">Primary</option><option value="${billing}">Billing contact</option>`);

    const made = await post(b, `${path}/associations`, { toType: "companies", toId: String(acme), typeId: String(billing) });
    expect(made.status, made.text).toBe(303);
    expect(made.headers.get("location")).toBe(`${path}#assoc-h`);
    expect((await post(b, `${path}/associations`, { toType: "companies", toId: String(globex), typeId: "" })).status).toBe(303);
    expect(await linked(t, "contacts", ada, "companies")).toEqual([
      { id: acme, labels: ["Billing contact"] },
      { id: globex, labels: [] },
    ]);
    const html = (await page(b, path)).text;
    expect(html).toContain(`<a href="/app/companies/${acme}">Acme Corp</a> <span class="assoc-labels"><span class="badge badge-default">Billing contact</span></span>`);
    expect(html).toContain(`action="${path}/associations/companies/${acme}/remove"`);
    // The other side shows the label too (a label without an inverse carries its text both ways).
    expect((await page(b, `/app/companies/${acme}`)).text).toContain(`<span class="badge badge-default">Billing contact</span>`);
    expect((await page(b, `${path}/associate?type=companies&q=acme`)).text).toContain("(already associated)");

    expect((await post(b, `${path}/associations/companies/${acme}/remove`, {})).status).toBe(303);
    expect(await linked(t, "contacts", ada, "companies")).toEqual([{ id: globex, labels: [] }]);
  });

  it("another account's record, a label not of the pair, a type that cannot be associated: refused, nothing written", async () => {
    const [a, other] = await Promise.all([tenant(), tenant()]);
    const b = await signIn(other);
    const mine = await create(other, "contacts", { firstname: "Bea" });
    const theirs = await create(a, "companies", { name: "Initech" });
    const myCo = await create(other, "companies", { name: "Mine" });
    const path = `/app/contacts/${mine}`;
    // Associating with another account's company is the 404 page, nothing is written on either side.
    const res = await post(b, `${path}/associations`, { toType: "companies", toId: String(theirs) });
    expect(res.status).toBe(404);
    expect((await post(b, `${path}/associations`, { toType: "companies", toId: String(theirs), typeId: "1" })).status).toBe(404);
    expect(await linked(other, "contacts", mine, "companies")).toEqual([]);
    expect(await linked(a, "companies", theirs, "contacts")).toEqual([]);
    // Removing an association with it is the 404 page too.
    expect((await post(b, `${path}/associations/companies/${theirs}/remove`, {})).status).toBe(404);
    // A label id that is not one of the pair's is the API's 400, shown on the page.
    const bad = await post(b, `${path}/associations`, { toType: "companies", toId: String(myCo), typeId: "1000001" });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("associationTypeId 1000001 is not a USER_DEFINED type from contacts to companies");
    expect((await post(b, `${path}/associations`, { toType: "contacts", toId: String(mine) })).status).toBe(400);
    expect((await post(b, `${path}/associations`, { toType: "companies", toId: "abc" })).status).toBe(400);
    expect(await linked(other, "contacts", mine, "companies")).toEqual([]);
    // The associate page of another account's record is the 404 page.
    expect((await page(b, `/app/companies/${theirs}/associate?type=contacts`)).status).toBe(404);
  });

  it("the account's association limit holds", async () => {
    const t = await tenant();
    const b = await signIn(t);
    const ada = await create(t, "contacts", { firstname: "Ada" });
    const [one, two] = await Promise.all([create(t, "companies", { name: "One" }), create(t, "companies", { name: "Two" })]);
    const label = await call("POST", "/crm/v4/associations/contacts/companies/labels", { token: t.pat, body: { name: "owner", label: "Owner" } });
    const typeId = label.json.results[0].typeId as number;
    const limit = await call("POST", "/crm/v4/associations/definitions/configurations/contacts/companies/batch/create", {
      token: t.pat,
      body: { inputs: [{ category: "USER_DEFINED", typeId, maxToObjectIds: 1 }] },
    });
    expect(limit.status, limit.text).toBeLessThan(300);
    expect((await post(b, `/app/contacts/${ada}/associations`, { toType: "companies", toId: String(one), typeId: String(typeId) })).status).toBe(303);
    const over = await post(b, `/app/contacts/${ada}/associations`, { toType: "companies", toId: String(two), typeId: String(typeId) });
    expect(over.status).toBe(400);
    expect(over.text).toContain('role="alert"');
    expect(await linked(t, "contacts", ada, "companies")).toEqual([{ id: one, labels: ["Owner"] }]);
  });
});
