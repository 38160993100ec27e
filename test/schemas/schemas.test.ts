/**
 * Custom object schemas (docs/reference/schemas.md): schema CRUD, records of a custom type through every
 * name of it, another account's type, and bad input that writes nothing.
 */
import { describe, expect, it } from "vitest";
import { call, tenant } from "../helpers/api";
import { accountD1 } from "../helpers/shards";
import { carBody, newSchema, S } from "./helpers";

const rowsOf = async (portalId: number, table: string) =>
  (await (await accountD1(portalId)).prepare(`select count(*) as n from ${table} where portal_id = ?`).bind(portalId).first<number>("n"))!;

describe("schemas", () => {
  it("creates, reads, lists, updates, archives and purges a schema, at both paths", async () => {
    const t = await tenant();
    const made = await newSchema(t);
    expect(made.objectTypeId).toMatch(/^2-\d+$/);
    expect(made.fullyQualifiedName).toBe(`p${t.portalId}_car`);
    expect(made).toMatchObject({ name: "car", labels: { singular: "Car", plural: "Cars" }, primaryDisplayProperty: "model", requiredProperties: ["model"], archived: false });
    expect(made.associations).toEqual([expect.objectContaining({ fromObjectTypeId: made.objectTypeId, toObjectTypeId: "0-1" })]);
    for (const name of [made.objectTypeId, made.fullyQualifiedName, "car"]) {
      const got = await call("GET", `/crm/v3/schemas/${name}`, { token: t.pat });
      expect(got.status, got.text).toBe(200);
      expect(got.json.properties.map((p: { name: string }) => p.name)).toEqual(["model", "year"]);
    }
    const list = await call("GET", S, { token: t.pat });
    expect(list.json.results.map((r: { id: string }) => r.id)).toEqual([made.id]);
    const batch = await call("POST", `${S}/batch/read`, { token: t.pat, body: { inputs: [made.objectTypeId, "nope"] } });
    expect(batch.json.results).toHaveLength(1);
    // 99 names: one statement within D1's bound values, and only this account's schemas.
    const many = await call("POST", `${S}/batch/read`, { token: t.pat, body: { inputs: [...Array.from({ length: 98 }, (_, i) => `n${i}`), "car"] } });
    expect(many.status, many.text).toBe(200);
    expect(many.json.results.map((r: { id: string }) => r.id)).toEqual([made.id]);
    const patched = await call("PATCH", `${S}/${made.objectTypeId}`, { token: t.pat, body: { labels: { singular: "Auto", plural: "Autos" }, requiredProperties: [] } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json).toMatchObject({ labels: { singular: "Auto" }, requiredProperties: [], portalId: t.portalId });
    const assoc = await call("POST", `${S}/${made.objectTypeId}/associations`, { token: t.pat, body: { fromObjectTypeId: made.objectTypeId, toObjectTypeId: "0-2" } });
    expect(assoc.status, assoc.text).toBe(201);
    expect((await call("DELETE", `${S}/${made.objectTypeId}/associations/${assoc.json.id}`, { token: t.pat })).status).toBe(204);
    expect((await call("DELETE", `${S}/${made.objectTypeId}/associations/${assoc.json.id}`, { token: t.pat })).status).toBe(404);
    expect((await call("DELETE", `${S}/${made.objectTypeId}`, { token: t.pat })).status).toBe(204);
    expect((await call("GET", `${S}/${made.objectTypeId}`, { token: t.pat })).status).toBe(404);
    expect((await call("GET", `/crm/v3/objects/${made.objectTypeId}`, { token: t.pat })).status).toBe(404);
    expect((await call("GET", `${S}?archived=true`, { token: t.pat })).json.results).toHaveLength(1);
    expect((await call("DELETE", `${S}/${made.objectTypeId}/purge`, { token: t.pat })).status).toBe(204);
    expect(await rowsOf(t.portalId, "crm_schemas")).toBe(0);
    expect(await rowsOf(t.portalId, "crm_properties")).toBe(0);
  });
});

describe("records of a custom type", () => {
  it("are created, read, searched, batch-read and described by id, fully qualified name and name", async () => {
    const t = await tenant();
    const { objectTypeId, fullyQualifiedName } = await newSchema(t);
    const made = await call("POST", `/crm/v3/objects/${fullyQualifiedName}`, { token: t.pat, body: { properties: { model: "Model T", year: "1908" } } });
    expect(made.status, made.text).toBe(201);
    const got = await call("GET", `/crm/v3/objects/car/${made.json.id}`, { token: t.pat });
    expect(got.status, got.text).toBe(200);
    expect(got.json.properties.model).toBe("Model T");
    const found = await call("POST", `/crm/v3/objects/${objectTypeId}/search`, { token: t.pat, body: { query: "model", properties: ["model", "year"] } });
    expect(found.status, found.text).toBe(200);
    expect(found.json.results.map((r: { id: string }) => r.id)).toEqual([made.json.id]);
    const batch = await call("POST", `/crm/v3/objects/${objectTypeId}/batch/read`, { token: t.pat, body: { inputs: [{ id: made.json.id }], properties: ["year"] } });
    expect(batch.json.results[0].properties.year).toBe("1908");
    const props = await call("GET", `/crm/v3/properties/${objectTypeId}`, { token: t.pat });
    expect(props.json.results.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(["model", "year", "hs_object_id"]));
    const contact = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { email: `car${Date.now()}@example.com` } } });
    const put = await call("PUT", `/crm/v3/objects/${objectTypeId}/${made.json.id}/associations/contacts/${contact.json.id}`, { token: t.pat });
    expect(put.status, put.text).toBe(204);
    const withAssoc = await call("GET", `/crm/v3/objects/${objectTypeId}/${made.json.id}?associations=contacts`, { token: t.pat });
    expect(withAssoc.json.associations.contacts.results.map((r: { id: string }) => r.id)).toEqual([contact.json.id]);
    const v4 = await call("GET", `/crm/v4/objects/contacts/${contact.json.id}/associations/${objectTypeId}`, { token: t.pat });
    expect(v4.status, v4.text).toBe(200);
    expect(v4.json.results.map((r: { toObjectId: number }) => String(r.toObjectId))).toEqual([made.json.id]);
  });

  it("a type of another account is a 404 by every name, and writes nothing", async () => {
    const a = await tenant();
    const b = await tenant();
    const { objectTypeId, fullyQualifiedName } = await newSchema(a);
    for (const name of [objectTypeId, fullyQualifiedName, "car"]) {
      const res = await call("POST", `/crm/v3/objects/${name}`, { token: b.pat, body: { properties: { model: "x" } } });
      expect(res.status, name).toBe(404);
      expect((await call("GET", `${S}/${name}`, { token: b.pat })).status).toBe(404);
    }
    // A name no schema of the account has is as unknown as another account's: 404.
    expect((await call("GET", "/crm/v3/objects/widgets", { token: b.pat })).status).toBe(404);
    expect(await rowsOf(b.portalId, "crm_objects")).toBe(0);
  });

  it("a missing required property is a 400 naming it", async () => {
    const t = await tenant();
    const { objectTypeId } = await newSchema(t);
    const res = await call("POST", `/crm/v3/objects/${objectTypeId}`, { token: t.pat, body: { properties: { year: "1999" } } });
    expect(res.status).toBe(400);
    expect(res.text).toContain("model");
    expect(await rowsOf(t.portalId, "crm_objects")).toBe(0);
  });
});

