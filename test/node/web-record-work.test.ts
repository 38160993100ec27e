/**
 * Working on a record in a real browser (docs/reference/web.md, "Working on a record"): associate a company
 * with a contact and remove it, log a note, create and complete a task, log a call, each through the
 * record page's forms. Each change is then read through the API, and the association and activity changes
 * reach an app subscribed to their webhooks (the local integrator receives them). Screenshots at 1280 and 390 px wide
 * go to test-results/screenshots/.
 */
import { Client } from "@hubspot/api-client";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, integratorPath } from "./clients";
import { admin, integratorUrl, tenant, workerUrl, type NodeTenant } from "./helpers";
import { launch, received, screenshot, signInAt, type Browser } from "./browser";

let t: NodeTenant;
let client: Client;
let browser: Browser;
let page: Page;
let contactId: string;
let companyId: string;
const hooks = integratorPath("web-work-hooks");

/** The webhook events the app received so far, flattened from every delivery. */
async function events(): Promise<{ subscriptionType: string; objectId: number; objectTypeId?: string; propertyName?: string; propertyValue?: string; toObjectId?: number; associationRemoved?: boolean }[]> {
  return (await received(hooks)).flatMap((r) => JSON.parse(r.body) as never[]);
}

/** Waits until the app received an event matching `want`. */
const delivered = (want: Record<string, unknown>, what: string) =>
  eventually(async () => (await events()).find((e) => Object.entries(want).every(([k, v]) => (e as Record<string, unknown>)[k] === v)), what);

const associatedIds = async (to: string) =>
  (await client.crm.associations.v4.basicApi.getPage("contacts", contactId, to)).results.map((r) => ({ id: String(r.toObjectId), labels: r.associationTypes.flatMap((x) => (x.label ? [x.label] : [])) }));

beforeAll(async () => {
  t = await tenant();
  client = new Client({ accessToken: t.pat, developerApiKey: t.developerKey, basePath: workerUrl() });
  contactId = (await client.crm.contacts.basicApi.create({ properties: { firstname: "Grace", lastname: "Hopper", email: `grace-${Date.now()}@example.com` }, associations: [] })).id;
  companyId = (await client.crm.companies.basicApi.create({ properties: { name: "Remington Rand", domain: "remington.example" }, associations: [] })).id;
  // The app installed in the account subscribes to the contact's association changes and to the activities'
  // generic events (tasks' status changes too).
  await client.webhooks.settingsApi.configure(t.appId, { targetUrl: `${integratorUrl()}${hooks}`, throttling: { maxConcurrentRequests: 10 } });
  for (const s of [
    { eventType: "contact.associationChange" },
    { eventType: "object.creation", objectTypeId: "0-46" },
    { eventType: "object.creation", objectTypeId: "0-27" },
    { eventType: "object.propertyChange", objectTypeId: "0-27", propertyName: "hs_task_status" },
    { eventType: "object.creation", objectTypeId: "0-48" },
    { eventType: "object.propertyChange", objectTypeId: "0-46", propertyName: "hs_note_body" },
  ]) {
    await client.webhooks.subscriptionsApi.create(t.appId, { ...s, active: true } as never);
  }
  browser = await launch();
  page = await browser.context.newPage();
  await signInAt(page, t, `/app/contacts/${contactId}`);
});

afterAll(async () => {
  await browser?.close();
});

