/**
 * The web app's lists and deals board in Chromium: sorting by a header, filtering and choosing columns with
 * the list's form, and moving a deal on the board with the keyboard only (its stage select, then its Move
 * button). The move is then what the API reads, and it reaches a subscribed app as deal.propertyChange.
 * Screenshots at 1280 and 390 px; at 390 px neither page scrolls sideways.
 */
import { Client } from "@hubspot/api-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { capturedRequests, eventually, integratorPath } from "./clients";
import { integratorUrl, tenant, workerUrl, type NodeTenant } from "./helpers";
import { launch, screenshot, signInAt, type Browser } from "./browser";

let b: Browser;
let page: Page;
let t: NodeTenant;
let client: Client;
const deals: Record<string, string> = {};

/** Names of the list's rows, in order. */
const names = (p: Page) => p.locator("table.records tbody td[data-label=Name] a").allTextContents();
/** Whether the page scrolls sideways (the table and the board may scroll inside their own boxes). */
const sideways = (p: Page) => p.evaluate("document.documentElement.scrollWidth > document.documentElement.clientWidth");

beforeAll(async () => {
  t = await tenant();
  client = new Client({ accessToken: t.oauth, basePath: workerUrl() });
  const made = [
    ["Engine No. 2", "1200", "appointmentscheduled"],
    ["Difference Engine", "80", "qualifiedtobuy"],
    ["Loom cards", "450.5", "appointmentscheduled"],
    ["Tabulator", "", "contractsent"],
  ];
  for (const [dealname, amount, dealstage] of made) {
    const d = await client.crm.deals.basicApi.create({ properties: { dealname: dealname!, ...(amount ? { amount } : {}), dealstage: dealstage!, pipeline: "default" }, associations: [] });
    deals[dealname!] = d.id;
  }
  b = await launch();
  page = await b.context.newPage();
  await signInAt(page, t, "/app/deals");
}, 180_000);
afterAll(async () => b?.close());

describe("lists in the browser", () => {
  it("sorts by a header, filters and chooses columns with the form, all in a URL that reloads the same list", async () => {
    expect(await names(page)).toEqual(["Engine No. 2", "Difference Engine", "Loom cards", "Tabulator"]);
    await page.getByRole("link", { name: /^Amount\s*, sort ascending$/ }).click();
    await page.waitForURL(/sort=amount&dir=asc/);
    expect(await names(page)).toEqual(["Difference Engine", "Loom cards", "Engine No. 2", "Tabulator"]);
    expect(await page.getByRole("columnheader", { name: /Amount/ }).getAttribute("aria-sort")).toBe("ascending");
    await page.getByRole("link", { name: /^Amount\s*, sort descending$/ }).click();
    await page.waitForURL(/dir=desc/);
    expect(await names(page)).toEqual(["Engine No. 2", "Loom cards", "Difference Engine", "Tabulator"]);

    // A filter and a column, through the form only.
    await page.getByText("Filters, sort and columns").click();
    await page.getByLabel("Filter 1: property").selectOption("amount");
    await page.getByLabel("Filter 1: operator").selectOption("GT");
    await page.getByLabel("Filter 1: value (IN: comma-separated)").fill("100");
    await page.getByLabel("Close date", { exact: true }).check();
    await page.getByLabel("Owner", { exact: true }).uncheck();
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(/fp=amount&fo=GT&fv=100/);
    expect(await names(page)).toEqual(["Engine No. 2", "Loom cards"]);
    const heads = await page.locator("table.records thead th").allTextContents();
    expect(heads.map((h) => h.replace(/, sort (ascending|descending)|[▲▼]/g, ""))).toEqual(["Name", "Amount", "Close date", "Last modified", "Stage"]); // the form sends its boxes in label order
    expect(await page.getByRole("list", { name: "Active filters" }).textContent()).toContain("Amount is greater than 100");
    await screenshot(page, "web-list-sorted-filtered-1280.png");

    // The URL is the list: opened again, it shows the same.
    const url = page.url();
    const other = await b.context.newPage();
    await other.goto(url);
    expect(await names(other)).toEqual(["Engine No. 2", "Loom cards"]);
    await other.setViewportSize({ width: 390, height: 844 });
    await other.reload();
    expect(await sideways(other)).toBe(false);
    await screenshot(other, "web-list-sorted-filtered-390.png");
    await other.close();

    // A bad operator in the URL is a 400 page, not an error.
    const bad = await page.goto(`${workerUrl()}/app/deals?fp=amount&fo=ABOUT&fv=1&fh=`);
    expect(bad?.status()).toBe(400);
    expect(await page.getByRole("alert").textContent()).toContain("fo (a filter's operator) must be one of");
  });
});

