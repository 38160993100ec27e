/** `/crm/v3/properties/{objectType}/groups`: built-in and custom groups, and properties naming their group. */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant } from "../helpers/api";

const P = "/crm/v3/properties";
const prop = (groupName: string, name = "p1") => ({ name, label: "P", type: "string", fieldType: "text", groupName });

describe("property groups", () => {
  it("lists the built-in group, creates (201), reads, updates and archives (204) a custom one", async () => {
    const t = await tenant();
    const list = await call("GET", `${P}/deals/groups`, { token: t.pat });
    expect(list.status).toBe(200);
    expect(list.json.results).toEqual([expect.objectContaining({ name: "dealinformation", archived: false })]);

    const made = await call("POST", `${P}/deals/groups`, { token: t.oauth, body: { name: "finance", label: "Finance", displayOrder: 2 } });
    expect(made.status, made.text).toBe(201);
    expect(made.json).toEqual({ name: "finance", label: "Finance", displayOrder: 2, archived: false });
    expect((await call("GET", `${P}/deals/groups/finance`, { token: t.pat })).json.label).toBe("Finance");
    const patched = await call("PATCH", `${P}/deals/groups/finance`, { token: t.pat, body: { label: "Money" } });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ name: "finance", label: "Money", displayOrder: 2 });
    expect((await call("GET", `${P}/deals/groups`, { token: t.pat })).json.results.map((g: { name: string }) => g.name)).toEqual(["dealinformation", "finance"]);
    // Groups are per type.
    expectError(await call("GET", `${P}/contacts/groups/finance`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");

    expect((await call("DELETE", `${P}/deals/groups/finance`, { token: t.pat })).status).toBe(204);
    expectError(await call("GET", `${P}/deals/groups/finance`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
  });

  it("every type has its built-in group, which cannot be changed or archived", async () => {
    const t = await tenant();
    for (const [type, group] of [["contacts", "contactinformation"], ["companies", "companyinformation"], ["tickets", "ticketinformation"], ["products", "productinformation"], ["line_items", "lineiteminformation"], ["notes", "note"], ["leads", "leadinformation"]]) {
      expect((await call("GET", `${P}/${type}/groups/${group}`, { token: t.pat })).json.name).toBe(group);
    }
    expectError(await call("DELETE", `${P}/contacts/groups/contactinformation`, { token: t.pat }), 400, "VALIDATION_ERROR");
    expectError(await call("PATCH", `${P}/contacts/groups/contactinformation`, { token: t.pat, body: { label: "X" } }), 400, "VALIDATION_ERROR");
    expectError(await call("POST", `${P}/contacts/groups`, { token: t.pat, body: { name: "contactinformation", label: "X" } }), 409, "CONFLICT");
  });

  it("a property names an existing group; a group holding properties is not archived", async () => {
    const t = await tenant();
    const unknown = await call("POST", `${P}/contacts`, { token: t.pat, body: prop("nowhere") });
    expectError(unknown, 400, "VALIDATION_ERROR");
    expect(unknown.text).toContain("nowhere");
    expectError(await call("GET", `${P}/contacts/p1`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");

    expect((await call("POST", `${P}/contacts/groups`, { token: t.pat, body: { name: "extra", label: "Extra" } })).status).toBe(201);
    expect((await call("POST", `${P}/contacts`, { token: t.pat, body: prop("extra") })).status).toBe(201);
    const moveAway = await call("PATCH", `${P}/contacts/p1`, { token: t.pat, body: { groupName: "elsewhere" } });
    expectError(moveAway, 400, "VALIDATION_ERROR");
    expect(moveAway.text).toContain("elsewhere");

    const refused = await call("DELETE", `${P}/contacts/groups/extra`, { token: t.pat });
    expectError(refused, 400, "VALIDATION_ERROR");
    expect(refused.text).toContain("p1");
    expect((await call("GET", `${P}/contacts/groups/extra`, { token: t.pat })).status).toBe(200);

    expect((await call("PATCH", `${P}/contacts/p1`, { token: t.pat, body: { groupName: "contactinformation" } })).status).toBe(200);
    expect((await call("DELETE", `${P}/contacts/groups/extra`, { token: t.pat })).status).toBe(204);
    expect((await call("GET", `${P}/contacts/p1`, { token: t.pat })).json.groupName).toBe("contactinformation");
  });

  it("one account does not see or change another's groups", async () => {
    const a = await tenant();
    const b = await tenant();
    expect((await call("POST", `${P}/contacts/groups`, { token: a.pat, body: { name: "mine", label: "Mine" } })).status).toBe(201);
    expectError(await call("GET", `${P}/contacts/groups/mine`, { token: b.pat }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("PATCH", `${P}/contacts/groups/mine`, { token: b.pat, body: { label: "X" } }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("DELETE", `${P}/contacts/groups/mine`, { token: b.pat }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("POST", `${P}/contacts`, { token: b.pat, body: prop("mine") }), 400, "VALIDATION_ERROR");
    expect((await call("GET", `${P}/contacts/groups`, { token: b.pat })).json.results).toHaveLength(1);
    expect((await call("GET", `${P}/contacts/groups/mine`, { token: a.pat })).json.label).toBe("Mine");
  });
});

describe("property groups: bad input writes nothing", () => {
  const cases: [string, string, string, unknown, number, RegExp][] = [
    ["a name with capitals", "POST", `${P}/contacts/groups`, { name: "Bad", label: "B" }, 400, /name: lower-case letters/],
    ["no label", "POST", `${P}/contacts/groups`, { name: "g1" }, 400, /label/],
    ["a blank label", "POST", `${P}/contacts/groups`, { name: "g1", label: "  " }, 400, /label is required/],
    ["a fractional displayOrder", "POST", `${P}/contacts/groups`, { name: "g1", label: "G", displayOrder: 1.5 }, 400, /displayOrder/],
    ["an unknown object type (it could be another account's custom type: a 404, as on every CRM route)", "POST", `${P}/widgets/groups`, { name: "g1", label: "G" }, 404, /widgets/],
    ["an object type that is no name", "POST", `${P}/wid.gets/groups`, { name: "g1", label: "G" }, 400, /objectType/],
    ["a missing group", "PATCH", `${P}/contacts/groups/g1`, { label: "G" }, 404, /g1/],
  ];
  it.each(cases)("%s", async (_label, method, path, body, status, message) => {
    const t = await tenant();
    const res = await call(method, path, { token: t.pat, body });
    expect(res.status, res.text).toBe(status);
    expect(res.text).toMatch(message);
    expect((await call("GET", `${P}/contacts/groups`, { token: t.pat })).json.results).toHaveLength(1);
  });
});
