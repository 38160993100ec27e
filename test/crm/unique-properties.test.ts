/**
 * Custom properties with `hasUniqueValue` (docs/reference/crm.md "Unique properties"): a value is held by one
 * live record of the type, on every v3 write face, checked before writing and guarded by triggers; and
 * `batch/upsert` by such a property on any type.
 */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant, type Tenant } from "../helpers/api";
import { accountD1 } from "../helpers/shards";
import { newSchema } from "../schemas/helpers";
import { defineProperty, make } from "./helpers";

const O = "/crm/v3/objects";
const unique = (t: Tenant, type: string, name = "ext_id") => defineProperty(t, type, { name, hasUniqueValue: true });

describe("unique properties", () => {
  it("a duplicate value is a 400 naming the property and the holder, on create, update and the batches", async () => {
    const t = await tenant();
    expect((await unique(t, "companies")).hasUniqueValue).toBe(true);
    const a = await make(t, "companies", { name: "A", ext_id: "A-1" });
    const b = await make(t, "companies", { name: "B", ext_id: "B-1" });

    const create = await call("POST", `${O}/companies`, { token: t.pat, body: { properties: { name: "C", ext_id: "A-1" } } });
    expectError(create, 400, "VALIDATION_ERROR");
    expect(create.json.message).toBe(`ext_id must be unique: "A-1" is already the ext_id of companies ${a}`);
    expect(create.json.errors[0].context).toEqual({ propertyName: ["properties.ext_id"], existingId: [a] });

    expectError(await call("PATCH", `${O}/companies/${b}`, { token: t.pat, body: { properties: { ext_id: "A-1" } } }), 400, "VALIDATION_ERROR");
    // Re-sending a record's own value is no duplicate.
    expect((await call("PATCH", `${O}/companies/${a}`, { token: t.pat, body: { properties: { ext_id: "A-1", name: "A2" } } })).status).toBe(200);

    const batchCreate = await call("POST", `${O}/companies/batch/create`, { token: t.pat, body: { inputs: [{ properties: { ext_id: "N-1" } }, { properties: { ext_id: "N-1" } }] } });
    expectError(batchCreate, 400, "VALIDATION_ERROR");
    expect(batchCreate.json.errors[0].context.propertyName).toEqual(["inputs.1.properties.ext_id"]);
    const batchUpdate = await call("POST", `${O}/companies/batch/update`, { token: t.pat, body: { inputs: [{ id: b, properties: { ext_id: "A-1" } }] } });
    expectError(batchUpdate, 400, "VALIDATION_ERROR");
    expect(batchUpdate.json.message).toContain(`companies ${a}`);
    // Nothing was written: B keeps its value, N-1 is nowhere.
    expect((await call("GET", `${O}/companies/${b}?properties=ext_id`, { token: t.pat })).json.properties.ext_id).toBe("B-1");

    // An archived record's value is free again; clearing frees it too.
    expect((await call("DELETE", `${O}/companies/${a}`, { token: t.pat })).status).toBe(204);
    expect((await call("PATCH", `${O}/companies/${b}`, { token: t.pat, body: { properties: { ext_id: "A-1" } } })).status).toBe(200);
  });

  // A raw insert takes its id from the database's own counter, as the API's writes do: SQLite's own next id
  // follows the largest id ever held, which an account moved in from another database can put out of range.
  const NEXT_ID = "(select seq + 1 from id_sequences where name = 'crm_objects')";

  it("the triggers refuse a duplicate the check did not see (a concurrent write), inside the write's transaction", async () => {
    const t = await tenant();
    await unique(t, "deals");
    const a = await make(t, "deals", { dealname: "A", ext_id: "X" });
    const db = await accountD1(t.portalId);
    // A write straight to the table, as a request that passed its check before `a` landed would run it.
    await expect(
      db.prepare(`insert into crm_objects (id, portal_id, object_type, properties, guid, created_at, updated_at) values (${NEXT_ID}, ?, 'deals', ?, 'g', 1, 1)`).bind(t.portalId, JSON.stringify({ ext_id: "X" })).run(),
    ).rejects.toThrow(/UNIQUE_PROPERTY_VALUE/);
    const b = await make(t, "deals", { dealname: "B", ext_id: "Y" });
    await expect(db.prepare("update crm_objects set properties = ? where id = ?").bind(JSON.stringify({ ext_id: "X" }), Number(b)).run()).rejects.toThrow(/UNIQUE_PROPERTY_VALUE/);
    // The record's own write of its value passes; so does an archived record holding it.
    await db.prepare("update crm_objects set properties = ? where id = ?").bind(JSON.stringify({ ext_id: "X", dealname: "A2" }), Number(a)).run();
    await db.prepare(`insert into crm_objects (id, portal_id, object_type, properties, guid, archived, created_at, updated_at) values (${NEXT_ID}, ?, 'deals', ?, 'g', 1, 1, 1)`).bind(t.portalId, JSON.stringify({ ext_id: "X" })).run();
  });

  it("a v1 contact write of a held value is refused by the triggers: 400, nothing written", async () => {
    const t = await tenant();
    await unique(t, "contacts", "member_no");
    await make(t, "contacts", { email: "first@x.test", member_no: "M1" });
    const res = await call("POST", "/contacts/v1/contact", { token: t.pat, body: { properties: [{ property: "email", value: "second@x.test" }, { property: "member_no", value: "M1" }] } });
    expectError(res, 400, "VALIDATION_ERROR");
    expect(res.json.message).toMatch(/unique property/);
    expect((await call("GET", "/contacts/v1/contact/email/second@x.test/profile", { token: t.pat })).status).toBe(404);
  });

  it("a property cannot become unique over shared values, nor be an enumeration", async () => {
    const t = await tenant();
    await make(t, "tickets", { subject: "1", code: "same", hs_pipeline: "0", hs_pipeline_stage: "1" });
    await make(t, "tickets", { subject: "2", code: "same", hs_pipeline: "0", hs_pipeline_stage: "1" });
    const shared = await call("POST", "/crm/v3/properties/tickets", { token: t.pat, body: { name: "code", label: "Code", type: "string", fieldType: "text", groupName: "ticketinformation", hasUniqueValue: true } });
    expectError(shared, 400, "VALIDATION_ERROR");
    expect(shared.json.errors[0].context.propertyName).toEqual(["hasUniqueValue"]);
    const enumeration = await call("POST", "/crm/v3/properties/tickets", {
      token: t.pat,
      body: { name: "kind", label: "Kind", type: "enumeration", fieldType: "select", groupName: "ticketinformation", options: [{ label: "A", value: "a" }], hasUniqueValue: true },
    });
    expectError(enumeration, 400, "VALIDATION_ERROR");
  });
});

