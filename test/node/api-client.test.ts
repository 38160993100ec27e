/**
 * The official SDK @hubspot/api-client 14.0.1, unmodified, pointed at the Worker with `basePath`.
 * Its generic `apiRequest` returns the fetch Response whatever the status (so statuses are asserted), sends
 * `Content-Type: application/json` on every call, puts the developer key in `?hapikey=` and the access token
 * in `Authorization: Bearer`, and joins array `qs` values with commas. Its generated API classes throw an
 * ApiException for any status but the documented one (create 201, archive 204, reads 200).
 */
import { Client } from "@hubspot/api-client";
import { AssociationSpecAssociationCategoryEnum } from "@hubspot/api-client/lib/codegen/crm/contacts/models/AssociationSpec";
import { describe, expect, it } from "vitest";
import { consent, createContacts, rateLimitedToken, REDIRECT_URI } from "./clients";
import { tenant, workerUrl, type NodeTenant, rejection as rejectionOf } from "./helpers";

const sdk = (t: NodeTenant, accessToken = t.oauth) => new Client({ accessToken, developerApiKey: t.developerKey, basePath: workerUrl() });

/** The generated classes' rejection. */
interface ApiException {
  code: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}
const rejection = (p: PromiseLike<unknown>) => rejectionOf<ApiException>(p);

type V1Page = { contacts: { vid: number; properties: Record<string, { value: string }> }[]; "has-more": boolean; "vid-offset": number };

