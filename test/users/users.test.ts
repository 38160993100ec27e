/**
 * The settings users API (docs/reference/users.md): the same user rows as the operator API and web sign-in;
 * the profile (names, role, teams) shows on the owner too. Teams come from the operator; roles are fixed.
 */
import { describe, expect, it } from "vitest";
import { ADMIN, admin, call, expectError, tenant, unique, type Tenant } from "../helpers/api";

const U = "/settings/v3/users";
const team = async (t: Tenant, name = unique("team")) => (await admin("POST", `/admin/v1/accounts/${t.portalId}/teams`, { name })).teamId as number;

describe("settings users", () => {
  it("provisions a user with names, role and teams; reads it by id and by email; it is an owner with the same teams", async () => {
    const t = await tenant();
    const sales = await team(t, "Sales EMEA");
    const support = await team(t, "Support");
    const email = `${unique("p")}@Example.com`;
    const made = await call("POST", `${U}/`, { token: t.oauth, body: { email, firstName: "Ada", lastName: "Lovelace", roleId: "100002", primaryTeamId: String(sales), secondaryTeamIds: [String(support)], sendWelcomeEmail: true } });
    expect(made.status, made.text).toBe(201);
    expect(made.json).toEqual({
      id: expect.stringMatching(/^\d+$/),
      email: email.toLowerCase(),
      firstName: "Ada",
      lastName: "Lovelace",
      roleId: "100002",
      roleIds: ["100002"],
      primaryTeamId: String(sales),
      secondaryTeamIds: [String(support)],
      superAdmin: false,
    });
    const byEmail = await call("GET", `${U}/${encodeURIComponent(email)}?idProperty=EMAIL`, { token: t.pat });
    expect(byEmail.json).toEqual(made.json);
    const owner = await call("GET", `/crm/v3/owners/${made.json.id}?idProperty=userId`, { token: t.pat });
    expect(owner.json).toMatchObject({ email: email.toLowerCase(), firstName: "Ada", lastName: "Lovelace", teams: [{ id: String(sales), name: "Sales EMEA", primary: true }, { id: String(support), name: "Support", primary: false }] });
    const teams = await call("GET", `${U}/teams`, { token: t.pat });
    expect(teams.json.results).toEqual([
      { id: String(sales), name: "Sales EMEA", userIds: [made.json.id], secondaryUserIds: [] },
      { id: String(support), name: "Support", userIds: [], secondaryUserIds: [made.json.id] },
    ]);
  });

  it("lists users paged by id, the operator's user first; updates and deletes (the owner is archived)", async () => {
    const t = await tenant();
    const a = await call("POST", U, { token: t.pat, body: { email: `${unique("a")}@example.com` } });
    const b = await call("POST", U, { token: t.pat, body: { email: `${unique("b")}@example.com` } });
    const first = await call("GET", `${U}/?limit=2`, { token: t.pat });
    expect(first.json.results.map((u: { id: string }) => u.id)).toEqual([String(t.userId), a.json.id]);
    const next = await call("GET", `${U}?limit=2&after=${first.json.paging.next.after}`, { token: t.pat });
    expect(next.json.results.map((u: { id: string }) => u.id)).toEqual([b.json.id]);
    const updated = await call("PUT", `${U}/${a.json.id}`, { token: t.pat, body: { firstName: "Alan", roleId: "100001" } });
    expect(updated.json).toMatchObject({ firstName: "Alan", roleId: "100001", superAdmin: true });
    expect((await call("GET", `/crm/v3/owners/${a.json.id}?idProperty=userId`, { token: t.pat })).json.firstName).toBe("Alan");
    const removed = await call("DELETE", `${U}/${a.json.id}`, { token: t.pat });
    expect(removed.status, removed.text).toBe(204);
    expectError(await call("GET", `${U}/${a.json.id}`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
    expect((await call("GET", `/crm/v3/owners/${a.json.id}?idProperty=userId&archived=true`, { token: t.pat })).json.archived).toBe(true);
  });

  it("roles are the fixed list; a deleted team leaves its members", async () => {
    const t = await tenant();
    const roles = await call("GET", `${U}/roles`, { token: t.pat });
    expect(roles.json.results[0]).toEqual({ id: "100001", name: "Admin", requiresBillingWrite: true });
    const x = await team(t);
    const u = await call("POST", U, { token: t.pat, body: { email: `${unique("m")}@example.com`, primaryTeamId: String(x), secondaryTeamIds: [String(x)] } });
    await admin("DELETE", `/admin/v1/accounts/${t.portalId}/teams/${x}`);
    const after = await call("GET", `${U}/${u.json.id}`, { token: t.pat });
    expect(after.json.primaryTeamId).toBeUndefined();
    expect(after.json.secondaryTeamIds).toEqual([]);
    expect((await call("GET", `${U}/teams`, { token: t.pat })).json.results).toEqual([]);
  });

  it("the operator's users are the same rows: one made by the settings API is refused again by the operator (409)", async () => {
    const t = await tenant();
    const email = `${unique("same")}@example.com`;
    await call("POST", U, { token: t.pat, body: { email } });
    const again = await call("POST", `/admin/v1/accounts/${t.portalId}/users`, { token: "test-admin-token", body: { email } });
    expectError(again, 409, "CONFLICT");
    expectError(await call("POST", U, { token: t.pat, body: { email: t.userEmail } }), 409, "CONFLICT");
  });
});

describe("bad input", () => {
  it.each([
    ["an email that is not one", { email: "nope" }, "email"],
    ["an unknown role", { email: "r@example.com", roleId: "7" }, "roleId"],
    ["an unknown team", { email: "t@example.com", primaryTeamId: "999999" }, "primaryTeamId"],
    ["a team id that is not a number", { email: "t@example.com", secondaryTeamIds: ["x"] }, "secondaryTeamIds.0"],
    ["a first name over 100 characters", { email: "n@example.com", firstName: "x".repeat(101) }, "firstName"],
  ])("create: %s is a 400 naming it, and no user is made", async (_n, body, field) => {
    const t = await tenant();
    const res = expectError(await call("POST", U, { token: t.pat, body }), 400, "VALIDATION_ERROR");
    expect(res.errors[0].context.propertyName).toEqual([field]);
    expect((await call("GET", U, { token: t.pat })).json.results).toHaveLength(1);
  });

  it.each([
    ["a user id that is not a number", "abc", "", "userId"],
    ["an unknown idProperty", "1", "?idProperty=NAME", "idProperty"],
  ])("read: %s is a 400 naming it", async (_n, id, q, field) => {
    const t = await tenant();
    const res = expectError(await call("GET", `${U}/${id}${q}`, { token: t.pat }), 400, "VALIDATION_ERROR");
    expect(res.errors[0].context.propertyName).toEqual([field]);
  });

  it("update: another account's team is a 400 naming it", async () => {
    const a = await tenant();
    const b = await tenant();
    const bTeam = await team(b);
    const res = expectError(await call("PUT", `${U}/${a.userId}`, { token: a.pat, body: { primaryTeamId: String(bTeam) } }), 400, "VALIDATION_ERROR");
    expect(res.errors[0].context.propertyName).toEqual(["primaryTeamId"]);
  });
});

describe("isolation", () => {
  it("another account's user is a 404 to read, change and remove, by id and by email; its teams are not listed", async () => {
    const a = await tenant();
    const b = await tenant();
    await team(a, "A's team");
    for (const [method, body] of [["GET", undefined], ["PUT", { firstName: "x" }], ["DELETE", undefined]] as const) {
      expectError(await call(method, `${U}/${a.userId}`, { token: b.pat, body }), 404, "OBJECT_NOT_FOUND");
      expectError(await call(method, `${U}/${encodeURIComponent(a.userEmail)}?idProperty=EMAIL`, { token: b.oauth, body }), 404, "OBJECT_NOT_FOUND");
    }
    expect((await call("GET", `${U}/teams`, { token: b.pat })).json.results).toEqual([]);
    expect((await call("GET", `${U}/${a.userId}`, { token: a.pat })).status).toBe(200);
  });

  it("needs the users scopes", async () => {
    const t = await tenant({ scopes: ["settings.users.read"] });
    expect((await call("GET", U, { token: t.pat })).status).toBe(200);
    expectError(await call("POST", U, { token: t.pat, body: { email: "s@example.com" } }), 403, "MISSING_SCOPES");
    expectError(await call("GET", `${U}/teams`, { token: t.pat }), 403, "MISSING_SCOPES");
  });

  it("operator teams: a duplicate name is a 409, another account's team a 404", async () => {
    const a = await tenant();
    const b = await tenant();
    const x = await team(a, "Same");
    expectError(await call("POST", `/admin/v1/accounts/${a.portalId}/teams`, { token: "test-admin-token", body: { name: "Same" } }), 409, "CONFLICT");
    expect((await call("POST", `/admin/v1/accounts/${b.portalId}/teams`, { token: "test-admin-token", body: { name: "Same" } })).status).toBe(201);
    expectError(await call("DELETE", `/admin/v1/accounts/${b.portalId}/teams/${x}`, { token: "test-admin-token" }), 404, "OBJECT_NOT_FOUND");
  });
});

describe("operator teams: names", () => {
  it("a name with control characters or a lone surrogate is a 400 naming it, and no team is made", async () => {
    const t = await tenant();
    for (const name of ["\u0000x", "a\ud800b"]) {
      expectError(await call("POST", `/admin/v1/accounts/${t.portalId}/teams`, { token: ADMIN, body: { name } }), 400, "VALIDATION_ERROR");
    }
    const teams = await call("GET", "/settings/v3/users/teams", { token: t.pat });
    expect(teams.json.results).toEqual([]);
  });
});