describe("batch upsert by a unique property", () => {
  it("creates where no record holds the value and updates where one does, on a built-in type", async () => {
    const t = await tenant();
    await unique(t, "products");
    const old = await make(t, "products", { name: "Old", ext_id: "P-1" });
    const res = await call("POST", `${O}/products/batch/upsert`, {
      token: t.pat,
      body: { inputs: [{ idProperty: "ext_id", id: "P-1", properties: { price: "5" } }, { idProperty: "ext_id", id: "P-2", properties: { name: "New" } }] },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.status).toBe("COMPLETE");
    expect(res.json.results).toHaveLength(2);
    const again = await call("POST", `${O}/products/batch/read`, { token: t.pat, body: { idProperty: "ext_id", inputs: [{ id: "P-1" }, { id: "P-2" }], properties: ["ext_id", "price", "name"] } });
    expect(again.status, again.text).toBe(200);
    const rows = again.json.results as { id: string; properties: Record<string, string> }[];
    expect(rows.find((r) => r.properties.ext_id === "P-1")).toMatchObject({ id: old, properties: { price: "5", name: "Old" } });
    expect(rows.find((r) => r.properties.ext_id === "P-2")).toMatchObject({ properties: { name: "New" } });
    const flags = res.json.results.map((r: { id: string; new: boolean }) => [r.id === old, r.new]);
    expect(flags.sort()).toEqual([[false, true], [true, false]]);
  });

  it("an activity upserted by a unique property needs its time only when it is created", async () => {
    const t = await tenant();
    await unique(t, "notes");
    const at = "2026-11-01T10:00:00.000Z";
    const note = await make(t, "notes", { hs_timestamp: at, hs_note_body: "first", ext_id: "N-1" });
    const updated = await call("POST", `${O}/notes/batch/upsert`, { token: t.pat, body: { inputs: [{ idProperty: "ext_id", id: "N-1", properties: { hs_note_body: "second" } }] } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json.results.map((r: { id: string; new: boolean }) => [r.id, r.new])).toEqual([[String(note), false]]);
    const created = await call("POST", `${O}/notes/batch/upsert`, { token: t.pat, body: { inputs: [{ idProperty: "ext_id", id: "N-2", properties: { hs_note_body: "no time" } }] } });
    expectError(created, 400, "VALIDATION_ERROR");
    expect(created.json.errors[0].context.propertyName).toEqual(["inputs.0.properties.hs_timestamp"]);
    const search = await call("POST", `${O}/notes/search`, { token: t.pat, body: { filterGroups: [{ filters: [{ propertyName: "ext_id", operator: "EQ", value: "N-2" }] }] } });
    expect(search.json.total).toBe(0);
  });

  it("works on a custom object type and on contacts by a unique custom property", async () => {
    const t = await tenant();
    const schema = await newSchema(t);
    await defineProperty(t, schema.objectTypeId, { name: "vin", hasUniqueValue: true, groupName: "car_information" });
    const first = await call("POST", `${O}/car/batch/upsert`, { token: t.pat, body: { inputs: [{ idProperty: "vin", id: "V1", properties: { model: "T" } }] } });
    expect(first.status, first.text).toBe(200);
    expect(first.json.results[0].new).toBe(true);
    const second = await call("POST", `${O}/car/batch/upsert`, { token: t.pat, body: { inputs: [{ idProperty: "vin", id: "V1", properties: { model: "S" } }] } });
    expect(second.json.results[0]).toMatchObject({ id: first.json.results[0].id, new: false });
    // A new car still needs the schema's required properties; an existing one does not.
    const bare = await call("POST", `${O}/car/batch/upsert`, { token: t.pat, body: { inputs: [{ idProperty: "vin", id: "V1", properties: {} }, { idProperty: "vin", id: "V2", properties: {} }] } });
    expectError(bare, 400, "VALIDATION_ERROR");
    expect(JSON.stringify(bare.json)).toContain("inputs.1.");

    await unique(t, "contacts", "member_no");
    const c = await call("POST", `${O}/contacts/batch/upsert`, { token: t.pat, body: { inputs: [{ idProperty: "member_no", id: "M7", properties: { firstname: "Ann" } }] } });
    expect(c.status, c.text).toBe(200);
    expect(c.json.results[0]).toMatchObject({ new: true });
  });

  it("a value another input or record holds in another unique property is refused before writing", async () => {
    const t = await tenant();
    await unique(t, "deals", "ext_id");
    await unique(t, "deals", "alt_id");
    const held = await make(t, "deals", { dealname: "H", ext_id: "E1", alt_id: "ALT" });
    const res = await call("POST", `${O}/deals/batch/upsert`, { token: t.pat, body: { inputs: [{ idProperty: "ext_id", id: "E2", properties: { alt_id: "ALT" } }] } });
    expectError(res, 400, "VALIDATION_ERROR");
    expect(res.json.message).toContain(`deals ${held}`);
    // Updating the holder itself by its key keeps its own alt_id.
    const self = await call("POST", `${O}/deals/batch/upsert`, { token: t.pat, body: { inputs: [{ idProperty: "ext_id", id: "E1", properties: { alt_id: "ALT", dealname: "H2" } }] } });
    expect(self.status, self.text).toBe(200);
    expect(self.json.results[0]).toMatchObject({ id: held, new: false });
  });
});

describe("batch upsert: bad input", () => {
  const cases: [string, Record<string, unknown>[], string][] = [
    ["a property that is not unique", [{ idProperty: "dealname", id: "x", properties: {} }], "inputs.0.idProperty"],
    ["hs_object_id", [{ idProperty: "hs_object_id", id: "1", properties: {} }], "inputs.0.idProperty"],
    ["two idProperties", [{ idProperty: "ext_id", id: "a", properties: {} }, { idProperty: "other", id: "b", properties: {} }], "inputs.1.idProperty"],
    ["the same value twice", [{ idProperty: "ext_id", id: "a", properties: {} }, { idProperty: "ext_id", id: "a", properties: {} }], "inputs.1.id"],
    ["no idProperty", [{ id: "a", properties: {} }], "inputs.0.idProperty"],
  ];
  it.each(cases)("%s is a 400 naming the field", async (_, inputs, field) => {
    const t = await tenant();
    await unique(t, "deals");
    const res = await call("POST", `${O}/deals/batch/upsert`, { token: t.pat, body: { inputs } });
    expectError(res, 400, "VALIDATION_ERROR");
    expect(JSON.stringify(res.json.errors)).toContain(field);
  });
});

describe("single-record routes by idProperty", () => {
  it("GET, PATCH and DELETE name a record by a unique property's value, on a built-in and a custom type", async () => {
    const t = await tenant();
    await unique(t, "companies");
    const a = await make(t, "companies", { name: "A", ext_id: "A 1/x" });
    const key = encodeURIComponent("A 1/x");
    const read = await call("GET", `${O}/companies/${key}?idProperty=ext_id&properties=name`, { token: t.pat });
    expect(read.status, read.text).toBe(200);
    expect(read.json).toMatchObject({ id: a, properties: { name: "A" } });
    const patched = await call("PATCH", `${O}/companies/${key}?idProperty=ext_id`, { token: t.pat, body: { properties: { name: "A2" } } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json).toMatchObject({ id: a, properties: { name: "A2" } });
    expect((await call("DELETE", `${O}/companies/${key}?idProperty=ext_id`, { token: t.pat })).status).toBe(204);
    expectError(await call("GET", `${O}/companies/${key}?idProperty=ext_id`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
    // An archived read finds the archived holder by its value.
    const archived = await call("GET", `${O}/companies/${key}?idProperty=ext_id&archived=true`, { token: t.pat });
    expect(archived.status, archived.text).toBe(200);
    expect(archived.json).toMatchObject({ id: a, archived: true });

    const schema = await newSchema(t);
    await defineProperty(t, schema.objectTypeId, { name: "vin", hasUniqueValue: true, groupName: "car_information" });
    const car = await call("POST", `${O}/${schema.objectTypeId}`, { token: t.pat, body: { properties: { model: "T", vin: "V9" } } });
    expect(car.status, car.text).toBe(201);
    const byVin = await call("GET", `${O}/car/V9?idProperty=vin`, { token: t.pat });
    expect(byVin.status, byVin.text).toBe(200);
    expect(byVin.json.id).toBe(car.json.id);
    expect((await call("PATCH", `${O}/car/V9?idProperty=vin`, { token: t.pat, body: { properties: { model: "S" } } })).json.properties.model).toBe("S");
    expect((await call("DELETE", `${O}/car/V9?idProperty=vin`, { token: t.pat })).status).toBe(204);
  });

  it("a property that is not unique is a 400; a value no record holds is a 404", async () => {
    const t = await tenant();
    await unique(t, "deals");
    await make(t, "deals", { dealname: "D", ext_id: "E1" });
    for (const method of ["GET", "PATCH", "DELETE"] as const) {
      const body = method === "PATCH" ? { properties: { dealname: "x" } } : undefined;
      const notUnique = await call(method, `${O}/deals/D?idProperty=dealname`, { token: t.pat, body });
      expectError(notUnique, 400, "VALIDATION_ERROR");
      expect(notUnique.json.errors[0].context.propertyName).toEqual(["idProperty"]);
      expectError(await call(method, `${O}/deals/E2?idProperty=ext_id`, { token: t.pat, body }), 404, "OBJECT_NOT_FOUND");
    }
    // email is unique on contacts only.
    expectError(await call("GET", `${O}/deals/a@x.test?idProperty=email`, { token: t.pat }), 400, "VALIDATION_ERROR");
  });
});
