/**
 * The activities on a record page's timeline: notes, tasks, calls, meetings and emails associated with a
 * contact, company, deal or ticket, newest first by `hs_timestamp`, each with what a person looks for;
 * note bodies sanitised for a page with scripts; the newest 50 read in one statement, and the page saying
 * when there are older ones.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { buildRouter } from "../../src/router";
import { admin, call, type Tenant, tenant } from "../helpers/api";
import { page, signIn, type Browser } from "./helpers";

/** The activity → record association type ids (src/services/crm/association-types.ts). */
const TO: Record<string, Record<string, number>> = {
  notes: { contacts: 202, companies: 190, deals: 214, tickets: 228 },
  tasks: { contacts: 204 },
  calls: { contacts: 194 },
  meetings: { contacts: 200 },
  emails: { contacts: 198 },
};

async function create(t: Tenant, type: string, properties: Record<string, string>, on?: { type: string; id: number }) {
  const associations = on ? [{ to: { id: String(on.id) }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: TO[type]![on.type]! }] }] : [];
  const res = await call("POST", `/crm/v3/objects/${type}`, { token: t.pat, body: { properties, associations } });
  expect(res.status, res.text).toBe(201);
  return Number(res.json.id);
}

/** The timeline's activity entries in page order: `[type, id]`. */
const entries = (html: string) => [...html.matchAll(/<li class="activity activity-(\w+)" data-activity-id="(\d+)">/g)].map((m) => [m[1], Number(m[2])]);
const entry = (html: string, id: number) => new RegExp(`<li class="activity[^"]*" data-activity-id="${id}">.*?</li>`, "s").exec(html)?.[0] ?? "";

