/** Helpers of the lists tests: contacts and lists made through the API. */
import { expect } from "vitest";
import { call, type Tenant } from "../helpers/api";

export const L = "/crm/v3/lists";

export async function newContact(t: Tenant, properties: Record<string, string>) {
  const res = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties } });
  expect(res.status, res.text).toBe(201);
  return res.json.id as string;
}

export async function newList(t: Tenant, body: Record<string, unknown>) {
  const res = await call("POST", L, { token: t.pat, body: { objectTypeId: "0-1", processingType: "MANUAL", name: `List ${crypto.randomUUID().slice(0, 8)}`, ...body } });
  expect(res.status, res.text).toBe(200);
  return res.json.list as { listId: string; name: string; processingType: string; listVersion: number };
}

/** An OR of one AND branch of the given PROPERTY filters: the real service's usual shape. */
export const branch = (...filters: Record<string, unknown>[]) => ({
  filterBranchType: "OR",
  filters: [],
  filterBranches: [{ filterBranchType: "AND", filters: filters.map((f) => ({ filterType: "PROPERTY", ...f })), filterBranches: [] }],
});

export const stringIs = (property: string, value: string, operator = "IS_EQUAL_TO") => ({ property, operation: { operationType: "STRING", operator, value } });

export async function memberIds(t: Tenant, listId: string, query = "") {
  const res = await call("GET", `${L}/${listId}/memberships${query}`, { token: t.pat });
  expect(res.status, res.text).toBe(200);
  return (res.json.results as { recordId: string }[]).map((r) => r.recordId);
}
