/**
 * Quirk switches of a test account (docs/reference/testkit.md "Quirks"): with a search lag, a record written
 * is absent from the v3 search, the v1 contact search and DYNAMIC list members until the lag has passed
 * since its last write; 0 is the usual behaviour; STANDARD accounts get a 409 and their calls read nothing
 * more; bad input names the field; only the operator token is accepted.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { buildRouter } from "../../src/router";
import { ADMIN, BASE, call, expectError, tenant, unique, type Tenant } from "../helpers/api";
import { branch, memberIds, newContact, newList, stringIs } from "../lists/helpers";
import { recordingD1 } from "./helpers";

const LAG = 1_500;
const quirks = (t: Tenant) => `/admin/v1/accounts/${t.portalId}/quirks`;
const setLag = (t: Tenant, searchLagMs: number) => call("PATCH", quirks(t), { token: ADMIN, body: { searchLagMs } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The ids the v3 search finds with `city` = value. */
async function v3Search(t: Tenant, city: string) {
  const res = await call("POST", "/crm/v3/objects/contacts/search", { token: t.pat, body: { filterGroups: [{ filters: [{ propertyName: "city", operator: "EQ", value: city }] }] } });
  expect(res.status, res.text).toBe(200);
  expect(res.json.total).toBe(res.json.results.length);
  return (res.json.results as { id: string }[]).map((r) => r.id);
}

async function v1Search(t: Tenant, q: string) {
  const res = await call("GET", `/contacts/v1/search/query?q=${encodeURIComponent(q)}`, { token: t.pat });
  expect(res.status, res.text).toBe(200);
  return (res.json.contacts as { vid: number }[]).map((c) => String(c.vid));
}

describe("search lag", () => {
  it("a record is absent from search, v1 search and a dynamic list until the lag has passed since its last write", async () => {
    const t = await tenant({ accountType: "DEVELOPER_TEST" });
    const set = await setLag(t, LAG);
    expect(set.status, set.text).toBe(200);
    expect(set.json).toEqual({ portalId: t.portalId, searchLagMs: LAG });
    expect((await call("GET", quirks(t), { token: ADMIN })).json).toEqual({ portalId: t.portalId, searchLagMs: LAG });
    const city = unique("city");
    const name = unique("lagname");
    const list = await newList(t, { processingType: "DYNAMIC", filterBranch: branch(stringIs("city", city)) });
    const written = Date.now();
    const id = await newContact(t, { city, firstname: name });
    if (Date.now() - written < LAG - 200) {
      expect(await v3Search(t, city)).toEqual([]);
      expect(await v1Search(t, name)).toEqual([]);
      expect(await memberIds(t, list.listId)).toEqual([]);
      // A read by id is not search: the record is there.
      expect((await call("GET", `/crm/v3/objects/contacts/${id}`, { token: t.pat })).status).toBe(200);
    }
    await sleep(Math.max(0, written + LAG + 100 - Date.now()));
    expect(await v3Search(t, city)).toEqual([id]);
    expect(await v1Search(t, name)).toEqual([id]);
    expect(await memberIds(t, list.listId)).toEqual([id]);
    // A later write starts the lag again: the record leaves the index until it is reindexed.
    const updated = Date.now();
    expect((await call("PATCH", `/crm/v3/objects/contacts/${id}`, { token: t.pat, body: { properties: { lastname: "again" } } })).status).toBe(200);
    if (Date.now() - updated < LAG - 200) expect(await v3Search(t, city)).toEqual([]);
    await sleep(Math.max(0, updated + LAG + 100 - Date.now()));
    expect(await v3Search(t, city)).toEqual([id]);
  });

  it("0 (the default) finds a record at once", async () => {
    const t = await tenant({ accountType: "SANDBOX" });
    expect((await call("GET", quirks(t), { token: ADMIN })).json).toEqual({ portalId: t.portalId, searchLagMs: 0 });
    await setLag(t, LAG);
    expect((await setLag(t, 0)).json.searchLagMs).toBe(0);
    const city = unique("city");
    const id = await newContact(t, { city });
    expect(await v3Search(t, city)).toEqual([id]);
  });

  it("a STANDARD account is a 409 naming its accountType; its search reads nothing of the kit", async () => {
    const t = await tenant();
    for (const res of [await setLag(t, LAG), await call("GET", quirks(t), { token: ADMIN })]) expect(expectError(res, 409, "CONFLICT").message).toContain("STANDARD");
    const city = unique("city");
    const id = await newContact(t, { city });
    expect(await v3Search(t, city)).toEqual([id]);
  });

  it("the switches ride with the credential: a search reads them in no statement of its own, STANDARD or test account", async () => {
    const statements = async (t: Tenant) => {
      const { db, seen } = recordingD1(env.DB);
      const res = await buildRouter().fetch(
        new Request(`${BASE}/crm/v3/objects/contacts/search`, { method: "POST", headers: { authorization: `Bearer ${t.pat}`, "content-type": "application/json" }, body: "{}" }),
        { ...env, DB: db },
        createExecutionContext(),
      );
      expect(res.status).toBe(200);
      const quirkReads = seen.filter((s) => s.includes("account_quirks"));
      expect(quirkReads.every((s) => s.includes("credentials"))).toBe(true);
      return quirkReads.length;
    };
    expect(await statements(await tenant())).toBe(1);
    const test = await tenant({ accountType: "DEVELOPER_TEST" });
    await setLag(test, LAG);
    expect(await statements(test)).toBe(1);
  });

  it.each([
    [{ searchLagMs: -1 }, "searchLagMs"],
    [{ searchLagMs: 1.5 }, "searchLagMs"],
    [{ searchLagMs: "100" }, "searchLagMs"],
    [{ searchLagMs: 60_001 }, "searchLagMs"],
    [{}, "searchLagMs"],
    [{ searchLagMs: 10, clockSkew: 1 }, "clockSkew"],
  ])("bad input %j is a 400 naming %s", async (body, field) => {
    const t = await tenant({ accountType: "DEVELOPER_TEST" });
    const res = await call("PATCH", quirks(t), { token: ADMIN, body });
    expectError(res, 400, "VALIDATION_ERROR");
    expect(res.text).toContain(field);
    expect((await call("GET", quirks(t), { token: ADMIN })).json.searchLagMs).toBe(0);
  });

  it("no such account is a 404; only the operator token is accepted", async () => {
    const t = await tenant({ accountType: "DEVELOPER_TEST" });
    expectError(await call("GET", "/admin/v1/accounts/999999999/quirks", { token: ADMIN }), 404, "OBJECT_NOT_FOUND");
    for (const token of [undefined, t.oauth, t.pat, t.developerKey]) {
      expect((await call("PATCH", quirks(t), { token, body: { searchLagMs: 10 } })).status).toBe(401);
      expect((await call("GET", quirks(t), { token })).status).toBe(401);
    }
  });
});
