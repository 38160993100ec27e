/** `POST /crm/v3/objects/{objectType}/batch/*` and idProperty on single reads and updates. */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant } from "../helpers/api";
import { make, watched } from "./helpers";
import { DEFAULT_GROUP } from "../../src/services/crm/properties";

const batch = (token: string, type: string, op: string, body: unknown) => call("POST", `/crm/v3/objects/${type}/batch/${op}`, { token, body });
const byId = (results: { id: string; properties: Record<string, string> }[]) => Object.fromEntries(results.map((r) => [r.id, r.properties]));

describe("batch create, read, update, upsert, archive", () => {
  it("create answers 201 with every record; read 200; update 200; archive 204", async () => {
    const t = await tenant();
    const created = await batch(t.pat, "contacts", "create", { inputs: [{ properties: { email: "a@b.test", firstname: "A" } }, { properties: { email: "c@d.test" } }] });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ status: "COMPLETE", startedAt: expect.any(String), completedAt: expect.any(String) });
    expect(created.json.results.map((r: { properties: { email: string } }) => r.properties.email).sort()).toEqual(["a@b.test", "c@d.test"]);
    const ids = created.json.results.map((r: { id: string }) => r.id) as string[];

    const read = await batch(t.pat, "contacts", "read", { inputs: ids.map((id) => ({ id })), properties: ["email"] });
    expect(read.status).toBe(200);
    expect(Object.keys(byId(read.json.results)).sort()).toEqual([...ids].sort());

    const updated = await batch(t.pat, "contacts", "update", { inputs: [{ id: ids[0], properties: { firstname: "B", lastname: "L" } }, { id: ids[1], properties: { firstname: "C" } }] });
    expect(updated.status, updated.text).toBe(200);
    expect(byId(updated.json.results)[ids[0]!]).toMatchObject({ firstname: "B", lastname: "L", email: "a@b.test" });

    expect((await batch(t.pat, "contacts", "archive", { inputs: ids.map((id) => ({ id })) })).status).toBe(204);
    expectError(await call("GET", `/crm/v3/objects/contacts/${ids[0]}`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
  });

  it("read and update answer 207 with errors and numErrors for ids of no record, and write the others", async () => {
    const t = await tenant();
    const id = await make(t, "deals", { dealname: "d" });
    const read = await batch(t.pat, "deals", "read", { inputs: [{ id }, { id: "999999999" }] });
    expect(read.status).toBe(207);
    expect(read.json).toMatchObject({ status: "COMPLETE", numErrors: 1, errors: [{ status: "error", category: "OBJECT_NOT_FOUND", context: { ids: ["999999999"] } }] });
    expect(read.json.results.map((r: { id: string }) => r.id)).toEqual([id]);
    const update = await batch(t.pat, "deals", "update", { inputs: [{ id, properties: { dealname: "e" } }, { id: "999999999", properties: { dealname: "x" } }] });
    expect(update.status).toBe(207);
    expect(update.json.numErrors).toBe(1);
    expect((await call("GET", `/crm/v3/objects/deals/${id}`, { token: t.pat })).json.properties.dealname).toBe("e");
  });

  it("create refuses an existing email with the real 409, naming the contact, and writes nothing", async () => {
    const t = await tenant();
    const existing = await make(t, "contacts", { email: "Taken@x.test" });
    const res = await batch(t.pat, "contacts", "create", { inputs: [{ properties: { email: "new@x.test" } }, { properties: { email: "taken@X.test" } }] });
    const err = expectError(res, 409, "CONFLICT");
    expect(err.message).toBe(`Contact already exists. Existing ID: ${existing}`);
    const all = await call("GET", "/crm/v3/objects/contacts", { token: t.pat });
    expect(all.json.results.map((r: { id: string }) => r.id)).toEqual([existing]);
  });

  it("upsert by email creates the missing contacts and updates the existing ones, keeping their ids", async () => {
    const t = await tenant();
    const existing = await make(t, "contacts", { email: "keep@x.test", firstname: "Old" });
    const res = await batch(t.pat, "contacts", "upsert", {
      inputs: [
        { id: "KEEP@x.test", idProperty: "email", properties: { firstname: "New" } },
        { id: "fresh@x.test", idProperty: "email", properties: { firstname: "Fresh" } },
      ],
    });
    expect(res.status, res.text).toBe(200);
    const kept = res.json.results.find((r: { id: string }) => r.id === existing);
    expect(kept).toMatchObject({ new: false, properties: { firstname: "New" } });
    const fresh = res.json.results.find((r: { id: string }) => r.id !== existing);
    expect(fresh).toMatchObject({ new: true, properties: { email: "fresh@x.test", firstname: "Fresh" } });
    const read = await batch(t.pat, "contacts", "read", { idProperty: "email", inputs: [{ id: "fresh@x.test" }, { id: "keep@x.test" }] });
    expect(read.json.results.map((r: { id: string }) => r.id).sort()).toEqual([existing, fresh.id].sort());
  });

  it("writes one batch in one D1 batch: a failure inside it leaves nothing written", async () => {
    const t = await tenant();
    const a = await make(t, "contacts", { email: "one@x.test" });
    const b = await make(t, "contacts", { email: "two@x.test" });
    // b takes a's email: the unique index refuses the batch, and a's change in the same batch is rolled back.
    const res = await batch(t.pat, "contacts", "update", { inputs: [{ id: a, properties: { firstname: "changed" } }, { id: b, properties: { email: "one@x.test" } }] });
    expect(expectError(res, 409, "CONFLICT").message).toBe(`Contact already exists. Existing ID: ${a}`);
    expect((await call("GET", `/crm/v3/objects/contacts/${a}`, { token: t.pat })).json.properties.firstname).toBeNull();
  });
});

