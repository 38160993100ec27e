/**
 * The record forms of the web app and the record page's properties: labels by group and values as people
 * read them; create, edit (whole or one property) and delete through forms that carry the session's CSRF
 * token, answer 303, show the API's own 400 next to the field it names with what was typed kept, and never
 * reach another account's record. Every write is checked through the v3 API.
 */
import { describe, expect, it } from "vitest";
import { admin, call, tenant, unique, type Tenant } from "../helpers/api";
import { carBody, S } from "../schemas/helpers";
import { page, signIn, type Browser } from "./helpers";

async function create(t: Tenant, type: string, properties: Record<string, string>) {
  const res = await call("POST", `/crm/v3/objects/${type}`, { token: t.pat, body: { properties } });
  expect(res.status, res.text).toBe(201);
  return res.json.id as string;
}

const read = (t: Tenant, type: string, id: string, props: string) => call("GET", `/crm/v3/objects/${type}/${id}?properties=${props}`, { token: t.pat });

/** Posts a form as a browser does (urlencoded), with the session cookie; `csrf` null leaves the token out. */
function post(b: Browser, path: string, fields: Record<string, string>, csrf: string | null = b.csrf) {
  const form = new URLSearchParams(fields);
  if (csrf !== null) form.set("csrf", csrf);
  return call("POST", path, { raw: form.toString(), headers: { cookie: b.cookie, "content-type": "application/x-www-form-urlencoded" } });
}

/** The control named `p:<name>` and the error tied to it. */
function field(html: string, name: string) {
  const control = new RegExp(`<(input|select|textarea) id="([^"]+)" name="p:${name}"[^>]*>`).exec(html);
  const id = control?.[2];
  const error = id ? new RegExp(`<p class="field-error" id="${id}-error">([^<]*)</p>`).exec(html)?.[1] : undefined;
  return { tag: control?.[0] ?? "", error };
}

describe("record page properties", () => {
  it("shows the same instant in the account's zone of the moment: after a change of zone, the new zone's text", async () => {
    const t = await tenant();
    const deal = await create(t, "deals", { dealname: "Zones", closedate: "2026-11-20T14:05:00Z" });
    const b = await signIn(t);
    const closedate = async () => /<div id="prop-closedate"><dt>[^<]*<\/dt><dd><span class="value"><time[^>]*>([^<]*)<\/time>/.exec((await page(b, `/app/deals/${deal}`)).text)?.[1];
    expect((await admin("PATCH", `/admin/v1/accounts/${t.portalId}`, { timeZone: "Europe/Paris" })).status).toBe("active");
    expect(await closedate()).toBe("Nov 20, 2026, 3:05 PM GMT+1");
    expect((await admin("PATCH", `/admin/v1/accounts/${t.portalId}`, { timeZone: "Asia/Tokyo" })).status).toBe("active");
    expect(await closedate()).toBe("Nov 20, 2026, 11:05 PM GMT+9");
  });

  it("shows labels by group and values by their definitions: money in the account's currency, datetimes in its zone, options, owners and stages by label", async () => {
    const t = await tenant();
    expect((await admin("PATCH", `/admin/v1/accounts/${t.portalId}`, { timeZone: "Europe/Paris", companyCurrency: "EUR" })).status).toBe("active");
    const group = await call("POST", "/crm/v3/properties/deals/groups", { token: t.pat, body: { name: "terms", label: "Terms" } });
    expect(group.status, group.text).toBe(201);
    const prop = await call("POST", "/crm/v3/properties/deals", {
      token: t.pat,
      body: { name: "payment", label: "Payment terms", type: "enumeration", fieldType: "select", groupName: "terms", options: [{ label: "Net 30 days", value: "net30" }, { label: "Upfront", value: "upfront" }] },
    });
    expect(prop.status, prop.text).toBe(201);
    const owner = (await call("GET", "/crm/v3/owners", { token: t.pat })).json.results[0] as { id: string; firstName: string; lastName: string; email: string };
    const deal = await create(t, "deals", { dealname: "Engine", amount: "1200.5", closedate: "2026-11-20T14:05:00Z", pipeline: "default", dealstage: "appointmentscheduled", payment: "net30", hubspot_owner_id: owner.id });
    const b = await signIn(t);
    const html = (await page(b, `/app/deals/${deal}`)).text;
    const shown = (name: string) => new RegExp(`<div id="prop-${name}"><dt>([^<]*)</dt><dd><span class="value">(.*?)</span>`).exec(html)?.slice(1);
    expect(shown("amount")).toEqual(["Amount", "€1,200.50"]);
    // 14:05 UTC is 15:05 in Paris in November.
    expect(shown("closedate")).toEqual(["Close Date", `<time datetime="2026-11-20T14:05:00.000Z">Nov 20, 2026, 3:05 PM GMT+1</time>`]);
    expect(shown("dealstage")).toEqual(["Deal Stage", "Appointment Scheduled"]);
    expect(shown("pipeline")).toEqual(["Pipeline", "Sales Pipeline"]);
    expect(shown("payment")).toEqual(["Payment terms", "Net 30 days"]);
    const ownerName = [owner.firstName, owner.lastName].filter(Boolean).join(" ") || owner.email;
    expect(shown("hubspot_owner_id")?.[1]).toBe(ownerName);
    // Grouped: the custom group's heading comes after the built-in group's properties.
    expect(html.indexOf("<h3>Terms</h3>")).toBeGreaterThan(html.indexOf('id="prop-dealname"'));
    expect(html.indexOf("<h3>Terms</h3>")).toBeLessThan(html.indexOf('id="prop-payment"'));
    // Internal names and stored values only in the Details view.
    const [main, details] = html.split('<details class="raw-props">');
    expect(main).not.toContain("net30</");
    expect(details).toContain("<dt>payment</dt><dd>net30</dd>");
    expect(details).toContain("<dt>amount</dt><dd>1200.5</dd>");
    // The deal summary stays, with Edit and Delete beside the heading.
    expect(main).toContain(`aria-label="Deal summary"`);
    expect(main).toContain(`<a class="button" href="/app/deals/${deal}/edit">Edit</a><a class="button danger" href="/app/deals/${deal}/delete">Delete</a>`);
  });
});

