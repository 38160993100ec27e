import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { admin, call, expectError, tenant, unique, type Tenant } from "../helpers/api";
import { integratorUrl } from "../helpers/integrator";
import { callWithEnv, cardBody, defineCard, TYPES } from "./helpers";

const FULL = {
  title: "DemoTickets",
  propertyDefinitions: [
    {
      name: "status",
      label: "Status",
      dataType: "STATUS",
      options: [
        { type: "SUCCESS", label: "In Progress", name: "inprogress" },
        { type: "DEFAULT", label: "Resolved", name: "resolved" },
        { type: "WARNING", label: "Waiting", name: "waiting" },
        { type: "DANGER", label: "Broken", name: "broken" },
        { type: "INFO", label: "New", name: "new" },
      ],
    },
    ...["BOOLEAN", "CURRENCY", "DATE", "DATETIME", "EMAIL", "LINK", "NUMERIC", "STRING"].map((dataType) => ({ name: `p_${dataType.toLowerCase()}`, label: dataType, dataType })),
  ],
  associatedHubSpotObjectTypes: ["CONTACT", "COMPANY", "DEAL", "TICKET"],
  associatedHubSpotObjectTypeProperties: { CONTACT: ["email", "firstname"], TICKET: ["subject"] },
};

/** An app provisioned with exactly these scopes, and its developer key. */
async function appWithScopes(scopes: string[]) {
  return admin("POST", "/admin/v1/apps", { name: unique("app"), redirectUris: ["https://app.example.com/cb"], scopes }) as Promise<{ appId: number; developerKey: string }>;
}

/** Inserts `n` record types for the app directly, to reach the limit quickly. */
async function seed(appId: number, n: number) {
  const stmt = env.DB.prepare(
    "insert into card_types (app_id, title, base_uris, data_fetch_uri, property_definitions, object_types, object_type_properties, created_at, updated_at) values (?, ?, ?, ?, '[]', '[\"CONTACT\"]', '{}', 0, 0)",
  );
  await env.DB.batch(Array.from({ length: n }, (_, i) => stmt.bind(appId, `seeded ${i}`, '["https://example.com/a"]', "https://example.com/fetch")));
}

describe("record types: create, read, list, update, delete", () => {
  it("creates a full definition and echoes it with an id (200)", async () => {
    const t = await tenant();
    const { body } = cardBody(t, FULL);
    const res = await call("POST", TYPES, { token: t.developerKey, body });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ ...body, id: expect.any(Number), createdAt: expect.any(Number), updatedAt: expect.any(Number) });

    const got = await call("GET", `${TYPES}/${res.json.id}`, { token: t.developerKey });
    expect(got.status).toBe(200);
    expect(got.json).toEqual(res.json);
  });

  it("accepts the developer key as ?hapikey= and defaults the optional fields", async () => {
    const t = await tenant();
    const { body } = cardBody(t);
    const { propertyDefinitions: _p, associatedHubSpotObjectTypeProperties: _a, ...minimal } = body;
    const res = await call("POST", `${TYPES}?hapikey=${t.developerKey}`, { body: minimal });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ propertyDefinitions: [], associatedHubSpotObjectTypeProperties: {} });
  });

  it("lists the app's record types as {results}, oldest first", async () => {
    const t = await tenant();
    const a = await defineCard(t, { title: "A" });
    const b = await defineCard(t, { title: "B" });
    const res = await call("GET", `${TYPES}?applicationId=${t.appId}`, { token: t.developerKey });
    expect(res.status).toBe(200);
    expect(res.json.results.map((r: { id: number }) => r.id)).toEqual([a.id, b.id]);
    expect(res.json.results[0].title).toBe("A");
  });

  it("PUT merges the given fields into the stored definition", async () => {
    const t = await tenant();
    const card = await defineCard(t, FULL);
    const res = await call("PUT", `${TYPES}/${card.id}`, { token: t.developerKey, body: { title: "Renamed", associatedHubSpotObjectTypes: ["CONTACT"], associatedHubSpotObjectTypeProperties: { CONTACT: ["email"] } } });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ id: card.id, title: "Renamed", dataFetchUri: card.body.dataFetchUri, baseUris: card.body.baseUris, associatedHubSpotObjectTypes: ["CONTACT"] });
    expect(res.json.propertyDefinitions).toHaveLength(FULL.propertyDefinitions.length);
    expect((await call("GET", `${TYPES}/${card.id}`, { token: t.developerKey })).json.title).toBe("Renamed");
  });

  it("DELETE answers 204 with no body, then the record type is gone", async () => {
    const t = await tenant();
    const card = await defineCard(t);
    const res = await call("DELETE", `${TYPES}/${card.id}`, { token: t.developerKey });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(res.headers.get("content-type")).toBeNull();
    expectError(await call("GET", `${TYPES}/${card.id}`, { token: t.developerKey }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("DELETE", `${TYPES}/${card.id}`, { token: t.developerKey }), 404, "OBJECT_NOT_FOUND");
  });
});

