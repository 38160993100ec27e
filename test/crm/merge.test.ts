/** `POST /crm/v3/objects/{contacts,companies,deals,tickets}/merge`: what moves, what both faces show, the 400s. */
import { describe, expect, it } from "vitest";
import { BASE, call, expectError, send, tenant, type Tenant } from "../helpers/api";
import { make } from "./helpers";
import { profileOf, v1Create } from "../contacts-v1/helpers";
import { L, memberIds, newList } from "../lists/helpers";

const OBJ = "/crm/v4/objects";
const merge = (t: Tenant, type: string, body: unknown) => call("POST", `/crm/v3/objects/${type}/merge`, { token: t.pat, body });

async function label(t: Tenant) {
  const res = await call("POST", "/crm/v4/associations/contacts/companies/labels", { token: t.pat, body: { name: "manager", label: "Manager", inverseLabel: "Employee" } });
  expect(res.status, res.text).toBe(200);
  return (res.json.results as { typeId: number; label: string }[]).find((r) => r.label === "Manager")!.typeId;
}

const typeIds = async (t: Tenant, path: string) => {
  const res = await call("GET", path, { token: t.pat });
  expect(res.status, res.text).toBe(200);
  return (res.json.results as { toObjectId: number; associationTypes: { typeId: number }[] }[]).map((r) => [r.toObjectId, r.associationTypes.map((a) => a.typeId).sort((x, y) => x - y)]);
};

