/**
 * The demo of `npm run dev`: scripts/demo/seed.mjs seeds a demo account into the
 * Worker started by unstable_startWorker, through the public and operator APIs, with the demo integrator
 * (scripts/demo/integrator.mjs) answering its CRM card. Chromium then signs in as the demo user and finds
 * what the demo promises: timeline entries, a card with items whose actions work, a synced deal with its
 * stage and line items, and a store with its synced records and error. Each page is screenshotted under
 * test-results/screenshots/demo-*.png, and no page may request anything that fails (the favicon included).
 */
import { randomUUID } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { checkSignature, demoOrders, startDemoIntegrator } from "../../scripts/demo/integrator.mjs";
import { demoExists, refreshAccessToken, seedDemo, type Demo } from "../../scripts/demo/seed.mjs";
import { workerUrl } from "./helpers";
import { launch, screenshot, signInAt, type Browser } from "./browser";

let demo: Demo;
let integrator: { url: string; close: () => Promise<void> };
let secret: string | undefined;
const refused: string[] = [];
/** The webhook deliveries the demo integrator logged. */
const hooks: string[] = [];

beforeAll(async () => {
  integrator = await startDemoIntegrator({ secret: () => secret, log: (l) => refused.push(l), webhooks: (l) => hooks.push(l) });
  demo = await seedDemo({
    baseUrl: workerUrl(),
    adminToken: inject("adminToken"),
    integratorUrl: integrator.url,
    userEmail: `demo-${randomUUID().slice(0, 8)}@example.com`,
    onSecret: (s) => (secret = s),
  });
  secret = demo.clientSecret;
}, 120_000);

afterAll(async () => {
  if (started) await (await started).close();
  await integrator?.close();
});

/** One signed-in browser for the page tests, started by the first that needs it (a missing Chromium fails each test). */
let started: Promise<Browser> | undefined;
function browser(): Promise<Browser> {
  started ??= (async () => {
    const b = await launch();
    const page = await b.context.newPage();
    await signInAt(page, { ...demo, userId: 0, oauth: "", refresh: "", pat: "" }, "/app");
    await page.close();
    return b;
  })();
  return started;
}

/** A page of the signed-in browser that records every failed request (status 400 and up) it makes. */
async function open(path: string): Promise<{ page: Page; failed: string[] }> {
  const page = await (await browser()).context.newPage();
  const failed: string[] = [];
  page.on("response", (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
  });
  await page.goto(`${workerUrl()}${path}`);
  return { page, failed };
}

