/** `/crm/v3/properties/{objectType}`: definitions, and custom properties on records, in search and in v1. */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant } from "../helpers/api";
import { defineProperty, ids, make, search } from "./helpers";

const P = "/crm/v3/properties";

describe("property definitions", () => {
  it("lists built-in properties, creates (201), reads, updates and archives (204) a custom one", async () => {
    const t = await tenant();
    const list = await call("GET", `${P}/contacts`, { token: t.pat });
    expect(list.status).toBe(200);
    expect(list.json.results.find((p: { name: string }) => p.name === "email")).toMatchObject({ type: "string", groupName: "contactinformation", hubspotDefined: true });

    const created = await call("POST", `${P}/contacts`, {
      token: t.oauth,
      body: { name: "tier", label: "Tier", type: "enumeration", fieldType: "select", groupName: "contactinformation", options: [{ label: "Gold", value: "gold" }] },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ name: "tier", type: "enumeration", hubspotDefined: false, options: [{ label: "Gold", value: "gold", hidden: false }] });

    expect((await call("GET", `${P}/contacts/tier`, { token: t.pat })).json.label).toBe("Tier");
    const patched = await call("PATCH", `${P}/contacts/tier`, { token: t.pat, body: { label: "Level" } });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ label: "Level", options: [{ value: "gold" }] });
    expect((await call("GET", `${P}/contacts`, { token: t.pat })).json.results.map((p: { name: string }) => p.name)).toContain("tier");

    expect((await call("DELETE", `${P}/contacts/tier`, { token: t.pat })).status).toBe(204);
    expectError(await call("GET", `${P}/contacts/tier`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
  });

  it("a custom property works on records, in search, and in the v1 contact views", async () => {
    const t = await tenant();
    await defineProperty(t, "contacts", { name: "shoe_size", type: "number", fieldType: "number" });
    const big = await make(t, "contacts", { email: "big@x.test", shoe_size: "46" });
    await make(t, "contacts", { email: "small@x.test", shoe_size: "38" });
    expect(ids(await search(t, "contacts", { filterGroups: [{ filters: [{ propertyName: "shoe_size", operator: "GT", value: "40" }] }], properties: ["shoe_size"] }))).toEqual([big]);
    const v1 = await call("GET", `/contacts/v1/contact/vid/${big}/profile`, { token: t.pat });
    expect(v1.json.properties.shoe_size.value).toBe("46");
    // Written through v1, searched through v3.
    const v1Made = await call("POST", "/contacts/v1/contact", { token: t.pat, body: { properties: [{ property: "email", value: "v1@x.test" }, { property: "shoe_size", value: "50" }] } });
    expect(v1Made.status, v1Made.text).toBe(200);
    expect(ids(await search(t, "contacts", { filterGroups: [{ filters: [{ propertyName: "shoe_size", operator: "GTE", value: "46" }] }] }))).toEqual([big, String(v1Made.json.vid)]);
  });

  it("values of undefined properties are still accepted on records (the legacy contract), but not searched", async () => {
    const t = await tenant();
    const id = await make(t, "contacts", { never_defined: "x" });
    expect((await call("GET", `/crm/v3/objects/contacts/${id}?properties=never_defined`, { token: t.pat })).json.properties.never_defined).toBe("x");
    expectError(await search(t, "contacts", { filterGroups: [{ filters: [{ propertyName: "never_defined", operator: "EQ", value: "x" }] }] }), 400, "VALIDATION_ERROR");
  });
});

describe("property definitions: bad input", () => {
  const base = { name: "p1", label: "P", type: "string", fieldType: "text", groupName: "g" };
  const cases: [string, string, string, unknown, number, RegExp][] = [
    ["a name with capitals", "POST", `${P}/contacts`, { ...base, name: "Bad" }, 400, /name: lower-case letters/],
    ["no groupName", "POST", `${P}/contacts`, { ...base, groupName: undefined }, 400, /groupName/],
    ["an unknown type", "POST", `${P}/contacts`, { ...base, type: "money" }, 400, /type must be one of/],
    ["an unknown fieldType", "POST", `${P}/contacts`, { ...base, fieldType: "slider" }, 400, /fieldType must be one of/],
    ["an enumeration without options", "POST", `${P}/contacts`, { ...base, type: "enumeration", fieldType: "select" }, 400, /options/],
    ["a built-in name", "POST", `${P}/contacts`, { ...base, name: "email" }, 409, /already exists/],
    ["changing a built-in", "PATCH", `${P}/contacts/email`, { label: "x" }, 400, /built in/],
    ["archiving a built-in", "DELETE", `${P}/contacts/email`, undefined, 400, /built in/],
    ["an unknown object type", "GET", `${P}/wid.gets`, undefined, 400, /objectType must be one of/],
  ];
  it.each(cases)("%s", async (_name, method, path, body, status, message) => {
    const t = await tenant();
    const err = expectError(await call(method, path, { token: t.pat, body }), status, status === 409 ? "CONFLICT" : "VALIDATION_ERROR");
    expect(`${err.message} ${JSON.stringify(err.errors ?? [])}`).toMatch(message);
  });

  it("a second create of the same name is a 409", async () => {
    const t = await tenant();
    await defineProperty(t, "deals", { name: "dup" });
    const again = await call("POST", `${P}/deals`, { token: t.pat, body: { ...base, name: "dup", groupName: "dealinformation" } });
    expectError(again, 409, "CONFLICT");
  });
});

describe("property definitions: isolation", () => {
  it("another account neither sees, reads, changes nor archives a custom property", async () => {
    const a = await tenant();
    const b = await tenant();
    await defineProperty(a, "companies", { name: "secret_score", type: "number", fieldType: "number" });
    const names = (await call("GET", `${P}/companies`, { token: b.pat })).json.results.map((p: { name: string }) => p.name);
    expect(names).not.toContain("secret_score");
    expectError(await call("GET", `${P}/companies/secret_score`, { token: b.pat }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("PATCH", `${P}/companies/secret_score`, { token: b.oauth, body: { label: "B" } }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("DELETE", `${P}/companies/secret_score`, { token: b.pat }), 404, "OBJECT_NOT_FOUND");
    expectError(await search(b, "companies", { filterGroups: [{ filters: [{ propertyName: "secret_score", operator: "HAS_PROPERTY" }] }] }), 400, "VALIDATION_ERROR");
    expect((await call("GET", `${P}/companies/secret_score`, { token: a.pat })).json.label).toBe("secret_score");
  });
});
