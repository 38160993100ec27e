/**
 * The unmodified @hubspot/api-client 14.0.1 against the Worker on the v3 faces of timeline, CRM cards, blog
 * posts and SMTP tokens: each generated call gets the one status it accepts, and each family shows the same
 * data on its legacy face and its v3 face, in both directions.
 */
import { Client } from "@hubspot/api-client";
import { describe, expect, it } from "vitest";
import { createContacts, http } from "./clients";
import { rejection as rejectionOf, tenant, workerUrl, type NodeTenant } from "./helpers";

const sdk = (t: NodeTenant) => new Client({ accessToken: t.oauth, developerApiKey: t.developerKey, basePath: workerUrl() });
const rejection = (p: PromiseLike<unknown>) => rejectionOf<{ code: number; body: Record<string, unknown> }>(p);
const dev = (t: NodeTenant, method: string, path: string, body?: unknown) =>
  fetch(`${workerUrl()}${path}${path.includes("?") ? "&" : "?"}hapikey=${t.developerKey}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, any> })); // eslint-disable-line @typescript-eslint/no-explicit-any -- legacy answers are read loosely

describe("@hubspot/api-client 14.0.1: timeline v3", () => {
  it("templates, tokens and events are the v1 event types, properties and events, both ways", async () => {
    const t = await tenant();
    const { templatesApi, tokensApi, eventsApi } = sdk(t).crm.timeline;
    const template = await templatesApi.create(t.appId, {
      name: "Order",
      objectType: "contacts",
      headerTemplate: "Order {{total}}",
      detailTemplate: "Total **{{total}}**",
      tokens: [{ name: "total", label: "Total", type: "number" as never }],
    });
    expect(template).toMatchObject({ id: expect.stringMatching(/^\d+$/), name: "Order", objectType: "contacts" });
    expect(template.createdAt).toBeInstanceOf(Date);
    await tokensApi.create(template.id, t.appId, { name: "channel", label: "Channel", type: "string" as never });
    await tokensApi.update(template.id, "channel", t.appId, { label: "Sales channel" });

    // v3 → v1: the template and its tokens are the event type and its properties.
    const v1Type = await dev(t, "GET", `/integrations/v1/${t.appId}/timeline/event-types/${template.id}`);
    expect(v1Type.body).toMatchObject({ id: Number(template.id), name: "Order", objectType: "CONTACT" });
    const v1Props = await dev(t, "GET", `/integrations/v1/${t.appId}/timeline/event-types/${template.id}/properties`);
    expect(v1Props.body.map((p: { name: string; label: string }) => [p.name, p.label])).toEqual([["total", "Total"], ["channel", "Sales channel"]]);

    // v1 → v3: a type made on v1 is a template.
    const made = await dev(t, "POST", `/integrations/v1/${t.appId}/timeline/event-types`, { name: "Made in v1", objectType: "COMPANY" });
    expect((await templatesApi.getById(String(made.body.id), t.appId)).objectType).toBe("companies");
    expect((await templatesApi.getAll(t.appId)).results.map((x) => x.name)).toEqual(["Order", "Made in v1"]);

    const [vid] = await createContacts(t, [{ email: "buyer@timeline.example" }]);
    const event = await eventsApi.create({ eventTemplateId: template.id, id: "order-1", objectId: String(vid), timestamp: new Date("2024-03-01T00:00:00Z"), tokens: { total: "42", channel: "web" } });
    expect(event).toMatchObject({ id: "order-1", objectId: String(vid), tokens: { total: "42", channel: "web" } });
    const batch = await eventsApi.createBatch({ inputs: [{ eventTemplateId: template.id, id: "order-2", email: "buyer@timeline.example", tokens: { total: "7" } }] });
    expect(batch).toMatchObject({ status: "COMPLETE", results: [expect.objectContaining({ id: "order-2" })] });

    // v3 event → v1 reads and the record's timeline.
    const v1Event = await http(t.oauth, "GET", `/integrations/v1/${t.appId}/timeline/event/${template.id}/order-1`);
    expect(v1Event.body).toMatchObject({ id: "order-1", objectId: vid, total: "42", timestamp: Date.parse("2024-03-01T00:00:00Z") });
    const feed = await http(t.pat, "GET", `/crm/v3/objects/contacts/${vid}/timeline`);
    expect(feed.body.results.map((r: { id: string }) => r.id).sort()).toEqual(["order-1", "order-2"]);

    // v1 event → v3 reads, detail and render.
    expect((await http(t.oauth, "PUT", `/integrations/v1/${t.appId}/timeline/event`, { id: "order-3", eventTypeId: Number(template.id), objectId: vid, total: 5 })).status).toBe(204);
    expect(await eventsApi.getById(template.id, "order-3")).toMatchObject({ id: "order-3", tokens: { total: "5" }, objectType: "contacts" });
    expect(await eventsApi.getDetailById(template.id, "order-3")).toEqual({ details: "<p>Total <strong>5</strong></p>" });
    expect(await eventsApi.getRenderById(template.id, "order-3")).toBe("<p>Order 5</p>");
    expect(await eventsApi.getRenderById(template.id, "order-3", true)).toBe("<p>Total <strong>5</strong></p>");

    // v3 events are immutable: a repeated id is refused and the event stays.
    const again = await rejection(eventsApi.create({ eventTemplateId: template.id, id: "order-1", objectId: String(vid), tokens: { total: "0" } }));
    expect(again.code).toBe(409);
    expect(again.body).toMatchObject({ category: "CONFLICT" });
    const bad = await rejection(eventsApi.create({ eventTemplateId: template.id, objectId: String(vid), tokens: { total: "lots" } }));
    expect(bad.code).toBe(400);
    expect(String(bad.body.message)).toContain("total");

    await tokensApi.archive(template.id, "channel", t.appId);
    await templatesApi.archive(template.id, t.appId);
    expect((await rejection(templatesApi.getById(template.id, t.appId))).code).toBe(404);
  });
});

describe("@hubspot/api-client 14.0.1: CRM cards v3", () => {
  it("a v3 card is a v1 record type, both ways; the sample response needs no credential", async () => {
    const t = await tenant();
    const { cardsApi } = sdk(t).crm.extensions.cards;
    const card = await cardsApi.create(t.appId, {
      title: "Orders",
      fetch: { targetUrl: "https://cards.example.com/fetch", objectTypes: [{ name: "contacts" as never, propertiesToSend: ["email"] }] },
      display: { properties: [{ name: "total", label: "Total", dataType: "CURRENCY" as never, options: [] }] },
      actions: { baseUrls: ["https://cards.example.com"] },
    });
    expect(card).toMatchObject({ id: expect.stringMatching(/^\d+$/), title: "Orders" });
    const v1 = await http(t.developerKey, "GET", `/extensions/sales-objects/v1/object-types/${card.id}?applicationId=${t.appId}`);
    expect(v1.body).toMatchObject({ dataFetchUri: "https://cards.example.com/fetch", associatedHubSpotObjectTypes: ["CONTACT"], associatedHubSpotObjectTypeProperties: { CONTACT: ["email"] } });

    const made = await http(t.developerKey, "POST", "/extensions/sales-objects/v1/object-types", {
      applicationId: t.appId,
      title: "Made in v1",
      baseUris: ["https://cards.example.com"],
      dataFetchUri: "https://cards.example.com/v1",
      associatedHubSpotObjectTypes: ["DEAL"],
    });
    expect(made.status).toBe(200);
    const read = await cardsApi.getById(String(made.body.id), t.appId);
    expect(read.fetch).toMatchObject({ targetUrl: "https://cards.example.com/v1", objectTypes: [{ name: "deals", propertiesToSend: [] }] });
    expect((await cardsApi.getAll(t.appId)).results.map((c) => c.title)).toEqual(["Orders", "Made in v1"]);
    expect((await cardsApi.update(card.id, t.appId, { title: "Renamed" })).title).toBe("Renamed");
    expect((await http(t.developerKey, "GET", `/extensions/sales-objects/v1/object-types/${card.id}?applicationId=${t.appId}`)).body.title).toBe("Renamed");
    await cardsApi.archive(card.id, t.appId);
    expect((await rejection(cardsApi.getById(card.id, t.appId))).code).toBe(404);

    const guarded = await rejection(cardsApi.update(String(made.body.id), t.appId, { fetch: { targetUrl: "http://169.254.169.254/latest", objectTypes: [{ name: "deals" as never, propertiesToSend: [] }] } }));
    expect(guarded.code).toBe(400);
    expect(String(guarded.body.message)).toContain("fetch.targetUrl");

    const sample = await new Client({ basePath: workerUrl() }).crm.extensions.cards.sampleResponseApi.getCardsSampleResponse();
    expect(sample).toMatchObject({ responseVersion: "v3", cardLabel: expect.any(String) });
  });
});

describe("@hubspot/api-client 14.0.1: blog posts v3", () => {
  it("a v3 post is the v2 post, both ways: create, update, draft, schedule, archive", async () => {
    const t = await tenant();
    const posts = sdk(t).cms.blogs.blogPosts.basicApi;
    const created = await posts.create({ name: "Launch", slug: `launch-${Date.now()}`, postBody: "<p>Hello</p>" } as never);
    expect(created).toMatchObject({ id: expect.stringMatching(/^\d+$/), name: "Launch", state: "DRAFT" });
    expect(created.created).toBeInstanceOf(Date);
    const v2 = await http(t.oauth, "GET", `/content/api/v2/blog-posts/${created.id}`);
    expect(v2.body).toMatchObject({ id: Number(created.id), name: "Launch", post_body: "<p>Hello</p>", state: "DRAFT" });

    const made = await http(t.oauth, "POST", "/content/api/v2/blog-posts", { name: "From v2", slug: `from-v2-${Date.now()}`, post_body: "<p>v2</p>" });
    const read = await posts.getById(String(made.body.id));
    expect(read).toMatchObject({ name: "From v2", postBody: "<p>v2</p>", contentGroupId: String(made.body.content_group_id) });
    const page = await posts.getPage(undefined, undefined, undefined, undefined, undefined, undefined, ["-createdAt"], undefined, 1);
    expect(page.total).toBe(2);
    expect(page.results.map((p) => p.id)).toEqual([String(made.body.id)]);
    const next = await posts.getPage(undefined, undefined, undefined, undefined, undefined, undefined, ["-createdAt"], page.paging!.next!.after, 1);
    expect(next.results.map((p) => p.id)).toEqual([created.id]);

    expect((await posts.update(created.id, { ...(await posts.getById(created.id)), name: "Launch!" })).name).toBe("Launch!");
    expect((await http(t.oauth, "GET", `/content/api/v2/blog-posts/${created.id}`)).body.name).toBe("Launch!");

    await posts.updateDraft(created.id, { postBody: "<p>Draft</p>" } as never);
    expect((await posts.getDraftById(created.id)).postBody).toBe("<p>Draft</p>");
    expect((await http(t.oauth, "GET", `/content/api/v2/blog-posts/${created.id}`)).body.post_body).toBe("<p>Hello</p>");
    await posts.pushLive(created.id);
    expect((await http(t.oauth, "GET", `/content/api/v2/blog-posts/${created.id}`)).body.post_body).toBe("<p>Draft</p>");
    await posts.resetDraft(created.id);

    await posts.schedule({ id: created.id, publishDate: new Date(Date.now() - 1000) });
    expect((await posts.getById(created.id)).state).toBe("PUBLISHED");
    const v2Live = await http(t.oauth, "GET", `/content/api/v2/blog-posts/${created.id}`);
    expect(v2Live.body.state).toBe("PUBLISHED");
    expect((await fetch(v2Live.body.url)).status).toBe(200);

    await posts.archive(created.id);
    expect((await rejection(posts.getById(created.id))).code).toBe(404);
    expect((await http(t.oauth, "GET", `/content/api/v2/blog-posts/${created.id}`)).body.deleted_at).toBeGreaterThan(0);
    expect((await fetch(v2Live.body.url)).status).toBe(404);

    const dup = await rejection(posts.create({ name: "Dup", slug: made.body.slug } as never));
    expect(dup.code).toBe(409);
  });
});

describe("@hubspot/api-client 14.0.1: SMTP tokens v3", () => {
  it("v3 tokens are the v1 tokens, both ways; password only on create and reset; the add-on rule holds", async () => {
    const t = await tenant({ addons: ["transactional-email"] });
    const smtp = sdk(t).marketing.transactional.publicSMTPTokensApi;
    const created = await smtp.createToken({ createContact: true, campaignName: "Receipts" });
    expect(created).toMatchObject({ campaignName: "Receipts", createContact: true, password: expect.stringMatching(/^[A-Za-z0-9]{32}$/) });
    expect(created.createdAt).toBeInstanceOf(Date);
    const v1List = await http(t.oauth, "GET", "/email/public/v1/smtpapi/tokens");
    expect(v1List.body).toEqual([expect.objectContaining({ userName: created.id, emailCampaignId: Number(created.emailCampaignId) })]);

    const v1 = await http(t.oauth, "POST", "/email/public/v1/smtpapi/tokens", { campaignName: "From v1" });
    const read = await smtp.getTokenById(v1.body.userName);
    expect(read).toMatchObject({ id: v1.body.userName, campaignName: "From v1" });
    expect(read.password).toBeUndefined();
    const page = await smtp.getTokensPage(undefined, undefined, undefined, 1);
    expect(page.results.map((r) => r.id)).toEqual([created.id]);
    expect((await smtp.getTokensPage(undefined, undefined, page.paging!.next!.after, 1)).results.map((r) => r.id)).toEqual([v1.body.userName]);
    const reset = await smtp.resetPassword(created.id);
    expect(reset.password).not.toBe(created.password);
    await smtp.archiveToken(created.id);
    expect((await http(t.oauth, "GET", "/email/public/v1/smtpapi/tokens")).body.map((r: { userName: string }) => r.userName)).toEqual([v1.body.userName]);

    const without = await tenant();
    const refused = await rejection(sdk(without).marketing.transactional.publicSMTPTokensApi.createToken({ createContact: false, campaignName: "x" }));
    expect(refused.code).toBe(403);
    const privateApp = await rejection(new Client({ accessToken: t.pat, basePath: workerUrl() }).marketing.transactional.publicSMTPTokensApi.getTokensPage());
    expect(privateApp.code).toBe(403);
  });
});
