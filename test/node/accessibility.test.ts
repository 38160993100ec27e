/**
 * The accessibility audit (axe-core, as Lighthouse runs it) of every page of the web app, at desktop and at
 * phone width: a page with a control without a label, text without enough contrast, headings out of order
 * or a duplicate id fails here with the rule and the elements that break it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { tenant, workerUrl, type NodeTenant } from "./helpers";
import { launch, signInAt, type Browser } from "./browser";
import { audit } from "./audit";

let b: Browser;
let page: Page;
let t: NodeTenant;
const ids: Record<string, string> = {};

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${workerUrl()}${path}`, {
    method,
    headers: { authorization: `Bearer ${t.pat}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string };
}

beforeAll(async () => {
  t = await tenant();
  ids.contact = (await api("POST", "/crm/v3/objects/contacts", { properties: { firstname: "Ada", lastname: "Lovelace", email: "ada@example.com" } })).id;
  ids.company = (await api("POST", "/crm/v3/objects/companies", { properties: { name: "Analytical Engines", domain: "engines.example" } })).id;
  ids.deal = (await api("POST", "/crm/v3/objects/deals", { properties: { dealname: "Engine No. 2", amount: "1200", dealstage: "appointmentscheduled", pipeline: "default" } })).id;
  ids.ticket = (await api("POST", "/crm/v3/objects/tickets", { properties: { subject: "Gear slips", hs_pipeline_stage: "1", hs_pipeline: "0" } })).id;
  // The contact's page shows its forms' controls too: an association's label and Remove button, a task's buttons.
  await api("PUT", `/crm/v4/objects/contacts/${ids.contact}/associations/companies/${ids.company}`, [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 1 }]);
  ids.task = (await api("POST", "/crm/v3/objects/tasks", {
    properties: { hs_timestamp: "2026-12-01T09:00:00Z", hs_task_subject: "Send the notes", hs_task_status: "NOT_STARTED" },
    associations: [{ to: { id: ids.contact }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 204 }] }],
  })).id;
  b = await launch();
  page = await b.context.newPage();
  await signInAt(page, t, "/app");
}, 180_000);
afterAll(async () => b?.close());

const pages = () => [
  "/app",
  "/app/contacts",
  "/app/companies",
  "/app/deals",
  "/app/deals?sort=amount&dir=desc&fp=amount&fo=GT&fv=100&fh=&col=dealstage&col=amount&col=closedate",
  "/app/deals/board",
  "/app/tickets",
  `/app/contacts/${ids.contact}`,
  `/app/companies/${ids.company}`,
  `/app/deals/${ids.deal}`,
  `/app/tickets/${ids.ticket}`,
  // Finding a company to associate with the contact: the search form and each result's label choice.
  `/app/contacts/${ids.contact}/associate?type=companies`,
  "/app/stores",
  "/app/mail",
  // The record forms: a new record, the whole edit, one property's edit, the delete confirmation.
  "/app/contacts/new",
  "/app/deals/new",
  `/app/deals/${ids.deal}/edit`,
  `/app/deals/${ids.deal}/edit?property=amount`,
  `/app/contacts/${ids.contact}/delete`,
  `/app/contacts/${ids.contact}/activities/${ids.task}/edit`,
];

describe("accessibility audit of the web app", () => {
  for (const width of [1280, 390]) {
    it(`every page passes at ${width} px wide`, async () => {
      await page.setViewportSize({ width, height: 900 });
      const found: string[] = [];
      for (const path of pages()) {
        await page.goto(`${workerUrl()}${path}`);
        await page.waitForLoadState("networkidle");
        // The record page's activity forms are audited open, as a user fills them in.
        await page.locator("details.work").evaluateAll((els) => els.forEach((el) => el.setAttribute("open", "")));
        for (const v of await audit(page)) found.push(`${path}: ${v}`);
      }
      expect(found).toEqual([]);
    });
  }

  it("the audit finds what it checks: an unlabelled field and faint text", async () => {
    const p = await b.context.newPage();
    await p.setContent(`<!doctype html><html lang="en"><head><title>t</title></head><body><main><h1>t</h1><input name="q"><p style="color:#ddd;background:#fff">faint</p></main></body></html>`);
    const found = await audit(p);
    expect(found.map((v) => v.split(" ")[0])).toEqual(expect.arrayContaining(["label", "color-contrast"]));
    await p.close();
  });

  it("the sign-in page passes", async () => {
    const fresh = await b.context.browser()!.newContext();
    const p = await fresh.newPage();
    await p.goto(`${workerUrl()}/login`);
    expect(await audit(p)).toEqual([]);
    await fresh.close();
  });
});
