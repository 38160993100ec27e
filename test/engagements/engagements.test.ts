/**
 * The legacy engagements v1 API over the activity rows: each route's success, the same data through both
 * faces (made in v1 and read as the v3 activity with its associations, and the reverse), the metadata
 * mapping of every writable type, and the pages.
 */
import { describe, expect, it } from "vitest";
import { call, tenant } from "../helpers/api";
import { E1, ownerOf, record, v1Engagement } from "./helpers";

const at = Date.UTC(2026, 10, 1, 10, 0, 0);
const iso = new Date(at).toISOString();

describe("engagements v1: one row with the v3 activity", () => {
  it("a NOTE made in v1 on a contact and a company is the v3 note: same id, body, time and associations", async () => {
    const t = await tenant();
    const ada = await record(t, "contacts", { email: "ada@example.com" });
    const acme = await record(t, "companies", { name: "Acme" });
    const owner = await ownerOf(t);
    const made = await v1Engagement(t, {
      engagement: { active: true, type: "NOTE", timestamp: at, ownerId: owner },
      associations: { contactIds: [ada], companyIds: [acme], dealIds: [], ownerIds: [] },
      attachments: [{ id: 7 }],
      metadata: { body: "Called about the renewal" },
    });
    expect(made.engagement).toMatchObject({ portalId: t.portalId, type: "NOTE", timestamp: at, ownerId: owner, active: true });
    expect(typeof made.engagement.id).toBe("number");
    expect(made.associations).toEqual({ contactIds: [ada], companyIds: [acme], dealIds: [], ownerIds: [], ticketIds: [] });
    expect(made.attachments).toEqual([{ id: 7 }]);
    expect(made.metadata).toEqual({ body: "Called about the renewal" });

    const v3 = await call("GET", `/crm/v3/objects/notes/${made.engagement.id}?properties=hs_note_body,hs_timestamp,hubspot_owner_id,hs_attachment_ids&associations=contacts,companies`, { token: t.pat });
    expect(v3.status, v3.text).toBe(200);
    expect(v3.json.properties).toMatchObject({ hs_note_body: "Called about the renewal", hs_timestamp: iso, hubspot_owner_id: String(owner), hs_attachment_ids: "7" });
    expect(v3.json.associations.contacts.results).toEqual([{ id: String(ada), type: "notes_to_contacts" }]);
    expect(v3.json.associations.companies.results.map((r: { id: string }) => r.id)).toEqual([String(acme)]);
    // And from the contact's side, through v3 and v1.
    const fromContact = await call("GET", `/crm/v3/objects/contacts/${ada}?associations=notes`, { token: t.pat });
    expect(fromContact.json.associations.notes.results.map((r: { id: string }) => r.id)).toEqual([String(made.engagement.id)]);
    const got = await call("GET", `${E1}/${made.engagement.id}`, { token: t.oauth });
    expect(got.status, got.text).toBe(200);
    expect(got.json).toEqual(made);
  });

  it("a v3 task with its association reads through v1 with its metadata mapped back", async () => {
    const t = await tenant();
    const deal = await record(t, "deals", { dealname: "Big" });
    const task = await record(
      t,
      "tasks",
      { hs_timestamp: iso, hs_task_subject: "Send the quote", hs_task_body: "By Friday", hs_task_status: "COMPLETED", hs_task_priority: "HIGH", hs_task_reminders: `${at - 60_000};${at}` },
      [{ to: { id: String(deal) }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 216 }] }],
    );
    const got = await call("GET", `${E1}/${task}`, { token: t.pat });
    expect(got.status, got.text).toBe(200);
    expect(got.json.engagement).toMatchObject({ id: task, type: "TASK", timestamp: at, active: false });
    expect(got.json.engagement.ownerId).toBeUndefined();
    expect(got.json.associations.dealIds).toEqual([deal]);
    expect(got.json.metadata).toEqual({ subject: "Send the quote", body: "By Friday", status: "COMPLETED", priority: "HIGH", reminders: [at - 60_000, at] });
  });

  it.each([
    [
      "CALL",
      "calls",
      { toNumber: "+15550100", fromNumber: "+15550199", status: "COMPLETED", durationMilliseconds: 38_000, recordingUrl: "https://rec.example.com/1.mp3", body: "Left a voicemail", title: "Intro", disposition: "73a0d17f-1163-4015-bdd5-ec830791da20", externalId: "ext-1" },
      { hs_call_to_number: "+15550100", hs_call_from_number: "+15550199", hs_call_status: "COMPLETED", hs_call_duration: "38000", hs_call_recording_url: "https://rec.example.com/1.mp3", hs_call_body: "Left a voicemail", hs_call_title: "Intro", hs_call_disposition: "73a0d17f-1163-4015-bdd5-ec830791da20", hs_call_external_id: "ext-1" },
    ],
    [
      "MEETING",
      "meetings",
      { title: "Kick-off", body: "Agenda", startTime: at, endTime: at + 3_600_000, internalMeetingNotes: "Bring the deck", meetingOutcome: "SCHEDULED" },
      { hs_meeting_title: "Kick-off", hs_meeting_body: "Agenda", hs_meeting_start_time: iso, hs_meeting_end_time: new Date(at + 3_600_000).toISOString(), hs_internal_meeting_notes: "Bring the deck", hs_meeting_outcome: "SCHEDULED" },
    ],
    [
      "TASK",
      "tasks",
      { subject: "Follow up", body: "Call back", status: "NOT_STARTED", priority: "LOW", taskType: "CALL", forObjectType: "CONTACT", reminders: [at], completionDate: at },
      { hs_task_subject: "Follow up", hs_task_body: "Call back", hs_task_status: "NOT_STARTED", hs_task_priority: "LOW", hs_task_type: "CALL", hs_task_for_object_type: "CONTACT", hs_task_reminders: String(at), hs_task_completion_date: iso },
    ],
    [
      "INCOMING_EMAIL",
      "emails",
      { from: { email: "ada@example.com", firstName: "Ada" }, to: [{ email: "sales@example.com" }], cc: [], bcc: [], subject: "Question", html: "<p>Hi</p>", text: "Hi" },
      { hs_email_direction: "INCOMING_EMAIL", hs_email_subject: "Question", hs_email_html: "<p>Hi</p>", hs_email_text: "Hi", hs_email_headers: JSON.stringify({ from: { email: "ada@example.com", firstName: "Ada" }, to: [{ email: "sales@example.com" }], cc: [], bcc: [] }) },
    ],
  ])("%s metadata is the %s properties, both ways", async (type, v3Type, metadata, properties) => {
    const t = await tenant();
    const made = await v1Engagement(t, { engagement: { type, timestamp: at }, metadata });
    expect(made.engagement.type).toBe(type);
    expect(made.metadata).toEqual(metadata);
    const v3 = await call("GET", `/crm/v3/objects/${v3Type}/${made.engagement.id}?properties=${Object.keys(properties).join(",")}`, { token: t.pat });
    expect(v3.status, v3.text).toBe(200);
    expect(v3.json.properties).toMatchObject(properties);
    // The reverse: the same properties written in v3 read as the same metadata.
    const twin = await record(t, v3Type, { hs_timestamp: iso, ...properties });
    const read = await call("GET", `${E1}/${twin}`, { token: t.pat });
    expect(read.json.engagement.type).toBe(type);
    expect(read.json.metadata).toEqual(metadata);
  });

  it("timestamp defaults to the time of the create; createdAt and lastUpdated are the row's", async () => {
    const t = await tenant();
    const before = Date.now();
    const made = await v1Engagement(t, { engagement: { type: "NOTE" }, metadata: { body: "no time given" } });
    expect(made.engagement.timestamp).toBeGreaterThanOrEqual(before);
    expect(made.engagement.createdAt).toBe(made.engagement.timestamp);
    expect(made.engagement.lastUpdated).toBe(made.engagement.createdAt);
  });
});

