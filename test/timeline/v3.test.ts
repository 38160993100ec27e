/** Timeline v3: templates, tokens and events over the v1 store, both faces of the same rows. */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant, type Tenant } from "../helpers/api";
import { accountD1 } from "../helpers/shards";
import { createProp, createRecord, createType, dev, expectStored, getEvent, readRecord, timeline, typesPath } from "./helpers";

const tpl = (appId: number) => `/integrators/timeline/v3/${appId}/event-templates`;
const EVENTS = "/integrators/timeline/v3/events";

const TOKENS = [
  { name: "title", label: "Title", type: "string" },
  { name: "seats", label: "Seats", type: "number", objectPropertyName: "webinar_seats" },
  { name: "startsAt", label: "Starts", type: "date" },
  { name: "size", label: "Size", type: "enumeration", options: [{ label: "Large", value: "large" }, { label: "Small", value: "small" }] },
];

async function createTemplate(t: Tenant, body: Record<string, unknown> = {}) {
  const res = await dev(t, "POST", tpl(t.appId), { name: "Webinar", objectType: "contacts", headerTemplate: "Joined {{title}}", detailTemplate: "**{{seats}}** seats", tokens: TOKENS, ...body });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

const postEvent = (t: Tenant, body: Record<string, unknown>, token = t.oauth) => call("POST", EVENTS, { token, body });

const countEvents = async (portalId: number) =>
  (await (await accountD1(portalId)).prepare("select count(*) as n from timeline_events where portal_id = ?").bind(portalId).first<{ n: number }>())?.n;

describe("timeline v3 templates and tokens", () => {
  it("creates (201), reads, lists, updates and deletes (204) a template: a v1 event type with the same id", async () => {
    const t = await tenant();
    const created = await createTemplate(t);
    expect(created).toMatchObject({ name: "Webinar", objectType: "contacts", headerTemplate: "Joined {{title}}", tokens: TOKENS });
    expect(created.id).toMatch(/^\d+$/);
    expect(new Date(created.createdAt).toISOString()).toBe(created.createdAt);

    const v1 = await dev(t, "GET", `${typesPath(t.appId)}/${created.id}`);
    expect(v1.json).toMatchObject({ id: Number(created.id), name: "Webinar", objectType: "CONTACT", headerTemplate: "Joined {{title}}" });
    const v1Props = (await dev(t, "GET", `${typesPath(t.appId)}/${created.id}/properties`)).json as Record<string, unknown>[];
    expect(v1Props.map((p) => [p.name, p.propertyType, p.objectProperty])).toEqual([
      ["title", "String", null],
      ["seats", "Numeric", "webinar_seats"],
      ["startsAt", "Date", null],
      ["size", "Enumeration", null],
    ]);

    expect((await dev(t, "GET", `${tpl(t.appId)}/${created.id}`)).json).toEqual(created);
    expect((await dev(t, "GET", tpl(t.appId))).json).toEqual({ results: [created] });

    const put = await dev(t, "PUT", `${tpl(t.appId)}/${created.id}`, { id: created.id, name: "Webinar 2", headerTemplate: "{{title}}", tokens: [TOKENS[0], { name: "room", label: "Room", type: "string" }] });
    expect(put.status, put.text).toBe(200);
    expect(put.json.tokens.map((x: { name: string }) => x.name)).toEqual(["title", "room"]);
    expect(put.json.detailTemplate).toBe("**{{seats}}** seats");
    expect((await dev(t, "GET", `${typesPath(t.appId)}/${created.id}/properties`)).json.map((p: { name: string }) => p.name)).toEqual(["title", "room"]);

    const del = await dev(t, "DELETE", `${tpl(t.appId)}/${created.id}`);
    expect(del.status).toBe(204);
    expectError(await dev(t, "GET", `${typesPath(t.appId)}/${created.id}`), 404, "OBJECT_NOT_FOUND");
  });

  it("shows a v1 event type and its properties as a template with tokens", async () => {
    const t = await tenant();
    const type = await createType(t, { objectType: "COMPANY", headerTemplate: "{{n}}" });
    await createProp(t, type.id, { name: "n", label: "N", propertyType: "Numeric", objectProperty: "stamped" });
    const res = await dev(t, "GET", `${tpl(t.appId)}/${type.id}`);
    expect(res.json).toMatchObject({ id: String(type.id), objectType: "companies", tokens: [{ name: "n", label: "N", type: "number", objectPropertyName: "stamped" }] });
  });

  it("adds (200), updates (200) and deletes (204) tokens by name", async () => {
    const t = await tenant();
    const created = await createTemplate(t, { tokens: [] });
    const base = `${tpl(t.appId)}/${created.id}/tokens`;
    const added = await dev(t, "POST", base, { name: "plan", label: "Plan", type: "enumeration", options: [{ label: "Pro", value: "pro" }] });
    expect(added.status, added.text).toBe(200);
    expect(added.json).toMatchObject({ name: "plan", type: "enumeration", options: [{ label: "Pro", value: "pro" }] });
    expectError(await dev(t, "POST", base, { name: "plan", label: "Again", type: "string" }), 409, "CONFLICT");
    const updated = await dev(t, "PUT", `${base}/plan`, { label: "Plan name", options: [{ label: "Team", value: "team" }] });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json).toMatchObject({ name: "plan", label: "Plan name", options: [{ label: "Team", value: "team" }] });
    expect((await dev(t, "DELETE", `${base}/plan`)).status).toBe(204);
    expectError(await dev(t, "DELETE", `${base}/plan`), 404, "OBJECT_NOT_FOUND");
  });

  it.each([
    ["POST", "", { name: "x", objectType: "tickets" }, "objectType must be one of contacts, companies, deals"],
    ["POST", "", { objectType: "contacts" }, "name"],
    ["POST", "", { name: "x", objectType: "contacts", headerTemplate: "{{#if}}" }, "headerTemplate"],
    ["POST", "", { name: "x", objectType: "contacts", tokens: [{ name: "a.b", label: "A", type: "string" }] }, "tokens.0.name"],
    ["POST", "", { name: "x", objectType: "contacts", tokens: [{ name: "log", label: "A", type: "string" }] }, "reserved"],
    ["POST", "", { name: "x", objectType: "contacts", tokens: [{ name: "a", label: "A", type: "bool" }] }, "type must be one of string, number, date, enumeration"],
    ["POST", "", { name: "x", objectType: "contacts", tokens: [{ name: "a", label: "A", type: "enumeration" }] }, "options are required"],
    ["POST", "", { name: "x", objectType: "contacts", tokens: [{ name: "a", label: "A", type: "string" }, { name: "a", label: "B", type: "string" }] }, "token names must be unique"],
    ["POST", "", { name: "x", objectType: "contacts", tokens: Array.from({ length: 501 }, (_, i) => ({ name: `t${i}`, label: "T", type: "string" })) }, "at most 500 tokens"],
    ["POST", "", { name: "x", objectType: "contacts", tokens: [{ name: "a", label: "A", type: "string", objectPropertyName: "email" }] }, "objectProperty cannot be"],
    ["PUT", "/ID", { name: "x" }, "tokens"],
  ])("%s template%s with bad input answers 400 naming the field (%#)", async (method, suffix, body, text) => {
    const t = await tenant();
    const existing = await createTemplate(t, { tokens: [] });
    const res = await dev(t, method, `${tpl(t.appId)}${suffix.replace("ID", existing.id)}`, body);
    const err = expectError(res, 400, "VALIDATION_ERROR");
    expect(err.message).toContain(text);
    // Nothing half-written: still the one template, with no tokens.
    expect((await dev(t, "GET", tpl(t.appId))).json.results).toEqual([existing]);
  });

  it("takes only the app's own developer key: another app's key gets 404, an OAuth token 403", async () => {
    const a = await tenant();
    const b = await tenant();
    const created = await createTemplate(a);
    const path = `${tpl(a.appId)}/${created.id}`;
    for (const [method, p, body] of [
      ["GET", path],
      ["PUT", path, { name: "x", tokens: [] }],
      ["DELETE", path],
      ["POST", `${path}/tokens`, { name: "z", label: "Z", type: "string" }],
      ["DELETE", `${path}/tokens/title`],
    ] as [string, string, unknown?][]) {
      expectError(await call(method, `${p}?hapikey=${b.developerKey}`, { body }), 404, "OBJECT_NOT_FOUND");
      expectError(await call(method, p, { token: a.oauth, body }), 403, "FORBIDDEN");
    }
    expect((await dev(a, "GET", path)).json).toEqual(created);
  });
});

