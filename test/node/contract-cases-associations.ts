/** Contract cases (see contract-cases.ts) of association labels, limits and the association batch APIs. */
import type { Case } from "./contract-cases";
import { api, ok, uniq, type Fixtures } from "./contract-fixtures";

const labelName = () => uniq("l").replace(/-/g, "_");
/** A fresh USER_DEFINED label from contacts to companies: its type id. */
const newLabel = async (f: Fixtures) =>
  (await ok(api("POST", "/crm/v4/associations/contacts/companies/labels", { token: f.t.pat, json: { name: labelName(), label: "L", inverseLabel: "M" } }))).json.results[0].typeId as number;
const linked = async (f: Fixtures) => {
  await ok(api("PUT", `/crm/v4/objects/contacts/${f.contact}/associations/default/companies/${f.company}`, { token: f.t.pat }));
  return { token: f.t.pat, params: { fromObjectType: "contacts", toObjectType: "companies" } };
};
const pair = (f: Fixtures) => ({ token: f.t.pat, params: { fromObjectType: "contacts", toObjectType: "companies" } });
const limit = { category: "HUBSPOT_DEFINED", typeId: 279, maxToObjectIds: 500 };

/** The same cases under both path forms of labels and limits. */
function both(cases: Record<string, Case>): Record<string, Case> {
  return Object.fromEntries(Object.entries(cases).flatMap(([key, c]) => [[key, c], [key.replace("/crm/v4/associations", "/crm/associations/v4"), c]]));
}

export const ASSOCIATION_CASES: Record<string, Case> = {
  ...both({
    "GET /crm/v4/associations/{fromObjectType}/{toObjectType}/labels": { ok: pair },
    "POST /crm/v4/associations/{fromObjectType}/{toObjectType}/labels": {
      ok: (f) => ({ ...pair(f), json: { name: labelName(), label: "Manager", inverseLabel: "Employee" } }),
      errors: { 400: (f) => ({ ...pair(f), json: { name: "a b", label: "X" } }) },
    },
    "PUT /crm/v4/associations/{fromObjectType}/{toObjectType}/labels": {
      ok: async (f) => ({ ...pair(f), json: { associationTypeId: await newLabel(f), label: "Renamed" } }),
      errors: { 400: (f) => ({ ...pair(f), json: { associationTypeId: 279, label: "Renamed" } }) },
    },
    "DELETE /crm/v4/associations/{fromObjectType}/{toObjectType}/labels/{associationTypeId}": {
      ok: async (f) => ({ token: f.t.pat, params: { fromObjectType: "contacts", toObjectType: "companies", associationTypeId: await newLabel(f) } }),
      errors: { 404: (f) => ({ token: f.t.pat, params: { fromObjectType: "contacts", toObjectType: "companies", associationTypeId: 1 } }) },
    },
    "GET /crm/v4/associations/definitions/configurations/all": { ok: (f) => ({ token: f.t.pat }) },
    "GET /crm/v4/associations/definitions/configurations/{fromObjectType}/{toObjectType}": { ok: pair },
    "POST /crm/v4/associations/definitions/configurations/{fromObjectType}/{toObjectType}/batch/create": {
      ok: (f) => ({ ...pair(f), json: { inputs: [limit] } }),
      errors: { 400: (f) => ({ ...pair(f), json: { inputs: [{ ...limit, typeId: 3 }] } }) },
    },
    "POST /crm/v4/associations/definitions/configurations/{fromObjectType}/{toObjectType}/batch/update": {
      ok: async (f) => {
        await ok(api("POST", "/crm/v4/associations/definitions/configurations/contacts/companies/batch/create", { token: f.t.pat, json: { inputs: [limit] } }), 201);
        return { ...pair(f), json: { inputs: [limit] } };
      },
    },
    "POST /crm/v4/associations/definitions/configurations/{fromObjectType}/{toObjectType}/batch/purge": {
      ok: (f) => ({ ...pair(f), json: { inputs: [{ category: "HUBSPOT_DEFINED", typeId: 1 }] } }),
    },
  }),
  "POST /crm/v4/associations/{fromObjectType}/{toObjectType}/batch/read": {
    ok: async (f) => ({ ...(await linked(f)), json: { inputs: [{ id: String(f.contact) }] } }),
    errors: { 207: async (f) => ({ ...(await linked(f)), json: { inputs: [{ id: String(f.contact) }, { id: "999999999" }] } }) },
  },
  "POST /crm/v4/associations/{fromObjectType}/{toObjectType}/batch/create": {
    ok: (f) => ({ ...pair(f), json: { inputs: [{ from: { id: String(f.contact) }, to: { id: String(f.company) }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 279 }] }] } }),
    errors: { 404: (f) => ({ ...pair(f), json: { inputs: [{ from: { id: "999999999" }, to: { id: String(f.company) }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 279 }] }] } }) },
  },
  "POST /crm/v4/associations/{fromObjectType}/{toObjectType}/batch/associate/default": {
    ok: (f) => ({ ...pair(f), json: { inputs: [{ from: { id: String(f.contact) }, to: { id: String(f.company) } }] } }),
    errors: { 404: (f) => ({ ...pair(f), json: { inputs: [{ from: { id: String(f.contact) }, to: { id: "999999999" } }] } }) },
  },
  "POST /crm/v4/associations/{fromObjectType}/{toObjectType}/batch/archive": {
    ok: (f) => ({ ...pair(f), json: { inputs: [{ from: { id: "999999999" }, to: [{ id: "999999998" }] }] } }),
  },
  "POST /crm/v4/associations/{fromObjectType}/{toObjectType}/batch/labels/archive": {
    ok: (f) => ({ ...pair(f), json: { inputs: [{ from: { id: "999999999" }, to: { id: "999999998" }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 1 }] }] } }),
  },
  "POST /crm/v3/associations/{fromObjectType}/{toObjectType}/batch/read": {
    ok: async (f) => ({ ...(await linked(f)), json: { inputs: [{ id: String(f.contact) }] } }),
    errors: { 207: async (f) => ({ ...(await linked(f)), json: { inputs: [{ id: "999999999" }] } }) },
  },
  "POST /crm/v3/associations/{fromObjectType}/{toObjectType}/batch/create": {
    ok: (f) => ({ ...pair(f), json: { inputs: [{ from: { id: String(f.contact) }, to: { id: String(f.company) }, type: "contact_to_company" }] } }),
    errors: { 404: (f) => ({ ...pair(f), json: { inputs: [{ from: { id: "999999999" }, to: { id: String(f.company) } }] } }) },
  },
  "POST /crm/v3/associations/{fromObjectType}/{toObjectType}/batch/archive": {
    ok: (f) => ({ ...pair(f), json: { inputs: [{ from: { id: "999999999" }, to: { id: "999999998" } }] } }),
  },
  "GET /crm/v3/associations/{fromObjectType}/{toObjectType}/types": { ok: pair },
};