const noCardLoading = () => (globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector('.card-body[aria-busy="true"]') === null;

describe("the demo in Chromium", () => {
  it("signs in as the demo user on a sign-in page that requests nothing missing", async () => {
    const b = await launch(); // its own profile: signed out
    try {
      const page = await b.context.newPage();
      const failed: string[] = [];
      page.on("response", (r) => {
        if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
      });
      await page.goto(`${workerUrl()}/login`);
      await page.waitForLoadState("networkidle");
      await screenshot(page, "demo-sign-in.png");
      await page.getByLabel("Email").fill(demo.userEmail);
      await page.getByLabel("Password").fill(demo.userPassword);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${workerUrl()}/app`);
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Your CRM");
      await page.waitForLoadState("networkidle");
      expect(failed).toEqual([]);
    } finally {
      await b.close();
    }
  });

  it("shows a contact with timeline entries and the demo integrator's card with items whose actions work", async () => {
    const { page, failed } = await open(`/app/contacts/${demo.contactId}`);
    await page.waitForFunction(noCardLoading, undefined, { timeout: 15_000 });
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toContain("Ada Lovelace");
    const events = page.locator(".timeline .event");
    expect(await events.count()).toBe(2);
    const webinar = events.first();
    expect(await webinar.locator("summary").innerText()).toContain("Attended CRM at the edge");
    await webinar.locator("summary").click();
    // The detail template's Markdown and formatDate, rendered.
    expect(await webinar.locator(".event-detail strong").first().textContent()).toBe("47 minutes");
    expect(await webinar.locator(".event-detail").innerText()).toMatch(/Joined on [A-Z][a-z]+ \d{1,2}, \d{4}/);
    expect(await webinar.locator(".event-detail li").count()).toBe(2);

    const card = page.locator("section.card", { has: page.getByRole("heading", { name: "Shop orders", exact: true }) });
    const items = card.locator(".card-item");
    // The record's own orders: their number, status, total and customer come from the record.
    const expected = demoOrders("CONTACT", demo.contactId);
    expect(await items.count()).toBe(expected.length);
    const first = items.first();
    expect(await first.locator(".item-title").textContent()).toBe(`Order #${expected[0]!.id}`);
    expect(await first.locator(".badge").textContent()).toBe(expected[0]!.statusLabel);
    expect(await first.locator(".item-props div", { hasText: "Total" }).locator("dd").textContent()).toBe(`€${expected[0]!.total}`);
    expect(await first.locator(".item-props div", { hasText: "Customer" }).locator("dd").textContent()).toBe("ada@example.com");
    await screenshot(page, "demo-contact.png");

    // ACTION_HOOK: the integrator verifies the signature, answers, and the card reloads with the new status.
    const title = (await first.locator(".item-title").textContent())?.trim() ?? "";
    await page.getByRole("button", { name: `Actions for ${title}` }).click();
    await page.getByRole("button", { name: "Mark as shipped", exact: true }).click();
    await card.getByRole("status").filter({ hasText: "is marked as shipped" }).waitFor();
    await card.locator(".card-item").first().locator(".badge", { hasText: "Shipped" }).waitFor();

    // IFRAME: the integrator's page closes the modal with DONE.
    await page.getByRole("button", { name: `Actions for ${title}` }).click();
    await page.getByRole("button", { name: "Edit order", exact: true }).click();
    const modal = page.locator("#iframe-modal");
    await modal.waitFor({ state: "visible" });
    await screenshot(page, "demo-contact-modal.png", false);
    await page.frameLocator("#iframe-modal iframe").getByRole("button", { name: "Done" }).click();
    await modal.waitFor({ state: "hidden" });

    // CONFIRMATION_ACTION_HOOK: only confirming calls the hook.
    const second = card.locator(".card-item").nth(1);
    const secondTitle = (await second.locator(".item-title").textContent())?.trim() ?? "";
    await page.getByRole("button", { name: `Actions for ${secondTitle}` }).click();
    await page.getByRole("button", { name: "Cancel order", exact: true }).click();
    await page.getByRole("button", { name: "Cancel the order" }).click();
    await card.getByRole("status").filter({ hasText: "was cancelled" }).waitFor();
    expect(refused).toEqual([]); // every request the integrator got was signed with the app's secret
    expect(failed).toEqual([]);
    await page.close();
  });

  it("shows Ada's note, task and logged call on her timeline, newest first, each made through the v3 API with its association", async () => {
    // Made through POST /crm/v3/objects/{notes,tasks,calls} with associations: the contact's v4 pages list them.
    for (const type of ["notes", "tasks", "calls"]) {
      const res = await fetch(`${workerUrl()}/crm/v4/objects/contacts/${demo.contactId}/associations/${type}`, { headers: { authorization: `Bearer ${demo.privateAppToken}` } });
      expect(((await res.json()) as { results: unknown[] }).results, type).toHaveLength(1);
    }
    const { page, failed } = await open(`/app/contacts/${demo.contactId}`);
    const activities = page.locator("ol.activities > li");
    // The task is due in two days, the call was three days ago, the note six.
    expect(await activities.evaluateAll((els) => els.map((el) => el.className))).toEqual(["activity activity-tasks", "activity activity-calls", "activity activity-notes"]);
    const [task, callEntry, note] = [activities.nth(0), activities.nth(1), activities.nth(2)];
    expect(await task.innerText()).toMatch(/Send Ada the bulk price list\s*Not started[\s\S]*Task · due [A-Z][a-z]{2} \d{1,2}, \d{4}/);
    expect(await task.locator(".badge").textContent()).toBe("Not started");
    expect(await callEntry.innerText()).toMatch(/Follow-up on the order[\s\S]*Outbound call · 7 min · [A-Z][a-z]{2} \d{1,2}, \d{4}/);
    expect(await note.locator(".activity-body strong").textContent()).toBe("bulk pricing");
    // The apps' events are still there, in their own list below.
    expect(await page.locator(".timeline .event").count()).toBe(2);
    await screenshot(page, "demo-contact-activities.png");
    expect(failed).toEqual([]);
    await page.close();
  });

  it("shows a synced deal with its pipeline stage, line items, shipment timeline and the card", async () => {
    const { page, failed } = await open(`/app/deals/${demo.dealId}`);
    await page.waitForFunction(noCardLoading, undefined, { timeout: 15_000 });
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toContain("Order #1001");
    expect(await page.locator(".summary .stage").textContent()).toBe("Shipped");
    expect(await page.locator(".summary").innerText()).toContain("Ecommerce Pipeline");
    expect(await page.locator(".assoc a").allTextContents()).toEqual(expect.arrayContaining(["Ada Lovelace", "Copper kettle", "Stoneware mugs (set of 4)"]));
    expect(await page.locator(".timeline .event summary").first().innerText()).toContain("Parcel delivered with Parcel Express");
    // Another record, other orders.
    const orders = demoOrders("DEAL", demo.dealId);
    expect(await page.locator("section.card .card-item").count()).toBe(orders.length);
    expect(await page.locator("section.card .item-title").allTextContents()).toEqual(orders.map((o) => `Order #${o.id}`));
    // Dates read as dates, with the exact value on hover.
    const close = page.locator(".props div", { hasText: "closedate" }).locator("time");
    expect(await close.getAttribute("title")).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z \(\d{13}\)$/);
    expect(await close.textContent()).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M$/);
    await screenshot(page, "demo-deal.png");
    expect(failed).toEqual([]);
    await page.close();
  });

  it("shows the store with its synced records, linked to their records, and its open sync error", async () => {
    const { page, failed } = await open("/app/stores");
    const store = page.locator("section.store", { has: page.getByRole("heading", { name: /Demo coffee shop/ }) });
    expect(await store.locator(".counts dd").allTextContents()).toEqual(["2", "3", "4", "5"]);
    expect(await store.locator("table.synced tbody tr").count()).toBe(10);
    expect(await store.locator("table.errors").innerText()).toContain("ERROR_INVALID_NUMBER_PROPERTY");
    await screenshot(page, "demo-stores.png");
    await store.getByRole("link", { name: "Order #1001" }).click();
    await page.waitForURL(`${workerUrl()}/app/deals/${demo.dealId}`);
    await page.goto(`${workerUrl()}/app/stores/${demo.storeId}?type=DEAL`);
    expect(await page.locator("table.synced tbody tr").count()).toBe(4);
    expect(await page.locator("table.synced .stage").allTextContents()).toEqual(["Shipped", "Processed", "Checkout Pending", "Checkout Completed"]);
    await screenshot(page, "demo-store-deals.png");
    expect(failed).toEqual([]);
    await page.close();
  });

  it("shows the demo's sent mail: one message over SMTP with its token, one transactional send", async () => {
    const { page, failed } = await open("/app/mail");
    const rows = page.locator("table.mail tbody tr");
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).innerText()).toContain("Email 1001");
    expect(await rows.nth(1).innerText()).toContain("Your order #1001 has shipped");
    expect(await rows.nth(1).innerText()).toContain(demo.smtpUserName);
    await rows.nth(1).locator("summary").click();
    expect(await rows.nth(1).locator("pre.mail-body").innerText()).toContain("your order #1001 is on its way");
    await screenshot(page, "demo-mail.png");
    expect(failed).toEqual([]);
    await page.close();
  });
});

