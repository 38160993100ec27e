import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { buildRouter } from "../../src/router";
import { call, expectError, tenant } from "../helpers/api";
import { CONTACT_V1, CONTACTS_V1_PAGE, IDENTITY_PROFILE_V1 } from "../fixtures/legacy-shapes";

const PATH = "/contacts/v1/lists/all/contacts/all";

async function seed(token: string, n: number) {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await call("POST", "/crm/v3/objects/contacts", {
      token,
      body: { properties: { email: `c${i}@example.com`, firstname: `First${i}`, lastname: `Last${i}`, company: i % 2 ? "Acme" : "" } },
    });
    ids.push(Number(res.json.id));
  }
  return ids;
}

/** JSON type of each key, for comparing our shape with the real service's (test/fixtures/legacy-shapes.ts). */
const typeOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

describe("GET /contacts/v1/lists/all/contacts/all", () => {
  it("answers the real service's shape: every key and JSON type of its response", async () => {
    const t = await tenant();
    await seed(t.pat, 1);
    const res = await call("GET", `${PATH}?count=1`, { token: t.pat });
    expect(res.status).toBe(200);
    for (const [k, type] of Object.entries(CONTACTS_V1_PAGE)) expect([k, typeOf(res.json[k])]).toEqual([k, type]);
    const ours = res.json.contacts[0];
    for (const [k, type] of Object.entries(CONTACT_V1)) expect([k, typeOf(ours[k])]).toEqual([k, type]);
    for (const [k, type] of Object.entries(IDENTITY_PROFILE_V1)) expect([k, typeOf(ours["identity-profiles"][0][k])]).toEqual([k, type]);
    expect(ours["identity-profiles"][0].identities.map((i: { type: string }) => i.type)).toEqual(["EMAIL", "LEAD_GUID"]);
    expect(ours["identity-profiles"][0].identities[0]).toMatchObject({ value: "c0@example.com", "is-primary": true });
  });

  it("showListMemberships=True (as Airbyte sends it) adds an empty list-memberships array; otherwise the key is absent", async () => {
    const t = await tenant();
    await seed(t.pat, 2);
    // Airbyte's query; the real service's contacts then carry list-memberships (an array): ours too, empty
    // since there are no lists (test/traffic/foundation-contacts-v1.test.ts replays the recording itself).
    const res = await call("GET", `${PATH}?count=100&showListMemberships=True`, { token: t.pat });
    expect(res.status).toBe(200);
    for (const c of res.json.contacts) expect(c["list-memberships"]).toEqual([]);
    for (const c of (await call("GET", PATH, { token: t.pat })).json.contacts) expect(c).not.toHaveProperty("list-memberships");
    for (const c of (await call("GET", `${PATH}?showListMemberships=false`, { token: t.pat })).json.contacts) expect(c).not.toHaveProperty("list-memberships");
  });

  it("defaults to 20, clamps count to 1..100 and pages only through vidOffset", async () => {
    const t = await tenant();
    const ids = await seed(t.pat, 23);
    const first = await call("GET", PATH, { token: t.pat });
    expect(first.json.contacts).toHaveLength(20);
    expect(first.json["has-more"]).toBe(true);
    expect(first.json["vid-offset"]).toBe(ids[19]);

    const second = await call("GET", `${PATH}?vidOffset=${first.json["vid-offset"]}`, { token: t.pat });
    expect(second.json.contacts.map((c: { vid: number }) => c.vid)).toEqual(ids.slice(20));
    expect(second.json["has-more"]).toBe(false);
    expect(second.json["vid-offset"]).toBe(ids[22]);

    // As in the real service, offset= and vid-offset= are ignored (only vidOffset pages): page 1 comes back.
    for (const q of ["offset=5", `vid-offset=${ids[3]}`]) {
      const res = await call("GET", `${PATH}?count=2&${q}`, { token: t.pat });
      expect(res.json.contacts.map((c: { vid: number }) => c.vid)).toEqual(ids.slice(0, 2));
    }
    const big = await call("GET", `${PATH}?count=500`, { token: t.pat });
    expect(big.json.contacts).toHaveLength(23);
    // count=0 answers one contact (docs/explanation/design-decisions.md, "v1 contact list").
    const none = await call("GET", `${PATH}?count=0`, { token: t.pat });
    expect(none.json.contacts.map((c: { vid: number }) => c.vid)).toEqual([ids[0]]);
    expect(none.json["has-more"]).toBe(true);
  });

  it("returns the default properties, or only the repeated property= ones, omitting absent values", async () => {
    const t = await tenant();
    await seed(t.pat, 2);
    const def = await call("GET", PATH, { token: t.pat });
    expect(Object.keys(def.json.contacts[0].properties).sort()).toEqual(["firstname", "lastmodifieddate", "lastname"]);
    expect(Object.keys(def.json.contacts[1].properties).sort()).toEqual(["company", "firstname", "lastmodifieddate", "lastname"]);
    expect(def.json.contacts[0].properties.lastmodifieddate.value).toMatch(/^\d{13}$/);
    const some = await call("GET", `${PATH}?property=email&property=firstname&property=nothing`, { token: t.pat });
    expect(some.json.contacts[0].properties).toEqual({ email: { value: "c0@example.com" }, firstname: { value: "First0" } });
  });

  it.each([
    ["count=abc", "count"],
    ["count=-1", "count"],
    ["vidOffset=xyz", "vidOffset"],
  ])("?%s → 400 naming %s", async (q, field) => {
    const t = await tenant();
    const body = expectError(await call("GET", `${PATH}?${q}`, { token: t.pat }), 400, "VALIDATION_ERROR");
    expect(body.message).toContain(field);
  });

  it("shows only the caller's account", async () => {
    const a = await tenant();
    const b = await tenant();
    await seed(a.pat, 2);
    const res = await call("GET", PATH, { token: b.oauth });
    expect(res.json.contacts).toEqual([]);
    expect(res.json["has-more"]).toBe(false);
  });

  it("needs the contacts read scope (legacy contacts accepted)", async () => {
    const none = await tenant({ scopes: ["oauth", "timeline"] });
    const body = expectError(await call("GET", PATH, { token: none.pat }), 403, "MISSING_SCOPES");
    expect(body.errors[0].context.requiredScopes).toEqual(["crm.objects.contacts.read"]);
    const legacy = await tenant({ scopes: ["oauth", "contacts"] });
    expect((await call("GET", PATH, { token: legacy.oauth })).status).toBe(200);
  });

  it("uses at most 2 D1 queries per page whatever the count", async () => {
    const t = await tenant();
    await seed(t.pat, 30);
    let queries = 0;
    const counting = (d1: D1Database) =>
      new Proxy(d1, {
        get(target, prop) {
          if (prop === "prepare") return (sql: string) => { queries++; return target.prepare(sql); };
          const v = Reflect.get(target, prop);
          return typeof v === "function" ? v.bind(target) : v;
        },
      });
    // Every database is counted: the control plane and the shards.
    const counted = { ...env, DB: counting(env.DB), SHARD_1: counting(env.SHARD_1), SHARD_2: counting(env.SHARD_2) };
    for (const count of [1, 30, 100]) {
      queries = 0;
      const res = await buildRouter().fetch(
        new Request(`https://crm.test${PATH}?count=${count}`, { headers: { authorization: `Bearer ${t.pat}` } }),
        counted,
        createExecutionContext(),
      );
      expect(res.status).toBe(200);
      expect(queries).toBeLessThanOrEqual(2);
    }
  });
});