describe("batch: bad input anywhere is a 400 naming the input, before anything is written", () => {
  const hundredAndOne = Array.from({ length: 101 }, (_, i) => ({ properties: { firstname: `n${i}` } }));
  const cases: [string, string, unknown, RegExp][] = [
    ["101 inputs", "create", { inputs: hundredAndOne }, /at most 100 inputs per batch/],
    ["no inputs", "create", { inputs: [] }, /inputs must name at least one record/],
    ["a bad property name in the second input", "create", { inputs: [{ properties: { ok: "1" } }, { properties: { "bad name": "x" } }] }, /inputs\.1\.properties/],
    ["the same email twice", "create", { inputs: [{ properties: { email: "d@x.test" } }, { properties: { email: "D@x.test" } }] }, /inputs\.1\.properties\.email: the same email as inputs\.0/],
    ["a non-numeric id", "read", { inputs: [{ id: "abc" }] }, /inputs\.0\.id: must be a numeric record id/],
    ["an unknown idProperty", "read", { idProperty: "firstname", inputs: [{ id: "x" }] }, /idProperty: "firstname" is not a unique property of contacts/],
    ["the same record twice", "update", { inputs: [{ id: "1", properties: {} }, { id: "1", properties: {} }] }, /inputs\.1\.id: names the same record as inputs\.0/],
    ["upsert without idProperty", "upsert", { inputs: [{ id: "a@x.test", properties: {} }] }, /inputs\.0\.idProperty/],
    ["archive with a non-numeric id", "archive", { inputs: [{ id: "x" }] }, /inputs\.0\.id/],
  ];
  it.each(cases)("%s", async (_name, op, body, message) => {
    const t = await tenant();
    const err = expectError(await batch(t.pat, "contacts", op, body), 400, "VALIDATION_ERROR");
    expect(`${err.message} ${JSON.stringify(err.errors ?? [])}`).toMatch(message);
    expect((await call("GET", "/crm/v3/objects/contacts", { token: t.pat })).json.results).toEqual([]);
  });

  it("upsert on a type without a unique property is a 400", async () => {
    const t = await tenant();
    expectError(await batch(t.pat, "deals", "upsert", { inputs: [{ id: "a@x.test", idProperty: "email", properties: {} }] }), 400, "VALIDATION_ERROR");
  });
});

describe("batch: isolation", () => {
  it("another account's ids are not found by read or update, and archive leaves them", async () => {
    const a = await tenant();
    const b = await tenant();
    const id = await make(a, "contacts", { email: "mine@a.test", firstname: "Mine" });
    const read = await batch(b.pat, "contacts", "read", { inputs: [{ id }] });
    expect(read.status).toBe(207);
    expect(read.json.results).toEqual([]);
    expect((await batch(b.pat, "contacts", "read", { idProperty: "email", inputs: [{ id: "mine@a.test" }] })).json.results).toEqual([]);
    expect((await batch(b.pat, "contacts", "update", { inputs: [{ id, properties: { firstname: "B" } }] })).status).toBe(207);
    expect((await batch(b.pat, "contacts", "archive", { inputs: [{ id }] })).status).toBe(204);
    // Upsert by A's email in B creates B's own contact, never touching A's.
    const up = await batch(b.pat, "contacts", "upsert", { inputs: [{ id: "mine@a.test", idProperty: "email", properties: { firstname: "B" } }] });
    expect(up.json.results[0]).toMatchObject({ new: true });
    expect(up.json.results[0].id).not.toBe(id);
    expect((await call("GET", `/crm/v3/objects/contacts/${id}`, { token: a.pat })).json.properties.firstname).toBe("Mine");
  });
});

