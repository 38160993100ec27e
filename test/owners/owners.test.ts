/**
 * Owners (docs/reference/owners.md): every user of the account is an owner, with an owner id of its own;
 * `hubspot_owner_id` must name a live owner of the account on every write, and the properties API lists
 * the owners as its options; deleting the user archives the owner and records keep the value.
 */
import { describe, expect, it } from "vitest";
import { admin, call, expectError, tenant, unique, type Tenant } from "../helpers/api";

async function user(t: Tenant, extra: Record<string, unknown> = {}) {
  const email = `${unique("o")}@example.com`;
  const made = await admin("POST", `/admin/v1/accounts/${t.portalId}/users`, { email, ...extra });
  const owner = await call("GET", `/crm/v3/owners?email=${encodeURIComponent(email)}`, { token: t.pat });
  expect(owner.json.results, owner.text).toHaveLength(1);
  return { userId: made.userId as number, email, ownerId: owner.json.results[0].id as string };
}

describe("GET /crm/v3/owners", () => {
  it("lists the account's users as owners, with owner ids apart from user ids, paged by owner id", async () => {
    const t = await tenant();
    const a = await user(t, { firstName: "Ada", lastName: "Lovelace" });
    await user(t);
    const first = await call("GET", "/crm/v3/owners?limit=2", { token: t.pat });
    expect(first.status, first.text).toBe(200);
    expect(first.json.results).toHaveLength(2);
    expect(first.json.results[0]).toMatchObject({ email: t.userEmail, type: "PERSON", archived: false, userId: t.userId, userIdIncludingInactive: t.userId });
    expect(Number(first.json.results[0].id)).toBeGreaterThan(100_000_000);
    const next = await call("GET", `/crm/v3/owners?limit=2&after=${first.json.paging.next.after}`, { token: t.pat });
    expect(next.json.results).toHaveLength(1);
    expect(next.json.paging).toBeUndefined();
    const one = await call("GET", `/crm/v3/owners/${a.ownerId}`, { token: t.pat });
    expect(one.json).toEqual({
      id: a.ownerId,
      email: a.email,
      type: "PERSON",
      firstName: "Ada",
      lastName: "Lovelace",
      userId: a.userId,
      userIdIncludingInactive: a.userId,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      archived: false,
    });
    const byUser = await call("GET", `/crm/v3/owners/${a.userId}?idProperty=userId`, { token: t.pat });
    expect(byUser.json.id).toBe(a.ownerId);
  });

  it("deleting the user archives its owner: archived=true finds it, records keep the value, new writes refuse it", async () => {
    const t = await tenant();
    const a = await user(t);
    const deal = await call("POST", "/crm/v3/objects/deals", { token: t.pat, body: { properties: { dealname: "D", hubspot_owner_id: a.ownerId } } });
    expect(deal.status, deal.text).toBe(201);
    await admin("DELETE", `/admin/v1/accounts/${t.portalId}/users/${a.userId}`);
    expectError(await call("GET", `/crm/v3/owners/${a.ownerId}`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
    const archived = await call("GET", `/crm/v3/owners/${a.ownerId}?archived=true`, { token: t.pat });
    expect(archived.json).toMatchObject({ id: a.ownerId, archived: true, userIdIncludingInactive: a.userId });
    expect(archived.json.userId).toBeUndefined();
    const list = await call("GET", "/crm/v3/owners?archived=true", { token: t.pat });
    expect(list.json.results.map((o: { id: string }) => o.id)).toEqual([a.ownerId]);
    const live = await call("GET", "/crm/v3/owners", { token: t.pat });
    expect(live.json.results.map((o: { id: string }) => o.id)).not.toContain(a.ownerId);
    const read = await call("GET", `/crm/v3/objects/deals/${deal.json.id}?properties=hubspot_owner_id`, { token: t.pat });
    expect(read.json.properties.hubspot_owner_id).toBe(a.ownerId);
    const again = await call("POST", "/crm/v3/objects/deals", { token: t.pat, body: { properties: { dealname: "E", hubspot_owner_id: a.ownerId } } });
    expectError(again, 400, "VALIDATION_ERROR");
  });

  it("hubspot_owner_id is listed with the owners as options on contacts, companies, deals, tickets and activities", async () => {
    const t = await tenant();
    const a = await user(t, { firstName: "Grace", lastName: "Hopper" });
    for (const type of ["contacts", "companies", "deals", "tickets", "tasks"]) {
      const res = await call("GET", `/crm/v3/properties/${type}/hubspot_owner_id`, { token: t.pat });
      expect(res.status, `${type} ${res.text}`).toBe(200);
      expect(res.json).toMatchObject({ name: "hubspot_owner_id", type: "enumeration", hubspotDefined: true });
      expect(res.json.options).toContainEqual(expect.objectContaining({ value: a.ownerId, label: "Grace Hopper" }));
    }
  });

  it("a record write accepts a live owner of the account on every write face, and clearing it", async () => {
    const t = await tenant();
    const a = await user(t);
    const made = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { firstname: "x", hubspot_owner_id: a.ownerId } } });
    expect(made.status, made.text).toBe(201);
    const cleared = await call("PATCH", `/crm/v3/objects/contacts/${made.json.id}`, { token: t.pat, body: { properties: { hubspot_owner_id: "" } } });
    expect(cleared.status, cleared.text).toBe(200);
    const batch = await call("POST", "/crm/v3/objects/companies/batch/create", { token: t.pat, body: { inputs: [{ properties: { name: "c", hubspot_owner_id: a.ownerId } }] } });
    expect(batch.status, batch.text).toBe(201);
  });
});

