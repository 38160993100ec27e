/** Event types `/integrations/v1/{appId}/timeline/event-types` (spec 2.6, 4.3, 8; reference §4.1–4.2). */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, expectError, tenant } from "../helpers/api";
import { createProp, createRecord, createType, dev, expectStored, getEvent, typesPath } from "./helpers";
import { traffic } from "./traffic";

const docsExample = traffic<{ requestBody: Record<string, unknown> }>("hubspot-docs-examples/timeline_v1__post_event_type.json");

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

  it("accepts the documentation's request (applicationId as a string, templates) and ignores unknown fields", async () => {
    const t = await tenant();
    const body = { ...docsExample.requestBody, applicationId: String(t.appId), url: "https://x.example", somethingElse: 1 };
    const res = await dev(t, "POST", typesPath(t.appId), body);
    expect(res.status, res.text).toBe(200);
    expect(res.json.headerTemplate).toBe(docsExample.requestBody.headerTemplate);
    expect(res.json.detailTemplate).toBe(docsExample.requestBody.detailTemplate);
    expect(res.json).not.toHaveProperty("url");
    expect(res.json).not.toHaveProperty("somethingElse");
  });

  it.each([
    ["COMPANY", "COMPANY", false],
    ["DEAL", "DEAL", false],
    ["deal", "DEAL", false],
    ["CONTACT", "CONTACT", true],
  ])("objectType %s is stored as %s; usableInLists %s (spec 2.6)", async (given, stored, usable) => {
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

  it.each(["oauth", "pat"] as const)("refuses an account token (%s) with 403", async (kind) => {
    const t = await tenant();
    expectError(await call("POST", typesPath(t.appId), { token: t[kind], body: { name: "x" } }), 403, "FORBIDDEN");
    expectError(await call("GET", typesPath(t.appId), { token: t[kind] }), 403, "FORBIDDEN");
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

describe("limit: 750 event types per app (spec 8)", () => {
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
