/** `POST /crm/v3/objects/{objectType}/search`: filters, operators, query, sort, paging, limits, isolation. */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, expectError, tenant } from "../helpers/api";
import { defineProperty, ids, make, search, watched } from "./helpers";

const eq = (propertyName: string, value: string) => ({ propertyName, operator: "EQ", value });

describe("search: filters and operators", () => {
  it("ANDs the filters of a group and ORs the groups", async () => {
    const t = await tenant();
    const ann = await make(t, "contacts", { email: "ann@a.test", firstname: "Ann", lastname: "Lee" });
    const bob = await make(t, "contacts", { email: "bob@b.test", firstname: "Bob", lastname: "Lee" });
    const cy = await make(t, "contacts", { email: "cy@a.test", firstname: "Cy", lastname: "Ray" });
    const and = await search(t, "contacts", { filterGroups: [{ filters: [eq("lastname", "lee"), eq("firstname", "ANN")] }] });
    expect(and.status, and.text).toBe(200);
    expect(ids(and)).toEqual([ann]);
    const or = await search(t, "contacts", { filterGroups: [{ filters: [eq("firstname", "Bob")] }, { filters: [eq("lastname", "Ray")] }] });
    expect(ids(or)).toEqual([bob, cy]);
    expect(or.json.total).toBe(2);
    expect(or.json.paging).toBeUndefined();
    // No filter: every record, oldest first.
    expect(ids(await search(t, "contacts", {}))).toEqual([ann, bob, cy]);
  });

  it("applies every operator, typed by the property definition", async () => {
    const t = await tenant();
    await defineProperty(t, "deals", { name: "score", type: "number", fieldType: "number" });
    const a = await make(t, "deals", { dealname: "Alpha deal", amount: "10", score: "5", dealstage: "closedwon" });
    const b = await make(t, "deals", { dealname: "Beta", amount: "200", dealstage: "closedlost" });
    const c = await make(t, "deals", { dealname: "gamma", amount: "30" });
    const cases: [unknown, string[]][] = [
      [{ propertyName: "amount", operator: "EQ", value: "200" }, [b]],
      [{ propertyName: "amount", operator: "NEQ", value: "200" }, [a, c]],
      // Numbers compare as numbers: 30 < 200 although "30" > "200" as text.
      [{ propertyName: "amount", operator: "LT", value: "200" }, [a, c]],
      [{ propertyName: "amount", operator: "LTE", value: "30" }, [a, c]],
      [{ propertyName: "amount", operator: "GT", value: "10" }, [b, c]],
      [{ propertyName: "amount", operator: "GTE", value: "200" }, [b]],
      [{ propertyName: "amount", operator: "BETWEEN", value: "20", highValue: "200" }, [b, c]],
      [{ propertyName: "dealname", operator: "IN", values: ["beta", "gamma"] }, [b, c]],
      [{ propertyName: "dealname", operator: "NOT_IN", values: ["beta"] }, [a, c]],
      [{ propertyName: "score", operator: "HAS_PROPERTY" }, [a]],
      [{ propertyName: "score", operator: "NOT_HAS_PROPERTY" }, [b, c]],
      [{ propertyName: "dealname", operator: "CONTAINS_TOKEN", value: "deal" }, [a]],
      [{ propertyName: "dealname", operator: "CONTAINS_TOKEN", value: "*ta" }, [b]],
      [{ propertyName: "dealname", operator: "NOT_CONTAINS_TOKEN", value: "a deal" }, [b, c]],
      // Enumerations compare case-sensitively; strings do not. (A deal's stage is a stage of its pipeline.)
      [{ propertyName: "dealstage", operator: "EQ", value: "closedlost" }, [b]],
      [{ propertyName: "dealstage", operator: "EQ", value: "ClosedLost" }, []],
      [{ propertyName: "score", operator: "GT", value: 4 }, [a]],
      [{ propertyName: "hs_object_id", operator: "EQ", value: c }, [c]],
    ];
    for (const [filter, want] of cases) {
      const res = await search(t, "deals", { filterGroups: [{ filters: [filter] }] });
      expect(res.status, `${JSON.stringify(filter)} ${res.text}`).toBe(200);
      expect(ids(res), JSON.stringify(filter)).toEqual(want);
    }
  });

  it("filters dates given as epoch milliseconds, and contacts by email (any case)", async () => {
    const t = await tenant();
    const old = await make(t, "contacts", { email: "Old@Example.com" });
    const created = (await call("GET", `/crm/v3/objects/contacts/${old}`, { token: t.pat })).json.createdAt as string;
    await new Promise((r) => setTimeout(r, 5));
    const fresh = await make(t, "contacts", { email: "new@example.com" });
    const after = await search(t, "contacts", { filterGroups: [{ filters: [{ propertyName: "createdate", operator: "GT", value: String(Date.parse(created)) }] }] });
    expect(ids(after)).toEqual([fresh]);
    expect(ids(await search(t, "contacts", { filterGroups: [{ filters: [eq("email", "OLD@example.COM")] }] }))).toEqual([old]);
    expect(ids(await search(t, "contacts", { filterGroups: [{ filters: [{ propertyName: "email", operator: "CONTAINS_TOKEN", value: "*@example.com" }] }] }))).toEqual([old, fresh]);
  });

  it("filters on associations.{type}", async () => {
    const t = await tenant();
    const company = await make(t, "companies", { name: "Acme" });
    const linked = await make(t, "contacts", { firstname: "Linked" });
    await make(t, "contacts", { firstname: "Alone" });
    expect((await call("PUT", `/crm/v3/objects/contacts/${linked}/associations/companies/${company}`, { token: t.pat })).status).toBe(204);
    const res = await search(t, "contacts", { filterGroups: [{ filters: [eq("associations.company", company)] }] });
    expect(ids(res)).toEqual([linked]);
  });
});