describe("@hubspot/api-client 14.0.1: apiRequest against the v1 paths", () => {
  it("pages the v1 contact list, with repeated property= written into the path", async () => {
    const t = await tenant();
    const vids = await createContacts(t, [
      { email: "a@example.com", firstname: "Ann", lastname: "Lee" },
      { email: "b@example.com", firstname: "Ben" },
      { email: "c@example.com", firstname: "Cy" },
    ]);
    const client = sdk(t);
    const res = await client.apiRequest({ path: "/contacts/v1/lists/all/contacts/all?count=2&property=firstname&property=lastname" });
    expect(res.status).toBe(200);
    const first = (await res.json()) as V1Page;
    expect(first.contacts.map((c) => [c.vid, c.properties])).toEqual([
      [vids[0], { firstname: { value: "Ann" }, lastname: { value: "Lee" } }],
      [vids[1], { firstname: { value: "Ben" } }],
    ]);
    expect(first["has-more"]).toBe(true);

    const next = await client.apiRequest({ path: `/contacts/v1/lists/all/contacts/all?count=2&vidOffset=${first["vid-offset"]}&property=firstname` });
    expect(next.status).toBe(200);
    const second = (await next.json()) as V1Page;
    expect(second.contacts.map((c) => [c.vid, c.properties])).toEqual([[vids[2], { firstname: { value: "Cy" } }]]);
    expect(second["has-more"]).toBe(false);
  });

  it("qs arrays arrive comma-joined, which names one (unknown) property, as on the real service", async () => {
    const t = await tenant();
    await createContacts(t, [{ email: "a@example.com", firstname: "Ann" }]);
    const res = await sdk(t).apiRequest({ path: "/contacts/v1/lists/all/contacts/all", qs: { count: 5, property: ["firstname", "email"] } });
    expect(res.status).toBe(200);
    const page = (await res.json()) as V1Page;
    expect(page.contacts).toHaveLength(1);
    expect(page.contacts[0]!.properties).toEqual({});
  });

  it("sets up a timeline event type with the developer key (authType) and writes an event with the access token", async () => {
    const t = await tenant();
    const client = sdk(t);
    const created = await client.apiRequest({
      method: "POST",
      path: `/integrations/v1/${t.appId}/timeline/event-types`,
      authType: "developerApiKey",
      body: { name: "Order", applicationId: t.appId, headerTemplate: "Order {{total}}" },
    });
    expect(created.status).toBe(200);
    const type = (await created.json()) as { id: number; name: string; applicationId: number };
    expect(type).toMatchObject({ name: "Order", applicationId: t.appId });

    const prop = await client.apiRequest({
      method: "POST",
      path: `/integrations/v1/${t.appId}/timeline/event-types/${type.id}/properties`,
      authType: "developerApiKey",
      body: { name: "total", label: "Total", propertyType: "Numeric" },
    });
    expect(prop.status).toBe(200);
    expect(await prop.json()).toMatchObject({ name: "total", propertyType: "Numeric", eventTypeId: type.id });

    const listed = await client.apiRequest({ path: `/integrations/v1/${t.appId}/timeline/event-types`, authType: "developerApiKey" });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { id: number }[]).map((x) => x.id)).toEqual([type.id]);

    const event = await client.apiRequest({
      method: "PUT",
      path: `/integrations/v1/${t.appId}/timeline/event`,
      body: { id: "order-1", eventTypeId: type.id, email: "buyer@example.com", total: 42 },
    });
    expect(event.status).toBe(204);
    expect(event.headers.get("content-type")).toBeNull();
    expect(await event.text()).toBe("");

    const stored = await client.apiRequest({ path: `/integrations/v1/${t.appId}/timeline/event/${type.id}/order-1` });
    expect(stored.status).toBe(200);
    expect(await stored.json()).toMatchObject({ id: "order-1", eventTypeId: type.id, email: "buyer@example.com", total: "42" });

    // The developer key alone cannot write events: it only sets up event types; events need the account's OAuth token.
    const refused = await client.apiRequest({ method: "PUT", path: `/integrations/v1/${t.appId}/timeline/event`, authType: "developerApiKey", body: { id: "x", eventTypeId: type.id, email: "x@example.com" } });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ status: "error", category: "FORBIDDEN" });
  });

  it("ecommerce settings with only a developer key (the recorded request's credential, a valid body), and the account's stores with the token", async () => {
    const t = await tenant();
    const devOnly = new Client({ developerApiKey: t.developerKey, basePath: workerUrl() });
    const settings = {
      enabled: false,
      webhookUri: null,
      mappings: { PRODUCT: { properties: [{ externalPropertyName: "img", servicePropertyName: "ip__ecomm_bridge__image_url", dataType: "AVATAR_IMAGE" }] } },
    };
    const put = await devOnly.apiRequest({ method: "PUT", path: "/extensions/ecomm/v2/settings", qs: { appId: t.appId }, body: settings });
    expect(put.status).toBe(200);
    expect(put.headers.get("sunset")).toBe("Thu, 01 Dec 2022 00:00:00 GMT");
    expect(await put.json()).toMatchObject(settings);

    const client = sdk(t);
    const store = await client.apiRequest({ method: "PUT", path: "/extensions/ecomm/v2/stores", body: { id: "s1", label: "Store one" } });
    expect(store.status).toBe(200);
    expect(await store.json()).toEqual({ id: "s1", label: "Store one" });
    const stores = await client.apiRequest({ path: "/extensions/ecomm/v2/stores" });
    expect(stores.status).toBe(200);
    expect(await stores.json()).toEqual({ results: [{ id: "s1", label: "Store one" }] });

    // A DELETE with the SDK's default JSON content type and no body.
    const del = await client.apiRequest({ method: "DELETE", path: "/extensions/ecomm/v2/stores/s1" });
    expect(del.status).toBe(204);
    const gone = await client.apiRequest({ path: "/extensions/ecomm/v2/stores/s1" });
    expect(gone.status).toBe(404);
    expect(gone.headers.get("x-service-notfound")).toBe("true");
  });

  it("reads a blog post and resets an SMTP token's password", async () => {
    const t = await tenant({ addons: ["transactional-email"] });
    const client = sdk(t);
    const post = await client.apiRequest({ method: "POST", path: "/content/api/v2/blog-posts", body: { name: "News", post_body: "<p>n</p>" } });
    expect(post.status).toBe(201);
    const { id } = (await post.json()) as { id: number };
    const read = await client.apiRequest({ path: `/content/api/v2/blog-posts/${id}` });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ id, name: "News", post_body: "<p>n</p>", is_draft: true, deleted_at: 0 });
    const missing = await client.apiRequest({ path: "/content/api/v2/blog-posts/424242424" });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ status: "error", category: "OBJECT_NOT_FOUND" });

    // The recorded api-client request (traffic/clients_wire/probe_out.json).
    const token = await client.apiRequest({ method: "POST", path: "/email/public/v1/smtpapi/tokens", body: { createContact: false, campaignName: "c" } });
    expect(token.status).toBe(201);
    const created = (await token.json()) as { userName: string; password: string };
    const reset = await client.apiRequest({ method: "POST", path: `/email/public/v1/smtpapi/tokens/${encodeURIComponent(created.userName)}/password-reset` });
    expect(reset.status).toBe(200);
    const body = (await reset.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ userName: created.userName, portalId: t.portalId, campaignName: "c", passwordHash: null, deleted: false });
    expect(body.password).toEqual(expect.any(String));
    expect(body.password).not.toBe(created.password);
  });

  it("does not throw on errors: the envelope and correlation id come back with the status", async () => {
    const t = await tenant();
    const res = await sdk(t, "wrong-token").apiRequest({ path: "/contacts/v1/lists/all/contacts/all" });
    expect(res.status).toBe(401);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: "error", category: "INVALID_AUTHENTICATION" });
    expect(body.correlationId).toBe(res.headers.get("x-service-correlation-id"));
    const bad = await sdk(t).apiRequest({ path: "/contacts/v1/lists/all/contacts/all?count=many" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ status: "error", category: "VALIDATION_ERROR" });
  });
});