describe("associated objects", () => {
  it("take the real service's upper-case singular names as well as names and ids", async () => {
    const t = await tenant();
    const res = await call("POST", S, { token: t.pat, body: { ...carBody(), associatedObjects: ["CONTACT", "COMPANY", "0-3", "tickets"] } });
    expect(res.status, res.text).toBe(201);
    expect(res.json.associations.map((a: { toObjectTypeId: string }) => a.toObjectTypeId)).toEqual(["0-1", "0-2", "0-3", "0-5"]);
    // Lower-case singular names are not among them: a 400 naming the field.
    const bad = await call("POST", S, { token: t.pat, body: { ...carBody("boat"), associatedObjects: ["contact"] } });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.text).toContain("associatedObjects");
  });
});

describe("bad schema input writes nothing", () => {
  const body = carBody();
  const rows: [string, unknown, string][] = [
    ["unknown property type", { ...body, properties: [{ ...body.properties[0], type: "color" }] }, "type"],
    ["unknown fieldType", { ...body, properties: [{ ...body.properties[0], fieldType: "slider" }] }, "fieldType"],
    ["required property not among its properties", { ...body, requiredProperties: ["vin"] }, "requiredProperties"],
    ["primary display property not among its properties", { ...body, primaryDisplayProperty: "vin" }, "primaryDisplayProperty"],
    ["a property defined twice", { ...body, properties: [body.properties[0], body.properties[0]] }, "defined twice"],
    ["an unknown associated object", { ...body, associatedObjects: ["spaceships"] }, "associatedObjects"],
    ["no labels", { ...body, labels: undefined }, "labels"],
  ];
  it.each(rows)("%s", async (_, input, named) => {
    const t = await tenant();
    const res = await call("POST", S, { token: t.pat, body: input });
    expect(res.status, res.text).toBe(400);
    expect(res.text).toContain(named);
    expect(await rowsOf(t.portalId, "crm_schemas")).toBe(0);
    expect(await rowsOf(t.portalId, "crm_properties")).toBe(0);
  });

  it("a duplicate name is a 400 naming it", async () => {
    const t = await tenant();
    await newSchema(t);
    const res = await call("POST", S, { token: t.pat, body: carBody() });
    expect(res.status).toBe(400);
    expect(res.text).toContain("car");
    expect(await rowsOf(t.portalId, "crm_schemas")).toBe(1);
  });
});