describe("idProperty on single reads and updates", () => {
  it("reads and patches a contact by email; 404 for an unknown email or another account's", async () => {
    const a = await tenant();
    const b = await tenant();
    const id = await make(a, "contacts", { email: "ada@x.test", firstname: "Ada" });
    const read = await call("GET", `/crm/v3/objects/contacts/${encodeURIComponent("ADA@x.test")}?idProperty=email`, { token: a.pat });
    expect(read.status, read.text).toBe(200);
    expect(read.json.id).toBe(id);
    const patched = await call("PATCH", "/crm/v3/objects/contacts/ada@x.test?idProperty=email", { token: a.pat, body: { properties: { lastname: "L" } } });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ id, properties: { lastname: "L" } });
    expectError(await call("GET", "/crm/v3/objects/contacts/nobody@x.test?idProperty=email", { token: a.pat }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("GET", "/crm/v3/objects/contacts/ada@x.test?idProperty=email", { token: b.pat }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("PATCH", "/crm/v3/objects/contacts/ada@x.test?idProperty=email", { token: b.pat, body: { properties: { lastname: "B" } } }), 404, "OBJECT_NOT_FOUND");
  });

  it.each([
    ["an email without idProperty", "/crm/v3/objects/contacts/ada@x.test", /objectId: must be a numeric id/],
    ["idProperty email on companies", "/crm/v3/objects/companies/1?idProperty=email", /idProperty: "email" is not a unique property of companies/],
  ])("%s is a 400", async (_name, path, message) => {
    const t = await tenant();
    expect(expectError(await call("GET", path, { token: t.pat }), 400, "VALIDATION_ERROR").message).toMatch(message);
  });
});

describe("the single create's 409", () => {
  it("is the real service's message with the existing id, on create and on an update that takes an email", async () => {
    const t = await tenant();
    const id = await make(t, "contacts", { email: "dup@x.test" });
    const again = expectError(await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { email: "DUP@x.test" } } }), 409, "CONFLICT");
    expect(again.message).toBe(`Contact already exists. Existing ID: ${id}`);
    expect(again.message.match(/Existing ID: (\d+)/)?.[1]).toBe(id);
    const other = await make(t, "contacts", { email: "other@x.test" });
    const taken = expectError(await call("PATCH", `/crm/v3/objects/contacts/${other}`, { token: t.pat, body: { properties: { email: "dup@x.test" } } }), 409, "CONFLICT");
    expect(taken.message).toBe(`Contact already exists. Existing ID: ${id}`);
  });
});

describe("cost", () => {
  it("a batch update of 3 records is one read of them and one D1 batch of their 3 updates", async () => {
    const t = await tenant({ shard: "SHARD_1" });
    const ids = [await make(t, "deals", { a: "1" }), await make(t, "deals", { a: "2" }), await make(t, "deals", { a: "3" })];
    const seen = await watched("/crm/v3/objects/deals/batch/update", { inputs: ids.map((id) => ({ id, properties: { b: "x" } })) }, t.pat);
    expect(seen.statements.filter((q) => /^select \* from crm_objects/.test(q.sql.trim()))).toHaveLength(1);
    expect(seen.statements.filter((q) => /^update "crm_objects"/.test(q.sql.trim()))).toHaveLength(3);
    expect(seen.batches).toBe(1);
  });
});

describe("every object type", () => {
  const TYPES = ["contacts", "companies", "deals", "products", "line_items", "tickets"] as const;
  it.each(TYPES)("%s: batch create, search, a custom property, batch archive", async (type) => {
    const t = await tenant();
    const prop = await call("POST", `/crm/v3/properties/${type}`, { token: t.pat, body: { name: "rank", label: "Rank", type: "number", fieldType: "number", groupName: DEFAULT_GROUP[type] } });
    expect(prop.status, prop.text).toBe(201);
    const made = await batch(t.pat, type, "create", { inputs: [{ properties: { rank: "1" } }, { properties: { rank: "20" } }] });
    expect(made.status, made.text).toBe(201);
    const high = made.json.results.find((r: { properties: { rank: string } }) => r.properties.rank === "20").id;
    const found = await call("POST", `/crm/v3/objects/${type}/search`, { token: t.pat, body: { filterGroups: [{ filters: [{ propertyName: "rank", operator: "GT", value: "3" }] }], properties: ["rank"] } });
    expect(found.json.results.map((r: { id: string; properties: { rank: string } }) => [r.id, r.properties.rank])).toEqual([[high, "20"]]);
    expect((await batch(t.pat, type, "archive", { inputs: made.json.results.map((r: { id: string }) => ({ id: r.id })) })).status).toBe(204);
    expect((await call("POST", `/crm/v3/objects/${type}/search`, { token: t.pat, body: {} })).json.total).toBe(0);
  });

  it("batch create takes associations under the single create's rules", async () => {
    const t = await tenant();
    const company = await make(t, "companies", { name: "Acme" });
    const spec = (id: string, typeId: number) => [{ to: { id }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: typeId }] }];
    const made = await batch(t.pat, "contacts", "create", { inputs: [{ properties: { firstname: "a" }, associations: spec(company, 279) }] });
    expect(made.status, made.text).toBe(201);
    const read = await call("GET", `/crm/v3/objects/contacts/${made.json.results[0].id}?associations=companies`, { token: t.pat });
    expect(read.json.associations.companies.results.map((r: { id: string }) => r.id)).toEqual([company]);
    const bad = await batch(t.pat, "contacts", "create", { inputs: [{ properties: { firstname: "b" } }, { properties: { firstname: "c" }, associations: spec(company, 3) }] });
    const err = expectError(bad, 400, "VALIDATION_ERROR");
    expect(JSON.stringify(err.errors)).toContain("inputs.1.associations.0.types.0.associationTypeId");
  });
});
