/** Helpers of the engagements v1 tests. */
import { expect } from "vitest";
import { admin, call, unique, type Tenant } from "../helpers/api";

export const E1 = "/engagements/v1/engagements";

/** Creates an engagement through v1 and returns the answer's body. */
export async function v1Engagement(t: Tenant, body: unknown) {
  const res = await call("POST", E1, { token: t.pat, body });
  expect(res.status, res.text).toBe(200);
  return res.json;
}

/** A v3 record made with the private-app token; its id as a number, as v1 answers ids. */
export async function record(t: Tenant, type: string, properties: Record<string, string> = {}, associations?: unknown[]): Promise<number> {
  const res = await call("POST", `/crm/v3/objects/${type}`, { token: t.pat, body: { properties, associations } });
  expect(res.status, res.text).toBe(201);
  return Number(res.json.id);
}

/** A new user of the account and its owner id (a number, as v1 answers `ownerId`). */
export async function ownerOf(t: Tenant): Promise<number> {
  const email = `${unique("owner")}@example.com`;
  await admin("POST", `/admin/v1/accounts/${t.portalId}/users`, { email });
  const res = await call("GET", `/crm/v3/owners?email=${encodeURIComponent(email)}`, { token: t.pat });
  expect(res.json.results, res.text).toHaveLength(1);
  return Number(res.json.results[0].id);
}
