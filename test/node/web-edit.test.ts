/**
 * The record forms in Chromium: a contact created through the form, one property edited in place on the
 * record page, the API's refusal shown next to the field, a record deleted after its confirmation. Each
 * change is read back through the API and reaches a subscribed app's webhook, marked `CRM`. Screenshots
 * of the form and of the record page at desktop and phone width go to test-results/screenshots/.
 */
import { Client } from "@hubspot/api-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { eventually, integratorPath } from "./clients";
import { integratorUrl, tenant, workerUrl, type NodeTenant } from "./helpers";
import { launch, received, screenshot, signInAt, type Browser } from "./browser";

let b: Browser;
let t: NodeTenant;
let client: Client;
const hooks = integratorPath("web-edit");

interface Delivered {
  subscriptionType: string;
  objectId: number;
  propertyName?: string;
  propertyValue?: string;
  changeSource: string;
}

/** Every event delivered to the app so far. */
const delivered = async () => (await received(hooks)).flatMap((r) => JSON.parse(r.body) as Delivered[]);
const deliveredWhere = (what: string, match: (e: Delivered) => boolean) => eventually(async () => (await delivered()).find(match), what);

beforeAll(async () => {
  t = await tenant();
  client = new Client({ accessToken: t.pat, developerApiKey: t.developerKey, basePath: workerUrl() });
  await client.webhooks.settingsApi.configure(t.appId, { targetUrl: `${integratorUrl()}${hooks}`, throttling: { maxConcurrentRequests: 10 } });
  for (const s of [{ eventType: "contact.creation" }, { eventType: "contact.propertyChange", propertyName: "city" }, { eventType: "contact.deletion" }]) {
    await client.webhooks.subscriptionsApi.create(t.appId, { ...s, active: true } as never);
  }
  b = await launch();
}, 180_000);
afterAll(async () => b?.close());

/** Both widths, the page scrolled to its top; the phone width must not scroll sideways. */
async function shots(page: Page, name: string) {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    // The page's globals through globalThis: the tests' type library has no DOM.
    const fits = await page.evaluate(() => {
      const g = globalThis as unknown as { document: { documentElement: { scrollWidth: number } }; innerWidth: number };
      return g.document.documentElement.scrollWidth <= g.innerWidth;
    });
    expect(fits, `${name} at ${width} px scrolls sideways`).toBe(true);
    await screenshot(page, `web-edit-${name}-${width}.png`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe("record forms in the browser", () => {
  it("creates a contact through the form, edits a property in place and shows the API's refusal next to the field", async () => {
    const page = await b.context.newPage();
    await signInAt(page, t, "/app/contacts");
    await page.getByRole("link", { name: "New contact" }).click();
    await page.waitForURL(/\/app\/contacts\/new$/);
    await page.getByLabel("First Name").fill("Grace");
    await page.getByLabel("Last Name").fill("Hopper");
    await page.getByLabel("Email", { exact: true }).fill("grace@example.com");
    await shots(page, "new-contact");
    await page.getByRole("button", { name: "Create contact" }).click();
    await page.waitForURL(/\/app\/contacts\/\d+$/);
    const id = page.url().split("/").pop()!;
    expect((await client.crm.contacts.basicApi.getById(id, ["firstname", "lastname", "email"])).properties).toMatchObject({ firstname: "Grace", lastname: "Hopper", email: "grace@example.com" });
    expect(await deliveredWhere("the creation event", (e) => e.subscriptionType === "contact.creation" && e.objectId === Number(id))).toMatchObject({ changeSource: "CRM" });

    // Inline edit: the form opens in place, saves with fetch and the value is swapped in without a reload.
    const city = page.locator("#prop-city");
    await city.getByText("Edit").click();
    await city.getByLabel("City").fill("Arlington");
    await city.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.locator("#prop-city .value").textContent(), { timeout: 15_000 }).toBe("Arlington");
    expect(page.url()).toMatch(/\/app\/contacts\/\d+$/);
    expect((await client.crm.contacts.basicApi.getById(id, ["city"])).properties.city).toBe("Arlington");
    expect(await deliveredWhere("the city's change", (e) => e.subscriptionType === "contact.propertyChange" && e.objectId === Number(id))).toMatchObject({
      propertyName: "city",
      propertyValue: "Arlington",
      changeSource: "CRM",
    });
    await shots(page, "record");

    // Another contact holds the email: the API's 409 is shown at the field, the typed value kept.
    await client.crm.contacts.basicApi.create({ properties: { email: "taken@example.com" }, associations: [] });
    const email = page.locator("#prop-email");
    await email.getByText("Edit").click();
    await email.getByLabel("Email", { exact: true }).fill("taken@example.com");
    await email.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => email.locator(".field-error").textContent(), { timeout: 15_000 }).toMatch(/^Contact already exists\. Existing ID: \d+$/);
    expect(await email.getByLabel("Email", { exact: true }).inputValue()).toBe("taken@example.com");
    expect(await email.getByLabel("Email", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    await screenshot(page, "web-edit-inline-error-1280.png");
    expect((await client.crm.contacts.basicApi.getById(id, ["email"])).properties.email).toBe("grace@example.com");
    await page.close();
  });

  it("edits a whole record, and deletes one after its confirmation", async () => {
    const contact = await client.crm.contacts.basicApi.create({ properties: { firstname: "Alan", email: "alan@example.com" }, associations: [] });
    const page = await b.context.newPage();
    // The context is signed in by the test before.
    await page.goto(`${workerUrl()}/app/contacts/${contact.id}`);
    await page.locator(".record-actions").getByRole("link", { name: "Edit" }).click();
    await page.waitForURL(/\/edit$/);
    await page.getByLabel("Job Title").fill("Mathematician");
    await shots(page, "edit-contact");
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForURL(new RegExp(`/app/contacts/${contact.id}$`));
    expect((await client.crm.contacts.basicApi.getById(contact.id, ["jobtitle"])).properties.jobtitle).toBe("Mathematician");

    await page.locator(".record-actions").getByRole("link", { name: "Delete" }).click();
    await page.waitForURL(/\/delete$/);
    await shots(page, "delete");
    await page.getByRole("button", { name: "Delete contact" }).click();
    await page.waitForURL(/\/app\/contacts$/);
    const gone = await client.crm.contacts.basicApi.getById(contact.id).then(
      () => 200,
      (err: { code: number }) => err.code,
    );
    expect(gone).toBe(404);
    expect(await deliveredWhere("the deletion event", (e) => e.subscriptionType === "contact.deletion" && e.objectId === Number(contact.id))).toMatchObject({ changeSource: "CRM" });

    // A deal's page: its money, dates, pipeline and stage formatted by their definitions.
    const deal = await client.crm.deals.basicApi.create({ properties: { dealname: "Compiler licence", amount: "12500", closedate: "2026-12-15T16:00:00Z", pipeline: "default", dealstage: "qualifiedtobuy", description: "Two seats.\nRenewal in a year." }, associations: [] });
    await page.goto(`${workerUrl()}/app/deals/${deal.id}`);
    expect(await page.locator("#prop-amount .value").textContent()).toBe("$12,500.00");
    expect(await page.locator("#prop-dealstage .value").textContent()).toBe("Qualified To Buy");
    await shots(page, "deal");
    await page.goto(`${workerUrl()}/app/deals/${deal.id}/edit`);
    await shots(page, "edit-deal");
    await page.close();
  });
});
