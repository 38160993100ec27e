import { describe, expect, it } from "vitest";
import { call, expectError, tenant } from "../helpers/api";
import { integratorUrl } from "../helpers/integrator";
import { BRIDGE, fullMappings, settingsBody } from "./helpers";

const SETTINGS = `${BRIDGE}/settings`;

describe("PUT/GET/DELETE /settings", () => {
  it("app-level: the developer key (Bearer or hapikey) with ?appId= stores, reads and deletes the app's settings", async () => {
    const t = await tenant();
    const put = await call("PUT", `${SETTINGS}?appId=${t.appId}&showProvidedMappings=false`, { token: t.developerKey, body: settingsBody() });
    expect(put.status, put.text).toBe(200);
    expect(put.json).toEqual({ enabled: true, webhookUri: null, mappings: fullMappings() });
    const get = await call("GET", `${SETTINGS}?appId=${t.appId}&hapikey=${t.developerKey}`);
    expect(get.status).toBe(200);
    expect(get.json).toEqual(put.json);
    expect((await call("DELETE", `${SETTINGS}?appId=${t.appId}`, { token: t.developerKey })).status).toBe(204);
    expectError(await call("GET", `${SETTINGS}?appId=${t.appId}`, { token: t.developerKey }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("DELETE", `${SETTINGS}?appId=${t.appId}`, { token: t.developerKey }), 404, "OBJECT_NOT_FOUND");
  });

  it("account-level: the account's private-app or OAuth token acts on the account's settings", async () => {
    const t = await tenant();
    const put = await call("PUT", SETTINGS, { token: t.pat, body: settingsBody({ enabled: false }) });
    expect(put.status, put.text).toBe(200);
    const viaOauth = await call("GET", SETTINGS, { token: t.oauth });
    expect(viaOauth.json).toEqual(put.json);
    // The account's settings are not the app's.
    expectError(await call("GET", `${SETTINGS}?appId=${t.appId}`, { token: t.developerKey }), 404, "OBJECT_NOT_FOUND");
  });

  it("an OAuth token may read its own app's settings but not change them", async () => {
    const t = await tenant();
    await call("PUT", `${SETTINGS}?appId=${t.appId}`, { token: t.developerKey, body: settingsBody() });
    expect((await call("GET", `${SETTINGS}?appId=${t.appId}`, { token: t.oauth })).status).toBe(200);
    expectError(await call("PUT", `${SETTINGS}?appId=${t.appId}`, { token: t.oauth, body: settingsBody() }), 403, "FORBIDDEN");
    expectError(await call("DELETE", `${SETTINGS}?appId=${t.appId}`, { token: t.oauth }), 403, "FORBIDDEN");
  });

  it("a PUT replaces every mapping: object types left out lose theirs", async () => {
    const t = await tenant();
    await call("PUT", SETTINGS, { token: t.pat, body: settingsBody() });
    const put = await call("PUT", SETTINGS, { token: t.pat, body: { enabled: false, mappings: { PRODUCT: fullMappings().PRODUCT } } });
    expect(put.json).toEqual({ enabled: false, webhookUri: null, mappings: { PRODUCT: fullMappings().PRODUCT } });
    expect((await call("GET", SETTINGS, { token: t.pat })).json.mappings).toEqual({ PRODUCT: fullMappings().PRODUCT });
  });

  it("accepts the legacy hubspotPropertyName key and unknown fields, answers servicePropertyName, defaults dataType", async () => {
    const t = await tenant();
    const body = {
      enabled: false,
      importOnInstall: true, // the php client sends it
      webhookUri: null,
      mappings: { CONTACT: { properties: [{ externalPropertyName: "customer_email", hubspotPropertyName: "email" }] } },
    };
    const res = await call("PUT", SETTINGS, { token: t.pat, body });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({
      enabled: false,
      webhookUri: null,
      mappings: { CONTACT: { properties: [{ externalPropertyName: "customer_email", servicePropertyName: "email", dataType: "STRING" }] } },
    });
    expect(res.json).not.toHaveProperty("importOnInstall");
  });

  it("saving settings creates no CRM properties or records", async () => {
    const t = await tenant();
    await call("PUT", SETTINGS, { token: t.pat, body: settingsBody() });
    const list = await call("GET", "/crm/v3/objects/contacts", { token: t.pat });
    expect(list.json.results).toEqual([]);
  });

  it("stores a webhookUri that passes the outbound guard", async () => {
    const t = await tenant();
    for (const uri of ["https://shop.example.com/import", `${integratorUrl()}/import`]) {
      const res = await call("PUT", SETTINGS, { token: t.pat, body: settingsBody({ webhookUri: uri }) });
      expect(res.status, res.text).toBe(200);
      expect(res.json.webhookUri).toBe(uri);
    }
  });
});

describe("settings: bad input", () => {
  const m = fullMappings();
  const withProps = (type: keyof typeof m, properties: unknown[]) => settingsBody({ mappings: { ...m, [type]: { properties } } });
  it.each([
    ["enabled missing", { mappings: m }, "enabled"],
    ["enabled not a boolean", { enabled: "yes", mappings: m }, "enabled"],
    ["mappings missing", { enabled: false }, "mappings"],
    ["an unknown object type", settingsBody({ mappings: { ...m, COMPANY: { properties: [] } } }), "COMPANY"],
    ["properties not an array", settingsBody({ mappings: { ...m, PRODUCT: { properties: {} } } }), "mappings.PRODUCT.properties"],
    ["an unknown dataType", withProps("PRODUCT", [{ externalPropertyName: "x", servicePropertyName: "x", dataType: "BOOLEAN" }]), "mappings.PRODUCT.properties.0.dataType"],
    ["no servicePropertyName", withProps("PRODUCT", [{ externalPropertyName: "x" }]), "mappings.PRODUCT.properties.0.servicePropertyName"],
    ["an empty externalPropertyName", withProps("PRODUCT", [{ externalPropertyName: "", servicePropertyName: "x" }]), "mappings.PRODUCT.properties.0.externalPropertyName"],
    ["a servicePropertyName with spaces", withProps("PRODUCT", [{ externalPropertyName: "x", servicePropertyName: "a b" }]), "mappings.PRODUCT.properties.0.servicePropertyName"],
    [
      "an external property mapped twice",
      withProps("PRODUCT", [
        { externalPropertyName: "x", servicePropertyName: "a" },
        { externalPropertyName: "x", servicePropertyName: "b" },
      ]),
      "mappings.PRODUCT.properties.1.externalPropertyName",
    ],
    ["AVATAR_IMAGE outside PRODUCT", withProps("CONTACT", [...m.CONTACT.properties, { externalPropertyName: "pic", servicePropertyName: "pic", dataType: "AVATAR_IMAGE" }]), "AVATAR_IMAGE is allowed only on PRODUCT"],
    [
      "two AVATAR_IMAGE mappings",
      withProps("PRODUCT", [
        { externalPropertyName: "a", servicePropertyName: "a", dataType: "AVATAR_IMAGE" },
        { externalPropertyName: "b", servicePropertyName: "b", dataType: "AVATAR_IMAGE" },
      ]),
      "at most one PRODUCT mapping may be AVATAR_IMAGE",
    ],
    ["enabled without the CONTACT email mapping", withProps("CONTACT", []), "the required CONTACT properties email are not mapped"],
    ["enabled without the DEAL dealstage mapping", withProps("DEAL", [{ externalPropertyName: "n", servicePropertyName: "dealname" }]), "the required DEAL properties dealstage"],
    ["enabled without LINE_ITEM mappings", settingsBody({ mappings: { CONTACT: m.CONTACT, DEAL: m.DEAL } }), "the required LINE_ITEM properties hs_assoc__deal_id, hs_assoc__product_id"],
    ["a webhookUri that is not a URL", settingsBody({ webhookUri: "not a url" }), "webhookUri"],
    ["a plain-http webhookUri", settingsBody({ webhookUri: "http://shop.example.com/x" }), "webhookUri: only https"],
    ["a webhookUri on a private address", settingsBody({ webhookUri: "https://10.0.0.1/x" }), "webhookUri"],
    ["a webhookUri on the metadata address", settingsBody({ webhookUri: "https://169.254.169.254/latest" }), "webhookUri"],
    ["a webhookUri that is a number", settingsBody({ webhookUri: 5 }), "webhookUri"],
  ])("400 for %s", async (_, body, expected) => {
    const t = await tenant();
    const err = expectError(await call("PUT", SETTINGS, { token: t.pat, body }), 400, "VALIDATION_ERROR");
    expect(err.message + JSON.stringify(err.errors ?? [])).toContain(expected);
  });

  it("400 for a body that is not JSON, and for a non-numeric appId", async () => {
    const t = await tenant();
    expectError(await call("PUT", SETTINGS, { token: t.pat, raw: "{", headers: { "content-type": "application/json" } }), 400, "VALIDATION_ERROR");
    const err = expectError(await call("GET", `${SETTINGS}?appId=abc`, { token: t.developerKey }), 400, "VALIDATION_ERROR");
    expect(err.message).toContain("appId");
  });
});

describe("settings: authentication and isolation", () => {
  it("401 without a credential; 400 for a developer key without appId", async () => {
    expectError(await call("GET", SETTINGS), 401, "INVALID_AUTHENTICATION");
    const t = await tenant();
    const err = expectError(await call("GET", SETTINGS, { token: t.developerKey }), 400, "VALIDATION_ERROR");
    expect(err.message).toContain("appId");
  });

  it("403 for an account token without the integration-sync scope", async () => {
    const t = await tenant({ scopes: ["crm.objects.contacts.read"] });
    const err = expectError(await call("GET", SETTINGS, { token: t.pat }), 403, "MISSING_SCOPES");
    expect(JSON.stringify(err.errors)).toContain("integration-sync");
    expectError(await call("PUT", SETTINGS, { token: t.oauth, body: settingsBody() }), 403, "MISSING_SCOPES");
  });

  it("another app's developer key, or an account token naming another app, gets 404 and no data", async () => {
    const a = await tenant();
    const b = await tenant();
    await call("PUT", `${SETTINGS}?appId=${a.appId}`, { token: a.developerKey, body: settingsBody() });
    for (const token of [b.developerKey, b.oauth, b.pat, a.pat]) {
      const err = expectError(await call("GET", `${SETTINGS}?appId=${a.appId}`, { token }), 404, "OBJECT_NOT_FOUND");
      expect(JSON.stringify(err)).not.toContain("customer_email");
    }
    expectError(await call("PUT", `${SETTINGS}?appId=${a.appId}`, { token: b.developerKey, body: settingsBody({ enabled: false }) }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("DELETE", `${SETTINGS}?appId=${a.appId}`, { token: b.developerKey }), 404, "OBJECT_NOT_FOUND");
    expect((await call("GET", `${SETTINGS}?appId=${a.appId}`, { token: a.developerKey })).json.enabled).toBe(true);
  });

  it("account B never sees account A's settings", async () => {
    const a = await tenant();
    const b = await tenant();
    await call("PUT", SETTINGS, { token: a.pat, body: settingsBody() });
    expectError(await call("GET", SETTINGS, { token: b.pat }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("DELETE", SETTINGS, { token: b.oauth }), 404, "OBJECT_NOT_FOUND");
    expect((await call("GET", SETTINGS, { token: a.pat })).status).toBe(200);
  });
});

describe("sunset (the bridge was retired on 1 December 2022)", () => {
  it("every bridge response carries Deprecation and Sunset, errors included, and keeps working", async () => {
    const t = await tenant();
    const responses = [
      await call("PUT", SETTINGS, { token: t.pat, body: settingsBody() }), // 200
      await call("DELETE", SETTINGS, { token: t.pat }), // 204
      await call("PUT", SETTINGS, { token: t.pat, body: {} }), // 400
      await call("GET", SETTINGS), // 401
      await call("GET", SETTINGS, { token: t.pat }), // 404
      await call("GET", `${BRIDGE}/stores/nope`, { token: t.pat }), // 404
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 204, 400, 401, 404, 404]);
    for (const r of responses) {
      expect(r.headers.get("deprecation")).toBe("@1657756800");
      expect(r.headers.get("sunset")).toBe("Thu, 01 Dec 2022 00:00:00 GMT");
      expect(r.headers.get("x-service-correlation-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(responses[1]!.headers.get("content-type")).toBeNull();
    // Other APIs do not carry them.
    expect((await call("GET", "/crm/v3/objects/contacts", { token: t.pat })).headers.get("sunset")).toBeNull();
  });
});