describe("record types: bad input (400 VALIDATION_ERROR naming the field)", () => {
  const too = (n: number) => "x".repeat(n);
  const cases: [string, (t: Tenant) => Record<string, unknown>, string][] = [
    ["applicationId missing", () => ({ applicationId: undefined }), "applicationId"],
    ["applicationId not a number", () => ({ applicationId: "abc" }), "applicationId"],
    ["baseUris missing", () => ({ baseUris: undefined }), "baseUris"],
    ["baseUris empty", () => ({ baseUris: [] }), "baseUris"],
    ["baseUris not an array", () => ({ baseUris: "https://example.com" }), "baseUris"],
    ["baseUris more than 10", () => ({ baseUris: Array.from({ length: 11 }, (_, i) => `https://example.com/${i}`) }), "baseUris"],
    ["baseUris plain http on a public host", () => ({ baseUris: ["http://example.com/actions"] }), "baseUris.0: only https URLs are allowed"],
    ["baseUris private address", () => ({ baseUris: ["https://10.0.0.1/actions"] }), "baseUris.0: the host 10.0.0.1 is a private"],
    ["baseUris metadata address in hex", () => ({ baseUris: ["https://0xa9fea9fe/"] }), "baseUris.0"],
    ["baseUris with a query", () => ({ baseUris: ["https://example.com/a?x=1"] }), "baseUris.0: a base URI must not carry a query string"],
    ["baseUris non-default port", () => ({ baseUris: ["https://example.com:8443/a"] }), "baseUris.0: only the default https port"],
    ["baseUris credentials", () => ({ baseUris: ["https://u:p@example.com/a"] }), "baseUris.0: credentials in URLs"],
    ["dataFetchUri missing", () => ({ dataFetchUri: undefined }), "dataFetchUri"],
    ["dataFetchUri not a URL", () => ({ dataFetchUri: "not a url" }), "dataFetchUri: not a valid absolute URL"],
    ["dataFetchUri cloud metadata", () => ({ dataFetchUri: "https://169.254.169.254/latest/meta-data/" }), "dataFetchUri: the host 169.254.169.254"],
    ["dataFetchUri internal name", () => ({ dataFetchUri: "https://metadata.google.internal/x" }), "dataFetchUri"],
    ["dataFetchUri ftp", () => ({ dataFetchUri: "ftp://example.com/x" }), "dataFetchUri: only https URLs are allowed"],
    ["dataFetchUri with a fragment", () => ({ dataFetchUri: "https://example.com/x#frag" }), "dataFetchUri: must not carry a #fragment"],
    ["dataFetchUri too long", () => ({ dataFetchUri: `https://example.com/${too(2000)}` }), "dataFetchUri"],
    ["title missing", () => ({ title: undefined }), "title"],
    ["title empty", () => ({ title: "  " }), "title"],
    ["title too long", () => ({ title: too(201) }), "title"],
    ["propertyDefinitions not an array", () => ({ propertyDefinitions: {} }), "propertyDefinitions"],
    ["property without name", () => ({ propertyDefinitions: [{ label: "L", dataType: "STRING" }] }), "propertyDefinitions.0.name"],
    ["property name with spaces", () => ({ propertyDefinitions: [{ name: "a b", label: "L", dataType: "STRING" }] }), "propertyDefinitions.0.name"],
    ["property name reserved", () => ({ propertyDefinitions: [{ name: "title", label: "L", dataType: "STRING" }] }), "propertyDefinitions.0.name: name must not be one of"],
    ["property label empty", () => ({ propertyDefinitions: [{ name: "a", label: "", dataType: "STRING" }] }), "propertyDefinitions.0.label"],
    ["property dataType unknown", () => ({ propertyDefinitions: [{ name: "a", label: "L", dataType: "TEXT" }] }), "propertyDefinitions.0.dataType"],
    ["STATUS without options", () => ({ propertyDefinitions: [{ name: "a", label: "L", dataType: "STATUS" }] }), "propertyDefinitions.0.options: a STATUS property needs options"],
    ["options on a STRING", () => ({ propertyDefinitions: [{ name: "a", label: "L", dataType: "STRING", options: [{ type: "INFO", label: "x", name: "x" }] }] }), "only STATUS properties take options"],
    ["option type unknown", () => ({ propertyDefinitions: [{ name: "a", label: "L", dataType: "STATUS", options: [{ type: "RED", label: "x", name: "x" }] }] }), "propertyDefinitions.0.options.0.type"],
    ["option without label", () => ({ propertyDefinitions: [{ name: "a", label: "L", dataType: "STATUS", options: [{ type: "INFO", name: "x" }] }] }), "propertyDefinitions.0.options.0.label"],
    ["duplicate option names", () => ({ propertyDefinitions: [{ name: "a", label: "L", dataType: "STATUS", options: [{ type: "INFO", label: "x", name: "x" }, { type: "INFO", label: "y", name: "x" }] }] }), "option names must be unique"],
    ["duplicate property names", () => ({ propertyDefinitions: [{ name: "a", label: "L", dataType: "STRING" }, { name: "a", label: "M", dataType: "DATE" }] }), "propertyDefinitions: property names must be unique"],
    ["object types missing", () => ({ associatedHubSpotObjectTypes: undefined }), "associatedHubSpotObjectTypes"],
    ["object types empty", () => ({ associatedHubSpotObjectTypes: [] }), "associatedHubSpotObjectTypes"],
    ["object type unknown", () => ({ associatedHubSpotObjectTypes: ["LEAD"] }), "associatedHubSpotObjectTypes.0"],
    ["object types duplicated", () => ({ associatedHubSpotObjectTypes: ["CONTACT", "CONTACT"] }), "associatedHubSpotObjectTypes: object types must be unique"],
    ["requested properties for an unknown type", () => ({ associatedHubSpotObjectTypeProperties: { LEAD: ["x"] } }), "associatedHubSpotObjectTypeProperties"],
    ["requested properties for a type the card is not on", () => ({ associatedHubSpotObjectTypeProperties: { COMPANY: ["name"] } }), "associatedHubSpotObjectTypeProperties.COMPANY: the card is not shown on COMPANY records"],
    ["requested property name invalid", () => ({ associatedHubSpotObjectTypeProperties: { CONTACT: ["first name"] } }), "associatedHubSpotObjectTypeProperties.CONTACT.0"],
    ["requested property duplicated", () => ({ associatedHubSpotObjectTypeProperties: { CONTACT: ["email", "email"] } }), "property names must be unique"],
  ];

  it.each(cases)("POST: %s", async (_name, change, expected) => {
    const t = await tenant();
    const res = await call("POST", TYPES, { token: t.developerKey, body: { ...cardBody(t).body, ...change(t) } });
    const err = expectError(res, 400, "VALIDATION_ERROR");
    expect(err.message).toContain(expected);
  });

  it("POST: a body that is not JSON, or none", async () => {
    const t = await tenant();
    expect(expectError(await call("POST", TYPES, { token: t.developerKey, raw: "{nope" }), 400, "VALIDATION_ERROR").message).toBe("Request body is not valid JSON");
    expectError(await call("POST", TYPES, { token: t.developerKey }), 400, "VALIDATION_ERROR");
  });

  it.each([
    ["title empty", { title: "" }, "title"],
    ["http baseUri", { baseUris: ["http://example.com/x"] }, "baseUris.0: only https URLs are allowed"],
    ["private dataFetchUri", { dataFetchUri: "https://192.168.1.1/x" }, "dataFetchUri"],
    ["dropping a type its requested properties still name", { associatedHubSpotObjectTypes: ["COMPANY"] }, "associatedHubSpotObjectTypeProperties.CONTACT"],
    ["unknown dataType", { propertyDefinitions: [{ name: "a", label: "A", dataType: "MONEY" }] }, "propertyDefinitions.0.dataType"],
  ])("PUT: %s", async (_name, change, expected) => {
    const t = await tenant();
    const card = await defineCard(t, { associatedHubSpotObjectTypeProperties: { CONTACT: ["email"] } });
    const res = await call("PUT", `${TYPES}/${card.id}`, { token: t.developerKey, body: change });
    expect(expectError(res, 400, "VALIDATION_ERROR").message).toContain(expected);
    expect((await call("GET", `${TYPES}/${card.id}`, { token: t.developerKey })).json.title).toBe("Tickets");
  });

  it("list without applicationId, and a non-numeric record type id", async () => {
    const t = await tenant();
    expect(expectError(await call("GET", TYPES, { token: t.developerKey }), 400, "VALIDATION_ERROR").message).toContain("applicationId");
    expect(expectError(await call("GET", `${TYPES}/abc`, { token: t.developerKey }), 400, "VALIDATION_ERROR").message).toContain("objectTypeId");
  });

  it("loopback URIs are refused when ALLOW_LOOPBACK_OUTBOUND is not true", async () => {
    const t = await tenant();
    const res = await callWithEnv({ ALLOW_LOOPBACK_OUTBOUND: "false" }, "POST", TYPES, { token: t.developerKey, body: cardBody(t).body });
    expect(res.status).toBe(400);
    expect(res.json.message).toContain("loopback addresses are not allowed");
    expect(integratorUrl()).toMatch(/^http:\/\/127\.0\.0\.1:/);
  });
});

