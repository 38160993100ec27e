/** Helpers of the CRM v3 completeness tests: records made through the API, ids as the API answers them. */
import { expect } from "vitest";
import { call, type Tenant } from "../helpers/api";

export async function make(t: Tenant, type: string, properties: Record<string, string>): Promise<string> {
  const res = await call("POST", `/crm/v3/objects/${type}`, { token: t.pat, body: { properties } });
  expect(res.status, res.text).toBe(201);
  return res.json.id as string;
}

export const search = (t: Tenant, type: string, body: unknown) => call("POST", `/crm/v3/objects/${type}/search`, { token: t.pat, body });

export const ids = (res: { json: { results: { id: string }[] } }) => res.json.results.map((r) => r.id);

export async function defineProperty(t: Tenant, type: string, body: Record<string, unknown>) {
  const res = await call("POST", `/crm/v3/properties/${type}`, { token: t.pat, body: { label: String(body.name), groupName: "custom", fieldType: "text", type: "string", ...body } });
  expect(res.status, res.text).toBe(201);
  return res.json;
}