describe("timeline v3 events", () => {
  it("creates an event (201) that is the v1 event: on the record's timeline, stamped, readable by v1", async () => {
    const t = await tenant();
    const template = await createTemplate(t);
    const contact = await createRecord(t, "contacts", { email: `${t.portalId}@v3.example` });
    const iframe = { linkLabel: "View", headerLabel: "Details", url: "https://example.com/x", width: 600, height: 400 };
    const res = await postEvent(t, {
      eventTemplateId: template.id,
      id: "v3-1",
      objectId: String(contact),
      timestamp: "2024-05-01T10:00:00.000Z",
      tokens: { title: "Intro", seats: "3", startsAt: "2024-06-01T00:00:00.000Z", size: "large" },
      extraData: { a: 1 },
      timelineIFrame: iframe,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toEqual({
      id: "v3-1",
      eventTemplateId: template.id,
      objectType: "contacts",
      objectId: String(contact),
      timestamp: "2024-05-01T10:00:00.000Z",
      tokens: { title: "Intro", seats: "3", startsAt: String(Date.parse("2024-06-01T00:00:00.000Z")), size: "large" },
      extraData: { a: 1 },
      timelineIFrame: iframe,
      createdAt: expect.any(String),
    });

    const v1 = await getEvent(t, Number(template.id), "v3-1");
    expect(v1.json).toMatchObject({ id: "v3-1", eventTypeId: Number(template.id), objectId: contact, timestamp: Date.parse("2024-05-01T10:00:00.000Z"), title: "Intro", seats: "3" });
    expect(v1.json.timelineIFrame).toEqual({ linkLabel: "View", iframeLabel: "Details", iframeUri: "https://example.com/x", width: 600, height: 400 });
    expect((await readRecord(t, "contacts", contact, ["webinar_seats"])).webinar_seats).toBe("3");
    const feed = await timeline(t, "contacts", contact);
    expect(feed.json.results[0]).toMatchObject({ id: "v3-1", headerHtml: "<p>Joined Intro</p>" });

    const read = await call("GET", `${EVENTS}/${template.id}/v3-1`, { token: t.oauth });
    expect(read.json).toEqual(res.json);
    const detail = await call("GET", `${EVENTS}/${template.id}/v3-1/detail`, { token: t.oauth });
    expect(detail.json).toEqual({ details: "<p><strong>3</strong> seats</p>" });
    const header = await call("GET", `${EVENTS}/${template.id}/v3-1/render`, { token: t.oauth });
    expect(header.status).toBe(200);
    expect(header.headers.get("content-type")).toBe("text/html;charset=utf-8");
    expect(header.text).toBe("<p>Joined Intro</p>");
    expect((await call("GET", `${EVENTS}/${template.id}/v3-1/render?detail=true`, { token: t.oauth })).text).toBe("<p><strong>3</strong> seats</p>");
  });

  it("reads a v1 event the v3 way", async () => {
    const t = await tenant();
    const template = await createTemplate(t);
    await expectStored(t, { id: "v1-1", eventTypeId: Number(template.id), email: "Ann@V1.example", title: "From v1", timestamp: 1_700_000_000_000 });
    const res = await call("GET", `${EVENTS}/${template.id}/v1-1`, { token: t.oauth });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ id: "v1-1", email: "Ann@V1.example", objectType: "contacts", timestamp: new Date(1_700_000_000_000).toISOString(), tokens: { title: "From v1" } });
    expect(res.json.objectId).toMatch(/^\d+$/);
  });

  it("keeps events immutable: a repeated id is a 409 and the stored event stays as it was", async () => {
    const t = await tenant();
    const template = await createTemplate(t);
    const first = await postEvent(t, { eventTemplateId: template.id, id: "once", email: "a@imm.example", tokens: { title: "First" } });
    expect(first.status, first.text).toBe(201);
    const again = await postEvent(t, { eventTemplateId: template.id, id: "once", email: "a@imm.example", tokens: { title: "Second" } });
    expectError(again, 409, "CONFLICT");
    expect((await call("GET", `${EVENTS}/${template.id}/once`, { token: t.oauth })).json.tokens).toEqual({ title: "First" });
  });

  it("creates an event without an id under a generated one, and finds the contact by email", async () => {
    const t = await tenant();
    const template = await createTemplate(t);
    const res = await postEvent(t, { eventTemplateId: template.id, email: "new@gen.example", tokens: { title: "x" } });
    expect(res.status, res.text).toBe(201);
    expect(res.json.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.json.objectId).toMatch(/^\d+$/);
  });

  it("batch-creates: 201 when all are written, 207 with errors and numErrors for the refused ones", async () => {
    const t = await tenant();
    const template = await createTemplate(t);
    const ok = await call("POST", `${EVENTS}/batch/create`, {
      token: t.oauth,
      body: { inputs: [1, 2].map((i) => ({ eventTemplateId: template.id, id: `b-${i}`, email: `b${i}@batch.example`, tokens: { title: `T${i}` } })) },
    });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.json).toMatchObject({ status: "COMPLETE", startedAt: expect.any(String), completedAt: expect.any(String) });
    expect(ok.json.results.map((r: { id: string }) => r.id).sort()).toEqual(["b-1", "b-2"]);
    expect(ok.json.errors).toBeUndefined();

    const partial = await call("POST", `${EVENTS}/batch/create`, {
      token: t.oauth,
      body: {
        inputs: [
          { eventTemplateId: template.id, id: "b-3", email: "b3@batch.example", tokens: { title: "T3" } },
          { eventTemplateId: template.id, id: "b-1", email: "b1@batch.example", tokens: { title: "again" } },
          { eventTemplateId: template.id, id: "b-4", email: "b4@batch.example", tokens: { seats: "many" } },
          { eventTemplateId: "999999999", id: "b-5", email: "b5@batch.example", tokens: {} },
        ],
      },
    });
    expect(partial.status, partial.text).toBe(207);
    expect(partial.json.numErrors).toBe(3);
    expect(partial.json.results.map((r: { id: string }) => r.id)).toEqual(["b-3"]);
    expect(partial.json.errors.map((e: { category: string; message: string }) => [e.category, e.message.split(":")[0]])).toEqual([
      ["CONFLICT", "inputs.1"],
      ["VALIDATION_ERROR", "inputs.2"],
      ["OBJECT_NOT_FOUND", "inputs.3"],
    ]);
    expect(partial.json.errors[1].message).toContain("seats");
    expect(await countEvents(t.portalId)).toBe(3);
  });

  it.each([
    [{ tokens: {} }, "eventTemplateId"],
    [{ eventTemplateId: "abc" }, "eventTemplateId must be a template id"],
    [{ eventTemplateId: "1", objectId: "x1" }, "objectId must be a numeric id"],
    [{ eventTemplateId: "1", email: "nope" }, "email"],
    [{ eventTemplateId: "1", timestamp: "yesterday" }, "timestamp must be an ISO 8601 date-time"],
    [{ eventTemplateId: "1", timelineIFrame: { linkLabel: "a", headerLabel: "b", url: "javascript:alert(1)", width: 1, height: 1 } }, "timelineIFrame.url"],
    [{ eventTemplateId: "1", id: "x".repeat(513) }, "id"],
  ])("refuses a bad event with 400 naming the field (%#)", async (body, text) => {
    const t = await tenant();
    const err = expectError(await postEvent(t, body), 400, "VALIDATION_ERROR");
    expect(err.message).toContain(text);
    expect(await countEvents(t.portalId)).toBe(0);
  });

  it("refuses a token value the type does not allow, naming the token, and writes nothing", async () => {
    const t = await tenant();
    const template = await createTemplate(t);
    const err = expectError(await postEvent(t, { eventTemplateId: template.id, email: "a@bad.example", tokens: { size: "huge" } }), 400, "VALIDATION_ERROR");
    expect(err.message).toContain("size");
    expect(await countEvents(t.portalId)).toBe(0);
    const batch = await call("POST", `${EVENTS}/batch/create`, { token: t.oauth, body: { inputs: Array.from({ length: 101 }, () => ({ eventTemplateId: template.id })) } });
    expect(expectError(batch, 400, "VALIDATION_ERROR").message).toContain("at most 100 events");
  });

  it("keeps events to their account and app: others get 404, other credentials 403", async () => {
    const a = await tenant();
    const b = await tenant();
    const template = await createTemplate(a);
    expect((await postEvent(a, { eventTemplateId: template.id, id: "mine", email: "a@iso.example", tokens: { title: "x" } })).status).toBe(201);
    // Another app's token cannot see the template, so cannot read or write its events.
    expectError(await call("GET", `${EVENTS}/${template.id}/mine`, { token: b.oauth }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("GET", `${EVENTS}/${template.id}/mine/render`, { token: b.oauth }), 404, "OBJECT_NOT_FOUND");
    expectError(await postEvent(b, { eventTemplateId: template.id, id: "mine", email: "b@iso.example", tokens: { title: "y" } }, b.oauth), 404, "OBJECT_NOT_FOUND");
    expectError(await postEvent(a, { eventTemplateId: template.id, email: "a@iso.example" }, a.pat), 403, "FORBIDDEN");
    expectError(await call("GET", `${EVENTS}/${template.id}/mine?hapikey=${a.developerKey}`), 403, "FORBIDDEN");
    expect((await call("GET", `${EVENTS}/${template.id}/mine`, { token: a.oauth })).json.tokens).toEqual({ title: "x" });
    expect(await countEvents(b.portalId)).toBe(0);
  });
});
