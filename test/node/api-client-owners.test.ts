/**
 * The official SDK @hubspot/api-client 14.0.1, unmodified, against the Worker: owners (crm.owners), settings
 * users, teams and roles (settings.users), and account info through the client's own apiRequest (14.0.1 has
 * no account-info module). Every call goes the way the client sends it, trailing slashes included
 * (`/crm/v3/owners/`, `/settings/v3/users/`), and every answer is parsed by the client's own models.
 */
import { Client } from "@hubspot/api-client";
import { describe, expect, it } from "vitest";
import { admin, rejection, tenant, workerUrl, type NodeTenant } from "./helpers";

const sdk = (t: NodeTenant, token = t.oauth) => new Client({ accessToken: token, basePath: workerUrl() });

interface ApiException {
  code: number;
  body: { status: string; message: string; category: string; errors?: { message: string; context?: { propertyName?: string[] } }[] };
}

let seq = 0;
const email = (p: string) => `${p}-${Date.now().toString(36)}${(seq++).toString(36)}@example.com`;

describe("@hubspot/api-client 14.0.1: owners", () => {
  it("pages the account's owners, reads one by owner id and by user id", async () => {
    const t = await tenant();
    await admin("POST", `/admin/v1/accounts/${t.portalId}/users`, { email: email("o1"), firstName: "Ada", lastName: "Lovelace" });
    const owners = sdk(t).crm.owners.ownersApi;
    const first = await owners.getPage(undefined, undefined, 1, false);
    expect(first.results).toHaveLength(1);
    expect(first.results[0]!.email).toBe(t.userEmail);
    expect(first.results[0]!.createdAt).toBeInstanceOf(Date);
    const second = await owners.getPage(undefined, first.paging!.next!.after, 1, false);
    expect(second.results[0]).toMatchObject({ firstName: "Ada", lastName: "Lovelace", archived: false, type: "PERSON" });
    expect(second.paging).toBeUndefined();
    const ownerId = Number(second.results[0]!.id);
    expect(ownerId).not.toBe(second.results[0]!.userId);
    expect((await owners.getById(ownerId)).email).toBe(second.results[0]!.email);
    expect((await owners.getById(second.results[0]!.userId!, "userId")).id).toBe(String(ownerId));
    const byEmail = await owners.getPage(second.results[0]!.email, undefined, 10, false);
    expect(byEmail.results.map((o) => o.id)).toEqual([String(ownerId)]);
  });

  it("one user through two faces: made by the operator it is an owner; deleted, its owner is archived and records keep it", async () => {
    const t = await tenant();
    const client = sdk(t);
    const made = await admin("POST", `/admin/v1/accounts/${t.portalId}/users`, { email: email("two"), firstName: "Grace" });
    const owner = await client.crm.owners.ownersApi.getById(made.userId, "userId");
    expect(owner).toMatchObject({ email: made.email, firstName: "Grace", userId: made.userId, archived: false });
    const asUser = await client.settings.users.usersApi.getById(String(made.userId));
    expect(asUser).toMatchObject({ id: String(made.userId), email: made.email, firstName: "Grace" });

    const deal = await client.crm.deals.basicApi.create({ properties: { dealname: "Two faces", hubspot_owner_id: owner.id }, associations: [] });
    await admin("DELETE", `/admin/v1/accounts/${t.portalId}/users/${made.userId}`);

    const gone = await rejection<ApiException>(client.crm.owners.ownersApi.getById(Number(owner.id)));
    expect(gone.code).toBe(404);
    const archived = await client.crm.owners.ownersApi.getById(Number(owner.id), "id", true);
    expect(archived).toMatchObject({ id: owner.id, archived: true, userIdIncludingInactive: made.userId });
    expect(archived.userId).toBeUndefined();
    const page = await client.crm.owners.ownersApi.getPage(undefined, undefined, 100, true);
    expect(page.results.map((o) => o.id)).toEqual([owner.id]);
    expect((await client.crm.deals.basicApi.getById(deal.id, ["hubspot_owner_id"])).properties.hubspot_owner_id).toBe(owner.id);
    expect((await rejection<ApiException>(client.settings.users.usersApi.getById(String(made.userId)))).code).toBe(404);
  });

  it("an unknown hubspot_owner_id, or another account's owner, is an ApiException 400 naming the field", async () => {
    const a = await tenant();
    const b = await tenant();
    const aOwner = (await sdk(a).crm.owners.ownersApi.getPage()).results[0]!.id;
    for (const value of ["12345", aOwner]) {
      const e = await rejection<ApiException>(sdk(b).crm.contacts.basicApi.create({ properties: { firstname: "x", hubspot_owner_id: value }, associations: [] }));
      expect(e.code).toBe(400);
      expect(e.body.category).toBe("VALIDATION_ERROR");
      expect(e.body.errors?.[0]?.context?.propertyName).toEqual(["properties.hubspot_owner_id"]);
    }
    const missing = await rejection<ApiException>(sdk(b).crm.owners.ownersApi.getById(Number(aOwner)));
    expect(missing.code).toBe(404);
  });

  it("the properties API lists the owners as hubspot_owner_id's options", async () => {
    const t = await tenant();
    const own = (await sdk(t).crm.owners.ownersApi.getPage()).results[0]!;
    const prop = await sdk(t).crm.properties.coreApi.getByName("deals", "hubspot_owner_id");
    expect(prop.options.map((o) => o.value)).toEqual([own.id]);
  });
});

