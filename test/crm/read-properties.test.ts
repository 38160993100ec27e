/**
 * The properties a v3 read answers with: the asked ones or the type's defaults, always the system ones, an
 * absent one as null; the same on the single read, the list, the batch read and the search.
 */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant } from "../helpers/api";
import { make, search } from "./helpers";

const SYSTEM = ["createdate", "hs_object_id", "lastmodifieddate"];
const keys = (o: Record<string, unknown>) => Object.keys(o).sort();
const get = (token: string, path: string) => call("GET", path, { token });

describe("v3 reads answer the asked properties, else the type's defaults", () => {
  it("a contact read without `properties` has the six defaults, an unset one null, and nothing else", async () => {
    const t = await tenant();
    const id = await make(t, "contacts", { email: "mae@example.com", firstname: "Mae", city: "Houston", phone: "555" });
    const read = await get(t.pat, `/crm/v3/objects/contacts/${id}`);
    expect(read.status, read.text).toBe(200);
    expect(keys(read.json.properties)).toEqual(["createdate", "email", "firstname", "hs_object_id", "lastmodifieddate", "lastname"]);
    expect(read.json.properties).toMatchObject({ email: "mae@example.com", firstname: "Mae", lastname: null, hs_object_id: id });
    expect(read.json.properties.createdate).toBe(read.json.createdAt);
    expect(read.json.properties.lastmodifieddate).toBe(read.json.updatedAt);
  });

  it("the repeated and the comma-separated forms name the same properties, with the system ones", async () => {
    const t = await tenant();
    const id = await make(t, "contacts", { email: "mae@example.com", city: "Houston", jobtitle: "Astronaut" });
    const repeated = await get(t.pat, `/crm/v3/objects/contacts/${id}?properties=city&properties=phone`);
    const comma = await get(t.pat, `/crm/v3/objects/contacts/${id}?properties=city,%20phone`);
    expect(repeated.json.properties).toEqual(comma.json.properties);
    expect(keys(repeated.json.properties)).toEqual(["city", "createdate", "hs_object_id", "lastmodifieddate", "phone"]);
    expect(repeated.json.properties).toMatchObject({ city: "Houston", phone: null });
    // Named once, answered once; an empty parameter is no list, so the defaults.
    const twice = await get(t.pat, `/crm/v3/objects/contacts/${id}?properties=city&properties=city,jobtitle`);
    expect(keys(twice.json.properties)).toEqual(["city", "createdate", "hs_object_id", "jobtitle", "lastmodifieddate"]);
    const empty = await get(t.pat, `/crm/v3/objects/contacts/${id}?properties=`);
    expect(keys(empty.json.properties)).toContain("firstname");
  });

  it("each type has its own defaults; hs_lastmodifieddate is the record's last change", async () => {
    const t = await tenant();
    const id = await make(t, "companies", { name: "Orbit", domain: "orbit.example", city: "Houston" });
    const read = await get(t.pat, `/crm/v3/objects/companies/${id}`);
    expect(keys(read.json.properties)).toEqual(["createdate", "domain", "hs_lastmodifieddate", "hs_object_id", "lastmodifieddate", "name"]);
    expect(read.json.properties.hs_lastmodifieddate).toBe(read.json.updatedAt);
    const deal = await make(t, "deals", { dealname: "Big", amount: "10" });
    const d = await get(t.pat, `/crm/v3/objects/deals/${deal}`);
    expect(keys(d.json.properties)).toEqual([...SYSTEM, "amount", "closedate", "dealname", "dealstage", "hs_lastmodifieddate", "pipeline"].sort());
    expect(d.json.properties).toMatchObject({ dealname: "Big", amount: "10", closedate: null });
  });

  it("the list answers the same properties for every result", async () => {
    const t = await tenant();
    await make(t, "contacts", { email: "a@example.com", city: "Houston" });
    await make(t, "contacts", { email: "b@example.com", jobtitle: "Pilot" });
    const byDefault = await get(t.pat, "/crm/v3/objects/contacts?limit=10");
    expect(byDefault.json.results).toHaveLength(2);
    for (const r of byDefault.json.results) expect(keys(r.properties)).toEqual(["createdate", "email", "firstname", "hs_object_id", "lastmodifieddate", "lastname"]);
    const asked = await get(t.pat, "/crm/v3/objects/contacts?limit=10&properties=city&properties=jobtitle");
    expect(asked.json.results.map((r: { properties: Record<string, string | null> }) => [r.properties.city, r.properties.jobtitle])).toEqual([
      ["Houston", null],
      [null, "Pilot"],
    ]);
    // The next page's link keeps the asked properties.
    const paged = await get(t.pat, "/crm/v3/objects/contacts?limit=1&properties=city");
    const next = new URL(paged.json.paging.next.link);
    expect(next.searchParams.getAll("properties")).toEqual(["city"]);
    const page2 = await get(t.pat, next.pathname + next.search);
    expect(keys(page2.json.results[0].properties)).toEqual(["city", ...SYSTEM]);
  });

  it("batch read takes `properties` as an array, defaults without it, and answers as the single read does", async () => {
    const t = await tenant();
    const id = await make(t, "contacts", { email: "mae@example.com", firstname: "Mae", city: "Houston" });
    const batchRead = (body: Record<string, unknown>) => call("POST", "/crm/v3/objects/contacts/batch/read", { token: t.pat, body: { inputs: [{ id }], ...body } });
    const asked = await batchRead({ properties: ["city", "phone"] });
    expect(asked.status, asked.text).toBe(200);
    const single = await get(t.pat, `/crm/v3/objects/contacts/${id}?properties=city,phone`);
    expect(asked.json.results[0].properties).toEqual(single.json.properties);
    for (const body of [{}, { properties: [] }]) {
      const res = await batchRead(body);
      expect(keys(res.json.results[0].properties)).toEqual(["createdate", "email", "firstname", "hs_object_id", "lastmodifieddate", "lastname"]);
    }
  });

  it("the single read, the list and the search answer the same properties", async () => {
    const t = await tenant();
    const id = await make(t, "contacts", { email: "mae@example.com", firstname: "Mae", city: "Houston" });
    const names = ["city", "firstname", "phone", "hs_lastmodifieddate"];
    const single = await get(t.pat, `/crm/v3/objects/contacts/${id}?properties=${names.join(",")}`);
    const list = await get(t.pat, `/crm/v3/objects/contacts?properties=${names.join(",")}`);
    const found = await search(t, "contacts", { properties: names });
    expect(list.json.results[0].properties).toEqual(single.json.properties);
    expect(found.json.results[0].properties).toEqual(single.json.properties);
    const byDefault = await search(t, "contacts", {});
    expect(byDefault.json.results[0].properties).toEqual((await get(t.pat, `/crm/v3/objects/contacts/${id}`)).json.properties);
  });

  it("a name no record can hold is null, `__proto__` included; writes still answer every property", async () => {
    const t = await tenant();
    const id = await make(t, "contacts", { email: "mae@example.com", city: "Houston" });
    const read = await get(t.pat, `/crm/v3/objects/contacts/${id}?properties=${encodeURIComponent('no such"name')}&properties=__proto__`);
    expect(read.status, read.text).toBe(200);
    expect(read.text).toContain('"__proto__":null');
    expect(read.json.properties['no such"name']).toBeNull();
    const patched = await call("PATCH", `/crm/v3/objects/contacts/${id}`, { token: t.pat, body: { properties: { jobtitle: "Astronaut" } } });
    expect(patched.json.properties).toMatchObject({ email: "mae@example.com", city: "Houston", jobtitle: "Astronaut" });
  });

  it("too long a name, or too many, is a 400 in the error envelope", async () => {
    const t = await tenant();
    const id = await make(t, "contacts", { email: "mae@example.com" });
    expectError(await get(t.pat, `/crm/v3/objects/contacts/${id}?properties=${"a".repeat(201)}`), 400, "VALIDATION_ERROR");
    expectError(await get(t.pat, `/crm/v3/objects/contacts?properties=${Array.from({ length: 1001 }, (_, i) => `p${i}`).join(",")}`), 400, "VALIDATION_ERROR");
    const batch = await call("POST", "/crm/v3/objects/contacts/batch/read", { token: t.pat, body: { inputs: [{ id }], properties: ["a".repeat(201)] } });
    expectError(batch, 400, "VALIDATION_ERROR");
  });

  it("another account's record is not found, whatever is asked", async () => {
    const t = await tenant();
    const other = await tenant();
    const id = await make(other, "contacts", { email: "mae@example.com", city: "Houston" });
    expectError(await get(t.pat, `/crm/v3/objects/contacts/${id}?properties=city`), 404, "OBJECT_NOT_FOUND");
    expect((await get(t.pat, "/crm/v3/objects/contacts?properties=city")).json.results).toEqual([]);
  });
});
