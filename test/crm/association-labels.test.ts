/** Association labels, labelled associations, limits and the association batch APIs (v4 and v3). */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant, type Tenant } from "../helpers/api";
import { make, watched } from "./helpers";
import { makeDb } from "../../src/db/client";
import { readAssociations } from "../../src/services/crm/associations";
import { countingD1 } from "../helpers/counting-d1";
import { accountD1 } from "../helpers/shards";

const LABELS = "/crm/v4/associations/contacts/companies/labels";
const OBJ = "/crm/v4/objects";

async function label(t: Tenant, body: Record<string, unknown>, path = LABELS) {
  const res = await call("POST", path, { token: t.pat, body });
  expect(res.status, res.text).toBe(200);
  return res.json.results as { category: string; typeId: number; label: string }[];
}

const typesOf = async (t: Tenant, path: string) => {
  const res = await call("GET", path, { token: t.pat });
  expect(res.status, res.text).toBe(200);
  return res.json.results as { toObjectId: number; associationTypes: { category: string; typeId: number; label: string | null }[] }[];
};

describe("association labels", () => {
  it("create (200), list (200), rename (204) and delete (204), in both path forms; a paired label has one type id per direction", async () => {
    const t = await tenant();
    const [manager, employee] = await label(t, { name: "manager", label: "Manager", inverseLabel: "Employee" });
    expect(manager).toEqual({ category: "USER_DEFINED", typeId: expect.any(Number), label: "Manager" });
    expect(employee).toEqual({ category: "USER_DEFINED", typeId: manager!.typeId + 1, label: "Employee" });
    expect(manager!.typeId).toBeGreaterThan(1_000_000);
    const [billing] = await label(t, { name: "billing", label: "Billing" }, "/crm/associations/v4/0-1/0-2/labels");

    const list = await call("GET", LABELS, { token: t.pat });
    expect(list.json.results).toEqual([
      { category: "HUBSPOT_DEFINED", typeId: 279, label: null },
      { category: "HUBSPOT_DEFINED", typeId: 1, label: "Primary" },
      { category: "USER_DEFINED", typeId: manager!.typeId, label: "Manager" },
      { category: "USER_DEFINED", typeId: billing!.typeId, label: "Billing" },
    ]);
    // The other direction lists the inverse ids; an unpaired label carries the same text both ways.
    const back = await call("GET", "/crm/associations/v4/companies/contacts/labels", { token: t.pat });
    expect(back.json.results.slice(2)).toEqual([
      { category: "USER_DEFINED", typeId: employee!.typeId, label: "Employee" },
      { category: "USER_DEFINED", typeId: billing!.typeId + 1, label: "Billing" },
    ]);

    expect((await call("PUT", LABELS, { token: t.pat, body: { associationTypeId: manager!.typeId, label: "Boss", inverseLabel: "Report" } })).status).toBe(204);
    const renamed = await call("GET", "/crm/associations/v4/companies/contacts/labels", { token: t.pat });
    expect(renamed.json.results[2]).toEqual({ category: "USER_DEFINED", typeId: employee!.typeId, label: "Report" });
    expect((await call("DELETE", `/crm/associations/v4/contacts/companies/labels/${billing!.typeId}`, { token: t.pat })).status).toBe(204);
    expect((await call("DELETE", `${LABELS}/${manager!.typeId}`, { token: t.pat })).status).toBe(204);
    expect((await call("GET", "/crm/v4/associations/companies/contacts/labels", { token: t.pat })).json.results).toHaveLength(2);
  });

  it("a label made in v4 reads back on both records, in pages and batch reads; deleting it takes it off the pair", async () => {
    const t = await tenant();
    const [manager, employee] = await label(t, { name: "manager", label: "Manager", inverseLabel: "Employee" });
    const contact = await make(t, "contacts", { firstname: "a" });
    const company = await make(t, "companies", { name: "c" });
    const spec = [{ associationCategory: "USER_DEFINED", associationTypeId: manager!.typeId }, { associationCategory: "HUBSPOT_DEFINED", associationTypeId: 1 }];
    const made = await call("PUT", `${OBJ}/contacts/${contact}/associations/companies/${company}`, { token: t.pat, body: spec });
    expect(made.status, made.text).toBe(201);
    expect(made.json.labels).toEqual(["Manager", "Primary"]);

    expect(await typesOf(t, `${OBJ}/contacts/${contact}/associations/companies`)).toEqual([
      {
        toObjectId: Number(company),
        associationTypes: [
          { category: "HUBSPOT_DEFINED", typeId: 279, label: null },
          { category: "HUBSPOT_DEFINED", typeId: 1, label: "Primary" },
          { category: "USER_DEFINED", typeId: manager!.typeId, label: "Manager" },
        ],
      },
    ]);
    expect(await typesOf(t, `${OBJ}/companies/${company}/associations/contacts`)).toEqual([
      {
        toObjectId: Number(contact),
        associationTypes: [
          { category: "HUBSPOT_DEFINED", typeId: 280, label: null },
          { category: "HUBSPOT_DEFINED", typeId: 2, label: "Primary" },
          { category: "USER_DEFINED", typeId: employee!.typeId, label: "Employee" },
        ],
      },
    ]);
    const batch = await call("POST", "/crm/v4/associations/companies/contacts/batch/read", { token: t.pat, body: { inputs: [{ id: company }] } });
    expect(batch.status, batch.text).toBe(200);
    expect(batch.json.results[0].to[0].associationTypes.map((a: { label: string | null }) => a.label)).toEqual([null, "Primary", "Employee"]);

    expect((await call("DELETE", `${LABELS}/${manager!.typeId}`, { token: t.pat })).status).toBe(204);
    const left = await typesOf(t, `${OBJ}/companies/${company}/associations/contacts`);
    expect(left[0]!.associationTypes.map((a) => a.typeId)).toEqual([280, 2]);
  });

  it("a record named twice in a batch read is answered once, with each association once (v4 and v3)", async () => {
    const t = await tenant();
    const contact = await make(t, "contacts", { firstname: "twice" });
    const [a, b] = [await make(t, "companies", { name: "a" }), await make(t, "companies", { name: "b" })];
    for (const company of [a, b]) {
      expect((await call("PUT", `/crm/v3/objects/contacts/${contact}/associations/companies/${company}`, { token: t.pat })).status).toBe(204);
    }
    const v4 = await call("POST", "/crm/v4/associations/contacts/companies/batch/read", { token: t.pat, body: { inputs: [{ id: contact }, { id: contact }] } });
    expect(v4.status, v4.text).toBe(200);
    expect(v4.json.results).toHaveLength(1);
    expect(v4.json.results[0].to.map((x: { toObjectId: number }) => x.toObjectId)).toEqual([Number(a), Number(b)]);
    const v3 = await call("POST", "/crm/v3/associations/contacts/companies/batch/read", { token: t.pat, body: { inputs: [{ id: contact }, { id: contact }] } });
    expect(v3.status, v3.text).toBe(200);
    expect(v3.json.results).toHaveLength(1);
    expect(v3.json.results[0].to.map((x: { id: string }) => x.id)).toEqual([a, b].map(String));
  });

  it("removing a pair's association removes its labels: associating it again brings only the default back", async () => {
    const t = await tenant();
    const [friend] = await label(t, { name: "friend", label: "Friend" });
    const contact = await make(t, "contacts", { firstname: "a" });
    const company = await make(t, "companies", { name: "c" });
    const pair = `${OBJ}/contacts/${contact}/associations/companies/${company}`;
    expect((await call("PUT", pair, { token: t.pat, body: [{ associationCategory: "USER_DEFINED", associationTypeId: friend!.typeId }] })).status).toBe(201);
    expect((await call("DELETE", `/crm/v3/objects/companies/${company}/associations/contacts/${contact}`, { token: t.pat })).status).toBe(204);
    expect((await call("PUT", `/crm/v3/objects/contacts/${contact}/associations/companies/${company}`, { token: t.pat })).status).toBe(204);
    const read = await typesOf(t, `${OBJ}/companies/${company}/associations/contacts`);
    expect(read[0]!.associationTypes).toEqual([{ category: "HUBSPOT_DEFINED", typeId: 280, label: null }]);
  });
});