describe("the rest of the demo", () => {
  it("publishes a blog post with a public page, by its author, listed on the blog's index", async () => {
    const res = await fetch(`${workerUrl()}${demo.blogPath}`);
    expect(res.status).toBe(200);
    const post = await res.text();
    expect(post).toContain("Welcome to crm-edge");
    expect(post).toContain('By <span class="post-author">Grace Hopper</span>');
    const index = await fetch(`${workerUrl()}${demo.blogPath.replace(/\/[^/]+$/, "")}`);
    expect(index.status).toBe(200);
    expect(await index.text()).toContain(`<h2><a href="${demo.blogPath}">Welcome to crm-edge</a></h2>`);
  });

  it("keeps an SMTP API token", async () => {
    const res = await fetch(`${workerUrl()}/email/public/v1/smtpapi/tokens`, { headers: { authorization: `Bearer ${demo.oauthAccessToken}` } });
    expect(res.status).toBe(200);
    expect((await res.json()) as { userName: string }[]).toEqual([expect.objectContaining({ userName: demo.smtpUserName, campaignName: "Demo order confirmations" })]);
  });

  it("gives a fresh access token from the stored refresh token, and knows the demo exists", async () => {
    const before = demo.oauthAccessToken;
    const fresh = await refreshAccessToken(workerUrl(), { ...demo });
    expect(fresh.oauthAccessToken).not.toBe(before);
    const info = await fetch(`${workerUrl()}/oauth/v1/access-tokens/${fresh.oauthAccessToken}`);
    expect(info.status).toBe(200);
    expect(await demoExists(workerUrl(), demo)).toBe(true);
    expect(await demoExists(workerUrl(), { ...demo, privateAppToken: "pat-na1-nope" })).toBe(false);
  });

  it("the cron moves the old checkout_pending deal to checkout_abandoned", async () => {
    const stage = async () => {
      const res = await fetch(`${workerUrl()}/crm/v3/objects/deals/${demo.pendingDealId}?properties=dealstage`, { headers: { authorization: `Bearer ${demo.privateAppToken}` } });
      return ((await res.json()) as { properties: { dealstage: string } }).properties.dealstage;
    };
    expect(await stage()).toBe("checkout_pending");
    const run = await fetch(`${workerUrl()}/__scheduled?cron=${encodeURIComponent("* * * * *")}`);
    expect(run.status).toBe(200);
    // The tick only enqueues the jobs; the maintenance queue runs them moments later.
    const deadline = Date.now() + 30_000;
    while ((await stage()) !== "checkout_abandoned" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(await stage()).toBe("checkout_abandoned");
  });

  it("serves a favicon", async () => {
    const res = await fetch(`${workerUrl()}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon)/);
    expect(new Uint8Array(await res.arrayBuffer()).slice(0, 4)).toEqual(new Uint8Array([0, 0, 1, 0]));
  });
});

describe("the demo integrator", () => {
  it("refuses card requests that are not signed with the app's client secret", async () => {
    const unsigned = await fetch(`${integrator.url}/demo/cards/orders?associatedObjectId=1&associatedObjectType=CONTACT`);
    expect(unsigned.status).toBe(401);
    const ts = Date.now();
    const headers = { "x-service-signature-v3": "AAAA", "x-service-request-timestamp": String(ts) };
    expect(checkSignature({ secret: "s", method: "GET", uri: "http://127.0.0.1/x", body: "", headers, now: ts })).toBe("signature does not match");
    expect(checkSignature({ secret: "s", method: "GET", uri: "http://127.0.0.1/x", body: "", headers: { ...headers, "x-service-request-timestamp": String(ts - 400_000) }, now: ts })).toBe(
      "timestamp outside the 5-minute window",
    );
    refused.length = 0;
  });
});

describe("the demo's app webhooks", () => {
  it("the demo integrator receives and logs the signed delivery of a contact change", async () => {
    const line = await (async () => {
      for (let i = 0; i < 100; i++) {
        const found = hooks.find((l) => l.includes("contact.propertyChange") && l.includes('city="Wilmslow"'));
        if (found) return found;
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error(`no webhook delivery logged: ${JSON.stringify(hooks)}`);
    })();
    expect(line).toMatch(/^demo integrator: webhook delivery \(attempt 0, 1 event\(s\)\): contact\.propertyChange \d+ city="Wilmslow"$/);
    expect(refused.filter((l) => l.includes("/demo/webhooks"))).toEqual([]);
  });
});
