/** CRM cards v3 (`/crm/v3/extensions/cards-dev`): the v1 record types the v3 way, fetched and signed on views. */
import { describe, expect, it } from "vitest";
import { admin, call, expectError, tenant, unique, type Tenant } from "../helpers/api";
import { integratorPath, integratorUrl, script } from "../helpers/integrator";
import { createRecord, defineCard, signedRequest, TYPES, viewPath } from "./helpers";

const cards = (appId: number) => `/crm/v3/extensions/cards-dev/${appId}`;
const dev = (t: Tenant, method: string, path: string, body?: unknown) => call(method, `${path}?hapikey=${t.developerKey}`, { body });

function v3Body(overrides: Record<string, unknown> = {}) {
  const fetchPath = integratorPath("fetch");
  return {
    fetchPath,
    body: {
      title: "Orders",
      fetch: { targetUrl: `${integratorUrl()}${fetchPath}`, objectTypes: [{ name: "contacts", propertiesToSend: ["email", "firstname"] }] },
      display: {
        properties: [
          { name: "total", label: "Total", dataType: "CURRENCY", options: [] },
          { name: "state", label: "State", dataType: "STATUS", options: [{ name: "open", label: "Open", type: "SUCCESS" }] },
        ],
      },
      actions: { baseUrls: [`${integratorUrl()}${integratorPath("actions")}`] },
      ...overrides,
    },
  };
}

async function createV3(t: Tenant, overrides: Record<string, unknown> = {}) {
  const c = v3Body(overrides);
  const res = await dev(t, "POST", cards(t.appId), c.body);
  expect(res.status, res.text).toBe(201);
  return { ...c, card: res.json };
}

