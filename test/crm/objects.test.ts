import { describe, expect, it } from "vitest";
import { call, expectError, tenant } from "../helpers/api";

const TYPES = ["contacts", "companies", "deals", "products", "line_items", "tickets"] as const;

describe("CRM objects /crm/v3/objects/{objectType}", () => {
  it.each(TYPES)("%s: create 201, read, patch, list, archive 204", async (type) => {
    const t = await tenant();
    const created = await call("POST", `/crm/v3/objects/${type}`, { token: t.pat, body: { properties: { name: "One", amount: 12.5, flag: true } } });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ id: expect.stringMatching(/^\d+$/), archived: false, properties: { name: "One", amount: "12.5", flag: "true" } });
    expect(new Date(created.json.createdAt).toISOString()).toBe(created.json.createdAt);
    const id = created.json.id;

    const read = await call("GET", `/crm/v3/objects/${type}/${id}?properties=name`, { token: t.oauth });
    expect(read.json.properties).toMatchObject({ name: "One", hs_object_id: id });

    const patched = await call("PATCH", `/crm/v3/objects/${type}/${id}`, { token: t.pat, body: { properties: { name: "Two", amount: "" } } });
    expect(patched.status).toBe(200);
    expect(patched.json.properties.name).toBe("Two");
    expect(patched.json.properties.amount).toBeUndefined();

    const list = await call("GET", `/crm/v3/objects/${type}`, { token: t.pat });
    expect(list.json.results.map((r: { id: string }) => r.id)).toEqual([id]);

    expect((await call("DELETE", `/crm/v3/objects/${type}/${id}`, { token: t.pat })).status).toBe(204);
    expectError(await call("GET", `/crm/v3/objects/${type}/${id}`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
    expect((await call("GET", `/crm/v3/objects/${type}`, { token: t.pat })).json.results).toEqual([]);
  });

  it("pages with limit and an after cursor", async () => {
    const t = await tenant();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await call("POST", "/crm/v3/objects/deals", { token: t.pat, body: { properties: { dealname: `d${i}` } } })).json.id);
    const p1 = await call("GET", "/crm/v3/objects/deals?limit=2", { token: t.pat });
    expect(p1.json.results.map((r: { id: string }) => r.id)).toEqual(ids.slice(0, 2));
    expect(p1.json.paging.next.after).toBe(ids[1]);
    const p3 = await call("GET", `/crm/v3/objects/deals?limit=2&after=${ids[3]}`, { token: t.pat });
    expect(p3.json.results.map((r: { id: string }) => r.id)).toEqual([ids[4]]);
    expect(p3.json.paging).toBeUndefined();
  });

  it("contact email is unique per account, case-insensitively (409)", async () => {
    const t = await tenant();
    const other = await tenant();
    await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { email: "Jo@Example.com" } } });
    expectError(await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { email: "jo@example.COM" } } }), 409, "CONFLICT");
    const second = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { email: "x@example.com" } } });
    expectError(await call("PATCH", `/crm/v3/objects/contacts/${second.json.id}`, { token: t.pat, body: { properties: { email: "JO@example.com" } } }), 409, "CONFLICT");
    // Another account may hold the same email.
    expect((await call("POST", "/crm/v3/objects/contacts", { token: other.pat, body: { properties: { email: "jo@example.com" } } })).status).toBe(201);
  });

  it("a record's merged properties are capped (count and size): PATCHes that would pass them get 400, never 500", async () => {
    const t = await tenant({ rateLimit: 100_000 });
    const id = (await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { email: "big@x.co" } } })).json.id;
    const batch = (round: number, size: number) => Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`p${round}_${i}`, "x".repeat(size)]));
    // Count: four PATCHes of 200 new small properties reach 801; the fifth would pass 1,000.
    for (let round = 0; round < 4; round++) {
      expect((await call("PATCH", `/crm/v3/objects/contacts/${id}`, { token: t.pat, body: { properties: batch(round, 1) } })).status).toBe(200);
    }
    const many = expectError(await call("PATCH", `/crm/v3/objects/contacts/${id}`, { token: t.pat, body: { properties: batch(4, 1) } }), 400, "VALIDATION_ERROR");
    expect(many.message).toContain("1000 properties");
    // Size: 2.5 KB values, 200 at a time, pass 1 MiB of stored properties on the third PATCH (D1 refused rows
    // past 2 MB with a 500 before).
    const sized = (await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { email: "wide@x.co" } } })).json.id;
    expect((await call("PATCH", `/crm/v3/objects/contacts/${sized}`, { token: t.pat, body: { properties: batch(0, 2500) } })).status).toBe(200);
    expect((await call("PATCH", `/crm/v3/objects/contacts/${sized}`, { token: t.pat, body: { properties: batch(1, 2500) } })).status).toBe(200);
    const wide = expectError(await call("PATCH", `/crm/v3/objects/contacts/${sized}`, { token: t.pat, body: { properties: batch(2, 2500) } }), 400, "VALIDATION_ERROR");
    expect(wide.message).toContain("1 MiB");
    // Nothing of a refused PATCH was written; clearing properties still works.
    const refused = Object.keys(batch(2, 1));
    const kept = await call("GET", `/crm/v3/objects/contacts/${sized}?properties=p1_199,${refused.join(",")}`, { token: t.pat });
    expect(kept.json.properties.p1_199).toBe("x".repeat(2500));
    expect(refused.filter((k) => kept.json.properties[k] !== null)).toEqual([]);
    expect((await call("PATCH", `/crm/v3/objects/contacts/${sized}`, { token: t.pat, body: { properties: { p0_0: "" } } })).status).toBe(200);
  });

  it("associates records both ways and lists them with ?associations=", async () => {
    const t = await tenant();
    const deal = (await call("POST", "/crm/v3/objects/deals", { token: t.pat, body: { properties: { dealname: "D" } } })).json.id;
    const c1 = (await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { email: "a@x.co" } } })).json.id;
    expect((await call("PUT", `/crm/v3/objects/deals/${deal}/associations/contacts/${c1}`, { token: t.pat })).status).toBe(204);
    const d = await call("GET", `/crm/v3/objects/deals/${deal}?associations=contacts,companies`, { token: t.pat });
    expect(d.json.associations).toEqual({ contacts: { results: [{ id: c1, type: "deals_to_contacts" }] } });
    // The official SDK repeats the parameter instead of joining with commas.
    const repeated = await call("GET", `/crm/v3/objects/deals/${deal}?associations=contacts&associations=companies`, { token: t.pat });
    expect(repeated.json.associations).toEqual(d.json.associations);
    const c = await call("GET", `/crm/v3/objects/contacts?associations=deals`, { token: t.pat });
    expect(c.json.results[0].associations.deals.results[0].id).toBe(deal);
    expect((await call("DELETE", `/crm/v3/objects/deals/${deal}/associations/contacts/${c1}`, { token: t.pat })).status).toBe(204);
    expect((await call("GET", `/crm/v3/objects/deals/${deal}?associations=contacts`, { token: t.pat })).json.associations).toEqual({});
  });

  it.each([
    ["POST", "/crm/v3/objects/wid.gets", { properties: {} }, "objectType"],
    ["GET", "/crm/v3/objects/contacts/abc", undefined, "objectId"],
    ["POST", "/crm/v3/objects/contacts", { properties: "x" }, "properties"],
    ["POST", "/crm/v3/objects/contacts", { props: {} }, "properties"],
    ["POST", "/crm/v3/objects/contacts", { properties: { a: { nested: 1 } } }, "properties.a"],
    ["GET", "/crm/v3/objects/contacts?limit=0", undefined, "limit"],
    ["GET", "/crm/v3/objects/contacts?limit=101", undefined, "limit"],
    ["GET", "/crm/v3/objects/contacts?after=x", undefined, "after"],
    ["GET", "/crm/v3/objects/contacts?associations=contacts,widgets", undefined, "associations"],
    ["PUT", "/crm/v3/objects/deals/1/associations/wid.gets/2", undefined, "toObjectType"],
  ])("%s %s → 400 naming %s", async (method, path, body, field) => {
    const t = await tenant();
    const res = expectError(await call(method, path, { token: t.pat, body }), 400, "VALIDATION_ERROR");
    expect(res.message).toContain(field);
  });

  it("another account's ids are not found and nothing of them leaks", async () => {
    const a = await tenant();
    const b = await tenant();
    const id = (await call("POST", "/crm/v3/objects/contacts", { token: a.pat, body: { properties: { email: "secret@a.co" } } })).json.id;
    const other = (await call("POST", "/crm/v3/objects/contacts", { token: b.pat, body: { properties: { email: "b@b.co" } } })).json.id;
    for (const [method, path, body] of [
      ["GET", `/crm/v3/objects/contacts/${id}`, undefined],
      ["PATCH", `/crm/v3/objects/contacts/${id}`, { properties: { email: "stolen@b.co" } }],
      ["DELETE", `/crm/v3/objects/contacts/${id}`, undefined],
      ["PUT", `/crm/v3/objects/contacts/${other}/associations/contacts/${id}`, undefined],
      ["DELETE", `/crm/v3/objects/contacts/${other}/associations/contacts/${id}`, undefined],
    ] as const) {
      const res = expectError(await call(method, path, { token: b.oauth, body }), 404, "OBJECT_NOT_FOUND");
      expect(JSON.stringify(res)).not.toContain("secret@a.co");
    }
    expect((await call("GET", `/crm/v3/objects/contacts/${id}`, { token: a.pat })).json.properties.email).toBe("secret@a.co");
  });

  it("object types need their own scopes", async () => {
    const t = await tenant({ scopes: ["oauth", "crm.objects.contacts.read"] });
    expect((await call("GET", "/crm/v3/objects/contacts", { token: t.pat })).status).toBe(200);
    const w = expectError(await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: {} } }), 403, "MISSING_SCOPES");
    expect(w.errors[0].context.requiredScopes).toEqual(["crm.objects.contacts.write"]);
    const tk = expectError(await call("GET", "/crm/v3/objects/tickets", { token: t.oauth }), 403, "MISSING_SCOPES");
    expect(tk.errors[0].context.requiredScopes).toEqual(["tickets"]);
  });
});