describe("bad input", () => {
  it.each([
    ["an unknown owner id", "999999999"],
    ["not a number", "ada"],
    ["a user id instead of an owner id", "USER"],
  ])("%s in hubspot_owner_id is a 400 naming the field, and nothing is written", async (_name, value) => {
    const t = await tenant();
    const v = value === "USER" ? String(t.userId) : value;
    const res = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { email: `${unique("bad")}@example.com`, hubspot_owner_id: v } } });
    const body = expectError(res, 400, "VALIDATION_ERROR");
    expect(body.errors[0].context.propertyName).toEqual(["properties.hubspot_owner_id"]);
    expect(body.errors[0].message).toContain(v);
    const list = await call("GET", "/crm/v3/objects/contacts", { token: t.pat });
    expect(list.json.results).toEqual([]);
  });

  it("a batch names the input whose owner is wrong", async () => {
    const t = await tenant();
    const res = await call("POST", "/crm/v3/objects/deals/batch/create", { token: t.pat, body: { inputs: [{ properties: { dealname: "ok" } }, { properties: { dealname: "bad", hubspot_owner_id: "1" } }] } });
    expect(expectError(res, 400, "VALIDATION_ERROR").errors[0].context.propertyName).toEqual(["inputs.1.properties.hubspot_owner_id"]);
  });

  it.each([
    ["create", "POST", "/contacts/v1/contact"],
    ["update by vid", "POST", "/contacts/v1/contact/vid/VID/profile"],
    ["update by email", "POST", "/contacts/v1/contact/email/EMAIL/profile"],
    ["createOrUpdate", "POST", "/contacts/v1/contact/createOrUpdate/email/EMAIL"],
  ])("v1 %s: an unknown owner is the legacy 400 with validationResults naming hubspot_owner_id, and nothing is written", async (_n, method, path) => {
    const t = await tenant();
    const email = `${unique("v1")}@example.com`;
    const made = await call("POST", "/contacts/v1/contact", { token: t.pat, body: { properties: [{ property: "email", value: email }, { property: "firstname", value: "Before" }] } });
    expect(made.status, made.text).toBe(200);
    const url = path.replace("VID", String(made.json.vid)).replace("EMAIL", encodeURIComponent(path.endsWith("/contact") ? "" : email));
    const props = [{ property: "firstname", value: "After" }, { property: "hubspot_owner_id", value: "999999999" }];
    if (path.endsWith("/contact")) props.push({ property: "email", value: `${unique("v1")}@example.com` });
    const res = await call(method, url, { token: t.pat, body: { properties: props } });
    const body = expectError(res, 400, "VALIDATION_ERROR");
    expect(body.message).toBe("Property values were not valid");
    expect(body.validationResults).toEqual([{ isValid: false, message: expect.stringContaining("999999999"), error: "INVALID_OPTION", name: "hubspot_owner_id" }]);
    const all = await call("GET", "/crm/v3/objects/contacts?properties=firstname,hubspot_owner_id", { token: t.pat });
    expect(all.json.results.map((r: { properties: Record<string, string> }) => [r.properties.firstname, r.properties.hubspot_owner_id ?? null])).toEqual([["Before", null]]);
  });

  it("v1 contact writes accept a live owner; a v1 batch names the index of the entry with a wrong one and writes nothing", async () => {
    const t = await tenant();
    const a = await user(t);
    const ok = await call("POST", "/contacts/v1/contact", { token: t.pat, body: { properties: [{ property: "email", value: `${unique("v1")}@example.com` }, { property: "hubspot_owner_id", value: a.ownerId }] } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.properties.hubspot_owner_id.value).toBe(a.ownerId);
    const batch = [
      { email: `${unique("v1")}@example.com`, properties: [{ property: "hubspot_owner_id", value: a.ownerId }] },
      { email: `${unique("v1")}@example.com`, properties: [{ property: "hubspot_owner_id", value: "12" }] },
    ];
    const res = await call("POST", "/contacts/v1/contact/batch", { token: t.pat, body: batch });
    const body = expectError(res, 400, "VALIDATION_ERROR");
    expect(body.context.index).toEqual(["1"]);
    expect(body.validationResults.map((r: { name: string }) => r.name)).toEqual(["hubspot_owner_id"]);
    expect((await call("GET", "/crm/v3/objects/contacts", { token: t.pat })).json.results).toHaveLength(1);
  });

  it.each([
    ["limit over 500", "?limit=501", "limit"],
    ["archived not a boolean", "?archived=maybe", "archived"],
    ["after not a cursor", "?after=abc", "after"],
  ])("list: %s is a 400 naming it", async (_n, q, field) => {
    const t = await tenant();
    const body = expectError(await call("GET", `/crm/v3/owners${q}`, { token: t.pat }), 400, "VALIDATION_ERROR");
    expect(body.errors[0].context.propertyName).toEqual([field]);
  });

  it.each([
    ["an owner id that is not a number", "abc", "", "ownerId"],
    ["an unknown idProperty", "1", "?idProperty=email", "idProperty"],
  ])("read: %s is a 400 naming it", async (_n, id, q, field) => {
    const t = await tenant();
    const body = expectError(await call("GET", `/crm/v3/owners/${id}${q}`, { token: t.pat }), 400, "VALIDATION_ERROR");
    expect(body.errors[0].context.propertyName).toEqual([field]);
  });
});

