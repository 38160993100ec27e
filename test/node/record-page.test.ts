/**
 * The record page in a real browser: Debian's Chromium through playwright-core against the
 * Worker (unstable_startWorker) and the local integrator, which answers the card data fetches and action
 * hooks and serves the iframe pages from another origin (its own port). Screenshots of the record page at
 * 1280 and 360 px wide go to test-results/screenshots/.
 */
import { randomUUID } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { integratorUrl, tenant, workerUrl, type NodeTenant } from "./helpers";
import { iframePage, launch, received, screenshot, script, signInAt, type Browser } from "./browser";

async function api<T = Record<string, unknown>>(method: string, path: string, token: string, body?: unknown): Promise<T> {
  const res = await fetch(`${workerUrl()}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} -> ${res.status} ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

/** Polls `check` until it holds (bounded), for effects outside the page such as integrator requests. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 10_000) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const run = randomUUID().slice(0, 8);
const paths = {
  tickets: `/tickets-${run}`,
  billing: `/billing-${run}`,
  orders: `/orders-${run}`,
  actions: `/actions-${run}`,
  recording: `/recording-${run}`,
};
const TICKET = "API-22: Broken printer";

let t: NodeTenant;
let contactId: number;
let companyId: number;
let recordPath: string;

/** The data fetch answer of the tickets card, with every kind of action, each under the card's base URI. */
function ticketsAnswer() {
  const base = `${integratorUrl()}${paths.actions}`;
  const iframe = (uri: string, label: string) => ({ type: "IFRAME", width: 600, height: 400, uri: `${base}${uri}`, label, associatedObjectProperties: ["firstname"] });
  return {
    results: [
      {
        objectId: 245,
        title: TICKET,
        link: "https://tickets.example.com/245",
        status: "inprogress",
        priority: "High",
        properties: [
          { label: "Reporter", dataType: "EMAIL", value: "reporter@example.com" },
          { label: "Value", dataType: "CURRENCY", value: "1234.5", currencyCode: "EUR" },
          { label: "Due", dataType: "DATE", value: "2026-03-01" },
        ],
        actions: [
          { type: "ACTION_HOOK", httpMethod: "POST", uri: `${base}/resolve`, label: "Resolve", associatedObjectProperties: ["email"] },
          {
            type: "CONFIRMATION_ACTION_HOOK",
            httpMethod: "DELETE",
            uri: `${base}/delete`,
            label: "Delete",
            confirmationMessage: "Delete this ticket for good?",
            confirmButtonText: "Delete it",
            cancelButtonText: "Keep it",
          },
          iframe("/edit", "Edit"),
        ],
      },
      { objectId: 246, title: "API-23: Paper jam", link: null, status: "closed", priority: "Low" },
    ],
    totalCount: 12,
    allItemsLink: "https://tickets.example.com/all",
    itemLabel: "tickets",
    primaryAction: iframe("/create", "Create ticket"),
    secondaryActions: [{ type: "ACTION_HOOK", httpMethod: "GET", uri: `${base}/sync`, label: "Sync now" }],
    settingsAction: iframe("/settings", "Settings"),
  };
}

beforeAll(async () => {
  t = await tenant();
  const contact = await api<{ id: string }>("POST", "/crm/v3/objects/contacts", t.pat, { properties: { firstname: "Zoë", lastname: "Quinn", email: `zoe-${run}@example.com`, city: "Lyon" } });
  contactId = Number(contact.id);
  const company = await api<{ id: string }>("POST", "/crm/v3/objects/companies", t.pat, { properties: { name: "Acme Corp", domain: "acme.example" } });
  companyId = Number(company.id);
  await api("PUT", `/crm/v3/objects/contacts/${contactId}/associations/companies/${companyId}`, t.pat);
  recordPath = `/app/contacts/${contactId}`;

  // A timeline event with a detail template and an iframe link.
  const type = await api<{ id: number }>("POST", `/integrations/v1/${t.appId}/timeline/event-types`, t.developerKey, {
    name: "Webinar",
    objectType: "CONTACT",
    headerTemplate: "Registered for **{{title}}**",
    detailTemplate: "Speaker: {{extraData.speaker}}",
  });
  await api("POST", `/integrations/v1/${t.appId}/timeline/event-types/${type.id}/properties`, t.developerKey, { name: "title", label: "Title", propertyType: "String" });
  await api("PUT", `/integrations/v1/${t.appId}/timeline/event`, t.oauth, {
    id: `webinar-${run}`,
    eventTypeId: type.id,
    objectId: contactId,
    timestamp: Date.UTC(2026, 0, 15, 9, 30),
    title: "Intro webinar",
    extraData: { speaker: "Ann" },
    timelineIFrame: { linkLabel: "Open recording", iframeLabel: "Recording", iframeUri: `${integratorUrl()}${paths.recording}?v=1`, width: 640, height: 360 },
  });

  // Three cards: one with data, one whose integrator fails, one that answers slowly.
  const card = (title: string, fetchPath: string, extra: Record<string, unknown> = {}) =>
    api("POST", "/extensions/sales-objects/v1/object-types", t.developerKey, {
      applicationId: t.appId,
      baseUris: [`${integratorUrl()}${paths.actions}`],
      dataFetchUri: `${integratorUrl()}${fetchPath}`,
      title,
      associatedHubSpotObjectTypes: ["CONTACT"],
      ...extra,
    });
  await card("Support tickets", paths.tickets, {
    propertyDefinitions: [
      { name: "status", label: "Status", dataType: "STATUS", options: [{ type: "SUCCESS", label: "In progress", name: "inprogress" }, { type: "DANGER", label: "Closed", name: "closed" }] },
      { name: "priority", label: "Priority", dataType: "STRING" },
    ],
    associatedHubSpotObjectTypeProperties: { CONTACT: ["email"] },
  });
  await card("Billing", paths.billing);
  await card("Orders", paths.orders);
  await script(paths.tickets, { body: JSON.stringify(ticketsAnswer()) });
  await script(paths.billing, { status: 500, body: "{}" });
  await script(paths.orders, { delayMs: 200, body: JSON.stringify({ results: [] }) });
  await script(`${paths.actions}/resolve`, { body: JSON.stringify({ message: "Ticket API-22 resolved" }) });
  await script(`${paths.actions}/delete`, { body: JSON.stringify({ message: "Ticket API-22 deleted" }) });
  await script(`${paths.actions}/sync`, { status: 409, body: JSON.stringify({ message: "Sync is paused for this account" }) });
  for (const p of ["/edit", "/create", "/settings"]) await script(`${paths.actions}${p}`, iframePage(`Integrator ${p.slice(1)}`));
  await script(paths.recording, iframePage("Recording"));

}, 120_000);

afterAll(async () => {
  if (started) await (await started).close();
});

/**
 * The shared signed-in browser, started by the first test that needs it. Not in beforeAll: a missing
 * Chromium must fail every browser test with its message, and vitest reports tests after a failing
 * beforeAll as skipped.
 */
let started: Promise<Browser> | undefined;
function signedInBrowser(): Promise<Browser> {
  started ??= (async () => {
    const b = await launch();
    await signInAt(await b.context.newPage(), t, recordPath);
    return b;
  })();
  return started;
}

/** Content-Security-Policy violations the page reported (none are expected). */
function cspViolations(page: Page): string[] {
  const seen: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) seen.push(m.text());
  });
  return seen;
}

/** Opens the record page and waits until every card has finished loading. */
async function openRecord(width = 1280): Promise<Page> {
  const page = await (await signedInBrowser()).context.newPage();
  await page.setViewportSize({ width, height: 900 });
  await page.goto(`${workerUrl()}${recordPath}`);
  // A function, not a string: the page's CSP (no 'unsafe-eval') refuses string predicates.
  const noCardLoading = () => (globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector('.card-body[aria-busy="true"]') === null;
  await page.waitForFunction(noCardLoading, undefined, { timeout: 15_000 });
  return page;
}

const card = (page: Page, title: string) => page.locator("section.card", { has: page.getByRole("heading", { name: title, exact: true }) });
const modal = (page: Page) => page.locator("#iframe-modal");
const activeInside = (page: Page, selector: string) => page.evaluate(`!!document.activeElement?.closest(${JSON.stringify(selector)})`);
const activeText = (page: Page) => page.evaluate("document.activeElement?.textContent ?? ''");

async function openItemAction(page: Page, label: string) {
  await page.getByRole("button", { name: `Actions for ${TICKET}` }).click();
  await page.getByRole("button", { name: label, exact: true }).click();
}

describe("the record page in Chromium", () => {
  it("sends a signed-out visitor to sign in and back to the record", async () => {
    const fresh = await launch(); // its own profile: no session
    try {
      const p = await fresh.context.newPage();
      await p.goto(`${workerUrl()}${recordPath}`);
      expect(new URL(p.url()).pathname).toBe("/login");
      expect(new URL(p.url()).searchParams.get("next")).toBe(recordPath);
      await signInAt(p, t, recordPath);
      expect(await p.getByRole("heading", { level: 1 }).textContent()).toContain("Zoë Quinn");
    } finally {
      await fresh.close();
    }
  });

  it("shows properties, associations and the timeline; the event's detail opens on click", async () => {
    const page = await openRecord();
    const violations = cspViolations(page);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toContain("Zoë Quinn");
    expect(await page.locator(".props div", { hasText: "city" }).locator("dd").textContent()).toBe("Lyon");
    expect(await page.getByRole("link", { name: "Acme Corp" }).getAttribute("href")).toBe(`/app/companies/${companyId}`);
    const event = page.locator(".timeline .event").first();
    expect(await event.locator("summary").innerText()).toContain("Registered for Intro webinar");
    expect(await event.locator("strong").textContent()).toBe("Intro webinar");
    const detail = event.getByText("Speaker: Ann");
    expect(await detail.isVisible()).toBe(false);
    await event.locator("summary").click();
    expect(await detail.isVisible()).toBe(true);
    expect(await event.locator("time").textContent()).toBe("Jan 15, 2026, 9:30 AM");
    expect(violations).toEqual([]);
    await page.close();
  });

  it("shows each card on its own: items with formatted properties, links and actions; a failing card shows its error", async () => {
    const page = await openRecord();
    const violations = cspViolations(page);
    const tickets = card(page, "Support tickets");
    const items = tickets.locator(".card-item");
    expect(await items.count()).toBe(2);
    const first = items.first();
    expect(await first.getByRole("link", { name: TICKET }).getAttribute("href")).toBe("https://tickets.example.com/245");
    expect(await first.locator("dt").allTextContents()).toEqual(["Status", "Priority", "Reporter", "Value", "Due"]);
    expect(await first.locator(".badge").textContent()).toBe("In progress");
    expect(await first.locator(".badge").getAttribute("class")).toBe("badge badge-success");
    expect(await items.nth(1).locator(".badge").getAttribute("class")).toBe("badge badge-danger");
    expect(await first.getByRole("link", { name: "reporter@example.com" }).getAttribute("href")).toBe("mailto:reporter@example.com");
    expect(await first.locator(".item-props div", { hasText: "Value" }).locator("dd").textContent()).toBe("€1,234.50");
    expect(await first.locator(".item-props div", { hasText: "Due" }).locator("dd").textContent()).toBe("Mar 1, 2026");
    expect(await items.nth(1).getByRole("heading", { name: "API-23: Paper jam" }).locator("a").count()).toBe(0); // link null
    const more = tickets.getByRole("link", { name: "See more tickets (12)" });
    expect(await more.getAttribute("href")).toBe("https://tickets.example.com/all");
    expect(await tickets.getByRole("button", { name: "Create ticket" }).isVisible()).toBe(true);
    expect(await tickets.getByRole("button", { name: "Sync now" }).isVisible()).toBe(true);
    expect(await tickets.locator(".card-tools").getByRole("button", { name: "Settings" }).isVisible()).toBe(true);

    const billing = card(page, "Billing");
    expect(await billing.locator(".card-error").textContent()).toBe("This card could not be loaded: The integrator answered HTTP 500");
    expect(await billing.getByRole("button", { name: "Try again" }).isVisible()).toBe(true);
    expect(await card(page, "Orders").textContent()).toContain("No Orders to show.");

    // The data fetch was made for the signed-in user and the record.
    const [req] = (await received(paths.tickets)).slice(-1);
    const q = new URL(req!.url).searchParams;
    expect([q.get("userId"), q.get("userEmail"), q.get("associatedObjectId"), q.get("associatedObjectType")]).toEqual([String(t.userId), t.userEmail, String(contactId), "CONTACT"]);
    expect(violations).toEqual([]);

    await screenshot(page, "record-1280.png");
    await page.setViewportSize({ width: 360, height: 780 });
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(360); // no sideways scrolling
    await screenshot(page, "record-360.png");
    await page.close();
  });

  it("loads the cards in parallel, each with its own loading state", async () => {
    await script(paths.orders, { delayMs: 3000, body: JSON.stringify({ results: [] }) });
    try {
      const page = await (await signedInBrowser()).context.newPage();
      await page.goto(`${workerUrl()}${recordPath}`);
      await card(page, "Support tickets").locator(".card-item").first().waitFor();
      // Tickets is shown while Orders' integrator is still answering.
      expect(await card(page, "Orders").locator(".card-body").getAttribute("aria-busy")).toBe("true");
      expect(await card(page, "Orders").getByRole("status").textContent()).toBe("Loading…");
      await card(page, "Orders").getByText("No Orders to show.").waitFor();
      await page.close();
    } finally {
      await script(paths.orders, { delayMs: 200, body: JSON.stringify({ results: [] }) });
    }
  });

  it("runs an action hook and shows the integrator's message; an error message is an alert", async () => {
    const page = await openRecord();
    const before = (await received(`${paths.actions}/resolve`)).length;
    await openItemAction(page, "Resolve");
    const status = card(page, "Support tickets").getByRole("status").filter({ hasText: "resolved" });
    await status.waitFor();
    expect(await status.textContent()).toContain("Ticket API-22 resolved");
    const calls = await received(`${paths.actions}/resolve`);
    expect(calls).toHaveLength(before + 1);
    expect(calls.at(-1)!.method).toBe("POST");

    await card(page, "Support tickets").getByRole("button", { name: "Sync now" }).click();
    const alert = card(page, "Support tickets").getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toContain("Sync is paused for this account");
    await screenshot(page, "record-1280-notice.png", false);
    await page.close();
  });

  it("posts an action back with the token its card data carried; a refused token shows why and reloads the card", async () => {
    const page = await openRecord();
    const tickets = card(page, "Support tickets");
    const fetches = (await received(paths.tickets)).length;
    const calls = (await received(`${paths.actions}/resolve`)).length;
    const posted = page.waitForRequest((r) => r.method() === "POST" && r.url().endsWith("/actions"));
    await openItemAction(page, "Resolve");
    const sent = (await posted).postDataJSON() as { action: Record<string, unknown> };
    expect(sent.action).toMatchObject({ type: "ACTION_HOOK", httpMethod: "POST", uri: `${integratorUrl()}${paths.actions}/resolve`, label: "Resolve" });
    expect(sent.action.actionToken).toMatch(/^v1\.\d+\.[\w-]{43}$/);
    await tickets.getByRole("status").filter({ hasText: "resolved" }).waitFor();
    expect(await received(`${paths.actions}/resolve`)).toHaveLength(calls + 1);
    await until("the card to reload after the action", async () => (await received(paths.tickets)).length === fetches + 1);
    await tickets.locator('.card-body[aria-busy="false"] .card-item').first().waitFor();

    // A token that no longer holds (here altered on the way, as a stale or forged one would be): the server
    // calls nothing, the page says why and reloads the card to get actions that run.
    await page.route("**/actions", async (route) => {
      const data = route.request().postDataJSON() as { action: Record<string, unknown> };
      const [version, expiresAt, mac] = String(data.action.actionToken).split(".");
      await route.continue({ postData: JSON.stringify({ action: { ...data.action, actionToken: `${version}.${Number(expiresAt) + 1}.${mac}` } }) });
    });
    await openItemAction(page, "Resolve");
    const alert = tickets.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toContain("This action was not offered by the card for this record and user");
    await until("the card to reload after the refusal", async () => (await received(paths.tickets)).length === fetches + 2);
    expect(await received(`${paths.actions}/resolve`)).toHaveLength(calls + 1);
    await page.close();
  });

  it("asks before a confirmation action hook: Keep it calls nothing, Delete it calls the hook", async () => {
    const page = await openRecord();
    const dialog = page.locator("#confirm-dialog");
    const before = (await received(`${paths.actions}/delete`)).length;
    await openItemAction(page, "Delete");
    await dialog.waitFor({ state: "visible" });
    expect(await dialog.locator("#confirm-message").textContent()).toBe("Delete this ticket for good?");
    await screenshot(page, "record-1280-confirm.png", false);
    expect(await dialog.getByRole("button").allTextContents()).toEqual(["Keep it", "Delete it"]);
    expect(await activeText(page)).toBe("Keep it"); // the safe choice has focus
    for (const [key, text] of [["Tab", "Delete it"], ["Tab", "Keep it"], ["Shift+Tab", "Delete it"]]) {
      await page.keyboard.press(key!);
      expect(await activeText(page), key).toBe(text); // focus cycles inside the dialog
    }
    await dialog.getByRole("button", { name: "Keep it" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect(await activeText(page)).toBe("Actions ▾"); // focus is back on the menu button
    expect(await received(`${paths.actions}/delete`)).toHaveLength(before);

    await openItemAction(page, "Delete");
    await dialog.getByRole("button", { name: "Delete it" }).click();
    const status = card(page, "Support tickets").getByRole("status").filter({ hasText: "deleted" });
    await status.waitFor();
    expect(await status.textContent()).toContain("Ticket API-22 deleted");
    const calls = await received(`${paths.actions}/delete`);
    expect(calls).toHaveLength(before + 1);
    expect(calls.at(-1)!.method).toBe("DELETE");
    await page.close();
  });

  it("opens an iframe action in a modal that DONE from the iframe closes, reloading the card", async () => {
    const page = await openRecord();
    const violations = cspViolations(page);
    const fetchesBefore = (await received(paths.tickets)).length;
    await openItemAction(page, "Edit");
    await modal(page).waitFor({ state: "visible" });
    const frame = page.frameLocator("#iframe-modal iframe");
    await frame.getByRole("heading", { name: "Integrator edit" }).waitFor();
    const src = await modal(page).locator("iframe").getAttribute("src");
    expect(src).toBe(`${integratorUrl()}${paths.actions}/edit?firstname=Zo%C3%AB`);
    const box = await modal(page).boundingBox();
    expect(box?.width).toBe(602); // the action's 600 px plus the border
    expect(await activeInside(page, "#iframe-modal")).toBe(true);
    // Tab and Shift+Tab cycle through the close button and the iframe's controls, never leaving the modal.
    for (const key of ["Tab", "Tab", "Tab", "Tab", "Tab", "Shift+Tab", "Shift+Tab", "Shift+Tab", "Shift+Tab"]) {
      await page.keyboard.press(key);
      expect(await activeInside(page, "#iframe-modal"), key).toBe(true);
    }
    await frame.getByRole("button", { name: "Done" }).click();
    await modal(page).waitFor({ state: "hidden" });
    await until("the card to reload", async () => (await received(paths.tickets)).length === fetchesBefore + 1);
    await card(page, "Support tickets").locator(".card-item").first().waitFor();
    expect(await activeInside(page, "section.card")).toBe(true); // focus stays in the card it came from
    expect(violations).toEqual([]);
    await page.close();
  });

  it("closes the modal on CANCEL from the iframe without reloading, and returns focus to the opener", async () => {
    const page = await openRecord();
    const fetchesBefore = (await received(paths.tickets)).length;
    await card(page, "Support tickets").getByRole("button", { name: "Create ticket" }).click();
    await modal(page).waitFor({ state: "visible" });
    const frame = page.frameLocator("#iframe-modal iframe");
    await frame.getByRole("button", { name: "Cancel" }).click();
    await modal(page).waitFor({ state: "hidden" });
    expect(await activeText(page)).toBe("Create ticket");
    expect(await received(paths.tickets)).toHaveLength(fetchesBefore);
    // The modal is empty once closed: the integrator's page is unloaded.
    expect(await modal(page).locator("iframe").count()).toBe(0);
    await page.close();
  });

  it("ignores DONE posted by the page itself, by a third origin and by another window of the iframe's origin", async () => {
    const page = await openRecord();
    const fetchesBefore = (await received(paths.tickets)).length;
    await card(page, "Support tickets").locator(".card-tools").getByRole("button", { name: "Settings" }).click();
    await modal(page).waitFor({ state: "visible" });
    await page.frameLocator("#iframe-modal iframe").getByRole("button", { name: "Done" }).waitFor();
    const done = JSON.stringify({ action: "DONE" });

    // 1. The page itself (the worker's origin). The waiter listens after the page's own listener, so once
    //    it has seen the message, the page has already handled (and ignored) it.
    await page.evaluate(`new Promise((resolve) => {
      const msg = ${JSON.stringify(done)};
      const seen = (e) => { if (e.data === msg) { window.removeEventListener("message", seen); setTimeout(resolve, 0); } };
      window.addEventListener("message", seen);
      window.postMessage(msg, "*");
    })`);
    expect(await modal(page).isVisible()).toBe(true);

    // 2. A third origin (localhost is not 127.0.0.1) and 3. the iframe's own origin from another window:
    //    popups that post DONE to this page.
    const integrator = new URL(integratorUrl());
    const thirdOrigin = `http://localhost:${integrator.port}`;
    const forger = `/forger-${run}`;
    await script(forger, { body: `<!doctype html><title>forger</title><script>window.opener.postMessage(${JSON.stringify(done)}, "*")</script>`, headers: { "content-type": "text/html" } });
    for (const origin of [thirdOrigin, integrator.origin]) {
      const popup = (await signedInBrowser()).context.waitForEvent("page");
      await page.evaluate(`new Promise((resolve) => {
        const seen = (e) => { if (e.origin === ${JSON.stringify(origin)}) { window.removeEventListener("message", seen); setTimeout(resolve, 0); } };
        window.addEventListener("message", seen);
        window.open(${JSON.stringify(`${origin}${forger}`)});
      })`);
      await (await popup).close();
      expect(await modal(page).isVisible(), origin).toBe(true);
    }

    // 4. The iframe itself still closes it.
    await page.frameLocator("#iframe-modal iframe").getByRole("button", { name: "Cancel" }).click();
    await modal(page).waitFor({ state: "hidden" });
    expect(await received(paths.tickets)).toHaveLength(fetchesBefore); // no DONE was ever accepted
    await page.close();
  });

  it("opens a timeline event's iframe in the modal, sized to fit a 360 px screen", async () => {
    const page = await openRecord(360);
    const violations = cspViolations(page);
    const opener = page.getByRole("button", { name: "Open recording" });
    await opener.click();
    await modal(page).waitFor({ state: "visible" });
    expect(await modal(page).getByRole("heading", { name: "Recording" }).isVisible()).toBe(true);
    await page.frameLocator("#iframe-modal iframe").getByRole("heading", { name: "Recording" }).waitFor();
    const box = await modal(page).boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(360);
    await screenshot(page, "record-360-modal.png", false);
    await page.keyboard.press("Escape"); // focus is on the modal's close button: Escape is CANCEL
    await modal(page).waitFor({ state: "hidden" });
    expect(await activeText(page)).toBe("Open recording");
    expect(violations).toEqual([]);
    await page.close();
  });

  it("operates an item's actions menu with the keyboard", async () => {
    const page = await openRecord();
    const toggle = page.getByRole("button", { name: `Actions for ${TICKET}` });
    await toggle.focus();
    await page.keyboard.press("Enter");
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    expect(await activeText(page)).toBe("Resolve");
    await page.keyboard.press("Tab");
    expect(await activeText(page)).toBe("Delete");
    await screenshot(page, "record-1280-menu.png", false);
    await page.keyboard.press("Escape");
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    expect(await activeText(page)).toBe("Actions ▾");
    await page.close();
  });
});

