/** `POST /crm/v3/properties/{objectType}/batch/{create,read,archive}`: the single-property rules, in batches of up to 100. */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant } from "../helpers/api";
import { newSchema } from "../schemas/helpers";

const P = "/crm/v3/properties";
const prop = (name: string, extra: Record<string, unknown> = {}) => ({ name, label: name, type: "string", fieldType: "text", groupName: "dealinformation", ...extra });

describe("property batches", () => {
  it("creates (201), reads (200, 207 for unknown names) and archives (204) properties", async () => {
    const t = await tenant();
    const made = await call("POST", `${P}/deals/batch/create`, { token: t.oauth, body: { inputs: [prop("region"), prop("score", { type: "number", fieldType: "number" })] } });
    expect(made.status, made.text).toBe(201);
    expect(made.json).toMatchObject({ status: "COMPLETE", results: [{ name: "region", hubspotDefined: false }, { name: "score", type: "number" }] });
    expect(Date.parse(made.json.startedAt)).toBeLessThanOrEqual(Date.parse(made.json.completedAt));

    const read = await call("POST", `${P}/deals/batch/read`, { token: t.pat, body: { archived: false, inputs: [{ name: "region" }, { name: "dealname" }] } });
    expect(read.status, read.text).toBe(200);
    expect(read.json.results.map((p: { name: string }) => p.name)).toEqual(["region", "dealname"]);
    const partial = await call("POST", `${P}/deals/batch/read`, { token: t.pat, body: { archived: false, inputs: [{ name: "region" }, { name: "nope" }] } });
    expect(partial.status).toBe(207);
    expect(partial.json).toMatchObject({ numErrors: 1, errors: [{ category: "OBJECT_NOT_FOUND", context: { properties: ["nope"] } }] });

    const gone = await call("POST", `${P}/deals/batch/archive`, { token: t.pat, body: { inputs: [{ name: "region" }, { name: "score" }, { name: "never" }] } });
    expect(gone.status, gone.text).toBe(204);
    expectError(await call("GET", `${P}/deals/region`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
  });

  it("creates all or none: a taken name, a name twice or an unknown group writes nothing", async () => {
    const t = await tenant();
    expect((await call("POST", `${P}/deals`, { token: t.pat, body: prop("taken") })).status).toBe(201);
    expectError(await call("POST", `${P}/deals/batch/create`, { token: t.pat, body: { inputs: [prop("fresh1"), prop("taken")] } }), 409, "CONFLICT");
    const twice = await call("POST", `${P}/deals/batch/create`, { token: t.pat, body: { inputs: [prop("fresh1"), prop("fresh1")] } });
    expectError(twice, 400, "VALIDATION_ERROR");
    expect(twice.json.errors[0].context.propertyName).toEqual(["inputs.1.name"]);
    expectError(await call("POST", `${P}/deals/batch/create`, { token: t.pat, body: { inputs: [prop("fresh1"), prop("fresh2", { groupName: "nogroup" })] } }), 400, "VALIDATION_ERROR");
    expectError(await call("POST", `${P}/deals/batch/create`, { token: t.pat, body: { inputs: [prop("dealname")] } }), 409, "CONFLICT");
    expectError(await call("GET", `${P}/deals/fresh1`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
  });

  it("works on a custom object type", async () => {
    const t = await tenant();
    const schema = await newSchema(t);
    const made = await call("POST", `${P}/${schema.objectTypeId}/batch/create`, { token: t.pat, body: { inputs: [prop("colour", { groupName: "car_information" })] } });
    expect(made.status, made.text).toBe(201);
    const read = await call("POST", `${P}/car/batch/read`, { token: t.pat, body: { archived: false, inputs: [{ name: "colour" }, { name: "model" }] } });
    expect(read.json.results.map((p: { name: string }) => p.name)).toEqual(["colour", "model"]);
    expect((await call("POST", `${P}/car/batch/archive`, { token: t.pat, body: { inputs: [{ name: "colour" }] } })).status).toBe(204);
  });

  it("refuses a built-in name in an archive, and nothing is archived", async () => {
    const t = await tenant();
    expect((await call("POST", `${P}/deals`, { token: t.pat, body: prop("keepme") })).status).toBe(201);
    const res = await call("POST", `${P}/deals/batch/archive`, { token: t.pat, body: { inputs: [{ name: "keepme" }, { name: "dealname" }] } });
    expectError(res, 400, "VALIDATION_ERROR");
    expect(res.json.errors[0].context.propertyName).toEqual(["inputs.1.name"]);
    expect((await call("GET", `${P}/deals/keepme`, { token: t.pat })).status).toBe(200);
  });
});

describe("property batches: bad input", () => {
  const cases: [string, string, unknown, string][] = [
    ["no inputs", "create", { inputs: [] }, "inputs"],
    ["101 inputs", "read", { inputs: Array.from({ length: 101 }, (_, i) => ({ name: `p${i}` })) }, "inputs"],
    ["a bad name", "create", { inputs: [prop("Bad")] }, "inputs.0.name"],
    ["an unknown type", "create", { inputs: [prop("ok", { type: "money" })] }, "inputs.0.type"],
    ["an enumeration without options", "create", { inputs: [prop("ok", { type: "enumeration", fieldType: "select" })] }, "inputs.0.options"],
    ["a name missing", "archive", { inputs: [{}] }, "inputs.0.name"],
  ];
  it.each(cases)("%s is a 400 naming the field", async (_, op, body, field) => {
    const t = await tenant();
    const res = await call("POST", `${P}/deals/batch/${op}`, { token: t.pat, body });
    expectError(res, 400, "VALIDATION_ERROR");
    expect(JSON.stringify(res.json)).toContain(field);
  });
});
