/**
 * GET /contacts/v1/lists/all/contacts/all against its recordings (traffic suite only: the main suite has no
 * recordings and checks the same shape through test/fixtures/legacy-shapes.ts).
 */
import { describe, expect, it } from "vitest";
import { call, tenant } from "../helpers/api";
import { recording } from "./recordings";

const PATH = "/contacts/v1/lists/all/contacts/all";
const typeOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

async function seed(token: string, n: number) {
  for (let i = 0; i < n; i++) {
    const res = await call("POST", "/crm/v3/objects/contacts", { token, body: { properties: { email: `c${i}@example.com`, firstname: `First${i}`, lastname: `Last${i}` } } });
    expect(res.status, res.text).toBe(201);
  }
}

describe("GET /contacts/v1/lists/all/contacts/all: the recordings", () => {
  it("answers every key and JSON type of hubspot-ruby's recorded response", async () => {
    const t = await tenant();
    await seed(t.pat, 1);
    const rec = recording("hubspot-ruby/contacts_v1_all__find_all_contacts__4_70b6313f.json");
    const res = await call("GET", `${PATH}?count=1`, { token: t.pat });
    expect(res.status).toBe(200);
    for (const [k, v] of Object.entries(rec.responseBody)) expect([k, typeOf(res.json[k])]).toEqual([k, typeOf(v)]);
    const realContact = rec.responseBody.contacts[0];
    const ours = res.json.contacts[0];
    for (const [k, v] of Object.entries(realContact)) expect([k, typeOf(ours[k])]).toEqual([k, typeOf(v)]);
    const realProfile = realContact["identity-profiles"][0];
    for (const [k, v] of Object.entries(realProfile)) expect([k, typeOf(ours["identity-profiles"][0][k])]).toEqual([k, typeOf(v)]);
  });

  it("replays Airbyte's recorded query: list-memberships is an array, as in the recording", async () => {
    const t = await tenant();
    await seed(t.pat, 2);
    const rec = recording("airbyte-source-hubspot/contacts_v1_all__airbyte_1.json");
    const res = await call("GET", `${PATH}?${new URLSearchParams(rec.query)}`, { token: t.pat });
    expect(res.status).toBe(200);
    expect(Array.isArray(rec.responseBody.contacts[0]["list-memberships"])).toBe(true);
    for (const c of res.json.contacts) expect(c["list-memberships"]).toEqual([]);
  });
});