describe("@hubspot/api-client 14.0.1: CRM objects client against /crm/v3/objects", () => {
  it("create (201), getById, update, getPage with paging and archive (204) on contacts", async () => {
    const t = await tenant();
    const contacts = sdk(t).crm.contacts.basicApi;
    const created = await contacts.create({ properties: { email: "sdk@example.com", firstname: "Sam" }, associations: [] });
    expect(created.id).toMatch(/^\d+$/);
    expect(created.properties).toMatchObject({ email: "sdk@example.com", firstname: "Sam", hs_object_id: created.id });
    expect(created.createdAt).toBeInstanceOf(Date);
    expect(created.createdAt.getTime()).toBeGreaterThan(0);
    expect(created.archived).toBe(false);

    const read = await contacts.getById(created.id, ["email", "firstname"]);
    expect(read.id).toBe(created.id);
    expect(read.properties).toMatchObject({ email: "sdk@example.com", firstname: "Sam" });

    const updated = await contacts.update(created.id, { properties: { firstname: "Samuel", lastname: "Ng" } });
    expect(updated.properties).toMatchObject({ email: "sdk@example.com", firstname: "Samuel", lastname: "Ng" });
    expect(updated.updatedAt.getTime()).toBeGreaterThanOrEqual(created.updatedAt.getTime());

    const second = await contacts.create({ properties: { email: "sdk2@example.com" }, associations: [] });
    const page1 = await contacts.getPage(1);
    expect(page1.results.map((r) => r.id)).toEqual([created.id]);
    expect(page1.paging?.next?.after).toEqual(expect.any(String));
    const page2 = await contacts.getPage(1, page1.paging!.next!.after);
    expect(page2.results.map((r) => r.id)).toEqual([second.id]);
    expect(page2.paging).toBeUndefined();

    await expect(contacts.archive(created.id)).resolves.toBeUndefined();
    const gone = await rejection(contacts.getById(created.id));
    expect(gone.code).toBe(404);
    expect(gone.body).toMatchObject({ category: "OBJECT_NOT_FOUND" });
    expect(gone.headers["x-service-notfound"]).toBe("true");
  });

  it("getById, getPage and batchApi.read answer the named properties, else the defaults; an unset one is null", async () => {
    const t = await tenant();
    const { basicApi, batchApi } = sdk(t).crm.contacts;
    const c = await basicApi.create({ properties: { email: "wide@example.com", firstname: "Wide", city: "Oslo" }, associations: [] });
    const read = await basicApi.getById(c.id, ["city", "phone"]);
    expect(read.properties).toEqual({ city: "Oslo", phone: null, hs_object_id: c.id, createdate: expect.any(String), lastmodifieddate: expect.any(String) });
    const byDefault = await basicApi.getById(c.id);
    expect(Object.keys(byDefault.properties).sort()).toEqual(["createdate", "email", "firstname", "hs_object_id", "lastmodifieddate", "lastname"]);
    expect(byDefault.properties.lastname).toBeNull();
    const page = await basicApi.getPage(10, undefined, ["city", "firstname"]);
    expect(page.results[0]!.properties).toMatchObject({ city: "Oslo", firstname: "Wide" });
    expect(page.results[0]!.properties.email).toBeUndefined();
    const batch = await batchApi.read({ inputs: [{ id: c.id }], properties: ["city"], propertiesWithHistory: [] });
    expect(batch.results[0]!.properties).toMatchObject({ city: "Oslo", hs_object_id: c.id });
    expect(batch.results[0]!.properties.firstname).toBeUndefined();
  });

  it("getById, getPage and batchApi.read with archived=true read the archived records, archivedAt as a Date", async () => {
    const t = await tenant();
    const { basicApi, batchApi } = sdk(t).crm.contacts;
    const gone = await basicApi.create({ properties: { email: "gone@example.com", firstname: "Gone" }, associations: [] });
    const live = await basicApi.create({ properties: { email: "live@example.com" }, associations: [] });
    await basicApi.archive(gone.id);

    const read = await basicApi.getById(gone.id, ["firstname"], undefined, undefined, true);
    expect(read).toMatchObject({ id: gone.id, archived: true, properties: { firstname: "Gone" } });
    expect(read.archivedAt).toBeInstanceOf(Date);
    expect(read.archivedAt!.getTime()).toBe(read.updatedAt.getTime());
    expect((await rejection(basicApi.getById(live.id, undefined, undefined, undefined, true))).code).toBe(404);
    expect((await rejection(basicApi.getById(gone.id, undefined, undefined, undefined, false))).code).toBe(404);

    const page = await basicApi.getPage(10, undefined, undefined, undefined, undefined, true);
    expect(page.results.map((r) => [r.id, r.archived])).toEqual([[gone.id, true]]);
    expect((await basicApi.getPage(10)).results.map((r) => r.id)).toEqual([live.id]);

    const batch = await batchApi.read({ inputs: [{ id: gone.id }], properties: ["email"], propertiesWithHistory: [] }, true);
    expect(batch.results.map((r) => [r.id, r.properties.email, r.archived])).toEqual([[gone.id, "gone@example.com", true]]);
  });

  it("getById with associations (sent as repeated associations= parameters)", async () => {
    const t = await tenant();
    const client = sdk(t);
    const contact = await client.crm.contacts.basicApi.create({ properties: { email: "assoc@example.com" }, associations: [] });
    const company = await client.crm.companies.basicApi.create({ properties: { name: "Acme" }, associations: [] });
    const deal = await client.crm.deals.basicApi.create({ properties: { dealname: "Big one" }, associations: [] });
    for (const [type, id] of [["companies", company.id], ["deals", deal.id]] as const) {
      const res = await client.apiRequest({ method: "PUT", path: `/crm/v3/objects/contacts/${contact.id}/associations/${type}/${id}` });
      expect(res.status).toBe(204);
    }
    const read = await client.crm.contacts.basicApi.getById(contact.id, undefined, undefined, ["companies", "deals"]);
    expect(read.associations?.companies?.results.map((r) => r.id)).toEqual([company.id]);
    expect(read.associations?.deals?.results.map((r) => r.id)).toEqual([deal.id]);
  });

  it("create with associations, as the SDK sends them: stored both ways; an unknown target is a 400 that creates nothing", async () => {
    const t = await tenant();
    const client = sdk(t);
    const company = await client.crm.companies.basicApi.create({ properties: { name: "Acme" }, associations: [] });
    const deal = await client.crm.deals.basicApi.create({ properties: { dealname: "Big one" }, associations: [] });
    const spec = (associationTypeId: number) => [{ associationCategory: AssociationSpecAssociationCategoryEnum.HubspotDefined, associationTypeId }];
    const contact = await client.crm.contacts.basicApi.create({
      properties: { email: "linked@example.com" },
      associations: [
        { to: { id: company.id }, types: spec(279) },
        { to: { id: deal.id }, types: spec(4) },
      ],
    });
    const read = await client.crm.contacts.basicApi.getById(contact.id, undefined, undefined, ["companies", "deals"]);
    expect(read.associations?.companies?.results.map((r) => r.id)).toEqual([company.id]);
    expect(read.associations?.deals?.results.map((r) => r.id)).toEqual([deal.id]);
    const back = await client.crm.companies.basicApi.getById(company.id, undefined, undefined, ["contacts"]);
    expect(back.associations?.contacts?.results.map((r) => r.id)).toEqual([contact.id]);

    const refused = await rejection(
      client.crm.contacts.basicApi.create({ properties: { email: "orphan@example.com" }, associations: [{ to: { id: "999999999" }, types: spec(279) }] }),
    );
    expect(refused.code).toBe(400);
    expect(refused.body).toMatchObject({ category: "VALIDATION_ERROR" });
    const page = await client.crm.contacts.basicApi.getPage();
    expect(page.results.map((r) => r.properties.email)).toEqual(["linked@example.com"]);
  });

  it("validation and conflicts become ApiExceptions with the envelope", async () => {
    const t = await tenant();
    const contacts = sdk(t).crm.contacts.basicApi;
    await contacts.create({ properties: { email: "dup@example.com" }, associations: [] });
    const dup = await rejection(contacts.create({ properties: { email: "DUP@example.com" }, associations: [] }));
    expect(dup.code).toBe(409);
    expect(dup.body).toMatchObject({ category: "CONFLICT" });
    const bad = await rejection(contacts.getById("not-a-number"));
    expect(bad.code).toBe(400);
    expect(bad.body).toMatchObject({ category: "VALIDATION_ERROR" });
    const other = await tenant();
    const mine = await contacts.create({ properties: { email: "mine@example.com" }, associations: [] });
    const isolated = await rejection(sdk(other).crm.contacts.basicApi.getById(mine.id));
    expect(isolated.code).toBe(404);
  });
});