describe("record types: credentials and isolation", () => {
  it("needs the developer key: none is 401, account tokens are 403", async () => {
    const t = await tenant();
    const { body } = cardBody(t);
    expectError(await call("POST", TYPES, { body }), 401, "INVALID_AUTHENTICATION");
    expectError(await call("POST", TYPES, { token: "not-a-key", body }), 401, "INVALID_AUTHENTICATION");
    expectError(await call("POST", TYPES, { token: t.oauth, body }), 403, "FORBIDDEN");
    expectError(await call("POST", TYPES, { token: t.pat, body }), 403, "FORBIDDEN");
    expectError(await call("GET", `${TYPES}?applicationId=${t.appId}`, { token: t.oauth }), 403, "FORBIDDEN");
  });

  it("another app's developer key gets 404 and never the data", async () => {
    const a = await tenant();
    const b = await tenant();
    const card = await defineCard(a);
    for (const [method, path, body] of [
      ["GET", `${TYPES}/${card.id}`, undefined],
      ["PUT", `${TYPES}/${card.id}`, { title: "stolen" }],
      ["DELETE", `${TYPES}/${card.id}`, undefined],
      ["GET", `${TYPES}?applicationId=${a.appId}`, undefined],
      ["POST", TYPES, cardBody(a).body],
      ["GET", `${TYPES}/${card.id}?applicationId=${a.appId}`, undefined],
    ] as const) {
      const res = await call(method, path, { token: b.developerKey, body });
      const err = expectError(res, 404, "OBJECT_NOT_FOUND");
      expect(JSON.stringify(err)).not.toContain(card.body.dataFetchUri);
    }
    // B's own list does not contain A's card; A's card is untouched.
    expect((await call("GET", `${TYPES}?applicationId=${b.appId}`, { token: b.developerKey })).json.results).toEqual([]);
    expect((await call("GET", `${TYPES}/${card.id}`, { token: a.developerKey })).json.title).toBe("Tickets");
    // A's key naming B's app in the body is refused too.
    expectError(await call("PUT", `${TYPES}/${card.id}`, { token: a.developerKey, body: { applicationId: b.appId } }), 404, "OBJECT_NOT_FOUND");
  });
});

