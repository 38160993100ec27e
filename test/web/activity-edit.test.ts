/**
 * Logging and editing activities from the record page (docs/reference/web.md, "Working on a record"): an
 * email, a message and postal mail are logged as notes are; each activity has an Edit link to its form,
 * filled with its values; saving changes only what differs
 * (as PATCH /crm/v3/objects/{type}/{id}), visible through the API and sent as the app's propertyChange
 * events; another record's or account's activity is the 404 page; bad values and a missing CSRF token write
 * nothing.
 */
import { describe, expect, it } from "vitest";
import { admin, call, tenant, type Tenant } from "../helpers/api";
import { dev, eventsOf, hookUp, waitFor } from "../webhooks/helpers";
import { page, signIn, type Browser } from "./helpers";

async function create(t: Tenant, type: string, properties: Record<string, string>, contact?: number) {
  const associations = contact ? [{ to: { id: String(contact) }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: ASSOCIATE[type]! }] }] : [];
  const res = await call("POST", `/crm/v3/objects/${type}`, { token: t.pat, body: { properties, associations } });
  expect(res.status, res.text).toBe(201);
  return Number(res.json.id);
}
/** The built-in association type ids of an activity to a contact. */
const ASSOCIATE: Record<string, number> = { notes: 202, tasks: 204, calls: 194, meetings: 200 };

function post(b: Browser, path: string, fields: Record<string, string>, csrf: string | null = b.csrf) {
  const form = new URLSearchParams(fields);
  if (csrf !== null) form.set("csrf", csrf);
  return call("POST", path, { raw: form.toString(), headers: { cookie: b.cookie, "content-type": "application/x-www-form-urlencoded" } });
}

const read = async (t: Tenant, type: string, id: number, props: string) => (await call("GET", `/crm/v3/objects/${type}/${id}?properties=${props}`, { token: t.pat })).json.properties as Record<string, string | null>;

