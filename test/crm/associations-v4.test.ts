/** `/crm/v4/objects/{from}/{id}/associations/...` over the associations v3 writes. */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant } from "../helpers/api";
import { make } from "./helpers";

const V4 = "/crm/v4/objects";

describe("associations v4", () => {
  it("create (201), default (200), page (200) and archive (204), seen by v3 too", async () => {
    const t = await tenant();
    const contact = await make(t, "contacts", { email: "a@x.test" });
    const c1 = await make(t, "companies", { name: "One" });
    const c2 = await make(t, "companies", { name: "Two" });
    const created = await call("PUT", `${V4}/contacts/${contact}/associations/companies/${c1}`, { token: t.pat, body: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 279 }] });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toEqual({ fromObjectTypeId: "0-1", fromObjectId: Number(contact), toObjectTypeId: "0-2", toObjectId: Number(c1), labels: [] });
    const def = await call("PUT", `${V4}/0-1/${contact}/associations/default/companies/${c2}`, { token: t.pat });
    expect(def.status, def.text).toBe(200);
    expect(def.json).toMatchObject({ status: "COMPLETE", results: [{ from: { id: contact }, to: { id: c2 }, associationSpec: { associationCategory: "HUBSPOT_DEFINED", associationTypeId: 279 } }] });

    const page = await call("GET", `${V4}/contacts/${contact}/associations/companies?limit=1`, { token: t.pat });
    expect(page.status).toBe(200);
    expect(page.json.results).toEqual([{ toObjectId: Number(c1), associationTypes: [{ category: "HUBSPOT_DEFINED", typeId: 279, label: null }] }]);
    const next = await call("GET", `${V4}/contacts/${contact}/associations/companies?limit=1&after=${page.json.paging.next.after}`, { token: t.pat });
    expect(next.json.results.map((r: { toObjectId: number }) => r.toObjectId)).toEqual([Number(c2)]);
    expect(next.json.paging).toBeUndefined();
    // The other direction, and the v3 read, see the same rows.
    const back = await call("GET", `${V4}/companies/${c1}/associations/contacts`, { token: t.pat });
    expect(back.json.results).toEqual([{ toObjectId: Number(contact), associationTypes: [{ category: "HUBSPOT_DEFINED", typeId: 280, label: null }] }]);
    const v3 = await call("GET", `/crm/v3/objects/contacts/${contact}?associations=companies`, { token: t.pat });
    expect(v3.json.associations.companies.results.map((r: { id: string }) => r.id)).toEqual([c1, c2]);

    expect((await call("DELETE", `${V4}/contacts/${contact}/associations/companies/${c1}`, { token: t.pat })).status).toBe(204);
    const after = await call("GET", `${V4}/contacts/${contact}/associations/companies`, { token: t.pat });
    expect(after.json.results.map((r: { toObjectId: number }) => r.toObjectId)).toEqual([Number(c2)]);
  });

  it("associations v3 writes show in v4", async () => {
    const t = await tenant();
    const deal = await make(t, "deals", { dealname: "d" });
    const contact = await make(t, "contacts", { firstname: "c" });
    expect((await call("PUT", `/crm/v3/objects/deals/${deal}/associations/contacts/${contact}`, { token: t.pat })).status).toBe(204);
    const page = await call("GET", `${V4}/deals/${deal}/associations/contacts`, { token: t.pat });
    expect(page.json.results).toEqual([{ toObjectId: Number(contact), associationTypes: [{ category: "HUBSPOT_DEFINED", typeId: 3, label: null }] }]);
  });
});

describe("associations v4: bad input", () => {
  it.each([
    ["a type id of another pair", "PUT", "companies", [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 3 }], /associationTypeId 3 is not a HUBSPOT_DEFINED type from contacts to companies/],
    ["a built-in id as USER_DEFINED", "PUT", "companies", [{ associationCategory: "USER_DEFINED", associationTypeId: 279 }], /associationTypeId 279 is not a USER_DEFINED type from contacts to companies/],
    ["an unknown USER_DEFINED id", "PUT", "companies", [{ associationCategory: "USER_DEFINED", associationTypeId: 1000001 }], /associationTypeId 1000001 is not a USER_DEFINED type/],
    ["no association type", "PUT", "companies", [], /at least one association type/],
    ["an unknown object type", "PUT", "wid.gets", [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 279 }], /object type must be one of/],
  ])("%s is a 400", async (_name, method, to, body, message) => {
    const t = await tenant();
    const contact = await make(t, "contacts", { firstname: "c" });
    const company = await make(t, "companies", { name: "c" });
    const err = expectError(await call(method, `${V4}/contacts/${contact}/associations/${to}/${company}`, { token: t.pat, body }), 400, "VALIDATION_ERROR");
    expect(`${err.message} ${JSON.stringify(err.errors ?? [])}`).toMatch(message);
  });

  it("a page limit over 500 and a default for a pair without one are 400s", async () => {
    const t = await tenant();
    const contact = await make(t, "contacts", { firstname: "c" });
    const product = await make(t, "products", { name: "p" });
    expect(expectError(await call("GET", `${V4}/contacts/${contact}/associations/companies?limit=501`, { token: t.pat }), 400, "VALIDATION_ERROR").message).toMatch(/limit is at most 500/);
    expect(expectError(await call("PUT", `${V4}/contacts/${contact}/associations/default/products/${product}`, { token: t.pat }), 400, "VALIDATION_ERROR").message).toMatch(/No association type exists from contacts to products/);
  });
});

describe("associations v4: isolation", () => {
  it("another account's records are 404 on every operation, and nothing is written", async () => {
    const a = await tenant();
    const b = await tenant();
    const contact = await make(a, "contacts", { firstname: "a" });
    const company = await make(a, "companies", { name: "a" });
    const bCompany = await make(b, "companies", { name: "b" });
    const spec = [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 279 }];
    expectError(await call("PUT", `${V4}/contacts/${contact}/associations/companies/${bCompany}`, { token: b.pat, body: spec }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("PUT", `${V4}/contacts/${contact}/associations/default/companies/${company}`, { token: b.pat }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("GET", `${V4}/contacts/${contact}/associations/companies`, { token: b.pat }), 404, "OBJECT_NOT_FOUND");
    expect((await call("PUT", `${V4}/contacts/${contact}/associations/companies/${company}`, { token: a.pat, body: spec })).status).toBe(201);
    expectError(await call("DELETE", `${V4}/contacts/${contact}/associations/companies/${company}`, { token: b.pat }), 404, "OBJECT_NOT_FOUND");
    const page = await call("GET", `${V4}/contacts/${contact}/associations/companies`, { token: a.pat });
    expect(page.json.results.map((r: { toObjectId: number }) => r.toObjectId)).toEqual([Number(company)]);
  });
});