describe("engagements v1: update, delete and associations", () => {
  it("PATCH writes only the given fields, the v3 read sees them, and null clears one", async () => {
    const t = await tenant();
    const made = await v1Engagement(t, { engagement: { type: "TASK", timestamp: at, ownerId: await ownerOf(t) }, metadata: { subject: "Draft", body: "Keep me", status: "NOT_STARTED" } });
    const id = made.engagement.id as number;
    const res = await call("PATCH", `${E1}/${id}`, { token: t.pat, body: { engagement: { ownerId: null }, metadata: { subject: "Final", status: "COMPLETED" } } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.metadata).toEqual({ subject: "Final", body: "Keep me", status: "COMPLETED" });
    expect(res.json.engagement.active).toBe(false);
    expect(res.json.engagement.ownerId).toBeUndefined();
    expect(res.json.engagement.lastUpdated).toBeGreaterThanOrEqual(made.engagement.lastUpdated);
    const v3 = await call("GET", `/crm/v3/objects/tasks/${id}?properties=hs_task_subject,hs_task_status,hubspot_owner_id`, { token: t.pat });
    expect(v3.json.properties).toMatchObject({ hs_task_subject: "Final", hs_task_status: "COMPLETED", hubspot_owner_id: null });
    // A v3 update reads through v1 too.
    await call("PATCH", `/crm/v3/objects/tasks/${id}`, { token: t.pat, body: { properties: { hs_task_body: "" } } });
    expect((await call("GET", `${E1}/${id}`, { token: t.pat })).json.metadata).toEqual({ subject: "Final", status: "COMPLETED" });
  });

  it("an email's addresses merge on update, and its type moves between the three email types", async () => {
    const t = await tenant();
    const made = await v1Engagement(t, { engagement: { type: "EMAIL", timestamp: at }, metadata: { from: { email: "me@example.com" }, to: [{ email: "ada@example.com" }], subject: "Hi" } });
    const res = await call("PATCH", `${E1}/${made.engagement.id}`, { token: t.pat, body: { engagement: { type: "FORWARDED_EMAIL" }, metadata: { to: [{ email: "alan@example.com" }] } } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.engagement.type).toBe("FORWARDED_EMAIL");
    expect(res.json.metadata).toEqual({ from: { email: "me@example.com" }, to: [{ email: "alan@example.com" }], subject: "Hi" });
  });

  it("DELETE archives the activity: 204, then 404 through v1 and v3, and gone from the pages", async () => {
    const t = await tenant();
    const ada = await record(t, "contacts", { email: "ada@example.com" });
    const made = await v1Engagement(t, { engagement: { type: "CALL", timestamp: at }, associations: { contactIds: [ada] }, metadata: { body: "x" } });
    const id = made.engagement.id as number;
    const del = await call("DELETE", `${E1}/${id}`, { token: t.pat });
    expect(del.status, del.text).toBe(204);
    expect((await call("GET", `${E1}/${id}`, { token: t.pat })).status).toBe(404);
    expect((await call("GET", `/crm/v3/objects/calls/${id}`, { token: t.pat })).status).toBe(404);
    expect((await call("GET", `${E1}/paged`, { token: t.pat })).json.results).toEqual([]);
    expect((await call("GET", `${E1}/associated/CONTACT/${ada}/paged`, { token: t.pat })).json.results).toEqual([]);
    expect((await call("DELETE", `${E1}/${id}`, { token: t.pat })).status).toBe(404);
  });

  it("PUT and DELETE of an association change both faces", async () => {
    const t = await tenant();
    const ticket = await record(t, "tickets", { subject: "Broken" });
    const made = await v1Engagement(t, { engagement: { type: "MEETING", timestamp: at }, metadata: { title: "Fix" } });
    const id = made.engagement.id as number;
    const put = await call("PUT", `${E1}/${id}/associations/TICKET/${ticket}`, { token: t.pat });
    expect(put.status, put.text).toBe(204);
    expect((await call("GET", `${E1}/${id}`, { token: t.pat })).json.associations.ticketIds).toEqual([ticket]);
    const v3 = await call("GET", `/crm/v3/objects/tickets/${ticket}?associations=meetings`, { token: t.pat });
    expect(v3.json.associations.meetings.results.map((r: { id: string }) => r.id)).toEqual([String(id)]);
    const del = await call("DELETE", `${E1}/${id}/associations/ticket/${ticket}`, { token: t.pat });
    expect(del.status, del.text).toBe(204);
    expect((await call("GET", `${E1}/${id}`, { token: t.pat })).json.associations.ticketIds).toEqual([]);
  });

  it("communications and postal mail read through v1 but are not edited there", async () => {
    const t = await tenant();
    const sms = await record(t, "communications", { hs_timestamp: iso, hs_communication_channel_type: "SMS", hs_communication_body: "On my way" });
    const got = await call("GET", `${E1}/${sms}`, { token: t.pat });
    expect(got.json.engagement.type).toBe("COMMUNICATION");
    expect(got.json.metadata).toEqual({ channelType: "SMS", body: "On my way" });
    const patch = await call("PATCH", `${E1}/${sms}`, { token: t.pat, body: { metadata: { body: "x" } } });
    expect(patch.status, patch.text).toBe(400);
    expect(patch.json.errors[0].context.propertyName).toEqual(["engagementId"]);
  });
});

describe("engagements v1: pages", () => {
  it("paged walks every engagement in id order with limit, offset and hasMore; limit is clamped to 250", async () => {
    const t = await tenant();
    await record(t, "contacts", { email: "not-an-engagement@example.com" });
    const ids: number[] = [];
    for (const type of ["NOTE", "CALL", "TASK"]) ids.push((await v1Engagement(t, { engagement: { type, timestamp: at } })).engagement.id);
    ids.push(await record(t, "emails", { hs_timestamp: iso, hs_email_subject: "v3 email" }));
    const first = await call("GET", `${E1}/paged?limit=3`, { token: t.pat });
    expect(first.status, first.text).toBe(200);
    expect(first.json.results.map((r: { engagement: { id: number } }) => r.engagement.id)).toEqual(ids.slice(0, 3));
    expect(first.json).toMatchObject({ hasMore: true, offset: ids[2] });
    const second = await call("GET", `${E1}/paged?limit=3&offset=${first.json.offset}`, { token: t.pat });
    expect(second.json.results.map((r: { engagement: { id: number; type: string } }) => [r.engagement.id, r.engagement.type])).toEqual([[ids[3], "EMAIL"]]);
    expect(second.json).toMatchObject({ hasMore: false, offset: ids[3] });
    const big = await call("GET", `${E1}/paged?limit=100000`, { token: t.pat });
    expect(big.status).toBe(200);
    expect(big.json.results).toHaveLength(4);
  });

  it("associated pages the engagements of one record (v1 or v3 names of its type), and another record's are not in it", async () => {
    const t = await tenant();
    const ada = await record(t, "contacts", { email: "ada@example.com" });
    const alan = await record(t, "contacts", { email: "alan@example.com" });
    const mine = [];
    for (let i = 0; i < 3; i++) mine.push((await v1Engagement(t, { engagement: { type: "NOTE", timestamp: at + i }, associations: { contactIds: [ada] }, metadata: { body: `n${i}` } })).engagement.id);
    await v1Engagement(t, { engagement: { type: "NOTE", timestamp: at }, associations: { contactIds: [alan] } });
    const page = await call("GET", `${E1}/associated/CONTACT/${ada}/paged?limit=2`, { token: t.pat });
    expect(page.status, page.text).toBe(200);
    expect(page.json.results.map((r: { engagement: { id: number } }) => r.engagement.id)).toEqual(mine.slice(0, 2));
    expect(page.json.hasMore).toBe(true);
    const rest = await call("GET", `${E1}/associated/contacts/${ada}/paged?limit=2&offset=${page.json.offset}`, { token: t.pat });
    expect(rest.json.results.map((r: { engagement: { id: number } }) => r.engagement.id)).toEqual([mine[2]]);
    expect(rest.json.hasMore).toBe(false);
  });

  it("recent/modified answers the most recently changed first, with total, count, offset and since", async () => {
    const t = await tenant();
    const a = (await v1Engagement(t, { engagement: { type: "NOTE", timestamp: at } })).engagement.id;
    const b = (await v1Engagement(t, { engagement: { type: "NOTE", timestamp: at } })).engagement.id;
    await new Promise((r) => setTimeout(r, 5));
    const touched = Date.now();
    await call("PATCH", `${E1}/${a}`, { token: t.pat, body: { metadata: { body: "changed" } } });
    const page = await call("GET", `${E1}/recent/modified?count=1`, { token: t.pat });
    expect(page.status, page.text).toBe(200);
    expect(page.json.results.map((r: { engagement: { id: number } }) => r.engagement.id)).toEqual([a]);
    expect(page.json).toMatchObject({ hasMore: true, offset: 1, total: 2 });
    const next = await call("GET", `${E1}/recent/modified?count=1&offset=1`, { token: t.pat });
    expect(next.json.results.map((r: { engagement: { id: number } }) => r.engagement.id)).toEqual([b]);
    const since = await call("GET", `${E1}/recent/modified?since=${touched}`, { token: t.pat });
    expect(since.json.results.map((r: { engagement: { id: number } }) => r.engagement.id)).toEqual([a]);
    expect(since.json.total).toBe(1);
  });
});
