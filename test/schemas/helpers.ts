/** Helpers of the custom object schema tests: a schema made through the API. */
import { expect } from "vitest";
import { call, type Tenant } from "../helpers/api";

export const S = "/crm-object-schemas/v3/schemas";

export const carBody = (name = "car") => ({
  name,
  labels: { singular: "Car", plural: "Cars" },
  primaryDisplayProperty: "model",
  secondaryDisplayProperties: ["year"],
  requiredProperties: ["model"],
  searchableProperties: ["model"],
  properties: [
    { name: "model", label: "Model", type: "string", fieldType: "text" },
    { name: "year", label: "Year", type: "number", fieldType: "number" },
  ],
  associatedObjects: ["contacts"],
});

export async function newSchema(t: Tenant, name = "car") {
  const res = await call("POST", S, { token: t.pat, body: carBody(name) });
  expect(res.status, res.text).toBe(201);
  return res.json as { id: string; objectTypeId: string; fullyQualifiedName: string; associations: { id: string }[] };
}
