/** The web app's pages: sign-in redirect, start page, lists with search, record pages, store overview. */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant, unique, type Tenant } from "../helpers/api";
import { defineCard } from "../cards/helpers";
import { bridgeTenant, deliver, qmsg } from "../ecomm/queue-helpers";
import { createProp, createType, expectStored } from "../timeline/helpers";
import { cspOf, page, signIn } from "./helpers";
import { accountD1 } from "../helpers/shards";

async function create(t: Tenant, type: string, properties: Record<string, string>) {
  const res = await call("POST", `/crm/v3/objects/${type}`, { token: t.pat, body: { properties } });
  expect(res.status, res.text).toBe(201);
  return Number(res.json.id);
}

/** Record links of a list page, in order: `[id, name]`. */
const listed = (html: string, type: string) => [...html.matchAll(new RegExp(`<a href="/app/${type}/(\\d+)">([^<]*)</a>`, "g"))].map((m) => [Number(m[1]), m[2]]);

describe("signed-out visitors", () => {
  it.each(["/app", "/app/contacts", "/app/contacts?q=a%20b", "/app/deals/12", "/app/stores", "/app/widgets", "/app/"])("GET %s redirects to the sign-in page and back", async (path) => {
    const res = await page(null, path);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`/login?next=${encodeURIComponent(path)}`);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("a stale or forged session cookie is signed out too", async () => {
    const res = await page({ cookie: "crm_session=forged", csrf: "" }, "/app");
    expect(res.status).toBe(302);
  });

  it("sign-in lands on /app and signing out ends the session", async () => {
    const t = await tenant();
    const b = await signIn(t);
    const out = await call("POST", "/logout", { raw: `csrf=${b.csrf}`, headers: { cookie: b.cookie, "content-type": "application/x-www-form-urlencoded" } });
    expect(out.status).toBe(303);
    expect((await page(b, "/app")).status).toBe(302);
  });
});

describe("GET /app", () => {
  it("shows counts of the account's records, the navigation and the CSRF token, under a strict CSP", async () => {
    const t = await tenant();
    await create(t, "contacts", { email: `${unique("c")}@example.com` });
    await create(t, "deals", { dealname: "D" });
    const b = await signIn(t);
    const res = await page(b, "/app");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html;charset=utf-8");
    expect(res.text).toMatch(/href="\/app\/contacts"><span class="tile-label">Contacts<\/span><span class="tile-count">1</);
    expect(res.text).toMatch(/Deals<\/span><span class="tile-count">1</);
    expect(res.text).toContain(`<meta name="csrf-token" content="${b.csrf}">`);
    expect(res.text).toContain(`<input type="hidden" name="csrf" value="${b.csrf}">`);
    expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)/); // no inline script
    const csp = cspOf(res.headers.get("content-security-policy"));
    expect(csp.get("script-src")).toEqual(["'self'"]);
    expect(csp.get("style-src")).toEqual(["'self'"]);
    expect(csp.get("frame-src")).toEqual(["'none'"]);
    expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
  });
});

