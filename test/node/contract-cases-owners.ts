/** Contract cases (see contract-cases.ts) of owners, settings users, account info and the operator's teams. */
import type { Case } from "./contract-cases";
import { adminToken, api, ok, uniq, type Fixtures } from "./contract-fixtures";

const U = "/settings/v3/users";
const newUser = async (f: Fixtures) => (await ok(api("POST", U, { token: f.t.pat, json: { email: `${uniq("su")}@example.com` } }), 201)).json.id as string;
const newTeam = async (portalId: number) => (await ok(api("POST", `/admin/v1/accounts/${portalId}/teams`, { token: adminToken(), json: { name: uniq("team") } }), 201)).json.teamId as number;
const freshAccount = async () => (await ok(api("POST", "/admin/v1/accounts", { token: adminToken(), json: { name: uniq("tm") } }), 201)).json.portalId as number;

export const OWNER_CASES: Record<string, Case> = {
  "GET /crm/v3/owners": {
    ok: (f) => ({ token: f.t.pat, query: { limit: "10" } }),
    errors: { 400: (f) => ({ token: f.t.pat, query: { archived: "maybe" } }) },
  },
  "GET /crm/v3/owners/{ownerId}": {
    // By user id, so the case needs no lookup of the owner id.
    ok: (f) => ({ token: f.t.pat, params: { ownerId: f.t.userId }, query: { idProperty: "userId" } }),
  },
  "GET /settings/v3/users/roles": { ok: (f) => ({ token: f.t.pat }) },
  "GET /settings/v3/users/teams": { ok: (f) => ({ token: f.t.oauth }) },
  "GET /settings/v3/users": {
    ok: (f) => ({ token: f.t.pat, query: { limit: "5" } }),
    errors: { 400: (f) => ({ token: f.t.pat, query: { limit: "many" } }) },
  },
  "POST /settings/v3/users": {
    ok: (f) => ({ token: f.t.pat, json: { email: `${uniq("su")}@example.com`, firstName: "Su" } }),
    errors: { 409: (f) => ({ token: f.t.pat, json: { email: f.t.userEmail } }) },
  },
  "GET /settings/v3/users/{userId}": { ok: (f) => ({ token: f.t.pat, params: { userId: f.t.userId } }) },
  "PUT /settings/v3/users/{userId}": { ok: async (f) => ({ token: f.t.pat, params: { userId: await newUser(f) }, json: { firstName: "Changed" } }) },
  "DELETE /settings/v3/users/{userId}": { ok: async (f) => ({ token: f.t.pat, params: { userId: await newUser(f) } }) },
  "GET /account-info/v3/details": { ok: (f) => ({ token: f.t.pat }) },
  "GET /account-info/v3/api-usage/daily/private-apps": { ok: (f) => ({ token: f.t.pat }) },
  "POST /admin/v1/accounts/{portalId}/teams": {
    ok: (f) => ({ token: adminToken(), params: { portalId: f.t.portalId }, json: { name: uniq("team") } }),
    errors: {
      409: async (f) => {
        const name = uniq("dup");
        await ok(api("POST", `/admin/v1/accounts/${f.t.portalId}/teams`, { token: adminToken(), json: { name } }), 201);
        return { token: adminToken(), params: { portalId: f.t.portalId }, json: { name } };
      },
    },
  },
  "DELETE /admin/v1/accounts/{portalId}/teams/{teamId}": {
    ok: async (f) => ({ token: adminToken(), params: { portalId: f.t.portalId, teamId: await newTeam(f.t.portalId) } }),
    errors: {
      409: async () => {
        const portalId = await freshAccount();
        const teamId = await newTeam(portalId);
        await ok(api("DELETE", `/admin/v1/accounts/${portalId}`, { token: adminToken() }), 202);
        return { token: adminToken(), params: { portalId, teamId } };
      },
    },
  },
};
