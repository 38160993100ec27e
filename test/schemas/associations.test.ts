/**
 * Associations of custom object records (docs/reference/schemas.md "Associations"): a schema's association
 * definitions give each pair its unlabelled USER_DEFINED type, one id per direction; v4 default and labelled
 * writes, v4 and v3 reads from both sides, and labels work on such a pair; a pair no definition names is a 400.
 */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant, type Tenant } from "../helpers/api";
import { carBody, newSchema, S } from "./helpers";

const V4 = "/crm/v4";

async function create(t: Tenant, type: string, properties: Record<string, string>) {
  const res = await call("POST", `/crm/v3/objects/${type}`, { token: t.pat, body: { properties } });
  expect(res.status, res.text).toBe(201);
  return res.json.id as string;
}

/** The types a v4 page answers for its only result. */
async function typesOf(t: Tenant, from: string, id: string, to: string) {
  const res = await call("GET", `${V4}/objects/${from}/${id}/associations/${to}`, { token: t.pat });
  expect(res.status, res.text).toBe(200);
  return res.json.results as { toObjectId: number; associationTypes: { category: string; typeId: number; label: string | null }[] }[];
}

describe("custom object associations", () => {
  it("a default association through v4 reads back from both sides, in v4 and v3, with the definition's ids", async () => {
    const t = await tenant();
    const car = await newSchema(t);
    const [definition] = (await call("GET", `${S}/${car.objectTypeId}`, { token: t.pat })).json.associations as { id: string }[];
    const forward = Number(definition!.id);
    const model = await create(t, car.objectTypeId, { model: "Model T" });
    const ada = await create(t, "contacts", { email: "ada@example.com" });

    const put = await call("PUT", `${V4}/objects/${car.objectTypeId}/${model}/associations/default/contacts/${ada}`, { token: t.pat });
    expect(put.status, put.text).toBe(200);
    expect(put.json.results[0].associationSpec).toEqual({ associationCategory: "USER_DEFINED", associationTypeId: forward });

    expect(await typesOf(t, car.objectTypeId, model, "contacts")).toEqual([{ toObjectId: Number(ada), associationTypes: [{ category: "USER_DEFINED", typeId: forward, label: null }] }]);
    const back = await typesOf(t, "contacts", ada, car.fullyQualifiedName);
    expect(back).toEqual([{ toObjectId: Number(model), associationTypes: [{ category: "USER_DEFINED", typeId: expect.any(Number), label: null }] }]);
    const inverse = back[0]!.associationTypes[0]!.typeId;
    expect(inverse).not.toBe(forward);

    // The labels endpoint lists each direction's default.
    const types = await call("GET", `${V4}/associations/contacts/${car.objectTypeId}/labels`, { token: t.pat });
    expect(types.json.results).toEqual([{ category: "USER_DEFINED", typeId: inverse, label: null }]);

    // v3: the record read with its associations, both sides.
    const v3 = await call("GET", `/crm/v3/objects/${car.objectTypeId}/${model}?associations=contacts`, { token: t.pat });
    expect(v3.json.associations.contacts.results.map((r: { id: string }) => r.id)).toEqual([ada]);
    const v3back = await call("GET", `/crm/v3/objects/contacts/${ada}?associations=${car.objectTypeId}`, { token: t.pat });
    expect(v3back.json.associations[car.objectTypeId].results.map((r: { id: string }) => r.id)).toEqual([model]);
    const v3batch = await call("POST", `/crm/v3/associations/contacts/${car.objectTypeId}/batch/read`, { token: t.pat, body: { inputs: [{ id: ada }] } });
    expect(v3batch.status, v3batch.text).toBe(200);
    expect(v3batch.json.results[0].to.map((r: { id: string }) => r.id)).toEqual([model]);
  });

  it("batch default associations, labels and the v4 labelled PUT work on a custom pair", async () => {
    const t = await tenant();
    const car = await newSchema(t);
    const model = await create(t, car.objectTypeId, { model: "Model T" });
    const beetle = await create(t, car.objectTypeId, { model: "Beetle" });
    const ada = await create(t, "contacts", { email: "ada@example.com" });

    const batch = await call("POST", `${V4}/associations/contacts/${car.objectTypeId}/batch/associate/default`, { token: t.pat, body: { inputs: [{ from: { id: ada }, to: { id: model } }] } });
    expect(batch.status, batch.text).toBe(200);
    expect(batch.json.results[0].associationSpec.associationCategory).toBe("USER_DEFINED");

    const label = await call("POST", `${V4}/associations/${car.objectTypeId}/contacts/labels`, { token: t.pat, body: { name: "driver", label: "Driver", inverseLabel: "Drives" } });
    expect(label.status, label.text).toBe(200);
    const [driver, drives] = label.json.results as { typeId: number }[];
    const labelled = await call("PUT", `${V4}/objects/${car.objectTypeId}/${beetle}/associations/contacts/${ada}`, { token: t.pat, body: [{ associationCategory: "USER_DEFINED", associationTypeId: driver!.typeId }] });
    expect(labelled.status, labelled.text).toBe(201);
    expect(labelled.json.labels).toEqual(["Driver"]);

    const fromAda = await typesOf(t, "contacts", ada, car.objectTypeId);
    expect(fromAda.map((r) => [r.toObjectId, r.associationTypes.map((x) => x.label)])).toEqual([
      [Number(model), [null]],
      [Number(beetle), [null, "Drives"]],
    ]);
    expect(fromAda[1]!.associationTypes[1]).toEqual({ category: "USER_DEFINED", typeId: drives!.typeId, label: "Drives" });

    // v3 batch create with the pair's default, from the custom side.
    const v3 = await call("POST", `/crm/v3/associations/${car.objectTypeId}/contacts/batch/create`, { token: t.pat, body: { inputs: [{ from: { id: model }, to: { id: ada } }] } });
    expect(v3.status, v3.text).toBe(201);
  });

  it("a pair no definition names is a 400 on every face; a definition added later makes it associable", async () => {
    const t = await tenant();
    const car = await newSchema(t);
    const model = await create(t, car.objectTypeId, { model: "Model T" });
    const deal = await create(t, "deals", { dealname: "D" });
    const faces = [
      () => call("PUT", `${V4}/objects/${car.objectTypeId}/${model}/associations/default/deals/${deal}`, { token: t.pat }),
      () => call("PUT", `${V4}/objects/deals/${deal}/associations/default/${car.objectTypeId}/${model}`, { token: t.pat }),
      () => call("POST", `${V4}/associations/${car.objectTypeId}/deals/batch/associate/default`, { token: t.pat, body: { inputs: [{ from: { id: model }, to: { id: deal } }] } }),
      () => call("PUT", `/crm/v3/objects/${car.objectTypeId}/${model}/associations/deals/${deal}`, { token: t.pat }),
      () => call("PUT", `/crm/v3/objects/deals/${deal}/associations/${car.objectTypeId}/${model}`, { token: t.pat }),
      () => call("POST", `${V4}/associations/${car.objectTypeId}/deals/labels`, { token: t.pat, body: { name: "x", label: "X" } }),
    ];
    for (const face of faces) {
      const res = await face();
      expectError(res, 400, "VALIDATION_ERROR");
      expect(res.json.message).toContain("No association type exists");
    }
    expect(await typesOf(t, car.objectTypeId, model, "deals")).toEqual([]);

    const defined = await call("POST", `${S}/${car.objectTypeId}/associations`, { token: t.pat, body: { fromObjectTypeId: car.objectTypeId, toObjectTypeId: "0-3" } });
    expect(defined.status, defined.text).toBe(201);
    for (const face of faces.slice(0, 5)) expect((await face()).status).toBeLessThan(300);
    expect((await typesOf(t, "deals", deal, car.objectTypeId))[0]!.associationTypes).toEqual([{ category: "USER_DEFINED", typeId: expect.any(Number), label: null }]);
  });

  it("two custom types associate through one schema's definition, with ids distinct from the other schema's", async () => {
    const t = await tenant();
    const car = await newSchema(t);
    const made = await call("POST", S, { token: t.pat, body: { ...carBody("garage"), associatedObjects: [car.objectTypeId] } });
    expect(made.status, made.text).toBe(201);
    const garage = made.json as { objectTypeId: string; associations: { id: string }[] };
    const ids = [...car.associations, ...garage.associations].map((a) => a.id);
    expect(new Set(ids).size).toBe(ids.length);
    const g = await create(t, garage.objectTypeId, { model: "Main St" });
    const c = await create(t, car.objectTypeId, { model: "Model T" });
    expect((await call("PUT", `${V4}/objects/${car.objectTypeId}/${c}/associations/default/${garage.objectTypeId}/${g}`, { token: t.pat })).status).toBe(200);
    expect((await typesOf(t, garage.objectTypeId, g, car.objectTypeId))[0]!.associationTypes[0]).toEqual({ category: "USER_DEFINED", typeId: Number(garage.associations[0]!.id), label: null });
  });
});