describe("GET /app/:objectType (lists and search)", () => {
  it("searches contacts by name or email, case-insensitively, within the account only", async () => {
    const t = await tenant();
    const other = await tenant();
    const tag = unique("s");
    const ada = await create(t, "contacts", { firstname: "Ada", lastname: "Lovelace", email: `ada-${tag}@example.com` });
    const grace = await create(t, "contacts", { firstname: "Grace", lastname: "Hopper", email: `grace-${tag}@example.com` });
    const pct = await create(t, "contacts", { firstname: "100%", lastname: "Real", email: `real-${tag}@example.com` });
    await create(other, "contacts", { firstname: "Ada", lastname: "Other", email: `ada-${tag}@other.example.com` });
    const b = await signIn(t);
    const search = async (q: string) => listed((await page(b, `/app/contacts?q=${encodeURIComponent(q)}`)).text, "contacts").map(([id]) => id);
    expect(await search("")).toEqual([ada, grace, pct]);
    expect(await search("ada")).toEqual([ada]);
    expect(await search("LOVELACE")).toEqual([ada]);
    expect(await search("ada lovelace")).toEqual([ada]);
    expect(await search(`grace-${tag}@`)).toEqual([grace]);
    expect(await search("%")).toEqual([pct]); // wildcards are literal
    expect(await search("_")).toEqual([]);
    expect(await search("nobody")).toEqual([]);
    const empty = await page(b, "/app/contacts?q=nobody");
    expect(empty.text).toContain("No contacts match “nobody”.");
  });

  it("searches companies by name or domain, deals by name and tickets by subject", async () => {
    const t = await tenant();
    const acme = await create(t, "companies", { name: "Acme", domain: "acme.example" });
    await create(t, "companies", { name: "Globex", domain: "globex.example" });
    const deal = await create(t, "deals", { dealname: "Big renewal" });
    const ticket = await create(t, "tickets", { subject: "Printer on fire" });
    const b = await signIn(t);
    expect(listed((await page(b, "/app/companies?q=acme.ex")).text, "companies")).toEqual([[acme, "Acme"]]);
    expect(listed((await page(b, "/app/deals?q=renew")).text, "deals")).toEqual([[deal, "Big renewal"]]);
    expect(listed((await page(b, "/app/tickets?q=FIRE")).text, "tickets")).toEqual([[ticket, "Printer on fire"]]);
  });

  it("escapes names and pages 25 at a time", async () => {
    const t = await tenant();
    const ids: number[] = [];
    for (let i = 0; i < 27; i++) ids.push(await create(t, "companies", { name: i === 0 ? "<script>alert(1)</script>" : `Co ${i}` }));
    const b = await signIn(t);
    const first = await page(b, "/app/companies");
    expect(first.text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(first.text).not.toContain("<script>alert(1)");
    expect(listed(first.text, "companies").map(([id]) => id)).toEqual(ids.slice(0, 25));
    expect(first.text).toContain(`<a href="/app/companies?after=${ids[24]}" rel="next">Next page</a>`);
    const second = await page(b, `/app/companies?after=${ids[24]}`);
    expect(listed(second.text, "companies").map(([id]) => id)).toEqual(ids.slice(25));
    expect(second.text).not.toContain("Next page");
  });

  it.each([
    ["a query over 100 characters", `?q=${"x".repeat(101)}`, "q: q must be at most 100 characters"],
    ["a cursor that is not an id", "?after=abc", "after: after must be a record id"],
  ])("refuses %s with a 400 page naming the field", async (_name, qs, message) => {
    const b = await signIn(await tenant());
    const res = await page(b, `/app/contacts${qs}`);
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("text/html;charset=utf-8");
    expect(res.text).toContain(message);
  });

  it("answers an unknown list with a 404 page", async () => {
    const b = await signIn(await tenant());
    const res = await page(b, "/app/widgets");
    expect(res.status).toBe(404);
    expect(res.text).toContain("There is no such list.");
  });
});

describe("GET /app/:objectType/:objectId (record page)", () => {
  it("shows properties, associations, the rendered timeline and a placeholder per card; frame-src lists only what the page may open", async () => {
    const t = await tenant();
    const contact = await create(t, "contacts", { firstname: "Zoë", lastname: "Quinn", email: `${unique("z")}@example.com`, city: "Paris <b>" });
    const company = await create(t, "companies", { name: "Acme & Co" });
    expect((await call("PUT", `/crm/v3/objects/contacts/${contact}/associations/companies/${company}`, { token: t.pat })).status).toBe(204);
    const type = await createType(t, { name: "Webinar", headerTemplate: "Registered for **{{title}}**", detailTemplate: "Speaker: {{extraData.speaker}}" });
    await createProp(t, type.id, { name: "title", label: "Title", propertyType: "String" });
    const iframe = { linkLabel: "Open recording", iframeLabel: "Recording", iframeUri: "https://video.example.com/r/1?t=abc", width: 640, height: 360 };
    await expectStored(t, { id: "w1", eventTypeId: type.id, objectId: contact, timestamp: 1_700_000_000_000, title: "Intro", extraData: { speaker: "Ann" }, timelineIFrame: iframe });
    const card = await defineCard(t, { title: "Tickets <b>", baseUris: ["https://cards.example.com/actions", "https://cards.example.com/"] });
    const companyCard = await defineCard(t, { title: "Company only", associatedHubSpotObjectTypes: ["COMPANY"] });
    const b = await signIn(t);
    const res = await page(b, `/app/contacts/${contact}`);
    expect(res.status, res.text).toBe(200);
    const html = res.text;
    expect(html).toContain("<h1>Zoë Quinn");
    expect(html).toContain("<dt>city</dt><dd>Paris &lt;b&gt;</dd>");
    expect(html).toContain(`<dt>hs_object_id</dt><dd>${contact}</dd>`);
    expect(html).toContain(`<a href="/app/companies/${company}">Acme &amp; Co</a>`);
    expect(html).toContain(`<summary><span class="event-head">Registered for <strong>Intro</strong></span>`);
    expect(html).toContain(`<div class="event-detail"><p>Speaker: Ann</p></div></details>`);
    expect(html).toContain(`data-iframe-src="https://video.example.com/r/1?t=abc" data-iframe-width="640" data-iframe-height="360" data-iframe-label="Recording">Open recording</button>`);
    expect(html).toContain(`<section class="card" id="card-${card.id}" data-card-id="${card.id}"`);
    expect(html).toContain(`>Tickets &lt;b&gt;</h3>`);
    expect(html).not.toContain(`data-card-id="${companyCard.id}"`);
    expect(html).toContain(`<div class="record" data-object-type="contacts" data-object-id="${contact}">`);
    expect(html).toContain(`<script type="module" src="/static/record.js"></script>`);
    const csp = cspOf(res.headers.get("content-security-policy"));
    expect(csp.get("frame-src")).toEqual([
      "https://cards.example.com/actions",
      "https://cards.example.com/actions/",
      "https://cards.example.com/",
      "https://video.example.com/r/1",
    ]);
    expect(csp.get("script-src")).toEqual(["'self'"]);
    expect(csp.get("connect-src")).toEqual(["'self'"]);
  });

  it("lets frame-src name an integrator on the local integrator (http, a port) exactly", async () => {
    const t = await tenant();
    const contact = await create(t, "contacts", {});
    const card = await defineCard(t);
    const b = await signIn(t);
    const res = await page(b, `/app/contacts/${contact}`);
    const base = card.body.baseUris[0] as string;
    expect(cspOf(res.headers.get("content-security-policy")).get("frame-src")).toEqual([base, `${base}/`]);
  });

  it("pages the timeline 20 events at a time with an Older events link", async () => {
    const t = await tenant();
    const contact = await create(t, "contacts", {});
    const type = await createType(t, { name: "Ping", headerTemplate: "Ping {{id}}" });
    for (let i = 0; i < 21; i++) await expectStored(t, { id: `p${i}`, eventTypeId: type.id, objectId: contact, timestamp: 1000 + i });
    const b = await signIn(t);
    const first = await page(b, `/app/contacts/${contact}`);
    expect(first.text.match(/<li class="event">/g)).toHaveLength(20);
    expect(first.text).toContain("Ping p20");
    expect(first.text).not.toContain("Ping p0<");
    const older = /<a href="([^"]+)">Older events<\/a>/.exec(first.text)?.[1];
    expect(older).toBeDefined();
    const second = await page(b, older!.replace(/&amp;/g, "&"));
    expect(second.text.match(/<li class="event">/g)).toHaveLength(1);
    expect(second.text).toContain("Ping p0<");
    expectError(await page(b, `/app/contacts/${contact}?after=yesterday`), 400, "VALIDATION_ERROR");
  });

  it("shows tickets with their activities but no app events, and with their own cards", async () => {
    const t = await tenant();
    const ticket = await create(t, "tickets", { subject: "Broken" });
    const card = await defineCard(t, { title: "Ticket card", associatedHubSpotObjectTypes: ["TICKET"] });
    const b = await signIn(t);
    const res = await page(b, `/app/tickets/${ticket}`);
    expect(res.status).toBe(200);
    // The activity forms sit between the heading and the list.
    expect(res.text).toMatch(/<h3 id="activities-h">Activities<\/h3><div class="work-forms">.*<\/div><p class="empty">No activities yet.<\/p>/s);
    expect(res.text).not.toContain("Events from apps");
    expect(res.text).toContain(`data-card-id="${card.id}"`);
  });

  it("answers another account's record, a missing one and a malformed id with the same 404 page", async () => {
    const a = await tenant();
    const secret = await create(a, "contacts", { firstname: "Secret", email: `${unique("s")}@example.com` });
    const b = await signIn(await tenant());
    for (const path of [`/app/contacts/${secret}`, "/app/contacts/999999999", "/app/contacts/abc", `/app/products/${secret}`]) {
      const res = await page(b, path);
      expect(res.status, path).toBe(404);
      expect(res.text).not.toContain("Secret");
    }
    // The same id as the wrong type is not found either.
    expect((await page(await signIn(a), `/app/companies/${secret}`)).status).toBe(404);
  });
});

