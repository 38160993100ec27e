/** Event types `/integrations/v1/{appId}/timeline/event-types` (docs/reference/timeline.md). */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { admin, call, expectError, tenant } from "../helpers/api";
import { createProp, createRecord, createType, dev, expectStored, getEvent, typesPath } from "./helpers";

/** A request in the documentation's form: applicationId as a string, Handlebars templates (the traffic suite
 * sends the documentation's own example: test/traffic/timeline-docs-examples.test.ts). */
const docsStyle = {
  name: "Order placed",
  applicationId: "0",
  objectType: "CONTACT",
  headerTemplate: "# Order {{id}}\nPlaced for a {{objectType}}",
  detailTemplate: "Placed on {{#formatDate timestamp}}{{/formatDate}}",
};

describe("POST event-types", () => {
  it("answers 200 with the saved definition, templates null when unset", async () => {
    const t = await tenant();
    const res = await dev(t, "POST", typesPath(t.appId), { name: "My Event Type", applicationId: t.appId });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({
      id: expect.any(Number),
      name: "My Event Type",
      headerTemplate: null,
      detailTemplate: null,
      applicationId: t.appId,
      objectType: "CONTACT",
      usableInLists: true,
    });
  });

  it("accepts the documentation's form of request (applicationId as a string, templates) and ignores unknown fields", async () => {
    const t = await tenant();
    const body = { ...docsStyle, applicationId: String(t.appId), url: "https://x.example", somethingElse: 1 };
    const res = await dev(t, "POST", typesPath(t.appId), body);
    expect(res.status, res.text).toBe(200);
    expect(res.json.headerTemplate).toBe(docsStyle.headerTemplate);
    expect(res.json.detailTemplate).toBe(docsStyle.detailTemplate);
    expect(res.json).not.toHaveProperty("url");
    expect(res.json).not.toHaveProperty("somethingElse");
  });

  it.each([
    ["COMPANY", "COMPANY", false],
    ["DEAL", "DEAL", false],
    ["deal", "DEAL", false],
    ["CONTACT", "CONTACT", true],
  ])("objectType %s is stored as %s; usableInLists %s (only contact events can be used in lists)", async (given, stored, usable) => {
    const t = await tenant();
    const type = await createType(t, { objectType: given });
    expect(type).toMatchObject({ objectType: stored, usableInLists: usable });
  });

  it("allows duplicate names and takes the developer key as Bearer too", async () => {
    const t = await tenant();
    const a = await createType(t, { name: "Same" });
    const res = await call("POST", typesPath(t.appId), { token: t.developerKey, body: { name: "Same" } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.id).toBeGreaterThan(a.id);
  });

  it.each([
    ["missing name", {}, "name"],
    ["empty name", { name: "  " }, "name"],
    ["unknown objectType", { name: "x", objectType: "TICKET" }, "objectType"],
    ["template not a string", { name: "x", headerTemplate: 5 }, "headerTemplate"],
    ["template that does not parse", { name: "x", detailTemplate: "{{#if x}}open" }, "detailTemplate"],
    ["header referencing extraData", { name: "x", headerTemplate: "{{extraData.a}}" }, "headerTemplate"],
    ["header entering extraData", { name: "x", headerTemplate: "{{#with extraData}}{{a}}{{/with}}" }, "headerTemplate"],
    ["partial", { name: "x", detailTemplate: "{{> other}}" }, "detailTemplate"],
    ["foreign applicationId", { name: "x", applicationId: 999999 }, "applicationId"],
  ])("refuses %s with 400", async (_label, body, field) => {
    const t = await tenant();
    const err = expectError(await dev(t, "POST", typesPath(t.appId), body), 400, "VALIDATION_ERROR");
    expect(err.message).toContain(field);
    expect(err.errors[0].context.propertyName).toEqual([field]);
  });

  it("refuses a body that is not JSON or is empty", async () => {
    const t = await tenant();
    const path = `${typesPath(t.appId)}?hapikey=${t.developerKey}`;
    expectError(await call("POST", path, { raw: "{nope", headers: { "content-type": "application/json" } }), 400, "VALIDATION_ERROR");
    expectError(await call("POST", path, { raw: "" }), 400, "VALIDATION_ERROR");
  });

  it("lets extraData appear in the detail template", async () => {
    const t = await tenant();
    const type = await createType(t, { detailTemplate: "{{extraData.a}}" });
    expect(type).toMatchObject({ detailTemplate: "{{extraData.a}}" });
  });
});

describe("GET, PUT, DELETE event-types", () => {
  it("lists the app's types as a bare array, oldest first", async () => {
    const t = await tenant();
    const a = await createType(t, { name: "A" });
    const b = await createType(t, { name: "B", objectType: "COMPANY" });
    const res = await dev(t, "GET", typesPath(t.appId));
    expect(res.status).toBe(200);
    expect(Array.isArray(res.json)).toBe(true);
    expect(res.json.map((x: { id: number }) => x.id)).toEqual([a.id, b.id]);
    expect(res.json[1]).toMatchObject({ name: "B", objectType: "COMPANY", applicationId: t.appId, headerTemplate: null });
  });

  it("reads one type", async () => {
    const t = await tenant();
    const a = await createType(t, { name: "A", headerTemplate: "h" });
    const res = await dev(t, "GET", `${typesPath(t.appId)}/${a.id}`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual(a);
  });

  it("updates with PUT: fields left out are kept (node-hubspot sends only name), null clears", async () => {
    const t = await tenant();
    const a = await createType(t, { name: "A", headerTemplate: "h", detailTemplate: "d" });
    let res = await dev(t, "PUT", `${typesPath(t.appId)}/${a.id}`, { name: "Edited", applicationId: t.appId });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ id: a.id, name: "Edited", headerTemplate: "h", detailTemplate: "d" });
    res = await dev(t, "PUT", `${typesPath(t.appId)}/${a.id}`, { id: a.id, headerTemplate: null, detailTemplate: "new {{x}}" });
    expect(res.json).toMatchObject({ name: "Edited", headerTemplate: null, detailTemplate: "new {{x}}" });
    expect((await dev(t, "GET", `${typesPath(t.appId)}/${a.id}`)).json).toEqual(res.json);
  });

  it.each([
    ["objectType change", { objectType: "DEAL" }, "objectType"],
    ["header with extraData", { headerTemplate: "{{extraData}}" }, "headerTemplate"],
    ["broken template", { detailTemplate: "{{/each}}" }, "detailTemplate"],
    ["empty name", { name: "" }, "name"],
  ])("PUT refuses %s", async (_label, body, field) => {
    const t = await tenant();
    const a = await createType(t);
    const err = expectError(await dev(t, "PUT", `${typesPath(t.appId)}/${a.id}`, body), 400, "VALIDATION_ERROR");
    expect(err.errors[0].context.propertyName).toEqual([field]);
  });

  it("DELETE answers 204 with no body and removes the type, its properties and its events", async () => {
    const t = await tenant();
    const a = await createType(t);
    await createProp(t, a.id, { name: "p", label: "P", propertyType: "String" });
    const contact = await createRecord(t, "contacts", { email: `${a.id}@del.example` });
    await expectStored(t, { id: "e1", eventTypeId: a.id, objectId: contact, p: "v" });
    const res = await dev(t, "DELETE", `${typesPath(t.appId)}/${a.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(res.headers.get("content-type")).toBeNull();
    expectError(await dev(t, "GET", `${typesPath(t.appId)}/${a.id}`), 404, "OBJECT_NOT_FOUND");
    expectError(await getEvent(t, a.id, "e1"), 404, "OBJECT_NOT_FOUND");
    const left = await env.DB.prepare("select count(*) as n from timeline_event_properties where event_type_id = ?").bind(a.id).first<{ n: number }>();
    expect(left?.n).toBe(0);
  });

  it.each(["GET", "PUT", "DELETE"])("%s of an unknown id is a 404", async (method) => {
    const t = await tenant();
    expectError(await dev(t, method, `${typesPath(t.appId)}/99999999`, method === "PUT" ? { name: "x" } : undefined), 404, "OBJECT_NOT_FOUND");
  });

  it("refuses a non-numeric id with 400", async () => {
    const t = await tenant();
    expectError(await dev(t, "GET", `${typesPath(t.appId)}/abc`), 400, "VALIDATION_ERROR");
  });
});

describe("event-types credentials", () => {
  it("requires a credential", async () => {
    const t = await tenant();
    expectError(await call("GET", typesPath(t.appId)), 401, "INVALID_AUTHENTICATION");
  });

  it("refuses a private-app token with 403: a private app has no developer app behind it", async () => {
    const t = await tenant();
    const type = await createType(t);
    const err = expectError(await call("POST", typesPath(t.appId), { token: t.pat, body: { name: "x" } }), 403, "FORBIDDEN");
    expect(err.message).toContain("private app token");
    expectError(await call("GET", typesPath(t.appId), { token: t.pat }), 403, "FORBIDDEN");
    expectError(await call("PUT", `${typesPath(t.appId)}/${type.id}`, { token: t.pat, body: { name: "x" } }), 403, "FORBIDDEN");
    expectError(await call("GET", `${typesPath(t.appId)}/${type.id}/properties`, { token: t.pat }), 403, "FORBIDDEN");
    expect((await dev(t, "GET", `${typesPath(t.appId)}/${type.id}`)).json.name).toBe("Webinar");
  });

  it("another app's developer key sees nothing of this app (404)", async () => {
    const a = await tenant();
    const b = await tenant();
    const type = await createType(a);
    const asB = (method: string, path: string, body?: unknown) => call(method, `${path}?hapikey=${b.developerKey}`, { body });
    expectError(await asB("GET", typesPath(a.appId)), 404, "OBJECT_NOT_FOUND");
    expectError(await asB("POST", typesPath(a.appId), { name: "x" }), 404, "OBJECT_NOT_FOUND");
    expectError(await asB("GET", `${typesPath(a.appId)}/${type.id}`), 404, "OBJECT_NOT_FOUND");
    expectError(await asB("PUT", `${typesPath(a.appId)}/${type.id}`, { name: "stolen" }), 404, "OBJECT_NOT_FOUND");
    expectError(await asB("DELETE", `${typesPath(a.appId)}/${type.id}`), 404, "OBJECT_NOT_FOUND");
    // Under its own app's path, B cannot reach A's type id either.
    expectError(await asB("GET", `${typesPath(b.appId)}/${type.id}`), 404, "OBJECT_NOT_FOUND");
    expect((await dev(a, "GET", `${typesPath(a.appId)}/${type.id}`)).json.name).toBe("Webinar");
  });

  it("an invalid developer key is a 401", async () => {
    const t = await tenant();
    expectError(await call("GET", `${typesPath(t.appId)}?hapikey=not-a-key`), 401, "INVALID_AUTHENTICATION");
  });
});

describe("event types and properties with an OAuth access token of the app", () => {
  const oauth = (token: string, method: string, path: string, body?: unknown) => call(method, path, { token, body });

  it("the app's own token creates, lists, reads, updates and deletes types and properties; the developer key sees the same", async () => {
    const t = await tenant();
    const base = typesPath(t.appId);
    let res = await oauth(t.oauth, "POST", base, { name: "Via OAuth", applicationId: t.appId, headerTemplate: "{{title}}" });
    expect(res.status, res.text).toBe(200);
    const type = res.json as { id: number };
    expect(type).toMatchObject({ name: "Via OAuth", applicationId: t.appId, headerTemplate: "{{title}}", objectType: "CONTACT" });
    const byKey = await createType(t, { name: "Via key" });

    res = await oauth(t.oauth, "GET", base);
    expect(res.status, res.text).toBe(200);
    expect(res.json.map((x: { id: number }) => x.id)).toEqual([type.id, byKey.id]);
    expect((await dev(t, "GET", base)).json).toEqual(res.json);
    expect((await oauth(t.oauth, "GET", `${base}/${type.id}`)).json).toEqual(type);

    res = await oauth(t.oauth, "PUT", `${base}/${type.id}`, { name: "Renamed", detailTemplate: "d" });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ id: type.id, name: "Renamed", headerTemplate: "{{title}}", detailTemplate: "d" });
    expect((await dev(t, "GET", `${base}/${type.id}`)).json).toEqual(res.json);

    const props = `${base}/${type.id}/properties`;
    res = await oauth(t.oauth, "POST", props, { name: "title", label: "Title", propertyType: "String" });
    expect(res.status, res.text).toBe(200);
    const prop = res.json as { id: number };
    expect(prop).toMatchObject({ name: "title", label: "Title", eventTypeId: type.id });
    res = await oauth(t.oauth, "PUT", props, { id: prop.id, label: "Renamed title" });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ id: prop.id, name: "title", label: "Renamed title" });
    res = await oauth(t.oauth, "GET", props);
    expect(res.status).toBe(200);
    expect(res.json).toEqual([expect.objectContaining({ id: prop.id, label: "Renamed title" })]);
    expect((await dev(t, "GET", props)).json).toEqual(res.json);

    // The type set up with the token is usable for events, as one set up with the developer key.
    const contact = await createRecord(t, "contacts", { email: `${type.id}@oauth-setup.example` });
    await expectStored(t, { id: "e1", eventTypeId: type.id, objectId: contact, title: "hello" });

    res = await oauth(t.oauth, "DELETE", `${props}/${prop.id}`);
    expect(res.status, res.text).toBe(204);
    expect((await dev(t, "GET", props)).json).toEqual([]);
    res = await oauth(t.oauth, "DELETE", `${base}/${type.id}`);
    expect(res.status, res.text).toBe(204);
    expectError(await dev(t, "GET", `${base}/${type.id}`), 404, "OBJECT_NOT_FOUND");
    // The developer key still manages what the token did not touch.
    expect((await dev(t, "DELETE", `${base}/${byKey.id}`)).status).toBe(204);
  });

  it("a token of the same app installed in another account manages the same app's types (they are the app's, not an account's)", async () => {
    const t = await tenant();
    const other = await tenant();
    const second = (await admin("POST", `/admin/v1/accounts/${other.portalId}/installs`, { appId: t.appId })).access_token as string;
    const type = await createType(t, { name: "Shared" });
    const res = await oauth(second, "GET", typesPath(t.appId));
    expect(res.status, res.text).toBe(200);
    expect(res.json.map((x: { id: number }) => x.id)).toEqual([type.id]);
  });

  it("another app's token sees nothing of this app (404, as another app's developer key) and changes nothing", async () => {
    const a = await tenant();
    const b = await tenant();
    const type = await createType(a);
    const prop = await createProp(a, type.id, { name: "p", label: "P", propertyType: "String" });
    const asB = (method: string, path: string, body?: unknown) => oauth(b.oauth, method, path, body);
    const base = typesPath(a.appId);
    expectError(await asB("GET", base), 404, "OBJECT_NOT_FOUND");
    expectError(await asB("POST", base, { name: "x" }), 404, "OBJECT_NOT_FOUND");
    expectError(await asB("GET", `${base}/${type.id}`), 404, "OBJECT_NOT_FOUND");
    expectError(await asB("PUT", `${base}/${type.id}`, { name: "stolen" }), 404, "OBJECT_NOT_FOUND");
    expectError(await asB("DELETE", `${base}/${type.id}`), 404, "OBJECT_NOT_FOUND");
    expectError(await asB("POST", `${base}/${type.id}/properties`, { name: "q", label: "Q", propertyType: "String" }), 404, "OBJECT_NOT_FOUND");
    expectError(await asB("GET", `${base}/${type.id}/properties`), 404, "OBJECT_NOT_FOUND");
    expectError(await asB("PUT", `${base}/${type.id}/properties`, { id: prop.id, label: "stolen" }), 404, "OBJECT_NOT_FOUND");
    expectError(await asB("DELETE", `${base}/${type.id}/properties/${prop.id}`), 404, "OBJECT_NOT_FOUND");
    // Under its own app's path, B's token cannot reach A's type or property either.
    const own = typesPath(b.appId);
    expectError(await asB("GET", `${own}/${type.id}`), 404, "OBJECT_NOT_FOUND");
    expectError(await asB("PUT", `${own}/${type.id}/properties`, { id: prop.id, label: "stolen" }), 404, "OBJECT_NOT_FOUND");
    expectError(await asB("DELETE", `${own}/${type.id}/properties/${prop.id}`), 404, "OBJECT_NOT_FOUND");
    expect((await dev(a, "GET", `${base}/${type.id}`)).json.name).toBe("Webinar");
    expect((await dev(a, "GET", `${base}/${type.id}/properties`)).json).toEqual([prop]);
  });

  it("needs the timeline scope; a body applicationId must still be the path's app", async () => {
    const t = await tenant({ scopes: ["oauth", "integration-sync", "crm.objects.contacts.read"] });
    const err = expectError(await oauth(t.oauth, "POST", typesPath(t.appId), { name: "x" }), 403, "MISSING_SCOPES");
    expect(err.errors[0].context.requiredScopes).toEqual(["timeline"]);
    expectError(await oauth(t.oauth, "GET", typesPath(t.appId)), 403, "MISSING_SCOPES");
    const full = await tenant();
    expectError(await oauth(full.oauth, "POST", typesPath(full.appId), { name: "x", applicationId: full.appId + 1 }), 400, "VALIDATION_ERROR");
  });

  it("an OAuth token sent as ?hapikey is still refused (401): only the developer key travels in the query", async () => {
    const t = await tenant();
    expectError(await call("GET", `${typesPath(t.appId)}?hapikey=${t.oauth}`), 401, "INVALID_AUTHENTICATION");
  });
});

describe("limit: 750 event types per app", () => {
  it("refuses the 751st with an API_LIMIT error, and other apps are unaffected", async () => {
    const t = await tenant();
    const other = await tenant();
    // Seed 749 rows directly so the API creates the 750th.
    await env.DB.prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < 749)
       insert into timeline_event_types (app_id, name, object_type, created_at, updated_at)
       select ?, 'seed ' || i, 'CONTACT', 0, 0 from n`,
    )
      .bind(t.appId)
      .run();
    await createType(t, { name: "750th" });
    const err = expectError(await dev(t, "POST", typesPath(t.appId), { name: "751st" }), 400, "API_LIMIT");
    expect(err.message).toContain("750");
    expect((await dev(t, "GET", typesPath(t.appId))).json).toHaveLength(750);
    await createType(other, { name: "fine" });
  });
});
