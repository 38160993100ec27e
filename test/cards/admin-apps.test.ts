import { describe, expect, it } from "vitest";
import { admin, call, expectError, tenant, unique } from "../helpers/api";
import { ADMIN } from "../helpers/api";
import { TYPES } from "./helpers";

const card = (appId: number, types: string[]) => ({
  applicationId: appId,
  baseUris: ["https://example.com/actions"],
  dataFetchUri: "https://example.com/fetch",
  title: `cards on ${types.join("+")}`,
  associatedHubSpotObjectTypes: types,
});

async function app(scopes: string[]) {
  return (await admin("POST", "/admin/v1/apps", { name: unique("app"), redirectUris: ["https://app.example.com/cb"], scopes })) as { appId: number; developerKey: string };
}

const patch = (appId: number | string, body: unknown, token = ADMIN) => call("PATCH", `/admin/v1/apps/${appId}`, { token, body });

describe("PATCH /admin/v1/apps/:appId: a scope cannot be removed while cards need it", () => {
  it("replaces the scopes of an app without cards", async () => {
    const a = await app(["oauth", "contacts", "tickets"]);
    const res = await patch(a.appId, { scopes: ["oauth", "timeline"] });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ appId: a.appId, name: expect.any(String), scopes: ["oauth", "timeline"], refreshTokenRotation: false });
    expect(JSON.stringify(res.json)).not.toContain("clientSecret");
  });

  it("refuses (409) removing contacts while a contact card exists, and tickets while a ticket card exists", async () => {
    const a = await app(["oauth", "contacts", "tickets"]);
    const contactCard = await call("POST", TYPES, { token: a.developerKey, body: card(a.appId, ["COMPANY"]) });
    expect(contactCard.status, contactCard.text).toBe(200);
    const err = expectError(await patch(a.appId, { scopes: ["oauth", "tickets"] }), 409, "CONFLICT");
    expect(err.message).toContain("contacts");
    expect(err.message).toContain(String(contactCard.json.id));
    expect(err.context).toEqual({ cardIds: [String(contactCard.json.id)], requiredScopes: ["contacts"] });

    // Swapping the legacy scope for the granular family keeps contact cards covered.
    expect((await patch(a.appId, { scopes: ["oauth", "crm.objects.contacts.write", "tickets"] })).status).toBe(200);
    // tickets is not needed by any card yet, so it can go.
    expect((await patch(a.appId, { scopes: ["oauth", "crm.objects.contacts.write"] })).status).toBe(200);
    // Once a ticket card exists, tickets cannot go again.
    expect((await patch(a.appId, { scopes: ["oauth", "crm.objects.contacts.write", "tickets"] })).status).toBe(200);
    const ticketCard = await call("POST", TYPES, { token: a.developerKey, body: card(a.appId, ["TICKET"]) });
    expect(ticketCard.status).toBe(200);
    expect(expectError(await patch(a.appId, { scopes: ["oauth", "crm.objects.contacts.write"] }), 409, "CONFLICT").message).toContain("tickets");
    // The refused change left the scopes as they were.
    const again = await call("POST", TYPES, { token: a.developerKey, body: card(a.appId, ["TICKET", "DEAL"]) });
    expect(again.status, again.text).toBe(200);

    // After the cards are deleted, the scopes can be removed.
    for (const id of [contactCard.json.id, ticketCard.json.id, again.json.id]) {
      expect((await call("DELETE", `${TYPES}/${id}`, { token: a.developerKey })).status).toBe(204);
    }
    expect((await patch(a.appId, { scopes: ["oauth"] })).json.scopes).toEqual(["oauth"]);
  });

  it.each([
    ["no scopes field", {}, "scopes"],
    ["scopes not an array", { scopes: "contacts" }, "scopes"],
    ["unknown scope", { scopes: ["contacts", "superuser"] }, "scopes.1"],
  ])("bad input: %s", async (_n, body, field) => {
    const a = await app(["oauth"]);
    expect(expectError(await patch(a.appId, body), 400, "VALIDATION_ERROR").message).toContain(field);
  });

  it("unknown or malformed app id", async () => {
    expectError(await patch(999_999_999, { scopes: ["oauth"] }), 404, "OBJECT_NOT_FOUND");
    expect(expectError(await patch("abc", { scopes: ["oauth"] }), 400, "VALIDATION_ERROR").message).toContain("appId");
  });

  it("is operator-only", async () => {
    const t = await tenant();
    expectError(await call("PATCH", `/admin/v1/apps/${t.appId}`, { body: { scopes: [] } }), 401, "INVALID_AUTHENTICATION");
    for (const token of [t.oauth, t.pat, t.developerKey]) {
      expectError(await patch(t.appId, { scopes: [] }, token), 401, "INVALID_AUTHENTICATION");
    }
  });
});