describe("working on a record in the browser", () => {
  it("associates a company found by name, shows it, and removes it", async () => {
    const assoc = page.locator("section[aria-labelledby=assoc-h]");
    await assoc.getByLabel("Associate with").selectOption("companies");
    await assoc.getByLabel("Name").fill("reming");
    await assoc.getByRole("button", { name: "Find" }).click();
    await page.waitForURL(/\/associate\?type=companies&q=reming$/);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Associate Grace Hopper with a company");
    await page.getByLabel("Label for Remington Rand").selectOption({ label: "Primary" });
    await screenshot(page, "record-work-associate-1280.png");
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "record-work-associate-390.png");
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole("button", { name: "Associate Remington Rand" }).click();
    await page.waitForURL(`${workerUrl()}/app/contacts/${contactId}#assoc-h`);
    expect(await assoc.locator(`li:has(a[href="/app/companies/${companyId}"])`).textContent()).toContain("Primary");
    expect(await associatedIds("companies")).toEqual([{ id: companyId, labels: ["Primary"] }]);
    const change = { subscriptionType: "contact.associationChange", objectId: Number(contactId), associationType: "CONTACT_TO_COMPANY", fromObjectId: Number(contactId), toObjectId: Number(companyId), isPrimaryAssociation: true };
    await delivered({ ...change, associationRemoved: false }, "the association's change event");

    await assoc.getByRole("button", { name: "Remove association with Remington Rand" }).click();
    await page.waitForURL(`${workerUrl()}/app/contacts/${contactId}#assoc-h`);
    expect(await assoc.locator(`a[href="/app/companies/${companyId}"]`).count()).toBe(0);
    expect(await associatedIds("companies")).toEqual([]);
    await delivered({ ...change, associationRemoved: true }, "the association's removal event");
    // One event each: the association was added once and removed once.
    expect((await events()).filter((e) => e.subscriptionType === "contact.associationChange" && e.toObjectId === Number(companyId))).toHaveLength(2);
  });

  it("logs a note, creates and completes a task, logs a call: each on the page, in the API and delivered to the app", async () => {
    const form = (kind: string) => page.locator(`#new-${kind}`);
    await form("notes").getByText("Log a note").click();
    await form("notes").getByLabel("Note").fill("Invented the compiler.\nAsk about COBOL.");
    await form("notes").getByRole("button", { name: "Log note" }).click();
    await page.waitForURL(`${workerUrl()}/app/contacts/${contactId}#activities-h`);
    expect(await page.locator(".activity-notes .activity-body").innerHTML()).toBe("<p>Invented the compiler.<br>Ask about COBOL.</p>");

    await form("tasks").getByText("Create a task").click();
    await form("tasks").getByLabel("Subject").fill("Send the manual");
    await form("tasks").getByLabel("Due").fill("2026-12-09T15:00");
    await form("tasks").getByLabel("Priority").selectOption("HIGH");
    await screenshot(page, "record-work-task-form-1280.png");
    await form("tasks").getByRole("button", { name: "Create task" }).click();
    await page.waitForURL(`${workerUrl()}/app/contacts/${contactId}#activities-h`);
    await page.getByRole("button", { name: "Mark complete: task Send the manual" }).click();
    await page.waitForURL(`${workerUrl()}/app/contacts/${contactId}#activities-h`);
    // The page after the redirect has the same address: wait for its content, not its URL.
    await page.locator(".activity-tasks .badge", { hasText: "Completed" }).waitFor();

    await form("calls").getByText("Log a call").click();
    await form("calls").getByLabel("Title").fill("Follow-up call");
    await form("calls").getByLabel("Direction").selectOption("INBOUND");
    await form("calls").getByLabel("Duration in minutes").fill("12");
    await form("calls").getByRole("button", { name: "Log call" }).click();
    await page.waitForURL(`${workerUrl()}/app/contacts/${contactId}#activities-h`);
    await page.locator(".activity-calls .event-meta", { hasText: "Inbound call · 12 min" }).waitFor();

    // Through the API: each is the contact's, with what the forms set.
    const [note] = await associatedIds("notes");
    const [task] = await associatedIds("tasks");
    const [call] = await associatedIds("calls");
    const n = await client.crm.objects.notes.basicApi.getById(note!.id, ["hs_note_body"]);
    expect(n.properties.hs_note_body).toBe("<p>Invented the compiler.<br>Ask about COBOL.</p>");
    const k = await client.crm.objects.tasks.basicApi.getById(task!.id, ["hs_task_subject", "hs_task_status", "hs_task_priority", "hs_timestamp"]);
    // The browser runs in UTC (launch()): 15:00 there is 15:00Z.
    expect(k.properties).toMatchObject({ hs_task_subject: "Send the manual", hs_task_status: "COMPLETED", hs_task_priority: "HIGH", hs_timestamp: "2026-12-09T15:00:00.000Z" });
    const c = await client.crm.objects.calls.basicApi.getById(call!.id, ["hs_call_title", "hs_call_direction", "hs_call_duration"]);
    expect(c.properties).toMatchObject({ hs_call_title: "Follow-up call", hs_call_direction: "INBOUND", hs_call_duration: "720000" });

    // And to the subscribed app.
    await delivered({ subscriptionType: "object.creation", objectTypeId: "0-46", objectId: Number(note!.id) }, "the note's creation event");
    await delivered({ subscriptionType: "object.creation", objectTypeId: "0-27", objectId: Number(task!.id) }, "the task's creation event");
    await delivered({ subscriptionType: "object.propertyChange", objectTypeId: "0-27", objectId: Number(task!.id), propertyValue: "COMPLETED" }, "the task's completion");
    await delivered({ subscriptionType: "object.creation", objectTypeId: "0-48", objectId: Number(call!.id) }, "the call's creation event");

    await screenshot(page, "record-work-1280.png");
    await page.setViewportSize({ width: 390, height: 844 });
    await form("meetings").getByText("Log a meeting").click();
    await screenshot(page, "record-work-390.png");
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("edits the note and the task from their Edit links: the new values on the page, in the API and delivered", async () => {
    // The account's zone (Tokyo) is not the browser's (UTC): the form is filled in the account's, and its
    // script shows each time in the reader's zone, so a time left as it is stays the same instant.
    await admin("PATCH", `/admin/v1/accounts/${t.portalId}`, { timeZone: "Asia/Tokyo" });
    const [note] = await associatedIds("notes");
    const [task] = await associatedIds("tasks");
    await page.goto(`${workerUrl()}/app/contacts/${contactId}`);
    await page.getByRole("link", { name: `Edit note #${note!.id}` }).click();
    await page.waitForURL(`${workerUrl()}/app/contacts/${contactId}/activities/${note!.id}/edit`);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Edit note on Grace Hopper");
    expect(await page.getByLabel("Note").inputValue()).toBe("Invented the compiler.\nAsk about COBOL.");
    await page.getByLabel("Note").fill("Invented the compiler.\nSent her the COBOL report.");
    await screenshot(page, "record-work-edit-note-1280.png");
    await page.getByRole("button", { name: "Save note" }).click();
    await page.waitForURL(`${workerUrl()}/app/contacts/${contactId}#activities-h`);
    expect(await page.locator(".activity-notes .activity-body").innerHTML()).toBe("<p>Invented the compiler.<br>Sent her the COBOL report.</p>");

    await page.getByRole("link", { name: "Edit task Send the manual" }).click();
    await page.waitForURL(`${workerUrl()}/app/contacts/${contactId}/activities/${task!.id}/edit`);
    // 15:00 UTC, shown in the browser's zone, not Tokyo's 00:00 the next day.
    expect(await page.getByLabel("Due").inputValue()).toBe("2026-12-09T15:00");
    await page.getByLabel("Subject").fill("Send the signed manual");
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "record-work-edit-task-390.png");
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole("button", { name: "Save task" }).click();
    await page.waitForURL(`${workerUrl()}/app/contacts/${contactId}#activities-h`);
    await page.locator(".activity-tasks", { hasText: "Send the signed manual" }).waitFor();

    const n = await client.crm.objects.notes.basicApi.getById(note!.id, ["hs_note_body"]);
    expect(n.properties.hs_note_body).toBe("<p>Invented the compiler.<br>Sent her the COBOL report.</p>");
    const k = await client.crm.objects.tasks.basicApi.getById(task!.id, ["hs_task_subject", "hs_task_status", "hs_timestamp"]);
    expect(k.properties).toMatchObject({ hs_task_subject: "Send the signed manual", hs_task_status: "COMPLETED", hs_timestamp: "2026-12-09T15:00:00.000Z" });
    await delivered({ subscriptionType: "object.propertyChange", objectTypeId: "0-46", objectId: Number(note!.id), propertyValue: "<p>Invented the compiler.<br>Sent her the COBOL report.</p>" }, "the note's edit event");
    await admin("PATCH", `/admin/v1/accounts/${t.portalId}`, { timeZone: "UTC" });
  });

  it("a refused form is shown again with the error beside its field, and nothing is written", async () => {
    const meeting = page.locator("#new-meetings");
    await page.goto(`${workerUrl()}/app/contacts/${contactId}`);
    await meeting.getByText("Log a meeting").click();
    await meeting.getByLabel("Title").fill("Retro");
    await meeting.getByLabel("Start").fill("2026-12-10T10:00");
    await meeting.getByLabel("End").fill("2026-12-10T09:00");
    await meeting.getByRole("button", { name: "Log meeting" }).click();
    await page.waitForURL(`${workerUrl()}/app/contacts/${contactId}/activities`);
    expect(await page.getByLabel("End").getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator("#meetings-hs-meeting-end-time-error").textContent()).toBe("The end is before the start.");
    expect(await page.getByLabel("Title").inputValue()).toBe("Retro");
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "record-work-refused-390.png");
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await associatedIds("meetings")).toEqual([]);
  });

  it("deletes an activity with its button in the list (the buttons share the list's one form)", async () => {
    expect(await associatedIds("calls")).toHaveLength(1);
    await page.goto(`${workerUrl()}/app/contacts/${contactId}`);
    await page.getByRole("button", { name: "Delete call Follow-up call" }).click();
    await page.waitForURL(`${workerUrl()}/app/contacts/${contactId}#activities-h`);
    await page.locator(".activity-notes").waitFor();
    expect(await page.locator(".activity-calls").count()).toBe(0);
    expect(await associatedIds("calls")).toEqual([]);
  });
});