describe("POST /crm/v3/objects/{objectType}/merge", () => {
  it("contacts: the primary keeps its id and takes the newer values, labelled associations, activities and lists; the secondary is gone", async () => {
    const t = await tenant();
    const primary = await make(t, "contacts", { email: "keep@example.com", firstname: "Old" });
    const secondary = await make(t, "contacts", { email: "gone@example.com", firstname: "New", jobtitle: "Chief" });
    const company = await make(t, "companies", { name: "Acme" });
    const note = await make(t, "notes", { hs_timestamp: "2026-01-01T00:00:00Z", hs_note_body: "call back" });
    const manager = await label(t);
    const spec = [{ associationCategory: "USER_DEFINED", associationTypeId: manager }];
    expect((await call("PUT", `${OBJ}/contacts/${secondary}/associations/companies/${company}`, { token: t.pat, body: spec })).status).toBe(201);
    expect((await call("PUT", `/crm/v3/objects/notes/${note}/associations/contacts/${secondary}`, { token: t.pat })).status).toBeLessThan(300);
    const list = await newList(t, {});
    expect((await call("PUT", `${L}/${list.listId}/memberships/add`, { token: t.pat, body: [secondary] })).status).toBe(200);

    const res = await merge(t, "contacts", { primaryObjectId: primary, objectIdToMerge: secondary });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ id: primary, archived: false });
    // The secondary was modified last: its values win; the primary's email stays.
    expect(res.json.properties).toMatchObject({ email: "keep@example.com", firstname: "New", jobtitle: "Chief", hs_merged_object_ids: secondary });

    const read = await call("GET", `/crm/v3/objects/contacts/${primary}?properties=firstname,jobtitle,hs_merged_object_ids&associations=companies,notes`, { token: t.pat });
    expect(read.json.properties).toMatchObject({ firstname: "New", jobtitle: "Chief", hs_merged_object_ids: secondary });
    expect(read.json.associations.companies.results.map((r: { id: string }) => r.id)).toEqual([company]);
    expect(read.json.associations.notes.results.map((r: { id: string }) => r.id)).toEqual([note]);
    // Every label moved, in both directions.
    expect(await typeIds(t, `${OBJ}/contacts/${primary}/associations/companies`)).toEqual([[Number(company), [279, manager].sort((x, y) => x - y)]]);
    expect((await typeIds(t, `${OBJ}/companies/${company}/associations/contacts`)).map(([id]) => id)).toEqual([Number(primary)]);
    expect(await memberIds(t, list.listId)).toEqual([primary]);

    // The secondary is part of the survivor: no read answers it, archived or not (as after a v1 merge).
    expectError(await call("GET", `/crm/v3/objects/contacts/${secondary}`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("GET", `/crm/v3/objects/contacts/${secondary}?archived=true`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
    // The secondary's email now finds the survivor through the v1 face, which lists the merge.
    const v1 = (await profileOf(t, Number(primary))).json;
    expect(v1["merged-vids"]).toEqual([Number(secondary), Number(primary)]);
    expect(v1.properties.firstname.value).toBe("New");
  });

  it.each(["companies", "deals", "tickets"])("%s: merged the same way, and a chain of merges lists every merged id", async (type) => {
    const t = await tenant();
    const props = (n: string): Record<string, string> =>
      type === "companies" ? { name: n } : type === "deals" ? { dealname: n, pipeline: "default", dealstage: "appointmentscheduled" } : { subject: n, hs_pipeline: "0", hs_pipeline_stage: "1" };
    const [a, b, c] = [await make(t, type, props("A")), await make(t, type, props("B")), await make(t, type, props("C"))];
    const contact = await make(t, "contacts", { firstname: "linked" });
    expect((await call("PUT", `/crm/v3/objects/${type}/${c}/associations/contacts/${contact}`, { token: t.pat })).status).toBeLessThan(300);
    expect((await merge(t, type, { primaryObjectId: b, objectIdToMerge: c })).status).toBe(200);
    const res = await merge(t, type, { primaryObjectId: a, objectIdToMerge: b });
    expect(res.status, res.text).toBe(200);
    expect(res.json.id).toBe(a);
    expect(res.json.properties.hs_merged_object_ids.split(";").sort()).toEqual([b, c].sort());
    const read = await call("GET", `/crm/v3/objects/${type}/${a}?associations=contacts`, { token: t.pat });
    expect(read.json.associations.contacts.results.map((r: { id: string }) => r.id)).toEqual([contact]);
    for (const gone of [b, c]) expectError(await call("GET", `/crm/v3/objects/${type}/${gone}`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
    const list = await call("GET", `/crm/v3/objects/${type}?limit=100`, { token: t.pat });
    expect(list.json.results.map((r: { id: string }) => r.id)).toEqual([a]);
  });

  it("a v1 merge reads the same through v3, and a v3 merge the same through v1 (one merge, two faces)", async () => {
    const t = await tenant();
    const viaV1 = [await v1Create(t, { email: "p1@example.com", firstname: "P" }), await v1Create(t, { email: "s1@example.com", lastname: "S" })];
    const viaV3 = [await v1Create(t, { email: "p2@example.com", firstname: "P" }), await v1Create(t, { email: "s2@example.com", lastname: "S" })];
    // The v1 merge answers a bare SUCCESS under a JSON content type (as recorded): sent without `call`.
    const v1 = await send(
      new Request(`${BASE}/contacts/v1/contact/merge-vids/${viaV1[0]}`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.pat}`, "content-type": "application/json" },
        body: JSON.stringify({ vidToMerge: viaV1[1] }),
      }),
    );
    expect([v1.status, await v1.text()]).toEqual([200, "SUCCESS"]);
    expect((await merge(t, "contacts", { primaryObjectId: String(viaV3[0]), objectIdToMerge: String(viaV3[1]) })).status).toBe(200);
    const shape = async ([p, s]: number[]) => {
      const v3 = (await call("GET", `/crm/v3/objects/contacts/${p}?properties=email,firstname,lastname,hs_merged_object_ids`, { token: t.pat })).json.properties;
      const prof = (await profileOf(t, p!)).json;
      return {
        v3: [v3.email.slice(0, 1), v3.firstname, v3.lastname, v3.hs_merged_object_ids === String(s)],
        v1: [prof["merged-vids"].length, prof.properties.firstname.value, prof.properties.lastname.value, prof["merge-audits"][0]["vid-to-merge"] === s],
        secondary: (await call("GET", `/crm/v3/objects/contacts/${s}`, { token: t.pat })).status,
        secondaryV1: (await profileOf(t, s!)).json.vid === p,
      };
    };
    expect(await shape(viaV3)).toEqual(await shape(viaV1));
    expect(await shape(viaV1)).toEqual({ v3: ["p", "P", "S", true], v1: [2, "P", "S", true], secondary: 404, secondaryV1: true });
  });

  it("refuses a self-merge, an unknown, archived or merged-away id and another account's record with a 400 naming the field; nothing is written", async () => {
    const t = await tenant();
    const other = await tenant();
    const [a, b, archived] = [await make(t, "companies", { name: "a" }), await make(t, "companies", { name: "b" }), await make(t, "companies", { name: "x" })];
    const foreign = await make(other, "companies", { name: "f" });
    expect((await call("DELETE", `/crm/v3/objects/companies/${archived}`, { token: t.pat })).status).toBe(204);
    const cases: [unknown, string][] = [
      [{ primaryObjectId: a, objectIdToMerge: a }, "objectIdToMerge"],
      [{ primaryObjectId: a, objectIdToMerge: "999999999999" }, "objectIdToMerge"],
      [{ primaryObjectId: "999999999999", objectIdToMerge: a }, "primaryObjectId"],
      [{ primaryObjectId: a, objectIdToMerge: archived }, "objectIdToMerge"],
      [{ primaryObjectId: archived, objectIdToMerge: a }, "primaryObjectId"],
      [{ primaryObjectId: a, objectIdToMerge: foreign }, "objectIdToMerge"],
      [{ primaryObjectId: foreign, objectIdToMerge: a }, "primaryObjectId"],
      [{ primaryObjectId: a }, "objectIdToMerge"],
      [{ primaryObjectId: "abc", objectIdToMerge: b }, "primaryObjectId"],
      [{ primaryObjectId: a, objectIdToMerge: { id: b } }, "objectIdToMerge"],
    ];
    for (const [body, field] of cases) {
      const err = expectError(await merge(t, "companies", body), 400, "VALIDATION_ERROR");
      expect(JSON.stringify(err), JSON.stringify(body)).toContain(field);
    }
    expectError(await merge(t, "products", { primaryObjectId: a, objectIdToMerge: b }), 400, "VALIDATION_ERROR");
    // A contact id through the companies face is not a company.
    const contact = await make(t, "contacts", { firstname: "c" });
    expectError(await merge(t, "companies", { primaryObjectId: a, objectIdToMerge: contact }), 400, "VALIDATION_ERROR");
    // Nothing moved: all are still there as they were.
    const list = await call("GET", "/crm/v3/objects/companies?limit=100&properties=hs_merged_object_ids", { token: t.pat });
    expect(list.json.results.map((r: { id: string; properties: { hs_merged_object_ids: unknown } }) => [r.id, r.properties.hs_merged_object_ids])).toEqual([
      [a, null],
      [b, null],
    ]);
    expect((await call("GET", `/crm/v3/objects/companies/${foreign}`, { token: other.pat })).status).toBe(200);
  });

  it("needs the type's write scope", async () => {
    const t = await tenant({ scopes: ["crm.objects.contacts.read"] });
    const res = await call("POST", "/crm/v3/objects/contacts/merge", { token: t.oauth, body: { primaryObjectId: "1", objectIdToMerge: "2" } });
    expectError(res, 403, "MISSING_SCOPES");
  });
});