describe("search: query, sort, properties and paging", () => {
  it("query searches the default searchable properties by word prefix", async () => {
    const t = await tenant();
    const ada = await make(t, "contacts", { email: "ada@lovelace.test", firstname: "Ada", company: "Analytical Engines" });
    await make(t, "contacts", { email: "bob@x.test", firstname: "Bob" });
    expect(ids(await search(t, "contacts", { query: "analyt" }))).toEqual([ada]);
    expect(ids(await search(t, "contacts", { query: "ada", filterGroups: [{ filters: [eq("firstname", "Bob")] }] }))).toEqual([]);
    const acme = await make(t, "companies", { name: "Acme Rockets", domain: "acme.test" });
    await make(t, "companies", { name: "Other" });
    expect(ids(await search(t, "companies", { query: "rock" }))).toEqual([acme]);
  });

  it("sorts by one property, object or '-prop' form, records without it last", async () => {
    const t = await tenant();
    const b = await make(t, "contacts", { firstname: "b" });
    const a = await make(t, "contacts", { firstname: "A" });
    const none = await make(t, "contacts", { lastname: "x" });
    const c = await make(t, "contacts", { firstname: "c" });
    expect(ids(await search(t, "contacts", { sorts: [{ propertyName: "firstname", direction: "ASCENDING" }] }))).toEqual([a, b, c, none]);
    expect(ids(await search(t, "contacts", { sorts: ["-firstname"] }))).toEqual([c, b, a, none]);
    expect(ids(await search(t, "contacts", { sorts: ["-createdate"] }))).toEqual([c, none, a, b]);
  });

  it("returns the default properties, or the asked ones (null when unset), and pages with after", async () => {
    const t = await tenant();
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push(await make(t, "contacts", { email: `p${i}@x.test`, firstname: `F${i}`, phone: "1" }));
    const first = await search(t, "contacts", { limit: 2 });
    expect(ids(first)).toEqual(made.slice(0, 2));
    expect(Object.keys(first.json.results[0].properties).sort()).toEqual(["createdate", "email", "firstname", "hs_object_id", "lastmodifieddate", "lastname"]);
    expect(first.json.results[0].properties.lastname).toBeNull();
    expect(first.json).toMatchObject({ total: 5, paging: { next: { after: "2" } } });
    const second = await search(t, "contacts", { limit: 2, after: "2", properties: ["phone"] });
    expect(ids(second)).toEqual(made.slice(2, 4));
    expect(second.json.results[0].properties).toEqual({ phone: "1", hs_object_id: made[2], createdate: expect.any(String), lastmodifieddate: expect.any(String) });
    const last = await search(t, "contacts", { limit: 2, after: second.json.paging.next.after });
    expect(ids(last)).toEqual([made[4]]);
    expect(last.json.paging).toBeUndefined();
    const past = await search(t, "contacts", { limit: 2, after: "10" });
    expect(past.json).toEqual({ total: 5, results: [] });
  });

  it("answers each asked property exactly as stored, and null for a name no record holds, whatever its characters", async () => {
    const t = await tenant();
    const odd = 'Ann "the \\ boss"\n\té 😀 </script>';
    const id = await make(t, "contacts", { email: "odd@x.test", firstname: odd, company: "{\"not\": \"json\"}" });
    const got = await search(t, "contacts", { properties: ["firstname", "company", 'no "such\\ name', "hs_lastmodifieddate", "phone"] });
    expect(got.status, got.text).toBe(200);
    const [hit] = got.json.results;
    expect(hit).toEqual({
      id,
      properties: {
        firstname: odd,
        company: '{"not": "json"}',
        'no "such\\ name': null,
        phone: null,
        hs_object_id: id,
        createdate: hit.createdAt,
        lastmodifieddate: hit.updatedAt,
        hs_lastmodifieddate: hit.updatedAt,
      },
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updatedAt: expect.stringMatching(/Z$/),
      archived: false,
    });
    // Any number of names (D1 picks them in groups): each answered, set or not.
    const many = Array.from({ length: 120 }, (_, i) => `p${i}`);
    const wide = await search(t, "contacts", { properties: [...many, "email"] });
    expect(wide.status, wide.text).toBe(200);
    expect(wide.json.results[0].properties).toEqual({ ...Object.fromEntries(many.map((n) => [n, null])), email: "odd@x.test", hs_object_id: id, createdate: hit.createdAt, lastmodifieddate: hit.updatedAt });
    // The same record as the v3 read answers it.
    const read = await call("GET", `/crm/v3/objects/contacts/${id}`, { token: t.pat });
    expect(read.json).toMatchObject({ createdAt: hit.createdAt, updatedAt: hit.updatedAt, properties: { firstname: odd } });
  });

  it("leaves archived records out", async () => {
    const t = await tenant();
    const gone = await make(t, "tickets", { subject: "s" });
    const kept = await make(t, "tickets", { subject: "s" });
    expect((await call("DELETE", `/crm/v3/objects/tickets/${gone}`, { token: t.pat })).status).toBe(204);
    expect(ids(await search(t, "tickets", { filterGroups: [{ filters: [eq("subject", "s")] }] }))).toEqual([kept]);
  });
});