describe("@hubspot/api-client 14.0.1: OAuth helpers", () => {
  it("getAuthorizationUrl's query on our /oauth/authorize, then tokensApi.create exchanges the code", async () => {
    const t = await tenant();
    const client = new Client({ basePath: workerUrl() });
    const url = client.oauth.getAuthorizationUrl(t.clientId, REDIRECT_URI, "crm.objects.contacts.read timeline", undefined, "st-9");
    expect(url.startsWith("https://app.hubspot.com/oauth/authorize?")).toBe(true); // host fixed by the SDK
    const back = await consent(t, url);
    expect(back.origin + back.pathname).toBe(REDIRECT_URI);
    expect(back.searchParams.get("state")).toBe("st-9");
    const code = back.searchParams.get("code")!;

    const tokens = await client.oauth.tokensApi.create("authorization_code", code, REDIRECT_URI, t.clientId, t.clientSecret);
    expect(tokens).toMatchObject({ tokenType: "bearer", expiresIn: 1800 });
    const info = await client.oauth.accessTokensApi.get(tokens.accessToken);
    expect(info).toMatchObject({ hubId: t.portalId, appId: t.appId, userId: t.userId, user: t.userEmail });
    expect([...info.scopes].sort()).toEqual(["crm.objects.contacts.read", "timeline"]);

    // Codes are single use (RFC 9700).
    const again = await rejection(client.oauth.tokensApi.create("authorization_code", code, REDIRECT_URI, t.clientId, t.clientSecret));
    expect(again.code).toBe(400);
  });

  it("tokensApi.create refreshes; accessTokensApi.get describes the token; refreshTokensApi reads and revokes (204)", async () => {
    const t = await tenant();
    const client = new Client({ basePath: workerUrl() });
    const tokens = await client.oauth.tokensApi.create("refresh_token", undefined, undefined, t.clientId, t.clientSecret, t.refresh);
    expect(tokens).toMatchObject({ tokenType: "bearer", expiresIn: 1800 });
    expect(tokens.accessToken).toEqual(expect.any(String));
    expect(tokens.refreshToken).toEqual(expect.any(String));
    expect(tokens.refreshToken).toBe(t.refresh); // stable by default, as in the real service

    const info = await client.oauth.accessTokensApi.get(tokens.accessToken);
    expect(info).toMatchObject({ token: tokens.accessToken, hubId: t.portalId, appId: t.appId, tokenType: "access" });
    expect(info.scopes).toEqual(expect.arrayContaining(["crm.objects.contacts.read"]));
    expect(info.expiresIn).toBeGreaterThan(1700);

    // The new token works with the rest of the SDK.
    const page = await new Client({ accessToken: tokens.accessToken, basePath: workerUrl() }).crm.contacts.basicApi.getPage();
    expect(page.results).toEqual([]);

    const refreshInfo = await client.oauth.refreshTokensApi.get(tokens.refreshToken);
    expect(refreshInfo).toMatchObject({ token: tokens.refreshToken, hubId: t.portalId, clientId: t.clientId, tokenType: "refresh" });
    await expect(client.oauth.refreshTokensApi.archive(tokens.refreshToken)).resolves.toBeUndefined();
    const revoked = await rejection(client.oauth.tokensApi.create("refresh_token", undefined, undefined, t.clientId, t.clientSecret, tokens.refreshToken));
    expect(revoked.code).toBe(400);
  });

  it("an unknown access token is a 404 ApiException; a wrong client secret a 400 with a message", async () => {
    const t = await tenant();
    const client = new Client({ basePath: workerUrl() });
    const unknown = await rejection(client.oauth.accessTokensApi.get("no-such-token"));
    expect(unknown.code).toBe(404);
    expect(unknown.body.message).toEqual(expect.any(String));
    const wrong = await rejection(client.oauth.tokensApi.create("refresh_token", undefined, undefined, t.clientId, "wrong-secret", t.refresh));
    expect(wrong.code).toBe(400);
    expect(wrong.body.message).toEqual(expect.any(String));
    expect(wrong.body.correlationId).toEqual(expect.any(String));
    // The OAuth fields (error, error_description) reach ApiException.body too.
    expect(wrong.body).toMatchObject({ status: "BAD_CLIENT_SECRET", error: "invalid_client", error_description: expect.any(String) });
  });
});

