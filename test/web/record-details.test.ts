/**
 * What record pages show people: a deal's pipeline stage by its label, and dates as people
 * read them with the exact value on hover, instead of raw ISO strings and epoch milliseconds.
 */
import { describe, expect, it } from "vitest";
import { call, tenant } from "../helpers/api";
import { bridgeTenant, deliver, qmsg } from "../ecomm/queue-helpers";
import { page, signIn } from "./helpers";

/** The `<dd>` of one property in the record page's property list. */
const prop = (html: string, name: string) => new RegExp(`<div><dt>${name}</dt><dd>(.*?)</dd></div>`).exec(html)?.[1];

async function dealIdOf(portalToken: string, name: string) {
  const res = await call("GET", "/crm/v3/objects/deals?limit=100&properties=dealname", { token: portalToken });
  const row = (res.json.results as { id: string; properties: { dealname?: string } }[]).find((r) => r.properties.dealname === name);
  if (!row) throw new Error(`no deal ${name}`);
  return Number(row.id);
}

describe("the deal page", () => {
  it("shows the ecommerce pipeline stage by its label, the amount and the close date", async () => {
    const { t, origin } = await bridgeTenant();
    const closed = Date.UTC(2026, 10, 20, 14, 5);
    await deliver([qmsg(origin, "DEAL", { externalObjectId: "d1", properties: { name: "Order 7", stage: "checkout_pending", closed: String(closed) } })]);
    const b = await signIn(t);
    const res = await page(b, `/app/deals/${await dealIdOf(t.pat, "Order 7")}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(
      `<dl class="summary" aria-label="Deal summary"><div><dt>Stage</dt><dd><span class="stage stage-checkout_pending">Checkout Pending</span></dd></div><div><dt>Pipeline</dt><dd>Ecommerce Pipeline</dd></div>`,
    );
    expect(res.text).toContain(`<div><dt>Close date</dt><dd><time datetime="2026-11-20T14:05:00.000Z">Nov 20, 2026, 2:05 PM UTC</time></dd></div>`);
  });

  it("shows a stage of the built-in pipeline by its label, the amount in the account's currency, and no summary for a deal without one", async () => {
    const t = await tenant();
    const b = await signIn(t);
    const make = async (properties: Record<string, string>) => Number((await call("POST", "/crm/v3/objects/deals", { token: t.pat, body: { properties } })).json.id);
    const staged = await page(b, `/app/deals/${await make({ dealname: "Manual", dealstage: "appointmentscheduled", pipeline: "default", amount: "1234.5" })}`);
    expect(staged.text).toContain(
      `<div><dt>Stage</dt><dd><span class="stage stage-appointmentscheduled">Appointment Scheduled</span></dd></div><div><dt>Pipeline</dt><dd>Sales Pipeline</dd></div><div><dt>Amount</dt><dd>$1,234.50</dd></div>`,
    );
    expect(staged.text).not.toContain("Ecommerce Pipeline");
    const bare = await page(b, `/app/deals/${await make({ dealname: "Bare" })}`);
    expect(bare.text).not.toContain(`class="summary"`);
  });
});

describe("the deals list", () => {
  it("shows each deal's stage by its label and its amount with its currency, in columns of their own", async () => {
    // A store gives the account the ecommerce pipeline, whose stages these deals are in.
    const { t } = await bridgeTenant();
    const make = (properties: Record<string, string>) => call("POST", "/crm/v3/objects/deals", { token: t.pat, body: { properties } });
    await make({ dealname: "Euro order", pipeline: "ecommerce", dealstage: "shipped", amount: "128.9", deal_currency_code: "EUR" });
    await make({ dealname: "Dollar order", pipeline: "ecommerce", dealstage: "checkout_pending", amount: "1234.5", deal_currency_code: "usd" });
    await make({ dealname: "Plain order", dealstage: "appointmentscheduled", amount: "77" });
    await make({ dealname: "Odd order", amount: "about ten", deal_currency_code: "EUR" });
    const html = (await page(await signIn(t), "/app/deals")).text;
    const heads = [...html.matchAll(/<th role="columnheader" scope="col"( class="num")?><a class="sort" href="[^"]*">([^<]*)</g)].map((m) => `${m[2]}${m[1] ? " (num)" : ""}`);
    expect(heads.slice(0, 3)).toEqual(["Name", "Stage", "Amount (num)"]);
    const row = (name: string) => new RegExp(`<tr role="row">(?:(?!</tr>).)*>${name}</a>(?:(?!</tr>).)*</tr>`).exec(html)?.[0] ?? "";
    const cell = (name: string, label: string) => new RegExp(`data-label="${label}"[^>]*><span>(.*?)</span></td>`).exec(row(name))?.[1];
    expect([cell("Euro order", "Stage"), cell("Euro order", "Amount")]).toEqual([`<span class="stage stage-shipped">Shipped</span>`, "€128.90"]);
    expect([cell("Dollar order", "Stage"), cell("Dollar order", "Amount")]).toEqual([`<span class="stage stage-checkout_pending">Checkout Pending</span>`, "$1,234.50"]);
    // A stage of the built-in pipeline by its label too; an amount without a currency as a number.
    expect([cell("Plain order", "Stage"), cell("Plain order", "Amount")]).toEqual([`<span class="stage stage-appointmentscheduled">Appointment Scheduled</span>`, "77.00"]);
    expect([cell("Odd order", "Stage"), cell("Odd order", "Amount")]).toEqual(["", "about ten"]);
  });

  it("the deal page shows the amount with its currency", async () => {
    const t = await tenant();
    const made = await call("POST", "/crm/v3/objects/deals", { token: t.pat, body: { properties: { dealname: "Euro", amount: "128.9", deal_currency_code: "EUR" } } });
    const html = (await page(await signIn(t), `/app/deals/${made.json.id}`)).text;
    expect(html).toContain(`<div><dt>Amount</dt><dd>€128.90</dd></div>`);
  });
});

describe("dates on record pages", () => {
  it("shows ISO instants and epoch-ms date properties as readable dates with the exact value on hover; other values stay text", async () => {
    const t = await tenant();
    const res = await call("POST", "/crm/v3/objects/contacts", {
      token: t.pat,
      body: { properties: { email: "dates@example.com", firstname: "Dee", hs_last_visit_at: "2026-11-23T17:57:51.541Z", renewaldate: "1795000000000", zip: "1795000000000", note: "2026-11-23" } },
    });
    expect(res.status, res.text).toBe(201);
    const html = (await page(await signIn(t), `/app/contacts/${res.json.id}`)).text;
    expect(prop(html, "hs_last_visit_at")).toBe(`<time datetime="2026-11-23T17:57:51.541Z" title="2026-11-23T17:57:51.541Z" data-local>Nov 23, 2026, 5:57 PM UTC</time>`);
    expect(prop(html, "renewaldate")).toBe(`<time datetime="2026-11-18T11:06:40.000Z" title="2026-11-18T11:06:40.000Z (1795000000000)" data-local>Nov 18, 2026, 11:06 AM UTC</time>`);
    // createdate / lastmodifieddate are ISO instants too.
    expect(prop(html, "createdate")).toMatch(/^<time datetime="[^"]+Z" title="[^"]+Z" data-local>[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M UTC<\/time>$/);
    // A number in a property whose name is not a date, and a plain date string, are shown as they are.
    expect(prop(html, "zip")).toBe("1795000000000");
    expect(prop(html, "note")).toBe("2026-11-23");
  });
});

describe("a deal's line items", () => {
  it("are a table of quantity, unit price and total in the deal's currency, with their sum beside the deal's amount", async () => {
    const t = await tenant();
    const b = await signIn(t);
    const made = async (type: string, properties: Record<string, string>) => Number((await call("POST", `/crm/v3/objects/${type}`, { token: t.pat, body: { properties } })).json.id);
    const deal = await made("deals", { dealname: "Order 9", amount: "30", deal_currency_code: "EUR" });
    const items = [
      await made("line_items", { name: "Mug", quantity: "2", price: "4.5" }),
      await made("line_items", { name: "Kettle <large>", quantity: "1", price: "20", amount: "19.99" }),
    ];
    for (const id of items) {
      const linked = await call("PUT", `/crm/v4/objects/line_items/${id}/associations/default/deals/${deal}`, { token: t.pat });
      expect(linked.status, linked.text).toBe(200);
    }
    const html = (await page(b, `/app/deals/${deal}`)).text;
    const table = /<table class="assoc line-items">.*?<\/table>/s.exec(html)?.[0] ?? "";
    expect(table).toContain(`<tr><th scope="row"><a href="/app/line_items/${items[0]}">Mug</a></th><td class="num">2</td><td class="num">€4.50</td><td class="num">€9.00</td></tr>`);
    // A line item's own amount is its total.
    expect(table).toContain(`<a href="/app/line_items/${items[1]}">Kettle &lt;large&gt;</a></th><td class="num">1</td><td class="num">€20.00</td><td class="num">€19.99</td>`);
    expect(table).toContain(`<tr><th scope="row" colspan="3">Sum of line items</th><td class="num">€28.99</td></tr>`);
    expect(table).toContain(`Deal amount <span class="muted">(differs from the sum)</span></th><td class="num">€30.00</td>`);
    // No longer a bare list of links.
    expect(html).not.toMatch(/<ul class="assoc">[^]*line_items/);
  });
});