describe("isolation", () => {
  it("another account's owner is a 404 to read and a 400 on a record write", async () => {
    const a = await tenant();
    const b = await tenant();
    const aOwner = (await call("GET", "/crm/v3/owners", { token: a.pat })).json.results[0].id as string;
    expectError(await call("GET", `/crm/v3/owners/${aOwner}`, { token: b.pat }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("GET", `/crm/v3/owners/${a.userId}?idProperty=userId`, { token: b.pat }), 404, "OBJECT_NOT_FOUND");
    expect((await call("GET", `/crm/v3/owners?email=${encodeURIComponent(a.userEmail)}`, { token: b.pat })).json.results).toEqual([]);
    const write = await call("POST", "/crm/v3/objects/deals", { token: b.pat, body: { properties: { dealname: "x", hubspot_owner_id: aOwner } } });
    expect(expectError(write, 400, "VALIDATION_ERROR").errors[0].context.propertyName).toEqual(["properties.hubspot_owner_id"]);
    const options = await call("GET", "/crm/v3/properties/deals/hubspot_owner_id", { token: b.pat });
    expect(options.json.options.map((o: { value: string }) => o.value)).not.toContain(aOwner);
  });

  it("needs crm.objects.owners.read", async () => {
    const t = await tenant({ scopes: ["crm.objects.contacts.read"] });
    expectError(await call("GET", "/crm/v3/owners", { token: t.pat }), 403, "MISSING_SCOPES");
  });
});