describe("activities on the record page", () => {
  it("a contact's timeline shows its note, task, call, meeting and email newest first, each with what matters", async () => {
    const t = await tenant();
    const ada = { type: "contacts", id: await create(t, "contacts", { email: "ada@example.com", firstname: "Ada" }) };
    // Times as epoch ms and as ISO instants (the API takes both): the order is by time, not by the strings.
    const note = await create(t, "notes", { hs_timestamp: "2026-11-01T09:00:00Z", hs_note_body: "<p>Asked about <strong>pricing</strong></p>" }, ada);
    const task = await create(t, "tasks", { hs_timestamp: String(Date.UTC(2026, 10, 5, 12)), hs_task_subject: "Send the quote", hs_task_status: "IN_PROGRESS" }, ada);
    const callId = await create(t, "calls", { hs_timestamp: "2026-11-03T15:30:00.000Z", hs_call_title: "Discovery call", hs_call_direction: "OUTBOUND", hs_call_duration: "200000" }, ada);
    const meeting = await create(
      t,
      "meetings",
      { hs_timestamp: "2026-11-04T10:00:00Z", hs_meeting_title: "Kick-off", hs_meeting_start_time: "2026-11-04T10:00:00Z", hs_meeting_end_time: "2026-11-04T11:00:00Z" },
      ada,
    );
    const email = await create(t, "emails", { hs_timestamp: "2026-11-02T08:00:00+01:00", hs_email_subject: "Re: pricing", hs_email_direction: "INCOMING_EMAIL" }, ada);
    const html = (await page(await signIn(t), `/app/contacts/${ada.id}`)).text;

    expect(entries(html)).toEqual([["tasks", task], ["meetings", meeting], ["calls", callId], ["emails", email], ["notes", note]]);
    expect(entry(html, note)).toContain(`<div class="event-detail activity-body"><p>Asked about <strong>pricing</strong></p></div>`);
    expect(entry(html, task)).toContain(`Send the quote <span class="badge badge-info">In progress</span>`);
    expect(entry(html, task)).toContain(`Task · due <time datetime="2026-11-05T12:00:00.000Z"`);
    expect(entry(html, callId)).toMatch(/Discovery call<\/span><span class="event-meta">Outbound call · 3 min 20 s · <time datetime="2026-11-03T15:30:00.000Z"/);
    expect(entry(html, meeting)).toMatch(/Meeting · <time datetime="2026-11-04T10:00:00.000Z"[^>]*>[^<]*<\/time> – <time datetime="2026-11-04T11:00:00.000Z"/);
    expect(entry(html, email)).toMatch(/Re: pricing<\/span><span class="event-meta">Received email · <time datetime="2026-11-02T07:00:00.000Z"/);
    // Activities are on the timeline, not listed again among the associations.
    expect(html).not.toContain("<h3>Notes <span");
    expect(html).toContain(`<h3 id="activities-h">Activities</h3>`);
    expect(html).toContain(`<h3 id="events-h">Events from apps</h3>`);
  });

  it("an entry shown before is shown again as the activity now is, with the buttons of the page it is on", async () => {
    const t = await tenant();
    const b = await signIn(t);
    const [ada, bob] = [await create(t, "contacts", { firstname: "Ada" }), await create(t, "contacts", { firstname: "Bob" })];
    const note = await create(t, "notes", { hs_timestamp: "2026-11-01T09:00:00Z", hs_note_body: "<p>first</p>" }, { type: "contacts", id: ada });
    const onBob = await call("PUT", `/crm/v4/objects/notes/${note}/associations/default/contacts/${bob}`, { token: t.pat });
    expect(onBob.status, onBob.text).toBe(200);
    expect(entry((await page(b, `/app/contacts/${ada}`)).text, note)).toContain(`formaction="/app/contacts/${ada}/activities/${note}/delete"`);
    // The same activity on another record's page: that page's buttons, not the first page's.
    const onB = entry((await page(b, `/app/contacts/${bob}`)).text, note);
    expect(onB).toContain(`formaction="/app/contacts/${bob}/activities/${note}/delete"`);
    expect(onB).not.toContain(`/app/contacts/${ada}/`);
    // Edited through the API: the page shows the new body, never the one it rendered before.
    expect((await call("PATCH", `/crm/v3/objects/notes/${note}`, { token: t.pat, body: { properties: { hs_note_body: "<p>second</p>" } } })).status).toBe(200);
    const after = entry((await page(b, `/app/contacts/${ada}`)).text, note);
    expect(after).toContain(`<p>second</p>`);
    expect(after).not.toContain(`first`);
  });

  it("the activity forms are each viewer's: their session's CSRF token, the account's owners of the moment, their own owner chosen", async () => {
    const t = await tenant();
    const ada = await create(t, "contacts", { firstname: "Ada" });
    const path = `/app/contacts/${ada}`;
    const forms = (html: string) => /<div class="work-forms">.*?<\/div><ol class="activities"|<div class="work-forms">.*$/s.exec(html)?.[0] ?? "";
    const b1 = await signIn(t);
    const first = forms((await page(b1, path)).text);
    expect(first).toContain(`name="csrf" value="${b1.csrf}"`);
    expect(first).not.toContain("grace@example.com");
    // A second user of the account is a new owner: the next view offers them.
    expect((await admin("POST", `/admin/v1/accounts/${t.portalId}/users`, { email: "grace@example.com", password: "correct horse battery" })).userId).toBeDefined();
    const again = forms((await page(b1, path)).text);
    expect(again).toMatch(/<option value="\d+">grace@example.com<\/option>/);
    // Another session of the same user: its own token.
    const b2 = await signIn(t);
    const theirs = forms((await page(b2, path)).text);
    expect(theirs).toContain(`name="csrf" value="${b2.csrf}"`);
    expect(theirs).not.toContain(b1.csrf);
  });

  it("a note's body is sanitised for a page with scripts: no script, handler, id, class or style", async () => {
    const t = await tenant();
    const co = { type: "companies", id: await create(t, "companies", { name: "Acme" }) };
    const body = `<p id="confirm-dialog" class="primary" style="color:red" onclick="x()">Hi<script>alert(1)</script><img src="x" onerror="alert(2)"><a href="javascript:alert(3)">link</a></p>`;
    const note = await create(t, "notes", { hs_timestamp: "2026-11-01T09:00:00Z", hs_note_body: body }, co);
    const html = entry((await page(await signIn(t), `/app/companies/${co.id}`)).text, note);
    expect(html).toContain(`<div class="event-detail activity-body"><p>Hi<img src="x"><a>link</a></p></div>`);
  });

  it("deals and tickets show their activities too; another record's and archived ones are not shown", async () => {
    const t = await tenant();
    const b = await signIn(t);
    const deal = { type: "deals", id: await create(t, "deals", { dealname: "Big one" }) };
    const ticket = { type: "tickets", id: await create(t, "tickets", { subject: "Broken" }) };
    const onDeal = await create(t, "notes", { hs_timestamp: "2026-11-01T09:00:00Z", hs_note_body: "deal note" }, deal);
    const onTicket = await create(t, "notes", { hs_timestamp: "2026-11-01T09:00:00Z", hs_note_body: "ticket note" }, ticket);
    const gone = await create(t, "notes", { hs_timestamp: "2026-11-02T09:00:00Z", hs_note_body: "archived" }, ticket);
    expect((await call("DELETE", `/crm/v3/objects/notes/${gone}`, { token: t.pat })).status).toBe(204);
    expect(entries((await page(b, `/app/deals/${deal.id}`)).text)).toEqual([["notes", onDeal]]);
    const ticketPage = (await page(b, `/app/tickets/${ticket.id}`)).text;
    expect(entries(ticketPage)).toEqual([["notes", onTicket]]);
    // Tickets have no app events: only the activities.
    expect(ticketPage).not.toContain("Events from apps");
    const bare = (await page(b, `/app/contacts/${await create(t, "contacts", { email: "bare@example.com" })}`)).text;
    expect(bare).toContain(`<p class="empty">No activities yet.</p>`);
  });

  it("shows the newest 50 and says there are older ones, read in one statement with a limit", async () => {
    const t = await tenant();
    const ada = { type: "contacts", id: await create(t, "contacts", { email: "many@example.com" }) };
    const at = (i: number) => String(Date.UTC(2026, 0, 1) + i * 60_000);
    const res = await call("POST", "/crm/v3/objects/notes/batch/create", {
      token: t.pat,
      body: {
        inputs: Array.from({ length: 53 }, (_, i) => ({
          properties: { hs_timestamp: at(i), hs_note_body: `note ${i}` },
          associations: [{ to: { id: String(ada.id) }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 202 }] }],
        })),
      },
    });
    expect(res.status, res.text).toBe(201);
    const b = await signIn(t);
    const { html, statements } = await watchedPage(b, `/app/contacts/${ada.id}`);
    const shown = entries(html);
    expect(shown).toHaveLength(50);
    expect(html).toContain("note 52");
    expect(html).not.toContain("note 2<");
    expect(html).toContain("Showing the newest 50 activities; older ones are not shown here.");
    const reads = statements.filter((s) => s.includes("hs_timestamp"));
    expect(reads).toHaveLength(1);
    expect(reads[0]).toMatch(/limit \?\d*$/);
    // An older page of events does not read them again.
    const older = await watchedPage(b, `/app/contacts/${ada.id}?after=1.1`);
    expect(older.statements.filter((s) => s.includes("hs_timestamp"))).toHaveLength(0);
    expect(older.html).toContain(`The activities are on <a href="/app/contacts/${ada.id}#activities-h">the first page</a>.`);
  });
});

/** A record page through the router with every database's statements recorded (their SQL). */
async function watchedPage(b: Browser, path: string) {
  const statements: string[] = [];
  const watch = (d1: D1Database): D1Database =>
    new Proxy(d1, {
      get(target, prop) {
        if (prop === "prepare") return (q: string) => (statements.push(q.trim()), target.prepare(q));
        const v = Reflect.get(target, prop);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
  const res = await buildRouter().fetch(
    new Request(`https://crm.test${path}`, { headers: { cookie: b.cookie } }),
    { ...env, DB: watch(env.DB), SHARD_1: watch(env.SHARD_1), SHARD_2: watch(env.SHARD_2) },
    createExecutionContext(),
  );
  const html = await res.text();
  expect(res.status, html).toBe(200);
  return { html, statements };
}