describe("association labels: bad input writes nothing", () => {
  it.each([
    ["an unknown USER_DEFINED type id", (_own: number, _other: number) => [{ associationCategory: "USER_DEFINED", associationTypeId: 1_999_999 }], /associationTypeId 1999999 is not a USER_DEFINED type from contacts to companies/],
    ["another account's label", (_own: number, other: number) => [{ associationCategory: "USER_DEFINED", associationTypeId: other }], /is not a USER_DEFINED type from contacts to companies/],
    ["a label of the other direction", (own: number) => [{ associationCategory: "USER_DEFINED", associationTypeId: own + 1 }], /is not a USER_DEFINED type from contacts to companies/],
    ["a label named HUBSPOT_DEFINED", (own: number) => [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: own }], /is not a HUBSPOT_DEFINED type/],
    ["a valid label beside an unknown built-in id", (own: number) => [{ associationCategory: "USER_DEFINED", associationTypeId: own }, { associationCategory: "HUBSPOT_DEFINED", associationTypeId: 3 }], /associationTypeId 3 is not a HUBSPOT_DEFINED type/],
  ])("%s is a 400 and leaves the pair unassociated", async (_name, specs, message) => {
    const t = await tenant();
    const other = await tenant();
    const [own] = await label(t, { name: "own", label: "Own", inverseLabel: "Owned" });
    // Type ids are numbered per account: the other account's second label has an id this one never gave.
    await label(other, { name: "first", label: "First" });
    const [theirs] = await label(other, { name: "theirs", label: "Theirs" });
    const contact = await make(t, "contacts", { firstname: "a" });
    const company = await make(t, "companies", { name: "c" });
    const body = specs(own!.typeId, theirs!.typeId);
    const err = expectError(await call("PUT", `${OBJ}/contacts/${contact}/associations/companies/${company}`, { token: t.pat, body }), 400, "VALIDATION_ERROR");
    expect(err.message).toMatch(message);
    const batch = await call("POST", "/crm/v4/associations/contacts/companies/batch/create", {
      token: t.pat,
      body: { inputs: [{ from: { id: contact }, to: { id: company }, types: body }] },
    });
    expect(expectError(batch, 400, "VALIDATION_ERROR").message).toMatch(message);
    expect(await typesOf(t, `${OBJ}/contacts/${contact}/associations/companies`)).toEqual([]);
  });

  it.each([
    ["a pair with no association type", "/crm/v4/associations/contacts/products/labels", { name: "x", label: "X" }, /No association type exists from contacts to products/],
    ["an empty label", LABELS, { name: "x", label: " " }, /label must not be empty/],
    ["a name with spaces", LABELS, { name: "a b", label: "X" }, /name must be/],
    ["an unknown object type", "/crm/v4/associations/contacts/widgets/labels", { name: "x", label: "X" }, /object type must be one of/],
  ])("creating a label on %s is a 400", async (_name, path, body, message) => {
    const t = await tenant();
    expect(expectError(await call("POST", path, { token: t.pat, body }), 400, "VALIDATION_ERROR").message).toMatch(message);
    expect((await call("GET", LABELS, { token: t.pat })).json.results).toHaveLength(2);
  });

  it("a name taken on the pair is a 400; renaming or deleting an unknown label is a 400 / 404", async () => {
    const t = await tenant();
    await label(t, { name: "dup", label: "Dup" });
    expect(expectError(await call("POST", "/crm/v4/associations/companies/contacts/labels", { token: t.pat, body: { name: "dup", label: "Again" } }), 400, "VALIDATION_ERROR").message).toMatch(/named dup already exists/);
    expectError(await call("PUT", LABELS, { token: t.pat, body: { associationTypeId: 279, label: "Renamed" } }), 400, "VALIDATION_ERROR");
    expectError(await call("DELETE", `${LABELS}/1`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
    expect((await call("GET", LABELS, { token: t.pat })).json.results.map((r: { label: string | null }) => r.label)).toEqual([null, "Primary", "Dup"]);
  });
});

describe("association labels: isolation", () => {
  it("another account neither sees, renames, deletes nor uses an account's labels", async () => {
    const a = await tenant();
    const b = await tenant();
    const [mine] = await label(a, { name: "mine", label: "Mine" });
    expect((await call("GET", LABELS, { token: b.pat })).json.results).toHaveLength(2);
    expectError(await call("PUT", LABELS, { token: b.pat, body: { associationTypeId: mine!.typeId, label: "Stolen" } }), 400, "VALIDATION_ERROR");
    expectError(await call("DELETE", `${LABELS}/${mine!.typeId}`, { token: b.pat }), 404, "OBJECT_NOT_FOUND");
    // b's own first label gets the same number in b's account: type ids are numbered per account.
    const [theirs] = await label(b, { name: "theirs", label: "Theirs" });
    expect(theirs!.typeId).toBe(mine!.typeId);
    expect((await call("GET", LABELS, { token: a.pat })).json.results.at(-1)).toEqual({ category: "USER_DEFINED", typeId: mine!.typeId, label: "Mine" });
  });
});

describe("associations batch v4", () => {
  it("create (201), read (200, 207), labels/archive (204), associate/default (200) and archive (204)", async () => {
    const t = await tenant();
    const [vip] = await label(t, { name: "vip", label: "VIP", inverseLabel: "VIP of" });
    const contacts = [await make(t, "contacts", { firstname: "a" }), await make(t, "contacts", { firstname: "b" })];
    const company = await make(t, "companies", { name: "c" });
    const base = "/crm/v4/associations/contacts/companies/batch";
    const created = await call("POST", `${base}/create`, {
      token: t.pat,
      body: { inputs: contacts.map((id) => ({ from: { id }, to: { id: company }, types: [{ associationCategory: "USER_DEFINED", associationTypeId: vip!.typeId }] })) },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.results).toEqual(contacts.map((id) => ({ fromObjectTypeId: "0-1", fromObjectId: Number(id), toObjectTypeId: "0-2", toObjectId: Number(company), labels: ["VIP"] })));

    const lonely = await make(t, "contacts", { firstname: "alone" });
    const read = await call("POST", `${base}/read`, { token: t.pat, body: { inputs: [...contacts.map((id) => ({ id })), { id: lonely }, { id: "999999999" }] } });
    expect(read.status, read.text).toBe(207);
    expect(read.json.results.map((r: { from: { id: string } }) => r.from.id)).toEqual(contacts);
    expect(read.json.results[0].to).toEqual([
      { toObjectId: Number(company), associationTypes: [{ category: "HUBSPOT_DEFINED", typeId: 279, label: null }, { category: "USER_DEFINED", typeId: vip!.typeId, label: "VIP" }] },
    ]);
    expect(read.json.numErrors).toBe(2);
    expect(read.json.errors.map((e: { subCategory?: string }) => e.subCategory ?? null)).toEqual([null, "crm.associations.NO_ASSOCIATIONS_FOUND"]);

    const off = await call("POST", `${base}/labels/archive`, {
      token: t.pat,
      body: { inputs: [{ from: { id: contacts[0] }, to: { id: company }, types: [{ associationCategory: "USER_DEFINED", associationTypeId: vip!.typeId }] }] },
    });
    expect(off.status, off.text).toBe(204);
    const back = await typesOf(t, `${OBJ}/companies/${company}/associations/contacts`);
    expect(back.map((r) => r.associationTypes.map((a) => a.label))).toEqual([[null], [null, "VIP of"]]);

    const def = await call("POST", `${base}/associate/default`, { token: t.pat, body: { inputs: [{ from: { id: lonely }, to: { id: company } }] } });
    expect(def.status, def.text).toBe(200);
    expect(def.json.results).toEqual([{ from: { id: lonely }, to: { id: company }, associationSpec: { associationCategory: "HUBSPOT_DEFINED", associationTypeId: 279 } }]);

    const gone = await call("POST", `${base}/archive`, { token: t.pat, body: { inputs: [{ from: { id: company }, to: contacts.map((id) => ({ id })) }] } });
    // The path says contacts → companies, so these from ids name no contact: nothing is removed.
    expect(gone.status).toBe(204);
    expect(await typesOf(t, `${OBJ}/companies/${company}/associations/contacts`)).toHaveLength(3);
    expect((await call("POST", "/crm/v4/associations/companies/contacts/batch/archive", { token: t.pat, body: { inputs: [{ from: { id: company }, to: contacts.map((id) => ({ id })) }] } })).status).toBe(204);
    expect((await typesOf(t, `${OBJ}/companies/${company}/associations/contacts`)).map((r) => String(r.toObjectId))).toEqual([lonely]);
  });

  it("a batch read's rows read follow the records named, not the account's associations", async () => {
    const t = await tenant();
    const made = await call("POST", "/crm/v3/objects/contacts/batch/create", { token: t.pat, body: { inputs: Array.from({ length: 100 }, () => ({ properties: {} })) } });
    const ids = (made.json.results as { id: string }[]).map((r) => Number(r.id));
    const companies = [await make(t, "companies", { name: "a" }), await make(t, "companies", { name: "b" })];
    for (const company of companies) {
      const linked = await call("POST", "/crm/v4/associations/contacts/companies/batch/associate/default", { token: t.pat, body: { inputs: ids.map((id) => ({ from: { id: String(id) }, to: { id: company } })) } });
      expect(linked.status, linked.text).toBe(200);
    }
    const d1 = countingD1(await accountD1(t.portalId));
    // Ten records of the hundred: their 20 associations. Walking all 200 once per named record read about
    // 2,000 rows; the named records first, about 10 per association.
    const rows = await readAssociations(makeDb(d1), t.portalId, "contacts", "companies", ids.slice(0, 10).map((id) => ({ id, after: 0 })), 100);
    expect(rows.flatMap((r) => r.to)).toHaveLength(20);
    expect(d1.counts.roundTrips).toBe(1);
    expect(d1.counts.rowsRead, JSON.stringify(d1.counts.log)).toBeLessThan(300);
  });

  it("one record's page (the v4 page) reads two rows per link, labelled or not, in one round trip", async () => {
    const t = await tenant();
    const contact = await make(t, "contacts", {});
    const made = await call("POST", "/crm/v3/objects/companies/batch/create", { token: t.pat, body: { inputs: Array.from({ length: 30 }, (_, i) => ({ properties: { name: `c${i}` } })) } });
    expect(made.status, made.text).toBe(201);
    const companies = (made.json.results as { id: string }[]).map((r) => Number(r.id)).sort((a, b) => a - b);
    const linked = await call("POST", "/crm/v4/associations/contacts/companies/batch/associate/default", { token: t.pat, body: { inputs: companies.map((id) => ({ from: { id: contact }, to: { id: String(id) } })) } });
    expect(linked.status, linked.text).toBe(200);
    const [vip] = await label(t, { name: "vip", label: "VIP" });
    const labelled = await call("POST", "/crm/v4/associations/contacts/companies/batch/create", {
      token: t.pat,
      body: { inputs: [{ from: { id: contact }, to: { id: String(companies[3]) }, types: [{ associationCategory: "USER_DEFINED", associationTypeId: vip!.typeId }] }] },
    });
    expect(labelled.status, labelled.text).toBe(201);
    const d1 = countingD1(await accountD1(t.portalId));
    const [page] = await readAssociations(makeDb(d1), t.portalId, "contacts", "companies", [{ id: Number(contact), after: companies[9]! }], 10);
    expect(page!.found).toBe(true);
    expect(page!.to.map((r) => r.toObjectId)).toEqual(companies.slice(10, 20));
    expect(page!.next).toBe(companies[19]);
    expect(d1.counts.roundTrips).toBe(1);
    // The record, then 11 links (a page of 10 and the one that says more follow), each with its target.
    expect(d1.counts.rowsRead, JSON.stringify(d1.counts.log)).toBeLessThanOrEqual(2 * d1.counts.rowsReturned + 1);
    const first = await readAssociations(makeDb(d1), t.portalId, "contacts", "companies", [{ id: Number(contact), after: 0 }], 5);
    expect(first[0]!.to[3]!.associationTypes).toEqual([
      { category: "HUBSPOT_DEFINED", typeId: 279, label: null },
      { category: "USER_DEFINED", typeId: vip!.typeId, label: "VIP" },
    ]);
    expect(first[0]!.to[2]!.associationTypes).toEqual([{ category: "HUBSPOT_DEFINED", typeId: 279, label: null }]);
  });

  it("a batch read of 100 records is ONE round trip to the shard, every statement under 100 bound values", async () => {
    const t = await tenant();
    const made = await call("POST", "/crm/v3/objects/contacts/batch/create", { token: t.pat, body: { inputs: Array.from({ length: 100 }, (_, i) => ({ properties: { firstname: `c${i}` } })) } });
    expect(made.status, made.text).toBe(201);
    const ids = made.json.results.map((r: { id: string }) => r.id) as string[];
    const company = await make(t, "companies", { name: "c" });
    const linked = await call("POST", "/crm/v4/associations/contacts/companies/batch/associate/default", { token: t.pat, body: { inputs: ids.map((id) => ({ from: { id }, to: { id: company } })) } });
    expect(linked.status, linked.text).toBe(200);
    const seen = await watched("/crm/v4/associations/contacts/companies/batch/read", { inputs: ids.map((id) => ({ id })) }, t.pat);
    const data = seen.statements.filter((q) => /crm_associations|crm_objects|association_definitions/.test(q.sql));
    expect(data).toHaveLength(3);
    expect(seen.batches).toBe(1);
    for (const q of seen.statements) expect(q.params.length).toBeLessThanOrEqual(100);
  });
});

describe("associations batch v3 and types", () => {
  it("create (201), read (200), types (200) and archive (204)", async () => {
    const t = await tenant();
    const deal = await make(t, "deals", { dealname: "d" });
    const contact = await make(t, "contacts", { firstname: "a" });
    const base = "/crm/v3/associations/deals/contacts";
    const created = await call("POST", `${base}/batch/create`, { token: t.pat, body: { inputs: [{ from: { id: deal }, to: { id: contact }, type: "deal_to_contact" }] } });
    expect(created.status, created.text).toBe(201);
    expect(created.json.results).toEqual([{ from: { id: deal }, to: { id: contact }, type: "deal_to_contact" }]);
    const read = await call("POST", `${base}/batch/read`, { token: t.pat, body: { inputs: [{ id: deal }] } });
    expect(read.status, read.text).toBe(200);
    expect(read.json.results).toEqual([{ from: { id: deal }, to: [{ id: contact, type: "deal_to_contact" }] }]);
    const types = await call("GET", "/crm/v3/associations/contacts/companies/types", { token: t.pat });
    expect(types.json.results).toEqual([{ id: "279", name: "contact_to_company" }, { id: "1", name: "Primary" }]);
    expectError(await call("POST", `${base}/batch/create`, { token: t.pat, body: { inputs: [{ from: { id: deal }, to: { id: contact }, type: "contact_to_deal" }] } }), 400, "VALIDATION_ERROR");
    expect((await call("POST", `${base}/batch/archive`, { token: t.pat, body: { inputs: [{ from: { id: deal }, to: { id: contact } }] } })).status).toBe(204);
    expect((await call("POST", `${base}/batch/read`, { token: t.pat, body: { inputs: [{ id: deal }] } })).status).toBe(207);
  });

  it("batch inputs over the limits are 400s: 1000 ids to read, 100 to write", async () => {
    const t = await tenant();
    const read = await call("POST", "/crm/v4/associations/contacts/companies/batch/read", { token: t.pat, body: { inputs: Array.from({ length: 1001 }, (_, i) => ({ id: String(i + 1) })) } });
    expect(expectError(read, 400, "VALIDATION_ERROR").message).toMatch(/at most 1000 inputs/);
    const write = await call("POST", "/crm/v3/associations/contacts/companies/batch/create", { token: t.pat, body: { inputs: Array.from({ length: 101 }, (_, i) => ({ from: { id: String(i + 1) }, to: { id: "1" } })) } });
    expect(expectError(write, 400, "VALIDATION_ERROR").message).toMatch(/at most 100 inputs/);
  });
});

describe("association limits", () => {
  it("a limit is listed, enforced on v4, v3 and batch writes (400, nothing written), changed and purged", async () => {
    const t = await tenant();
    const [owner] = await label(t, { name: "owner", label: "Owner" });
    const base = "/crm/v4/associations/definitions/configurations/contacts/companies";
    const set = await call("POST", `${base}/batch/create`, {
      token: t.pat,
      body: { inputs: [{ category: "HUBSPOT_DEFINED", typeId: 279, maxToObjectIds: 2 }, { category: "USER_DEFINED", typeId: owner!.typeId, maxToObjectIds: 1 }] },
    });
    expect(set.status, set.text).toBe(201);
    expect(set.json.results[1]).toEqual({ category: "USER_DEFINED", typeId: owner!.typeId, label: "Owner", userEnforcedMaxToObjectIds: 1 });
    const all = await call("GET", "/crm/associations/v4/definitions/configurations/all", { token: t.pat });
    expect(all.json.results).toHaveLength(2);
    const pair = await call("GET", base, { token: t.pat });
    expect(pair.json.results[0]).toEqual({ category: "HUBSPOT_DEFINED", typeId: 279, label: null, userEnforcedMaxToObjectIds: 2 });

    const contact = await make(t, "contacts", { firstname: "a" });
    const [c1, c2, c3] = [await make(t, "companies", { name: "1" }), await make(t, "companies", { name: "2" }), await make(t, "companies", { name: "3" })];
    const ownerSpec = [{ associationCategory: "USER_DEFINED", associationTypeId: owner!.typeId }];
    expect((await call("PUT", `${OBJ}/contacts/${contact}/associations/companies/${c1}`, { token: t.pat, body: ownerSpec })).status).toBe(201);
    // Again on the same pair: not a second association, so within the limit.
    expect((await call("PUT", `${OBJ}/contacts/${contact}/associations/companies/${c1}`, { token: t.pat, body: ownerSpec })).status).toBe(201);
    const second = expectError(await call("PUT", `${OBJ}/contacts/${contact}/associations/companies/${c2}`, { token: t.pat, body: ownerSpec }), 400, "VALIDATION_ERROR");
    expect(second.message).toMatch(new RegExp(`association type ${owner!.typeId} allows at most 1 companies per contacts record`));
    expect((await call("PUT", `/crm/v3/objects/contacts/${contact}/associations/companies/${c2}`, { token: t.pat })).status).toBe(204);
    expect(expectError(await call("PUT", `/crm/v3/objects/contacts/${contact}/associations/companies/${c3}`, { token: t.pat }), 400, "VALIDATION_ERROR").message).toMatch(/allows at most 2 companies/);
    const batch = await call("POST", "/crm/v4/associations/contacts/companies/batch/associate/default", { token: t.pat, body: { inputs: [{ from: { id: contact }, to: { id: c3 } }] } });
    expectError(batch, 400, "VALIDATION_ERROR");
    expect((await typesOf(t, `${OBJ}/contacts/${contact}/associations/companies`)).map((r) => String(r.toObjectId))).toEqual([c1, c2]);

    const changed = await call("POST", `${base}/batch/update`, { token: t.pat, body: { inputs: [{ category: "HUBSPOT_DEFINED", typeId: 279, maxToObjectIds: 3 }] } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.json.results).toEqual([{ category: "HUBSPOT_DEFINED", typeId: 279, userEnforcedMaxToObjectIds: 3 }]);
    expect((await call("PUT", `/crm/v3/objects/contacts/${contact}/associations/companies/${c3}`, { token: t.pat })).status).toBe(204);
    expect((await call("POST", `/crm/associations/v4/definitions/configurations/contacts/companies/batch/purge`, { token: t.pat, body: { inputs: [{ category: "USER_DEFINED", typeId: owner!.typeId }] } })).status).toBe(204);
    expect((await call("PUT", `${OBJ}/contacts/${contact}/associations/companies/${c2}`, { token: t.pat, body: ownerSpec })).status).toBe(201);
    expectError(await call("POST", `${base}/batch/update`, { token: t.pat, body: { inputs: [{ category: "USER_DEFINED", typeId: owner!.typeId, maxToObjectIds: 3 }] } }), 400, "VALIDATION_ERROR");
  });
});