describe("GET /app/stores", () => {
  it("shows each store's synced record counts and open sync errors with their details, for this account only", async () => {
    const { t, origin } = await bridgeTenant();
    await deliver([
      qmsg(origin, "PRODUCT", { externalObjectId: "p1", properties: { title: "Hat" } }),
      qmsg(origin, "PRODUCT", { externalObjectId: "p2", properties: { title: "Scarf" } }),
      qmsg(origin, "CONTACT", { externalObjectId: "c<1>", properties: { firstname: "No email" } }),
    ]);
    const other = await bridgeTenant();
    await deliver([qmsg(other.origin, "CONTACT", { externalObjectId: "other-c", properties: { firstname: "x" } })]);
    const b = await signIn(t);
    const res = await page(b, "/app/stores");
    expect(res.status).toBe(200);
    expect(res.text).toContain(`<h2 id="store-0">Shop <span class="muted">(shop)</span></h2>`);
    expect(res.text).toContain(`<a href="https://shop.example.com/admin" rel="noopener noreferrer" target="_blank">Store admin</a>`);
    expect(res.text).toContain(`<div><dt>Products</dt><dd><a href="/app/stores/shop?type=PRODUCT" aria-label="2 products: list them">2</a></dd></div>`);
    expect(res.text).toContain(`<div><dt>Contacts</dt><dd><a href="/app/stores/shop?type=CONTACT" aria-label="0 contacts: list them">0</a></dd></div>`);
    expect(res.text).toContain(`Open sync errors <span class="count">(1)</span>`);
    // The contact never got a record, so its error has nothing to link to.
    expect(res.text).toContain(`Contact <code>c&lt;1&gt;</code> <span class="muted">(no record yet)</span>`);
    // The type may wrap at its underscores only, never inside a word.
    expect(res.text).toContain('<code class="error-type">MISSING_<wbr>REQUIRED_<wbr>PROPERTY</code>');
    expect(res.text).not.toContain("other-c");
  });

  it("lists the newest 20 open errors of a store and counts all of them; resolved errors are left out", async () => {
    const { t } = await bridgeTenant();
    const d1 = await accountD1(t.portalId);
    const insert = (ext: string, at: number, status: string) =>
      d1.prepare(
        "insert into ecomm_sync_errors (portal_id, store_id, object_type, external_id, app_id, message_id, changed_at, errored_at, type, details, status) values (?, 'shop', 'PRODUCT', ?, ?, ?, ?, ?, 'INVALID_NUMBER', ?, ?)",
      ).bind(t.portalId, ext, t.appId, `m-${ext}`, at - 1, at, `details of ${ext}`, status);
    await d1.batch([...Array.from({ length: 22 }, (_, i) => insert(`e${i}`, 1_000 + i, "OPEN")), insert("fixed", 5_000, "RESOLVED")]);
    const res = await page(await signIn(t), "/app/stores");
    expect(res.text).toContain(`Open sync errors <span class="count">(22)</span>`);
    expect(res.text.match(/<td role="cell" data-label="Type"><span><code class="error-type">INVALID_<wbr>NUMBER<\/code><\/span><\/td>/g)).toHaveLength(20);
    expect(res.text).toContain("details of e21");
    expect(res.text).not.toContain("details of e1<");
    expect(res.text).not.toContain("fixed");
    expect(res.text).toContain("Showing the newest 20 of 22 open errors.");
  });

  it("says so when the account has no store", async () => {
    const b = await signIn(await tenant());
    expect((await page(b, "/app/stores")).text).toContain("No stores are connected");
  });
});
