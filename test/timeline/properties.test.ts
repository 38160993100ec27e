/**
 * Event type properties `/event-types/{id}/properties` (docs/reference/timeline.md). An update names the
 * property by the `id` in its body, not in the path, as real clients send it.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, expectError, tenant } from "../helpers/api";
import { createProp, createType, dev, typesPath } from "./helpers";

const propsPath = (appId: number, typeId: number) => `${typesPath(appId)}/${typeId}/properties`;

describe("POST properties", () => {
  it("answers 200 with the saved property, both stamp keys null when unset", async () => {
    const t = await tenant();
    const type = await createType(t);
    const res = await dev(t, "POST", propsPath(t.appId, type.id), { name: "MyEventProperty", label: "My Event Property", propertyType: "String", objectProperty: null, options: [] });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({
      id: expect.any(Number),
      name: "MyEventProperty",
      label: "My Event Property",
      propertyType: "String",
      eventTypeId: type.id,
      options: [],
      objectProperty: null,
      contactProperty: null,
    });
  });

  it("accepts bodies of each documented kind: plain, stamping an object property, enumeration with options", async () => {
    const t = await tenant();
    const type = await createType(t);
    // The documentation's own examples are sent by test/traffic/timeline-docs-examples.test.ts.
    const bodies: Record<string, unknown>[] = [
      { name: "amount", label: "Amount", propertyType: "Numeric" },
      { name: "company", label: "Company", propertyType: "String", objectProperty: "company" },
      { name: "tier", label: "Tier", propertyType: "Enumeration", options: [{ value: "gold", label: "Gold" }, { value: "silver", label: "Silver" }] },
    ];
    for (const body of bodies) {
      const res = await dev(t, "POST", propsPath(t.appId, type.id), body);
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({ name: body.name, label: body.label, propertyType: body.propertyType, options: body.options ?? [] });
    }
    const list = await dev(t, "GET", propsPath(t.appId, type.id));
    expect(list.json.find((p: { name: string }) => p.name === "company")).toMatchObject({ objectProperty: "company", contactProperty: "company" });
  });

  it("accepts the legacy contactProperty as the stamp target", async () => {
    const t = await tenant();
    const type = await createType(t);
    const p = await createProp(t, type.id, { name: "plan", label: "Plan", propertyType: "String", contactProperty: "plan_name" });
    expect(p).toMatchObject({ objectProperty: "plan_name", contactProperty: "plan_name" });
  });

  it.each([
    ["reserved name log", { name: "log", label: "L", propertyType: "String" }, "name"],
    ["reserved name lookup", { name: "lookup", label: "L", propertyType: "String" }, "name"],
    ["name of an event field", { name: "timestamp", label: "T", propertyType: "Date" }, "name"],
    ["name with spaces", { name: "my prop", label: "L", propertyType: "String" }, "name"],
    ["missing name", { label: "L", propertyType: "String" }, "name"],
    ["missing label", { name: "p", propertyType: "String" }, "label"],
    ["missing propertyType", { name: "p", label: "L" }, "propertyType"],
    ["lower-case propertyType", { name: "p", label: "L", propertyType: "string" }, "propertyType"],
    ["unknown propertyType", { name: "p", label: "L", propertyType: "Boolean" }, "propertyType"],
    ["option without value", { name: "p", label: "L", propertyType: "Enumeration", options: [{ label: "A" }] }, "options.0.value"],
    ["duplicate option values", { name: "p", label: "L", propertyType: "Enumeration", options: [{ label: "A", value: "a" }, { label: "B", value: "a" }] }, "options"],
    ["stamping onto email", { name: "p", label: "L", propertyType: "String", objectProperty: "email" }, "objectProperty"],
    ["bad objectProperty", { name: "p", label: "L", propertyType: "String", objectProperty: "no spaces allowed" }, "objectProperty"],
    ["objectProperty and contactProperty differ", { name: "p", label: "L", propertyType: "String", objectProperty: "a", contactProperty: "b" }, "objectProperty"],
  ])("refuses %s with 400", async (_label, body, field) => {
    const t = await tenant();
    const type = await createType(t);
    const err = expectError(await dev(t, "POST", propsPath(t.appId, type.id), body), 400, "VALIDATION_ERROR");
    expect(err.errors[0].context.propertyName).toEqual([field]);
  });

  it("refuses a second property of the same name with 409", async () => {
    const t = await tenant();
    const type = await createType(t);
    await createProp(t, type.id, { name: "p", label: "P", propertyType: "String" });
    expectError(await dev(t, "POST", propsPath(t.appId, type.id), { name: "p", label: "P2", propertyType: "Numeric" }), 409, "CONFLICT");
  });

  it("answers 404 for an unknown event type", async () => {
    const t = await tenant();
    expectError(await dev(t, "POST", propsPath(t.appId, 99999999), { name: "p", label: "P", propertyType: "String" }), 404, "OBJECT_NOT_FOUND");
    expectError(await dev(t, "GET", propsPath(t.appId, 99999999)), 404, "OBJECT_NOT_FOUND");
  });
});

describe("GET, PUT, DELETE properties", () => {
  it("lists as a bare array in creation order", async () => {
    const t = await tenant();
    const type = await createType(t);
    const a = await createProp(t, type.id, { name: "a", label: "A", propertyType: "Numeric" });
    const b = await createProp(t, type.id, { name: "b", label: "B", propertyType: "Enumeration", options: [{ label: "Large", value: "large" }] });
    const res = await dev(t, "GET", propsPath(t.appId, type.id));
    expect(res.status).toBe(200);
    expect(res.json).toEqual([a, b]);
  });

  it("updates with PUT naming the property by the id in the body (node-hubspot's request)", async () => {
    const t = await tenant();
    const type = await createType(t);
    const p = await createProp(t, type.id, { name: "NumericProperty", label: "Numeric Property", propertyType: "Numeric" });
    // node-hubspot's update: the whole property with the new label and the id (its mock: timeline_v1__10).
    const res = await dev(t, "PUT", propsPath(t.appId, type.id), { name: "NumericProperty", label: "A new label", propertyType: "Numeric", id: p.id });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ id: p.id, name: "NumericProperty", label: "A new label", propertyType: "Numeric" });
    // Fields left out keep their value; null clears the stamp target.
    await dev(t, "PUT", propsPath(t.appId, type.id), { id: String(p.id), objectProperty: "score" });
    const cleared = await dev(t, "PUT", propsPath(t.appId, type.id), { id: p.id, eventTypeId: type.id, contactProperty: null });
    expect(cleared.json).toMatchObject({ label: "A new label", objectProperty: null, contactProperty: null });
  });

  it.each([
    ["a name change", (id: number) => ({ id, name: "renamed" }), 400, "VALIDATION_ERROR"],
    ["a missing id", () => ({ label: "x" }), 400, "VALIDATION_ERROR"],
    ["another event type's id in the body", (id: number) => ({ id, eventTypeId: 99999999 }), 400, "VALIDATION_ERROR"],
    ["an unknown id", () => ({ id: 99999999, label: "x" }), 404, "OBJECT_NOT_FOUND"],
    ["a reserved stamp target", (id: number) => ({ id, objectProperty: "hs_object_id" }), 400, "VALIDATION_ERROR"],
  ])("PUT refuses %s", async (_label, body, status, category) => {
    const t = await tenant();
    const type = await createType(t);
    const p = await createProp(t, type.id, { name: "p", label: "P", propertyType: "String" });
    expectError(await dev(t, "PUT", propsPath(t.appId, type.id), body(p.id)), status, category);
  });

  it("PUT cannot reach a property of another event type through this one", async () => {
    const t = await tenant();
    const one = await createType(t);
    const two = await createType(t);
    const p = await createProp(t, two.id, { name: "p", label: "P", propertyType: "String" });
    expectError(await dev(t, "PUT", propsPath(t.appId, one.id), { id: p.id, label: "x" }), 404, "OBJECT_NOT_FOUND");
  });

  it("DELETE answers 204 with no body; again it is a 404", async () => {
    const t = await tenant();
    const type = await createType(t);
    const p = await createProp(t, type.id, { name: "p", label: "P", propertyType: "String" });
    const res = await dev(t, "DELETE", `${propsPath(t.appId, type.id)}/${p.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(res.headers.get("content-type")).toBeNull();
    expect((await dev(t, "GET", propsPath(t.appId, type.id))).json).toEqual([]);
    expectError(await dev(t, "DELETE", `${propsPath(t.appId, type.id)}/${p.id}`), 404, "OBJECT_NOT_FOUND");
  });
});

describe("properties credentials", () => {
  it("requires the app's developer key or an OAuth token of the app; a private-app token is 403", async () => {
    const t = await tenant();
    const type = await createType(t);
    const body = { name: "p", label: "P", propertyType: "String" };
    expectError(await call("POST", propsPath(t.appId, type.id), { body }), 401, "INVALID_AUTHENTICATION");
    expectError(await call("POST", propsPath(t.appId, type.id), { token: t.pat, body }), 403, "FORBIDDEN");
    expectError(await call("GET", propsPath(t.appId, type.id), { token: t.pat }), 403, "FORBIDDEN");
    expect((await call("POST", propsPath(t.appId, type.id), { token: t.oauth, body })).status).toBe(200);
  });

  it("another app's developer key gets 404 and changes nothing", async () => {
    const a = await tenant();
    const b = await tenant();
    const type = await createType(a);
    const p = await createProp(a, type.id, { name: "p", label: "P", propertyType: "String" });
    const asB = (method: string, path: string, body?: unknown) => call(method, `${path}?hapikey=${b.developerKey}`, { body });
    expectError(await asB("GET", propsPath(a.appId, type.id)), 404, "OBJECT_NOT_FOUND");
    expectError(await asB("GET", propsPath(b.appId, type.id)), 404, "OBJECT_NOT_FOUND");
    expectError(await asB("POST", propsPath(b.appId, type.id), { name: "q", label: "Q", propertyType: "String" }), 404, "OBJECT_NOT_FOUND");
    expectError(await asB("PUT", propsPath(b.appId, type.id), { id: p.id, label: "stolen" }), 404, "OBJECT_NOT_FOUND");
    expectError(await asB("DELETE", `${propsPath(b.appId, type.id)}/${p.id}`), 404, "OBJECT_NOT_FOUND");
    expect((await dev(a, "GET", propsPath(a.appId, type.id))).json).toEqual([p]);
  });
});

describe("limit: 500 properties per event type", () => {
  it("refuses the 501st with an API_LIMIT error", async () => {
    const t = await tenant();
    const type = await createType(t);
    const other = await createType(t);
    await env.DB.prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < 499)
       insert into timeline_event_properties (event_type_id, name, label, property_type, created_at)
       select ?, 'seed' || i, 'Seed', 'String', 0 from n`,
    )
      .bind(type.id)
      .run();
    await createProp(t, type.id, { name: "p500", label: "500th", propertyType: "String" });
    const err = expectError(await dev(t, "POST", propsPath(t.appId, type.id), { name: "p501", label: "501st", propertyType: "String" }), 400, "API_LIMIT");
    expect(err.message).toContain("500");
    expect((await dev(t, "GET", propsPath(t.appId, type.id))).json).toHaveLength(500);
    await createProp(t, other.id, { name: "p1", label: "fine", propertyType: "String" });
  });
});