describe("CRM cards v3", () => {
  it("creates (201) a card that is a v1 record type, and is fetched and signed when a contact is viewed", async () => {
    const t = await tenant();
    const { card, body, fetchPath } = await createV3(t);
    expect(card).toMatchObject({ title: "Orders", fetch: { ...body.fetch, cardType: "EXTERNAL" }, display: body.display, actions: body.actions });
    expect(card.id).toMatch(/^\d+$/);
    expect(card.auditHistory).toEqual([{ actionType: "CREATE", applicationId: t.appId, authSource: "APP", changedAt: expect.any(Number), objectTypeId: Number(card.id), initiatingUserId: 0 }]);

    const v1 = await call("GET", `${TYPES}/${card.id}?applicationId=${t.appId}`, { token: t.developerKey });
    expect(v1.json).toMatchObject({
      id: Number(card.id),
      title: "Orders",
      dataFetchUri: body.fetch.targetUrl,
      baseUris: body.actions.baseUrls,
      associatedHubSpotObjectTypes: ["CONTACT"],
      associatedHubSpotObjectTypeProperties: { CONTACT: ["email", "firstname"] },
      propertyDefinitions: [
        { name: "total", label: "Total", dataType: "CURRENCY" },
        { name: "state", label: "State", dataType: "STATUS", options: [{ name: "open", label: "Open", type: "SUCCESS" }] },
      ],
    });
    expect(v1.json.propertyDefinitions[0].options).toBeUndefined();

    const contact = await createRecord(t, "contacts", { email: "view@cards.example", firstname: "Vi" });
    await script(fetchPath, { body: JSON.stringify({ results: [{ objectId: 1, title: "Order 1", total: "12" }] }) });
    const view = await call("GET", viewPath("contacts", contact, t.userId), { token: t.oauth });
    expect(view.status, view.text).toBe(200);
    expect(view.json.cards[0]).toMatchObject({ cardId: Number(card.id), title: "Orders", status: "OK" });
    const req = await signedRequest(fetchPath, t.clientSecret);
    expect(new URL(req.url).searchParams.get("email")).toBe("view@cards.example");
  });

  it("shows a v1 record type as a v3 card, and a v3 PATCH is seen by v1", async () => {
    const t = await tenant();
    const v1 = await defineCard(t, { associatedHubSpotObjectTypes: ["COMPANY"], associatedHubSpotObjectTypeProperties: { COMPANY: ["domain"] } });
    const read = await dev(t, "GET", `${cards(t.appId)}/${v1.id}`);
    expect(read.status, read.text).toBe(200);
    expect(read.json).toMatchObject({ id: String(v1.id), title: "Tickets", fetch: { objectTypes: [{ name: "companies", propertiesToSend: ["domain"] }] }, display: { properties: [] } });
    expect((await dev(t, "GET", cards(t.appId))).json.results.map((c: { id: string }) => c.id)).toEqual([String(v1.id)]);

    const patched = await dev(t, "PATCH", `${cards(t.appId)}/${v1.id}`, { title: "Renamed", fetch: { objectTypes: [{ name: "deals", propertiesToSend: [] }] } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.fetch.targetUrl).toBe(read.json.fetch.targetUrl);
    const after = await call("GET", `${TYPES}/${v1.id}?applicationId=${t.appId}`, { token: t.developerKey });
    expect(after.json).toMatchObject({ title: "Renamed", associatedHubSpotObjectTypes: ["DEAL"], associatedHubSpotObjectTypeProperties: {} });

    expect((await dev(t, "DELETE", `${cards(t.appId)}/${v1.id}`)).status).toBe(204);
    expectError(await call("GET", `${TYPES}/${v1.id}?applicationId=${t.appId}`, { token: t.developerKey }), 404, "OBJECT_NOT_FOUND");
  });

  it("serves the sample response without a credential", async () => {
    const res = await call("GET", "/crm/v3/extensions/cards-dev/sample-response");
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ responseVersion: "v3", cardLabel: expect.any(String), sections: [expect.objectContaining({ id: "123" })] });
  });

  it.each([
    [{ title: "" }, "title"],
    [{ fetch: { targetUrl: "https://example.com/x", objectTypes: [] } }, "objectTypes must name at least one"],
    [{ fetch: { targetUrl: "https://example.com/x", objectTypes: [{ name: "orders", propertiesToSend: [] }] } }, "fetch.objectTypes.0.name"],
    [{ fetch: { targetUrl: "https://example.com/x", objectTypes: [{ name: "contacts", propertiesToSend: [] }], cardType: "SERVERLESS" } }, "cardType must be EXTERNAL"],
    [{ fetch: { targetUrl: "http://10.0.0.1/x", objectTypes: [{ name: "contacts", propertiesToSend: [] }] } }, "fetch.targetUrl"],
    [{ display: { properties: [{ name: "s", label: "S", dataType: "STATUS", options: [] }] } }, "a STATUS property needs options"],
    [{ display: { properties: [{ name: "n", label: "N", dataType: "STRING", options: [{ name: "a", label: "A", type: "INFO" }] }] } }, "only STATUS properties take options"],
    [{ display: { properties: [{ name: "title", label: "T", dataType: "STRING", options: [] }] } }, "name must not be one of"],
    [{ actions: { baseUrls: [] } }, "baseUrls must hold at least one URL"],
    [{ actions: { baseUrls: ["https://example.com/a?x=1"] } }, "a base URI must not carry a query string"],
  ])("refuses a bad card with 400 naming the field (%#)", async (overrides, text) => {
    const t = await tenant();
    const res = await dev(t, "POST", cards(t.appId), v3Body(overrides).body);
    expect(expectError(res, 400, "VALIDATION_ERROR").message).toContain(text);
    expect((await dev(t, "GET", cards(t.appId))).json.results).toEqual([]);
  });

  it("keeps the 25-per-app limit and the scope rule of v1", async () => {
    const t = await tenant();
    // An app without the tickets scope cannot show cards on tickets.
    const app = await admin("POST", "/admin/v1/apps", { name: unique("app"), redirectUris: ["https://app.example.com/cb"], scopes: ["contacts"] });
    const noTickets = { ...t, appId: app.appId as number, developerKey: app.developerKey as string };
    const tickets = v3Body({ fetch: { targetUrl: `${integratorUrl()}/x`, objectTypes: [{ name: "tickets", propertiesToSend: [] }] } }).body;
    const err = expectError(await dev(noTickets, "POST", cards(noTickets.appId), tickets), 400, "VALIDATION_ERROR");
    expect(err.errors[0]).toMatchObject({ code: "MISSING_SCOPES", context: { requiredScopes: ["tickets"] } });
    for (let i = 0; i < 25; i++) await createV3(t, { title: `c${i}` });
    expect(expectError(await dev(t, "POST", cards(t.appId), v3Body().body), 400, "API_LIMIT").message).toContain("25");
  });

  it("takes only the app's own developer key: another app's key gets 404, an OAuth token 403", async () => {
    const a = await tenant();
    const b = await tenant();
    const { card } = await createV3(a);
    for (const [method, path, body] of [
      ["GET", cards(a.appId)],
      ["POST", cards(a.appId), v3Body().body],
      ["GET", `${cards(a.appId)}/${card.id}`],
      ["PATCH", `${cards(a.appId)}/${card.id}`, { title: "stolen" }],
      ["DELETE", `${cards(a.appId)}/${card.id}`],
    ] as [string, string, unknown?][]) {
      expectError(await dev(b, method, path, body), 404, "OBJECT_NOT_FOUND");
      expectError(await call(method, path, { token: a.oauth, body }), 403, "FORBIDDEN");
    }
    // b's own app does not see a's card either.
    expectError(await dev(b, "GET", `${cards(b.appId)}/${card.id}`), 404, "OBJECT_NOT_FOUND");
    expect((await dev(a, "GET", `${cards(a.appId)}/${card.id}`)).json.title).toBe("Orders");
  });
});