describe("record forms", () => {
  it("creates a contact from the form; the POST needs the session's CSRF token and answers 303", async () => {
    const t = await tenant();
    const b = await signIn(t);
    const list = (await page(b, "/app/contacts")).text;
    expect(list).toContain(`<a class="button primary" href="/app/contacts/new">New contact</a>`);
    const form = await page(b, "/app/contacts/new");
    expect(form.status).toBe(200);
    expect(form.text).toContain(`<form class="record-form" method="post" action="/app/contacts" novalidate><input type="hidden" name="csrf" value="${b.csrf}">`);
    expect(form.text).toContain(`<label for="f-firstname">First Name</label>`);
    expect(form.text).not.toContain(`name="p:hs_object_id"`);
    const email = `${unique("ada")}@example.com`;
    const fields = { "p:firstname": "Ada", "p:lastname": "Lovelace", "p:email": email, "p:city": "" };
    for (const csrf of [null, "wrong", ""]) {
      const refused = await post(b, "/app/contacts", fields, csrf);
      expect(refused.status, String(csrf)).toBe(403);
    }
    expect((await call("GET", "/crm/v3/objects/contacts", { token: t.pat })).json.results).toEqual([]);
    const made = await post(b, "/app/contacts", fields);
    expect(made.status, made.text).toBe(303);
    const id = /^\/app\/contacts\/(\d+)$/.exec(made.headers.get("location") ?? "")?.[1];
    expect(id).toBeDefined();
    const api = await read(t, "contacts", id!, "firstname,lastname,email,city");
    expect(api.json.properties).toMatchObject({ firstname: "Ada", lastname: "Lovelace", email, city: null });
    // The header carries the token as well (the page script's fetch).
    const viaHeader = await call("POST", "/app/contacts", { raw: "p:firstname=Bob", headers: { cookie: b.cookie, "x-csrf-token": b.csrf, "content-type": "application/x-www-form-urlencoded" } });
    expect(viaHeader.status, viaHeader.text).toBe(303);
  });

  it("shows the API's 400 next to the field it names, and the form's own errors, keeping what was typed", async () => {
    const t = await tenant();
    const b = await signIn(t);
    const res = await post(b, "/app/deals", { "p:dealname": "Big <one>", "p:hubspot_owner_id": "999999", "p:pipeline": "default", "p:dealstage": "appointmentscheduled" });
    expect(res.status).toBe(400);
    const owner = field(res.text, "hubspot_owner_id");
    expect(owner.error).toContain("is not an owner of this account");
    expect(owner.tag).toContain(`aria-invalid="true"`);
    expect(field(res.text, "dealname").tag).toContain(`value="Big &lt;one&gt;"`);
    expect(res.text).toContain(`<option value="999999" selected>999999</option>`);
    expect(res.text).toContain(`<div class="error-summary" role="alert"`);
    // A stage of another pipeline: the API's pipeline check names dealstage.
    const stage = await post(b, "/app/deals", { "p:dealname": "X", "p:pipeline": "default", "p:dealstage": "nope" });
    expect(stage.status).toBe(400);
    expect(field(stage.text, "dealstage").error).toContain("nope");
    // The form's own checks: a number that is not one, a date that is not a date.
    const shapes = await post(b, "/app/deals", { "p:dealname": "Y", "p:amount": "12abc", "p:closedate": "2026-02-30T10:00" });
    expect(shapes.status).toBe(400);
    expect(field(shapes.text, "amount")).toMatchObject({ error: "Enter a number." });
    expect(field(shapes.text, "amount").tag).toContain(`value="12abc"`);
    expect(field(shapes.text, "closedate").error).toContain("Enter a date and time");
    // A field that is no editable property is a 400, not a write.
    const stray = await post(b, "/app/deals", { "p:dealname": "Z", "p:hs_object_id": "5" });
    expect(stray.status).toBe(400);
    expect(stray.text).toContain("These fields cannot be edited here: hs_object_id.");
    // A duplicate email is the API's 409, shown at the email field.
    const email = `${unique("dup")}@example.com`;
    const first = await create(t, "contacts", { email });
    const dup = await post(b, "/app/contacts", { "p:email": email, "p:firstname": "Twin" });
    expect(dup.status).toBe(409);
    expect(field(dup.text, "email").error).toBe(`Contact already exists. Existing ID: ${first}`);
    expect(field(dup.text, "firstname").tag).toContain(`value="Twin"`);
    expect((await call("GET", "/crm/v3/objects/deals", { token: t.pat })).json.results).toEqual([]);
  });

  it("edits the whole record or one property; unchanged fields are not written; an empty field clears", async () => {
    const t = await tenant();
    expect((await admin("PATCH", `/admin/v1/accounts/${t.portalId}`, { timeZone: "America/New_York" })).status).toBe("active");
    const deal = await create(t, "deals", { dealname: "Old", amount: "10", closedate: "1795000000000", description: "keep" });
    const b = await signIn(t);
    const edit = await page(b, `/app/deals/${deal}/edit`);
    expect(edit.status).toBe(200);
    // The stored epoch ms shows as the wall-clock time in New York.
    expect(field(edit.text, "closedate").tag).toContain(`value="2026-11-18T06:06"`);
    const before = (await read(t, "deals", deal, "closedate")).json.updatedAt;
    const saved = await post(b, `/app/deals/${deal}`, { "p:dealname": "New", "p:amount": "10", "p:closedate": "2026-11-18T06:06", "p:description": "" });
    expect(saved.status, saved.text).toBe(303);
    expect(saved.headers.get("location")).toBe(`/app/deals/${deal}`);
    const after = (await read(t, "deals", deal, "dealname,amount,closedate,description")).json;
    // closedate keeps its stored spelling: the same minute was posted back.
    expect(after.properties).toMatchObject({ dealname: "New", amount: "10", closedate: "1795000000000", description: null });
    expect(after.updatedAt).not.toBe(before);
    // One property, as the record page's inline form posts it: back to that property.
    const one = await post(b, `/app/deals/${deal}`, { "p:closedate": "2026-12-01T09:30", return: "record" });
    expect(one.status).toBe(303);
    expect(one.headers.get("location")).toBe(`/app/deals/${deal}#prop-closedate`);
    expect((await read(t, "deals", deal, "closedate")).json.properties.closedate).toBe("2026-12-01T14:30:00.000Z");
    // Its error comes back on the property's own form.
    const bad = await post(b, `/app/deals/${deal}`, { "p:amount": "ten", return: "record" });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("<h1>Edit Amount</h1>");
    expect(field(bad.text, "dealname").tag).toBe("");
    expect(field(bad.text, "amount").error).toBe("Enter a number.");
    // A textarea's CRLF line breaks (what a browser posts) are stored as LF; posted again unchanged, nothing is written.
    expect((await post(b, `/app/deals/${deal}`, { "p:description": "Two\r\nlines", return: "record" })).status).toBe(303);
    const stored = (await read(t, "deals", deal, "description")).json;
    expect(stored.properties.description).toBe("Two\nlines");
    expect((await post(b, `/app/deals/${deal}`, { "p:description": "Two\r\nlines", return: "record" })).status).toBe(303);
    expect((await read(t, "deals", deal, "description")).json.updatedAt).toBe(stored.updatedAt);
  });

  it("deletes after a confirmation page; the record is then archived in the API", async () => {
    const t = await tenant();
    const contact = await create(t, "contacts", { firstname: "Gone", email: `${unique("g")}@example.com` });
    const b = await signIn(t);
    const confirm = await page(b, `/app/contacts/${contact}/delete`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain(`<form method="post" action="/app/contacts/${contact}/delete"><input type="hidden" name="csrf" value="${b.csrf}">`);
    expect((await post(b, `/app/contacts/${contact}/delete`, {}, null)).status).toBe(403);
    expect((await read(t, "contacts", contact, "firstname")).status).toBe(200);
    const gone = await post(b, `/app/contacts/${contact}/delete`, {});
    expect(gone.status).toBe(303);
    expect(gone.headers.get("location")).toBe("/app/contacts");
    expect((await read(t, "contacts", contact, "firstname")).status).toBe(404);
    expect((await call("GET", `/crm/v3/objects/contacts/${contact}?archived=true`, { token: t.pat })).json.archived).toBe(true);
    expect((await page(b, `/app/contacts/${contact}/edit`)).status).toBe(404);
  });

  it("creates custom records and products: required properties and multi-select boxes", async () => {
    const t = await tenant();
    const made = await call("POST", S, { token: t.pat, body: { ...carBody("car"), properties: [...carBody().properties, { name: "extras", label: "Extras", type: "enumeration", fieldType: "checkbox", options: [{ label: "Roof rack", value: "rack" }, { label: "Tow bar", value: "tow" }, { label: "Radio", value: "radio" }] }] } });
    expect(made.status, made.text).toBe(201);
    const car = made.json.objectTypeId as string;
    const b = await signIn(t);
    const form = (await page(b, `/app/${car}/new`)).text;
    expect(form).toContain(`<label for="f-model">Model <span class="required">(required)</span></label>`);
    expect(form).toContain(`<input type="checkbox" name="c:extras:1" value="tow">`);
    const missing = await post(b, `/app/${car}`, { "p:model": "", "p:year": "1908" });
    expect(missing.status).toBe(400);
    expect(field(missing.text, "model").error).toBe("model is required");
    expect(field(missing.text, "year").tag).toContain(`value="1908"`);
    const ok = await post(b, `/app/${car}`, { "p:model": "Model T", "p:extras": "", "c:extras:2": "radio", "c:extras:0": "rack" });
    expect(ok.status, ok.text).toBe(303);
    const id = ok.headers.get("location")!.split("/").pop()!;
    expect((await read(t, car, id, "model,extras")).json.properties).toMatchObject({ model: "Model T", extras: "rack;radio" });
    const shown = (await page(b, `/app/${car}/${id}`)).text;
    expect(shown).toContain(`<span class="value">Roof rack, Radio</span>`);
    // Unticking every box clears the property.
    expect((await post(b, `/app/${car}/${id}`, { "p:extras": "" })).status).toBe(303);
    expect((await read(t, car, id, "extras")).json.properties.extras).toBeNull();
    const product = await post(b, "/app/products", { "p:name": "Mug", "p:price": "4.5" });
    expect(product.status, product.text).toBe(303);
    expect(product.headers.get("location")).toMatch(/^\/app\/products\/\d+$/);
  });

  it("another account's record, an unknown type and a malformed id are the 404 page; nothing is written", async () => {
    const a = await tenant();
    const other = await tenant();
    const contact = await create(a, "contacts", { firstname: "Mine", email: `${unique("m")}@example.com` });
    const b = await signIn(other);
    for (const path of [`/app/contacts/${contact}/edit`, `/app/contacts/${contact}/delete`, "/app/widgets/new", "/app/contacts/x1/edit"]) {
      expect((await page(b, path)).status, path).toBe(404);
    }
    expect((await post(b, `/app/contacts/${contact}`, { "p:firstname": "Theirs" })).status).toBe(404);
    expect((await post(b, `/app/contacts/${contact}/delete`, {})).status).toBe(404);
    expect((await post(b, "/app/widgets", { "p:name": "x" })).status).toBe(404);
    const api = await read(a, "contacts", contact, "firstname");
    expect(api.json.properties.firstname).toBe("Mine");
  });

  it("signed out, the forms send the browser to sign in", async () => {
    const res = await call("POST", "/app/contacts", { raw: "p:firstname=x", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`/login?next=${encodeURIComponent("/app/contacts")}`);
  });
});