describe("search: limits and bad input are 400s naming the field or the limit", () => {
  const filters = (n: number) => Array.from({ length: n }, (_, i) => eq("firstname", `x${i}`));
  const cases: [string, unknown, RegExp][] = [
    ["limit over 200", { limit: 201 }, /limit is at most 200/],
    ["after past 10,000", { after: "10000" }, /at most 10000 results/],
    ["after not numeric", { after: "abc" }, /after must be a number/],
    ["six filter groups", { filterGroups: Array.from({ length: 6 }, () => ({ filters: filters(1) })) }, /at most 5 filterGroups/],
    ["seven filters in a group", { filterGroups: [{ filters: filters(7) }] }, /at most 6 filters per filter group/],
    ["19 filters in all", { filterGroups: [{ filters: filters(6) }, { filters: filters(6) }, { filters: filters(6) }, { filters: filters(1) }] }, /at most 18 filters in all/],
    ["a body over 3,000 characters", { query: "x".repeat(2990) }, /at most 3000 characters/],
    ["two sorts", { sorts: ["firstname", "lastname"] }, /only one sort/],
    ["unknown operator", { filterGroups: [{ filters: [{ propertyName: "email", operator: "LIKE", value: "x" }] }] }, /filterGroups\.0\.filters\.0\.operator/],
    ["unknown property", { filterGroups: [{ filters: [eq("nope", "x")] }] }, /filterGroups\.0\.filters\.0\.propertyName: contacts has no property nope/],
    ["missing value", { filterGroups: [{ filters: [{ propertyName: "email", operator: "EQ" }] }] }, /filterGroups\.0\.filters\.0\.value: required for EQ/],
    ["BETWEEN without highValue", { filterGroups: [{ filters: [{ propertyName: "createdate", operator: "BETWEEN", value: "1" }] }] }, /highValue: required/],
    ["IN without values", { filterGroups: [{ filters: [{ propertyName: "email", operator: "IN" }] }] }, /values: required for IN/],
    ["a number filter on text", { filterGroups: [{ filters: [{ propertyName: "createdate", operator: "GT", value: "soon" }] }] }, /is not a date/],
    ["sort on an unknown property", { sorts: ["-nope"] }, /sorts\.0\.propertyName/],
  ];
  it.each(cases)("%s", async (_name, body, message) => {
    const t = await tenant();
    const res = await search(t, "contacts", body);
    const err = expectError(res, 400, "VALIDATION_ERROR");
    expect(`${err.message} ${JSON.stringify(err.errors ?? [])}`).toMatch(message);
  });

  it("the body limit is on the body as sent: 3,000 characters pass, 3,001 do not", async () => {
    const t = await tenant();
    const body = (n: number) => ({ query: "x".repeat(n) }); // {"query":"…"} is 12 characters around the query
    expect(JSON.stringify(body(2988))).toHaveLength(3000);
    expect((await search(t, "contacts", body(2988))).status).toBe(200);
    expect(expectError(await search(t, "contacts", body(2989)), 400, "VALIDATION_ERROR").message).toMatch(/at most 3000 characters \(3001 given\)/);
  });

  it("an unknown object type is a 400 naming the types", async () => {
    const t = await tenant();
    const err = expectError(await search(t, "wid.gets", {}), 400, "VALIDATION_ERROR");
    expect(err.message).toMatch(/objectType must be one of/);
  });
});