describe("the deals board in the browser", () => {
  it("moves a deal with the keyboard only; the API reads the new stage and the subscribed app hears deal.propertyChange", async () => {
    // The app's subscription to dealstage changes, delivered to the local integrator.
    const path = integratorPath("board-hooks");
    const developer = new Client({ developerApiKey: t.developerKey, basePath: workerUrl() });
    await developer.webhooks.settingsApi.configure(t.appId, { targetUrl: `${integratorUrl()}${path}`, throttling: { maxConcurrentRequests: 10 } });
    await developer.webhooks.subscriptionsApi.create(t.appId, { eventType: "deal.propertyChange", propertyName: "dealstage", active: true } as never);

    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${workerUrl()}/app/deals/board`);
    const column = (label: string) => page.locator(".board-column", { has: page.getByRole("heading", { name: label }) });
    await expect.poll(() => column("Appointment Scheduled").locator(".column-meta").textContent(), { timeout: 15_000 }).toBe("2 deals · 1,650.50");
    await screenshot(page, "web-board-1280.png");

    // Keyboard only: focus the card's stage select, choose a stage, Tab to its Move button, press Enter.
    const id = deals["Loom cards"]!;
    const select = page.getByLabel("Stage of Loom cards");
    await select.focus();
    await select.selectOption("closedwon");
    await page.keyboard.press("Tab");
    expect(await page.evaluate("document.activeElement?.textContent")).toBe("Move Loom cards");
    await page.keyboard.press("Enter");
    await page.waitForURL(`${workerUrl()}/app/deals/board?pipeline=default#deal-${id}`);
    expect(await column("Closed Won").locator(".deal-name").allTextContents()).toEqual(["Loom cards"]);
    expect(await column("Appointment Scheduled").locator(".column-meta").textContent()).toBe("1 deal · 1,200.00");
    // Focus is back on the moved card.
    await expect.poll(() => page.evaluate('document.activeElement?.closest(".deal-card")?.id'), { timeout: 15_000 }).toBe(`deal-${id}`);

    // The script's shortcut: `[` on the focused card moves it one stage back, through the same form.
    await page.keyboard.press("[");
    await page.waitForURL(`${workerUrl()}/app/deals/board?pipeline=default#deal-${id}`);
    await expect.poll(async () => (await client.crm.deals.basicApi.getById(id, ["dealstage"])).properties.dealstage, { timeout: 15_000 }).toBe("contractsent");

    const events = await eventually(async () => {
      const got = (await capturedRequests(path)).flatMap((r) => JSON.parse(r.body) as { propertyValue: string }[]);
      return got.length >= 2 ? got : undefined;
    }, "the webhook deliveries");
    expect(events.map((e) => e.propertyValue).sort()).toEqual(["closedwon", "contractsent"]);
    expect(events.find((e) => e.propertyValue === "closedwon")).toMatchObject({
      subscriptionType: "deal.propertyChange", objectId: Number(id), propertyName: "dealstage", changeSource: "CRM", portalId: t.portalId, appId: t.appId,
    });

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${workerUrl()}/app/deals/board`);
    expect(await sideways(page)).toBe(false);
    await screenshot(page, "web-board-390.png");
  });
});