describe("logging and editing activities from the record page", () => {
  it("fills each kind's form with its values, in the account's time zone, and saves only what changed", async () => {
    const t = await tenant();
    expect((await admin("PATCH", `/admin/v1/accounts/${t.portalId}`, { timeZone: "Europe/Berlin" })).status).toBe("active");
    const b = await signIn(t);
    const ada = await create(t, "contacts", { firstname: "Ada" });
    const path = `/app/contacts/${ada}`;
    const note = await create(t, "notes", { hs_note_body: "<p>Asked about &lt;pricing&gt;<br>and terms</p><p>Second <b>bold</b></p>", hs_timestamp: "2026-11-01T10:00:00.000Z" }, ada);
    const task = await create(t, "tasks", { hs_task_subject: "Send the quote", hs_timestamp: "2026-12-01T08:30:00.000Z", hs_task_status: "IN_PROGRESS", hs_task_priority: "HIGH" }, ada);
    const callId = await create(t, "calls", { hs_call_title: "Discovery", hs_call_direction: "INBOUND", hs_call_duration: "1500000", hs_timestamp: "2026-11-02T10:00:00.000Z" }, ada);
    const meeting = await create(t, "meetings", { hs_meeting_title: "Kick-off", hs_meeting_start_time: "2026-12-02T09:00:00.000Z", hs_meeting_end_time: "2026-12-02T10:15:00.000Z", hs_timestamp: "2026-12-02T09:00:00.000Z" }, ada);

    // The record page links each activity to its form.
    const html = (await page(b, path)).text;
    for (const id of [note, task, callId, meeting]) expect(html).toContain(`href="${path}/activities/${id}/edit"`);
    expect(html).toContain(`aria-label="Edit task Send the quote"`);

    // Each form is filled: bodies as text, times in the account's zone (Berlin, UTC+1) with their instants.
    const noteForm = await page(b, `${path}/activities/${note}/edit`);
    expect(noteForm.status).toBe(200);
    expect(noteForm.text).toContain("<h1>Edit note on Ada</h1>");
    expect(noteForm.text).toContain(`<form class="work-form" method="post" action="${path}/activities/${note}">`);
    expect(noteForm.text).toContain(">Asked about &lt;pricing&gt;\nand terms\n\nSecond bold</textarea>");
    expect(noteForm.text).toContain(`name="tz" value="Europe/Berlin" data-time-zone`);
    const taskForm = (await page(b, `${path}/activities/${task}/edit`)).text;
    expect(taskForm).toContain(`value="2026-12-01T09:30" data-instant="2026-12-01T08:30:00.000Z"`);
    expect(taskForm).toMatch(/<option value="HIGH" selected>High<\/option>/);
    expect(taskForm).toContain(">Save task</button>");
    // The task has no owner: "No owner" stays chosen, not the reader's own.
    expect(taskForm).toMatch(/<option value="" selected>No owner<\/option>/);
    const callForm = (await page(b, `${path}/activities/${callId}/edit`)).text;
    expect(callForm).toContain(`name="duration" value="25"`);
    expect(callForm).toMatch(/<option value="INBOUND" selected>Inbound<\/option>/);
    const meetingForm = (await page(b, `${path}/activities/${meeting}/edit`)).text;
    expect(meetingForm).toContain(`value="2026-12-02T10:00" data-instant="2026-12-02T09:00:00.000Z"`);
    expect(meetingForm).toContain(`value="2026-12-02T11:15" data-instant="2026-12-02T10:15:00.000Z"`);

    // Saved unchanged (as the form posts it without script, in the account's zone): nothing is written, so
    // the HTML the API wrote is kept.
    const noteBefore = await read(t, "notes", note, "hs_note_body,hs_lastmodifieddate");
    const same = await post(b, `${path}/activities/${note}`, { kind: "notes", tz: "Europe/Berlin", hs_note_body: "Asked about <pricing>\nand terms\n\nSecond bold" });
    expect(same.status, same.text).toBe(303);
    expect(same.headers.get("location")).toBe(`${path}#activities-h`);
    expect(await read(t, "notes", note, "hs_note_body,hs_lastmodifieddate")).toEqual(noteBefore);

    // Changed: the new text as HTML; the task's due time read in the posted zone; status and type kept;
    // the priority cleared; the call's duration in ms; the meeting's time moved with its hs_timestamp.
    expect((await post(b, `${path}/activities/${note}`, { kind: "notes", tz: "Europe/Berlin", hs_note_body: "Prices sent" })).status).toBe(303);
    expect((await read(t, "notes", note, "hs_note_body")).hs_note_body).toBe("<p>Prices sent</p>");
    const saved = await post(b, `${path}/activities/${task}`, { kind: "tasks", tz: "America/New_York", hs_task_subject: "Send the final quote", hs_timestamp: "2026-12-03T09:00", hubspot_owner_id: "", hs_task_priority: "" });
    expect(saved.status, saved.text).toBe(303);
    expect(await read(t, "tasks", task, "hs_task_subject,hs_timestamp,hs_task_status,hs_task_priority")).toMatchObject({
      hs_task_subject: "Send the final quote",
      hs_timestamp: "2026-12-03T14:00:00.000Z",
      hs_task_status: "IN_PROGRESS",
      hs_task_priority: null,
    });
    expect((await post(b, `${path}/activities/${callId}`, { kind: "calls", tz: "UTC", hs_call_title: "Discovery", hs_call_direction: "OUTBOUND", duration: "40", hs_call_body: "" })).status).toBe(303);
    expect(await read(t, "calls", callId, "hs_call_direction,hs_call_duration,hs_timestamp")).toMatchObject({ hs_call_direction: "OUTBOUND", hs_call_duration: "2400000", hs_timestamp: "2026-11-02T10:00:00.000Z" });
    expect((await post(b, `${path}/activities/${meeting}`, { kind: "meetings", tz: "UTC", hs_meeting_title: "Kick-off", hs_meeting_start_time: "2026-12-04T09:00", hs_meeting_end_time: "2026-12-04T10:00" })).status).toBe(303);
    expect(await read(t, "meetings", meeting, "hs_meeting_start_time,hs_meeting_end_time,hs_timestamp,hs_meeting_outcome")).toMatchObject({
      hs_meeting_start_time: "2026-12-04T09:00:00.000Z",
      hs_meeting_end_time: "2026-12-04T10:00:00.000Z",
      hs_timestamp: "2026-12-04T09:00:00.000Z",
    });
    // The page shows the new values at once.
    const after = (await page(b, path)).text;
    expect(after).toContain("<p>Prices sent</p>");
    expect(after).toContain("Send the final quote");
    expect(after).toContain("Outbound call · 40 min");
  });

  it("logs an email, a message and postal mail, shows their bodies, and edits them", async () => {
    const t = await tenant();
    const b = await signIn(t);
    const ada = await create(t, "contacts", { firstname: "Ada" });
    const path = `/app/contacts/${ada}`;
    const form = (await page(b, path)).text;
    for (const kind of ["emails", "communications", "postal_mail"]) expect(form).toContain(`<details class="work" id="new-${kind}">`);
    expect((await post(b, `${path}/activities`, { kind: "emails", hs_email_subject: "Quote", hs_email_direction: "INCOMING_EMAIL", hs_email_text: "Please send <the> quote.\r\nThanks" })).status).toBe(303);
    expect((await post(b, `${path}/activities`, { kind: "communications", hs_communication_channel_type: "WHATS_APP", hs_communication_body: "On my way" })).status).toBe(303);
    expect((await post(b, `${path}/activities`, { kind: "postal_mail", hs_postal_mail_body: "Sent the brochure" })).status).toBe(303);
    const linked = async (to: string) => Number((await call("GET", `/crm/v4/objects/contacts/${ada}/associations/${to}`, { token: t.pat })).json.results[0].toObjectId);
    const [email, message, mail] = [await linked("emails"), await linked("communications"), await linked("postal_mail")];
    expect(await read(t, "emails", email, "hs_email_subject,hs_email_direction,hs_email_text,hs_email_html,hs_timestamp")).toMatchObject({
      hs_email_subject: "Quote",
      hs_email_direction: "INCOMING_EMAIL",
      hs_email_text: "Please send <the> quote.\nThanks",
      hs_email_html: "<p>Please send &lt;the&gt; quote.<br>Thanks</p>",
    });
    expect(await read(t, "communications", message, "hs_communication_channel_type,hs_communication_body,hs_communication_logged_from")).toMatchObject({
      hs_communication_channel_type: "WHATS_APP",
      hs_communication_body: "<p>On my way</p>",
      hs_communication_logged_from: "CRM",
    });
    expect((await read(t, "postal_mail", mail, "hs_postal_mail_body")).hs_postal_mail_body).toBe("<p>Sent the brochure</p>");
    const shown = (await page(b, path)).text;
    expect(shown).toContain("<p>Please send &lt;the&gt; quote.<br>Thanks</p>");
    expect(shown).toContain("Received email");
    expect(shown).toContain("<p>On my way</p>");
    expect(shown).toContain("<p>Sent the brochure</p>");

    // The email's form shows its text; a new subject and direction are saved, its body left as it was.
    const emailForm = (await page(b, `${path}/activities/${email}/edit`)).text;
    expect(emailForm).toContain("<h1>Edit email on Ada</h1>");
    expect(emailForm).toContain(">Please send &lt;the&gt; quote.\nThanks</textarea>");
    expect((await post(b, `${path}/activities/${email}`, { kind: "emails", hs_email_subject: "Quote, signed", hs_email_direction: "EMAIL", hs_email_text: "Please send <the> quote.\nThanks" })).status).toBe(303);
    expect(await read(t, "emails", email, "hs_email_subject,hs_email_direction,hs_email_html")).toMatchObject({ hs_email_subject: "Quote, signed", hs_email_direction: "EMAIL", hs_email_html: "<p>Please send &lt;the&gt; quote.<br>Thanks</p>" });
    expect((await post(b, `${path}/activities/${message}`, { kind: "communications", hs_communication_channel_type: "SMS", hs_communication_body: "Arrived" })).status).toBe(303);
    expect(await read(t, "communications", message, "hs_communication_channel_type,hs_communication_body")).toMatchObject({ hs_communication_channel_type: "SMS", hs_communication_body: "<p>Arrived</p>" });
    // A channel that is not an option: the API's own 400, next to the field.
    const bad = await post(b, `${path}/activities/${message}`, { kind: "communications", hs_communication_channel_type: "FAX", hs_communication_body: "Arrived" });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain(`aria-describedby="communications-hs-communication-channel-type-error" aria-invalid="true"`);
  });

  it("an edit reaches the subscribed app as the activity's propertyChange, from the CRM", async () => {
    const t = await tenant();
    const hooks = await hookUp(t);
    const sub = await dev(t, "POST", "/subscriptions", { eventType: "object.propertyChange", objectTypeId: "0-46", propertyName: "hs_note_body", active: true });
    expect(sub.status, sub.text).toBe(201);
    const b = await signIn(t);
    const ada = await create(t, "contacts", { firstname: "Ada" });
    const note = await create(t, "notes", { hs_note_body: "<p>old</p>", hs_timestamp: "2026-11-01T10:00:00.000Z" }, ada);
    expect((await post(b, `/app/contacts/${ada}/activities/${note}`, { kind: "notes", hs_note_body: "new" })).status).toBe(303);
    // The first event is the value the API created the note with; the second the edit.
    const events = eventsOf(await waitFor(hooks, (d) => eventsOf(d).length >= 2));
    expect(events[0]).toMatchObject({ propertyValue: "<p>old</p>", changeSource: "API" });
    expect(events.slice(1)).toEqual([expect.objectContaining({ subscriptionType: "object.propertyChange", objectTypeId: "0-46", objectId: note, propertyName: "hs_note_body", propertyValue: "<p>new</p>", changeSource: "CRM" })]);
  });

  it("refuses bad values beside their fields, another record's or account's activity, and a missing token; nothing is written", async () => {
    const t = await tenant();
    const b = await signIn(t);
    const ada = await create(t, "contacts", { firstname: "Ada" });
    const bob = await create(t, "contacts", { firstname: "Bob" });
    const task = await create(t, "tasks", { hs_task_subject: "Call back", hs_timestamp: "2026-12-01T08:30:00.000Z" }, ada);
    const path = `/app/contacts/${ada}/activities/${task}`;
    const before = await read(t, "tasks", task, "hs_task_subject,hs_timestamp,hubspot_owner_id,hs_lastmodifieddate");

    const empty = await post(b, path, { kind: "tasks", hs_task_subject: "", hs_timestamp: "soon" });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain("<h1>Edit task on Ada</h1>");
    expect(empty.text).toContain("The subject is required.");
    expect(empty.text).toContain("The due date must be a date and time (YYYY-MM-DDTHH:MM).");
    // The API's own check: the owner must be one of the account's.
    const owner = await post(b, path, { kind: "tasks", hs_task_subject: "Call back", hs_timestamp: "2026-12-01T08:30", hubspot_owner_id: "999999" });
    expect(owner.status).toBe(400);
    expect(owner.text).toContain(`aria-describedby="tasks-hubspot-owner-id-error" aria-invalid="true"`);
    expect(owner.text).toContain(`action="${path}"`);
    // Without the session's token: 403.
    expect((await post(b, path, { kind: "tasks", hs_task_subject: "x", hs_timestamp: "2026-12-01T08:30" }, null)).status).toBe(403);
    // Bob's page cannot read or edit Ada's task; an unknown id is the same 404.
    expect((await page(b, `/app/contacts/${bob}/activities/${task}/edit`)).status).toBe(404);
    expect((await post(b, `/app/contacts/${bob}/activities/${task}`, { kind: "tasks", hs_task_subject: "x", hs_timestamp: "2026-12-01T08:30" })).status).toBe(404);
    expect((await page(b, `/app/contacts/${ada}/activities/999999999/edit`)).status).toBe(404);
    // Another account's user sees the 404 page for it too.
    const other = await tenant();
    const ob = await signIn(other);
    expect((await page(ob, `${path}/edit`)).status).toBe(404);
    expect((await post(ob, path, { kind: "tasks", hs_task_subject: "x", hs_timestamp: "2026-12-01T08:30" })).status).toBe(404);
    expect(await read(t, "tasks", task, "hs_task_subject,hs_timestamp,hubspot_owner_id,hs_lastmodifieddate")).toEqual(before);
    // Signed out: to the sign-in page.
    const out = await page(null, `${path}/edit`);
    expect(out.status).toBe(302);
  });
});