describe("@hubspot/api-client 14.0.1: settings users, teams and roles", () => {
  it("provisions, pages, reads by email, replaces and archives users; lists teams and roles", async () => {
    const t = await tenant();
    const team = await admin("POST", `/admin/v1/accounts/${t.portalId}/teams`, { name: "Closers" });
    const users = sdk(t, t.pat).settings.users;
    const roles = await users.rolesApi.getAll();
    expect(roles.results.map((r) => r.name)).toContain("Admin");
    const address = email("prov");
    const made = await users.usersApi.create({ email: address, firstName: "Alan", roleId: roles.results[1]!.id, primaryTeamId: String(team.teamId), sendWelcomeEmail: false });
    expect(made).toMatchObject({ email: address, firstName: "Alan", primaryTeamId: String(team.teamId), superAdmin: false });
    const page = await users.usersApi.getPage(1);
    expect(page.results[0]!.id).toBe(String(t.userId));
    const next = await users.usersApi.getPage(1, page.paging!.next!.after);
    expect(next.results[0]!.id).toBe(made.id);
    expect((await users.usersApi.getById(address, "EMAIL")).id).toBe(made.id);
    const replaced = await users.usersApi.replace(made.id, { lastName: "Turing", secondaryTeamIds: [] });
    expect(replaced).toMatchObject({ firstName: "Alan", lastName: "Turing" });
    const teams = await users.teamsApi.getAll();
    expect(teams.results).toEqual([expect.objectContaining({ id: String(team.teamId), name: "Closers", userIds: [made.id], secondaryUserIds: [] })]);
    await users.usersApi.archive(made.id);
    expect((await rejection<ApiException>(users.usersApi.getById(made.id))).code).toBe(404);
  });

  it("bad input is an ApiException 400 naming the field; another account's user is a 404", async () => {
    const a = await tenant();
    const b = await tenant();
    const users = sdk(b).settings.users.usersApi;
    const bad = await rejection<ApiException>(users.create({ email: email("r"), roleId: "nope" }));
    expect(bad.code).toBe(400);
    expect(bad.body.errors?.[0]?.context?.propertyName).toEqual(["roleId"]);
    expect((await rejection<ApiException>(users.getById(String(a.userId)))).code).toBe(404);
    expect((await rejection<ApiException>(users.archive(a.userEmail, "EMAIL"))).code).toBe(404);
  });
});

describe("@hubspot/api-client 14.0.1: account info (apiRequest)", () => {
  it("details and the private apps' daily usage", async () => {
    const t = await tenant();
    await admin("PATCH", `/admin/v1/accounts/${t.portalId}`, { timeZone: "Europe/Berlin", companyCurrency: "EUR" });
    const client = sdk(t, t.pat);
    const details = await (await client.apiRequest({ method: "GET", path: "/account-info/v3/details" })).json();
    expect(details).toMatchObject({ portalId: t.portalId, accountType: "STANDARD", timeZone: "Europe/Berlin", companyCurrency: "EUR", utcOffset: expect.stringMatching(/^\+0[12]:00$/) });
    const usage = (await (await client.apiRequest({ method: "GET", path: "/account-info/v3/api-usage/daily/private-apps" })).json()) as { results: unknown[] };
    expect(usage.results[0]).toMatchObject({ name: "private-apps-api-calls-daily", fetchStatus: expect.any(String) });
  });
});
