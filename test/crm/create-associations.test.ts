/**
 * `POST /crm/v3/objects/{type}` honours `associations` as @hubspot/api-client sends them,
 * `[{ to: { id }, types: [{ associationCategory, associationTypeId }] }]`, with the v3 HUBSPOT_DEFINED
 * association type ids (src/services/crm/association-types.ts). A target that is not in the account is a 400
 * and nothing is created.
 */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant, type Tenant } from "../helpers/api";

const create = (t: Tenant, type: string, body: unknown) => call("POST", `/crm/v3/objects/${type}`, { token: t.pat, body });
const idOf = async (t: Tenant, type: string, properties: Record<string, string>) => (await create(t, type, { properties })).json.id as string;
const assoc = (id: string, associationTypeId: number) => ({ to: { id }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId }] });

async function associated(t: Tenant, type: string, id: string, toType: string): Promise<string[]> {
  const res = await call("GET", `/crm/v3/objects/${type}/${id}?associations=${toType}`, { token: t.pat });
  return ((res.json.associations?.[toType]?.results ?? []) as { id: string }[]).map((r) => r.id);
}

describe("CRM v3 create with associations", () => {
  it("a contact created with a company (279) and a deal (4): both directions are stored", async () => {
    const t = await tenant();
    const company = await idOf(t, "companies", { name: "Acme" });
    const deal = await idOf(t, "deals", { dealname: "Big" });
    const res = await create(t, "contacts", { properties: { email: "a@example.com" }, associations: [assoc(company, 279), assoc(deal, 4)] });
    expect(res.status).toBe(201);
    expect(await associated(t, "contacts", res.json.id, "companies")).toEqual([company]);
    expect(await associated(t, "contacts", res.json.id, "deals")).toEqual([deal]);
    expect(await associated(t, "companies", company, "contacts")).toEqual([res.json.id]);
    expect(await associated(t, "deals", deal, "contacts")).toEqual([res.json.id]);
  });

  it.each([
    ["contacts", "companies", 279], ["contacts", "companies", 1], ["companies", "contacts", 280], ["companies", "contacts", 2],
    ["contacts", "deals", 4], ["deals", "contacts", 3],
    ["companies", "deals", 342], ["companies", "deals", 6], ["deals", "companies", 341], ["deals", "companies", 5],
    ["deals", "line_items", 19], ["line_items", "deals", 20],
    ["contacts", "tickets", 15], ["tickets", "contacts", 16],
    ["companies", "tickets", 340], ["companies", "tickets", 25], ["tickets", "companies", 339], ["tickets", "companies", 26],
    ["deals", "tickets", 27], ["tickets", "deals", 28],
  ])("%s → %s with type id %i", async (from, to, typeId) => {
    const t = await tenant();
    const target = await idOf(t, to, { name: "target" });
    const res = await create(t, from, { properties: { name: "source" }, associations: [assoc(target, typeId)] });
    expect(res.status, res.text).toBe(201);
    expect(await associated(t, from, res.json.id, to)).toEqual([target]);
  });

  it("a target id that is not in the account → 400, and nothing is created", async () => {
    const t = await tenant();
    const other = await tenant();
    const company = await idOf(t, "companies", { name: "Mine" });
    const foreign = await idOf(other, "companies", { name: "Theirs" });
    const deal = await idOf(t, "deals", { dealname: "a deal, not a company" });
    for (const target of [foreign, "999999999", deal]) {
      const res = await create(t, "contacts", { properties: { email: "x@example.com" }, associations: [assoc(company, 279), assoc(target, 279)] });
      const body = expectError(res, 400, "VALIDATION_ERROR");
      expect(JSON.stringify(body)).toContain(target);
    }
    const list = await call("GET", "/crm/v3/objects/contacts", { token: t.pat });
    expect(list.json.results).toEqual([]);
    expect(await associated(t, "companies", company, "contacts")).toEqual([]);
  });

  it.each<[string, unknown]>([
    ["associations that are not a list", { to: { id: "1" } }],
    ["a missing to.id", [{ to: {}, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 279 }] }]],
    ["a non-numeric to.id", [{ to: { id: "abc" }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 279 }] }]],
    ["no types", [{ to: { id: "1" }, types: [] }]],
    ["an unknown association type id", [{ to: { id: "1" }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 99999 }] }]],
    ["a type id of another pair (deal → contact from a contact)", [{ to: { id: "1" }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 3 }] }]],
    ["a USER_DEFINED label (none exist here)", [{ to: { id: "1" }, types: [{ associationCategory: "USER_DEFINED", associationTypeId: 279 }] }]],
    ["an unknown category", [{ to: { id: "1" }, types: [{ associationCategory: "NOPE", associationTypeId: 279 }] }]],
  ])("%s → 400 VALIDATION_ERROR, nothing created", async (_what, associations) => {
    const t = await tenant();
    expectError(await create(t, "contacts", { properties: { email: "y@example.com" }, associations }), 400, "VALIDATION_ERROR");
    expect((await call("GET", "/crm/v3/objects/contacts", { token: t.pat })).json.results).toEqual([]);
  });

  it("an empty list, as the SDK sends by default, creates the record alone", async () => {
    const t = await tenant();
    expect((await create(t, "contacts", { properties: { email: "z@example.com" }, associations: [] })).status).toBe(201);
  });
});