describe("@hubspot/api-client 14.0.1: what the Worker does not serve (docs/reference/clients.md)", () => {
  it("getById with idProperty other than email (or on another type) is a 400", async () => {
    const t = await tenant();
    const contacts = sdk(t).crm.contacts.basicApi;
    const c = await contacts.create({ properties: { email: "wide@example.com", firstname: "Wide" }, associations: [] });
    const byEmail = await contacts.getById("wide@example.com", undefined, undefined, undefined, false, "email");
    expect(byEmail.id).toBe(c.id);
    const byName = await rejection(contacts.getById("Wide", undefined, undefined, undefined, false, "firstname"));
    expect(byName.code).toBe(400);
    expect(byName.body).toMatchObject({ category: "VALIDATION_ERROR" });
  });

  it("a 429 reaches the SDK with policyName TEN_SECONDLY_ROLLING and Retry-After, which clients retry on", async () => {
    const client = new Client({ accessToken: await rateLimitedToken(), basePath: workerUrl() });
    const first = await client.apiRequest({ path: "/contacts/v1/lists/all/contacts/all" });
    expect(first.status).toBe(200);
    const limited = await client.apiRequest({ path: "/contacts/v1/lists/all/contacts/all" });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({ status: "error", category: "RATE_LIMITS", policyName: "TEN_SECONDLY_ROLLING" });
    const err = await rejection(client.crm.contacts.basicApi.getPage());
    expect(err.code).toBe(429);
    expect(err.body).toMatchObject({ category: "RATE_LIMITS" });
  });
});