describe("record types: limits and scopes", () => {
  it("allows 25 record types per app and refuses the 26th", async () => {
    const t = await tenant();
    await seed(t.appId, 24);
    await defineCard(t, { title: "the 25th" });
    const err = expectError(await call("POST", TYPES, { token: t.developerKey, body: cardBody(t).body }), 400, "API_LIMIT");
    expect(err.message).toContain("at most 25");
    expect((await call("GET", `${TYPES}?applicationId=${t.appId}`, { token: t.developerKey })).json.results).toHaveLength(25);
    // Another app is not affected by this app's count.
    await defineCard(await tenant());
  });

  it("concurrent creates at the limit never exceed 25 (the limit is checked inside the insert)", async () => {
    const t = await tenant();
    await seed(t.appId, 24);
    const results = await Promise.all(Array.from({ length: 4 }, () => call("POST", TYPES, { token: t.developerKey, body: cardBody(t).body })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400]);
    expect((await call("GET", `${TYPES}?applicationId=${t.appId}`, { token: t.developerKey })).json.results).toHaveLength(25);
  });

  it("contact, company and deal cards need the contacts scope; ticket cards need tickets", async () => {
    const ticketsOnly = await appWithScopes(["oauth", "tickets"]);
    const body = (types: string[], appId: number) => ({
      applicationId: appId,
      baseUris: ["https://example.com/actions"],
      dataFetchUri: "https://example.com/fetch",
      title: "T",
      associatedHubSpotObjectTypes: types,
    });
    for (const type of ["CONTACT", "COMPANY", "DEAL"]) {
      const res = await call("POST", TYPES, { token: ticketsOnly.developerKey, body: body([type], ticketsOnly.appId) });
      const err = expectError(res, 400, "VALIDATION_ERROR");
      expect(err.message).toContain("contacts");
      expect(err.errors[0]).toMatchObject({ code: "MISSING_SCOPES", context: { requiredScopes: ["contacts"] } });
    }
    expect((await call("POST", TYPES, { token: ticketsOnly.developerKey, body: body(["TICKET"], ticketsOnly.appId) })).status).toBe(200);

    // The granular contacts family counts as the contacts scope.
    const contactsRead = await appWithScopes(["oauth", "crm.objects.contacts.read"]);
    const ok = await call("POST", TYPES, { token: contactsRead.developerKey, body: body(["CONTACT", "COMPANY", "DEAL"], contactsRead.appId) });
    expect(ok.status, ok.text).toBe(200);
    const noTickets = await call("POST", TYPES, { token: contactsRead.developerKey, body: body(["CONTACT", "TICKET"], contactsRead.appId) });
    expect(expectError(noTickets, 400, "VALIDATION_ERROR").message).toContain("tickets");
    // Nor can an update add a type the app lacks the scope for.
    const upd = await call("PUT", `${TYPES}/${ok.json.id}`, { token: contactsRead.developerKey, body: { associatedHubSpotObjectTypes: ["TICKET"] } });
    expect(expectError(upd, 400, "VALIDATION_ERROR").message).toContain("tickets");
  });
});