describe("other pages in Chromium", () => {
  it("searches contacts and opens one", async () => {
    const page = await (await signedInBrowser()).context.newPage();
    await page.goto(`${workerUrl()}/app/contacts`);
    await page.getByLabel("Name or email").fill("quinn");
    await page.getByRole("button", { name: "Search" }).click();
    // The search is a form submit: wait for the results page before measuring it.
    await page.getByRole("link", { name: "Zoë Quinn" }).waitFor();
    await page.setViewportSize({ width: 360, height: 780 });
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(360);
    await screenshot(page, "contacts-360.png");
    await page.getByRole("link", { name: "Zoë Quinn" }).click();
    await page.waitForURL(`${workerUrl()}${recordPath}`);
    await page.close();
  });

  it("shows the store overview: synced record counts and open sync errors, after a real sync", async () => {
    const bridge = "/extensions/ecomm/v2";
    const property = (externalPropertyName: string, servicePropertyName: string) => ({ externalPropertyName, servicePropertyName, dataType: "STRING" });
    await api("PUT", `${bridge}/settings?appId=${t.appId}`, t.developerKey, {
      enabled: true,
      webhookUri: null,
      mappings: {
        CONTACT: { properties: [property("customer_email", "email"), property("firstname", "firstname")] },
        PRODUCT: { properties: [property("title", "name")] },
        DEAL: { properties: [property("stage", "dealstage"), property("name", "dealname")] },
        LINE_ITEM: { properties: [property("deal_id", "hs_assoc__deal_id"), property("product_id", "hs_assoc__product_id")] },
      },
    });
    await api("PUT", `${bridge}/stores`, t.oauth, { id: "web-shop", label: "Web shop", adminUri: "https://shop.example.com/admin" });
    const sync = (objectType: string, messages: unknown[]) => api("PUT", `${bridge}/sync/messages`, t.oauth, { storeId: "web-shop", objectType, messages });
    await sync("PRODUCT", [1, 2, 3].map((i) => ({ action: "UPSERT", externalObjectId: `p${i}`, changedAt: Date.now(), properties: { title: `Hat ${i}` } })));
    await sync("CONTACT", [{ action: "UPSERT", externalObjectId: "c-no-email", changedAt: Date.now(), properties: { firstname: "Nobody" } }]);
    const status = (type: string, id: string) =>
      fetch(`${workerUrl()}${bridge}/sync/status/web-shop/${type}/${id}`, { headers: { authorization: `Bearer ${t.oauth}` } }).then(async (r) => (r.ok ? ((await r.json()) as { lastProcessedAt: string | null; numErrors: number }) : null));
    await until("the queue to apply the messages", async () => (await status("PRODUCT", "p3"))?.lastProcessedAt != null && ((await status("CONTACT", "c-no-email"))?.numErrors ?? 0) > 0, 30_000);

    const page = await (await signedInBrowser()).context.newPage();
    await page.goto(`${workerUrl()}/app/stores`);
    const store = page.locator("section.store", { has: page.getByRole("heading", { name: "Web shop (web-shop)" }) });
    expect(await store.locator(".counts div", { hasText: "Products" }).locator("dd").textContent()).toBe("3");
    expect(await store.locator(".counts div", { hasText: "Contacts" }).locator("dd").textContent()).toBe("0");
    const row = store.locator("table.errors tbody tr");
    expect(await row.count()).toBe(1);
    expect(await row.locator("td").nth(0).textContent()).toBe("Contact c-no-email (no record yet)");
    expect(await row.locator("td").nth(1).textContent()).toBe("MISSING_REQUIRED_PROPERTY");
    expect((await row.locator("td").nth(2).textContent())?.length).toBeGreaterThan(0);
    await screenshot(page, "stores-1280.png");
    await page.setViewportSize({ width: 360, height: 780 });
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(360);
    await screenshot(page, "stores-360.png");
    await page.close();
  });

  it("serves the static files of public/ as static assets", async () => {
    for (const [path, type] of [["/static/app.css", "text/css"], ["/static/record.js", "javascript"]] as const) {
      const res = await fetch(`${workerUrl()}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toContain(type);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff"); // src/lib/security-headers.ts
      expect(res.headers.get("cache-control")).toBe("no-cache");
    }
  });
});
