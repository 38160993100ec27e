/**
 * Fixtures beside the records (docs/reference/testkit.md, "Fixtures"): timeline events of an installed app's
 * template on records named by ref, blog posts with their state, and webhook subscriptions of an app
 * installed in the account; each checked with the rest of the document (a problem named by its JSON path),
 * all of it written or none.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ADMIN, call, expectError, tenant, unique, type Tenant } from "../helpers/api";
import { accountD1 } from "../helpers/shards";
import { createAuthor } from "../blog/helpers";
import { dev as timelineDev, readRecord, timeline } from "../timeline/helpers";
import { dev as hooksDev } from "../webhooks/helpers";
import { armFaults, disarmFaults } from "../reliability/fault-injector";

const testTenant = (shard?: string) => tenant({ accountType: "DEVELOPER_TEST", ...(shard ? { shard } : {}) });
const load = (t: Tenant, body: unknown) => call("POST", `/admin/v1/accounts/${t.portalId}/fixtures`, { token: ADMIN, body });
const count = async (t: Tenant, table: string) =>
  (await (await accountD1(t.portalId)).prepare(`select count(*) as n from ${table} where portal_id = ?`).bind(t.portalId).first<number>("n")) ?? 0;
const paths = (res: Awaited<ReturnType<typeof call>>) => (res.json.errors as { context: { propertyName: string[] } }[]).map((e) => e.context.propertyName[0]);
const EVENTS = "/integrators/timeline/v3/events";

async function template(t: Tenant, objectType = "contacts") {
  const res = await timelineDev(t, "POST", `/integrators/timeline/v3/${t.appId}/event-templates`, {
    name: "Webinar",
    objectType,
    headerTemplate: "Joined {{title}}",
    tokens: [
      { name: "title", label: "Title", type: "string" },
      { name: "seats", label: "Seats", type: "number", objectPropertyName: "webinar_seats" },
      { name: "size", label: "Size", type: "enumeration", options: [{ label: "Large", value: "large" }] },
    ],
  });
  expect(res.status, res.text).toBe(201);
  return res.json.id as string;
}

const subscriptions = async (t: Tenant) => (await hooksDev(t, "GET", "/subscriptions")).json.results as { id: string; eventType: string; propertyName?: string; active: boolean }[];

describe("fixtures: timeline events, blog posts, subscriptions", () => {
  it("loads timeline events on the document's records: read back through the v3 API, on the record's timeline, stamped on the record", async () => {
    const t = await testTenant();
    const tpl = await template(t);
    const res = await load(t, {
      records: { contacts: [{ ref: "ada", properties: { firstname: "Ada" } }] },
      timelineEvents: [
        { eventTemplateId: tpl, ref: "ada", id: "joined-1", timestamp: "2026-03-01T10:00:00Z", tokens: { title: "Intro", seats: 3, size: "large" }, extraData: { source: "fixture" } },
        { eventTemplateId: Number(tpl), ref: "ada", tokens: { title: "Second" } },
      ],
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json.counts).toEqual({ contacts: 1, associations: 0, timelineEvents: 2 });
    const ada = Number(res.json.refs.ada);
    const read = await call("GET", `${EVENTS}/${tpl}/joined-1`, { token: t.oauth });
    expect(read.status, read.text).toBe(200);
    expect(read.json).toMatchObject({ id: "joined-1", eventTemplateId: tpl, objectType: "contacts", objectId: String(ada), timestamp: "2026-03-01T10:00:00.000Z", tokens: { title: "Intro", seats: "3", size: "large" }, extraData: { source: "fixture" } });
    expect((await readRecord(t, "contacts", ada, ["webinar_seats"])).webinar_seats).toBe("3");
    const feed = await timeline(t, "contacts", ada);
    expect(feed.json.results.map((e: { headerHtml: string }) => e.headerHtml).sort()).toEqual(["<p>Joined Intro</p>", "<p>Joined Second</p>"]);
  });

  it("loads blog posts in their state: a published one on its public page, a scheduled one for later, a draft; refs answer their ids", async () => {
    const t = await testTenant();
    const author = await createAuthor(t, { full_name: "Ann Author" });
    const slug = `news/${unique("launch")}`;
    const later = new Date(Date.now() + 86_400_000).toISOString();
    const res = await load(t, {
      blogPosts: [
        { ref: "launch", name: "Launch", slug, state: "PUBLISHED", publishDate: "2026-01-05T09:00:00Z", postBody: "<p>We launched</p>", blogAuthorId: String(author.id) },
        { ref: "soon", name: "Soon", state: "SCHEDULED", publishDate: later },
        { name: "Draft" },
      ],
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json.counts).toEqual({ associations: 0, blogPosts: 3 });
    const V3 = "/cms/v3/blogs/posts";
    const launch = await call("GET", `${V3}/${res.json.refs.launch}`, { token: t.oauth });
    expect(launch.status, launch.text).toBe(200);
    expect(launch.json).toMatchObject({ name: "Launch", slug, state: "PUBLISHED", publishDate: "2026-01-05T09:00:00.000Z", blogAuthorId: String(author.id), authorName: "Ann Author", htmlTitle: "Launch" });
    const soon = await call("GET", `${V3}/${res.json.refs.soon}`, { token: t.oauth });
    expect(soon.json).toMatchObject({ state: "SCHEDULED", publishDate: later });
    expect(soon.json.slug).toMatch(/^blog\/-temporary-slug-/); // the default blog, made for them
    const list = await call("GET", `${V3}?limit=10`, { token: t.oauth });
    expect(list.json.results.map((p: { state: string }) => p.state).sort()).toEqual(["DRAFT", "PUBLISHED", "SCHEDULED"]);
    const page = await call("GET", new URL(launch.json.url).pathname);
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain("We launched");
  });

  it("sets webhook subscriptions of the account's app: made, or an existing one's active set", async () => {
    const t = await testTenant();
    const made = await hooksDev(t, "POST", "/subscriptions", { eventType: "contact.creation", active: true });
    expect(made.status, made.text).toBe(201);
    const res = await load(t, {
      subscriptions: [
        { subscriptionType: "contact.creation", active: false },
        { appId: t.appId, subscriptionType: "contact.propertyChange", propertyName: "email" },
        { subscriptionType: "object.creation", objectTypeId: "0-46" },
      ],
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json.counts).toEqual({ associations: 0, subscriptions: 3 });
    const subs = await subscriptions(t);
    expect(subs.map((s) => [s.eventType, s.propertyName ?? null, s.active]).sort()).toEqual(
      [
        ["contact.creation", null, false],
        ["contact.propertyChange", "email", true],
        ["object.creation", null, true],
      ].sort(),
    );
    expect(subs.find((s) => s.eventType === "contact.creation")!.id).toBe(made.json.id);
  });

  it("refuses an app installed in a STANDARD account, naming the path", async () => {
    const t = await testTenant();
    const standard = await tenant();
    // The test account's app installed in a STANDARD account too (the operator's install).
    const installed = await call("POST", `/admin/v1/accounts/${standard.portalId}/installs`, { token: ADMIN, body: { appId: t.appId } });
    expect(installed.status, installed.text).toBe(201);
    const res = await load(t, { subscriptions: [{ subscriptionType: "contact.creation" }] });
    expectError(res, 400, "VALIDATION_ERROR");
    expect(paths(res)).toEqual(["subscriptions[0].appId"]);
    expect(res.json.errors[0].message).toContain("STANDARD");
  });

  it("checks every part whole: each problem by its JSON path, and nothing written, subscriptions included", async () => {
    const t = await testTenant();
    const tpl = await template(t);
    const other = await testTenant();
    const foreign = await template(other);
    const companyTpl = await template(t, "companies");
    const held = `held/${unique("p")}`;
    expect((await call("POST", "/cms/v3/blogs/posts", { token: t.oauth, body: { name: "Held", slug: held } })).status).toBe(201);
    const res = await load(t, {
      records: { contacts: [{ ref: "ada", properties: { firstname: "Ada" } }] },
      timelineEvents: [
        { eventTemplateId: "999999999", ref: "ada" },
        { eventTemplateId: foreign, ref: "ada" },
        { eventTemplateId: tpl, ref: "ghost" },
        { eventTemplateId: companyTpl, ref: "ada" },
        { eventTemplateId: tpl, ref: "ada", tokens: { seats: "many", nope: "x" } },
        { eventTemplateId: tpl, ref: "ada", id: "twice" },
        { eventTemplateId: tpl, ref: "ada", id: "twice" },
      ],
      blogPosts: [
        { name: "Taken", slug: held },
        { name: "Author", blogAuthorId: "999999999" },
        { name: "Tags", tagIds: ["999999999"] },
        { name: "Blog", contentGroupId: "999999999" },
        { name: "Late", state: "SCHEDULED", publishDate: "2020-01-01T00:00:00Z" },
        { ref: "ada", name: "Same ref" },
      ],
      subscriptions: [
        { appId: other.appId, subscriptionType: "contact.creation" },
        { subscriptionType: "contact.creation" },
        { subscriptionType: "contact.creation" },
      ],
    });
    expectError(res, 400, "VALIDATION_ERROR");
    expect(paths(res).sort()).toEqual(
      [
        "timelineEvents[0].eventTemplateId",
        "timelineEvents[1].eventTemplateId",
        "timelineEvents[2].ref",
        "timelineEvents[3].ref",
        "timelineEvents[4].tokens.seats",
        "timelineEvents[4].tokens.nope",
        "timelineEvents[6].id",
        "blogPosts[0].slug",
        "blogPosts[1].blogAuthorId",
        "blogPosts[2].tagIds",
        "blogPosts[3].contentGroupId",
        "blogPosts[4].publishDate",
        "blogPosts[5].ref",
        "subscriptions[0].appId",
        "subscriptions[2].subscriptionType",
      ].sort(),
    );
    expect(await count(t, "crm_objects")).toBe(0);
    expect(await count(t, "timeline_events")).toBe(0);
    expect(await count(t, "blog_posts")).toBe(1);
    expect(await subscriptions(t)).toEqual([]);
  });

  it.each([
    ["an event without its template", { timelineEvents: [{ ref: "a" }] }, "timelineEvents[0].eventTemplateId"],
    ["an event's bad timestamp", { timelineEvents: [{ eventTemplateId: "1", ref: "a", timestamp: "yesterday" }] }, "timelineEvents[0].timestamp"],
    ["an event's unknown field", { timelineEvents: [{ eventTemplateId: "1", ref: "a", objectId: "5" }] }, "timelineEvents[0]"],
    ["a post without a name", { blogPosts: [{ slug: "x" }] }, "blogPosts[0].name"],
    ["a post's unknown state", { blogPosts: [{ name: "x", state: "LIVE" }] }, "blogPosts[0].state"],
    ["a subscription of an unknown type", { subscriptions: [{ subscriptionType: "contact.nope" }] }, "subscriptions[0].subscriptionType"],
    ["a propertyChange without its property", { subscriptions: [{ subscriptionType: "contact.propertyChange" }] }, "subscriptions[0].propertyName"],
  ])("a 400 for %s names the path", async (_name, body, path) => {
    const t = await testTenant();
    const res = await load(t, body);
    expectError(res, 400, "VALIDATION_ERROR");
    expect(paths(res)[0]).toBe(path);
  });

  it("an account whose data lives in the control-plane database (placed before any shard) takes records and subscriptions in one batch", async () => {
    const t = await testTenant();
    // Such accounts predate the shards: made here by pointing a fresh, empty account at the control plane.
    await env.DB.prepare("update accounts set shard = null where portal_id = ?").bind(t.portalId).run();
    const res = await load(t, {
      records: { contacts: [{ ref: "a", properties: { firstname: "In the control plane" } }] },
      subscriptions: [{ subscriptionType: "contact.creation", active: false }],
    });
    expect(res.status, res.text).toBe(201);
    const row = await env.DB.prepare("select properties from crm_objects where id = ? and portal_id = ?").bind(Number(res.json.refs.a), t.portalId).first<{ properties: string }>();
    expect(JSON.parse(row!.properties)).toEqual({ firstname: "In the control plane" });
    expect((await subscriptions(t)).map((x) => [x.eventType, x.active])).toEqual([["contact.creation", false]]);
  });

  it("a failed data batch puts the subscriptions back as they were (the account's data on a shard, its app's subscriptions in the control plane)", async () => {
    const t = await testTenant("SHARD_1");
    const made = await hooksDev(t, "POST", "/subscriptions", { eventType: "contact.creation", active: true });
    expect(made.status, made.text).toBe(201);
    armFaults((point, ids) => {
      if (point === "fixture:write" && ids.includes(String(t.portalId))) throw new Error("the data batch failed");
    });
    try {
      const res = await load(t, {
        records: { contacts: [{ ref: "a", properties: { firstname: "A" } }] },
        subscriptions: [{ subscriptionType: "contact.creation", active: false }, { subscriptionType: "company.creation" }],
      });
      expect(res.status, res.text).toBe(500);
    } finally {
      disarmFaults();
    }
    expect((await subscriptions(t)).map((s) => [s.id, s.eventType, s.active])).toEqual([[made.json.id, "contact.creation", true]]);
    expect(await count(t, "crm_objects")).toBe(0);
  });
});