describe("search: isolation and cost", () => {
  it("another account's records never match, by filter or query", async () => {
    const a = await tenant();
    const b = await tenant();
    await make(a, "contacts", { email: "secret@a.test", firstname: "Secret" });
    expect((await search(b, "contacts", { query: "secret" })).json).toEqual({ total: 0, results: [] });
    expect((await search(b, "contacts", { filterGroups: [{ filters: [eq("email", "secret@a.test")] }] })).json).toEqual({ total: 0, results: [] });
  });

  it("answers a page in one statement: the account's list index, the email index, or the full-text index for a contact query", async () => {
    const t = await tenant({ shard: "SHARD_1" });
    await make(t, "contacts", { email: "plan@x.test", firstname: "Plan" });
    /** The plan of the one search statement a request ran, with its own bound values. */
    const planOf = async (body: unknown) => {
      const seen = await watched("/crm/v3/objects/contacts/search", body, t.pat);
      const searches = seen.statements.filter((s) => s.sql.includes("(select count(*) from (select 1 from m limit 10000))"));
      expect(searches).toHaveLength(1);
      const rows = await env.SHARD_1.prepare(`explain query plan ${searches[0]!.sql}`).bind(...searches[0]!.params).all<{ detail: string }>();
      return rows.results.map((r) => r.detail).join(" | ");
    };
    const byProperty = await planOf({ filterGroups: [{ filters: [eq("firstname", "plan")] }] });
    expect(byProperty).toMatch(/SEARCH c USING INDEX crm_objects_list/);
    expect(byProperty).not.toMatch(/SCAN c\b/);
    const byEmail = await planOf({ filterGroups: [{ filters: [eq("email", "plan@x.test")] }] });
    expect(byEmail).toMatch(/SEARCH c USING INDEX crm_objects_contact_email/);
    const byQuery = await planOf({ query: "plan" });
    expect(byQuery).toMatch(/SCAN s VIRTUAL TABLE INDEX/);
    expect(byQuery).toMatch(/SEARCH c USING INTEGER PRIMARY KEY/);
  });
});

describe("/openapi.json", () => {
  it("documents every new operation with its errors", async () => {
    const doc = (await call("GET", "/openapi.json")).json;
    const statuses = (path: string, method: string) => Object.keys(doc.paths[path]?.[method]?.responses ?? {}).sort();
    // An unknown type is a 404: the path may name one of the account's custom object types.
    expect(statuses("/crm/v3/objects/{objectType}/search", "post")).toEqual(["200", "400", "401", "403", "404", "413", "429", "500"]);
    expect(statuses("/crm/v3/objects/{objectType}/batch/create", "post")).toEqual(["201", "400", "401", "403", "404", "409", "413", "429", "500"]);
    expect(statuses("/crm/v3/objects/{objectType}/batch/read", "post")).toEqual(["200", "207", "400", "401", "403", "404", "413", "429", "500"]);
    expect(statuses("/crm/v3/objects/{objectType}/batch/archive", "post")).toContain("204");
    expect(statuses("/crm/v3/properties/{objectType}", "post")).toEqual(["201", "400", "401", "403", "404", "409", "413", "429", "500"]);
    expect(statuses("/crm/v3/properties/{objectType}/{propertyName}", "delete")).toEqual(["204", "400", "401", "403", "404", "429", "500"]);
    expect(statuses("/crm/v4/objects/{objectType}/{objectId}/associations/{toObjectType}/{toObjectId}", "put")).toContain("201");
    expect(statuses("/crm/v4/objects/{fromObjectType}/{fromObjectId}/associations/default/{toObjectType}/{toObjectId}", "put")).toContain("200");
    expect(statuses("/crm/v4/objects/{objectType}/{objectId}/associations/{toObjectType}", "get")).toContain("404");
    expect(doc.paths["/openapi.json"]?.get).toBeDefined();
  });
});
