/**
 * node-hubspot (npm `hubspot` 2.3.14, MadKudu/node-hubspot), unmodified, pointed at the Worker with
 * `baseUrl`. It sends `?hapikey=` for `apiKey` and `Authorization: Bearer` for
 * `accessToken`, JSON bodies through `request-promise`, and rejects non-2xx answers with a StatusCodeError.
 */
import Hubspot from "hubspot";
import { describe, expect, it, vi } from "vitest";
import { consent, createContacts, eventually, rateLimitedToken, REDIRECT_URI } from "./clients";
import { tenant, workerUrl, rejection as rejectionOf } from "./helpers";

const withToken = (accessToken: string) => new Hubspot({ accessToken, baseUrl: workerUrl() });
const withKey = (apiKey: string) => new Hubspot({ apiKey, baseUrl: workerUrl() });

type FullResponse = { statusCode: number; headers: Record<string, string> };
/**
 * The status and headers of the last answer the client received, read through a spy on its own
 * `updateApiLimit(res)` hook, which it calls with request's full response (the spy calls through).
 */
function lastResponse(hs: Hubspot): () => FullResponse {
  const hook = hs as unknown as { updateApiLimit(res: FullResponse): Promise<void> };
  const spy = vi.spyOn(hook, "updateApiLimit");
  return () => {
    const call = spy.mock.lastCall;
    if (!call) throw new Error("no answer received yet");
    return call[0];
  };
}

/** node-hubspot's rejection: request-promise's StatusCodeError with the parsed error body. */
interface StatusCodeError {
  name: string;
  statusCode: number;
  error: Record<string, unknown>;
  response: { headers: Record<string, string> };
}
const rejection = (p: PromiseLike<unknown>) => rejectionOf<StatusCodeError>(p);

type V1Page = { contacts: { vid: number; "portal-id": number; properties: Record<string, { value: string }> }[]; "has-more": boolean; "vid-offset": number };

describe("node-hubspot 2.3.14: contacts", () => {
  it("contacts.get pages with count and vidOffset and selects properties with repeated property=", async () => {
    const t = await tenant();
    const vids = await createContacts(t, [
      { email: "ada@example.com", firstname: "Ada", lastname: "Lovelace", phone: "1" },
      { email: "alan@example.com", firstname: "Alan", lastname: "Turing", phone: "2" },
      { email: "grace@example.com", firstname: "Grace" },
    ]);
    const hs = withToken(t.oauth);

    const first = (await hs.contacts.get({ count: 2, property: ["firstname", "lastname"] })) as V1Page;
    expect(first.contacts.map((c) => c.vid)).toEqual(vids.slice(0, 2));
    expect(first["has-more"]).toBe(true);
    expect(first["vid-offset"]).toBe(vids[1]);
    expect(first.contacts[0]!["portal-id"]).toBe(t.portalId);
    expect(first.contacts[0]!.properties).toEqual({ firstname: { value: "Ada" }, lastname: { value: "Lovelace" } });

    const second = (await hs.contacts.get({ count: 2, vidOffset: first["vid-offset"], property: ["firstname", "lastname"] })) as V1Page;
    expect(second.contacts.map((c) => c.vid)).toEqual([vids[2]]);
    // Absent properties are omitted, not sent empty.
    expect(second.contacts[0]!.properties).toEqual({ firstname: { value: "Grace" } });
    expect(second["has-more"]).toBe(false);
    expect(second["vid-offset"]).toBe(vids[2]);
  });

  it("contacts.getAll with a private-app token and no options answers the default page", async () => {
    const t = await tenant();
    const vids = await createContacts(t, [{ email: "one@example.com" }]);
    const page = (await withToken(t.pat).contacts.getAll()) as V1Page;
    expect(page.contacts.map((c) => c.vid)).toEqual(vids);
    expect(page["has-more"]).toBe(false);
  });

  it("the wrong paging names vid-offset and offset are ignored and page 1 comes back, as in the real service (only vidOffset pages)", async () => {
    const t = await tenant();
    const vids = await createContacts(t, [{ email: "a@example.com" }, { email: "b@example.com" }]);
    const page = (await withToken(t.oauth).contacts.get({ count: 1, "vid-offset": vids[0], offset: vids[0] })) as V1Page;
    expect(page.contacts.map((c) => c.vid)).toEqual([vids[0]]);
  });

  it("an account API key (apiKey) is refused with 401 pointing to the Authorization header: account keys are no longer supported", async () => {
    const t = await tenant();
    const err = await rejection(withKey(t.pat).contacts.get({ count: 1 }));
    expect(err.name).toBe("StatusCodeError");
    expect(err.statusCode).toBe(401);
    expect(err.error).toMatchObject({ status: "error", category: "INVALID_AUTHENTICATION" });
    expect(String(err.error.message)).toContain("Authorization header");
  });

  it("a 429 rejects with policyName TEN_SECONDLY_ROLLING, which node-hubspot users retry on", async () => {
    const hs = withToken(await rateLimitedToken());
    expect(((await hs.contacts.get()) as V1Page).contacts).toEqual([]);
    const err = await rejection(hs.contacts.get());
    expect(err.statusCode).toBe(429);
    expect(err.error).toMatchObject({ status: "error", category: "RATE_LIMITS", policyName: "TEN_SECONDLY_ROLLING" });
    expect(Number(err.response.headers["retry-after"])).toBeGreaterThan(0);
  });

  it("getApiLimit reads /integrations/v1/limit/daily, which the Worker does not serve (404)", async () => {
    const t = await tenant();
    const err = await rejection(withToken(t.oauth).getApiLimit());
    expect(err.statusCode).toBe(404);
    expect(err.error).toMatchObject({ status: "error", category: "OBJECT_NOT_FOUND" });
  });

  it("an expired or unknown token rejects with 401 and the correlation id in body and header", async () => {
    const err = await rejection(withToken("not-a-token").contacts.get());
    expect(err.statusCode).toBe(401);
    expect(err.error.status).toBe("error");
    expect(err.error.correlationId).toBe(err.response.headers["x-service-correlation-id"]);
  });
});

describe("node-hubspot 2.3.14: timelines", () => {
  it("sets up an event type and a property with the developer key, then writes an event with the OAuth token", async () => {
    const t = await tenant();
    const dev = withKey(t.developerKey);
    const devLast = lastResponse(dev);

    const type = (await dev.timelines.createEventType(t.appId, t.userId, {
      name: "Webinar",
      headerTemplate: "Registered for {{title}}",
      detailTemplate: "Seats: {{seats}}",
    })) as Record<string, unknown>;
    expect(type).toMatchObject({
      name: "Webinar",
      headerTemplate: "Registered for {{title}}",
      detailTemplate: "Seats: {{seats}}",
      applicationId: t.appId,
      objectType: "CONTACT",
    });
    expect(type.id).toEqual(expect.any(Number));
    expect(devLast().statusCode).toBe(200); // create answers 200 (not 201) with the saved type, as the real service does
    const typeId = type.id as number;

    // node-hubspot's update sends only what it is given (plus applicationId): a partial update.
    const updated = (await dev.timelines.updateEventType(t.appId, typeId, { name: "Webinar 2" })) as Record<string, unknown>;
    expect(updated).toMatchObject({ id: typeId, name: "Webinar 2", headerTemplate: "Registered for {{title}}", applicationId: t.appId });

    const title = (await dev.timelines.createEventTypeProperty(t.appId, typeId, t.userId, { name: "title", label: "Title", propertyType: "String" })) as Record<string, unknown>;
    expect(title).toMatchObject({ name: "title", label: "Title", propertyType: "String", eventTypeId: typeId });
    const seats = (await dev.timelines.createEventTypeProperty(t.appId, typeId, t.userId, { name: "seats", label: "Seats", propertyType: "Numeric" })) as Record<string, unknown>;
    expect(seats.id).toEqual(expect.any(Number));

    // The property id travels in the body, not the path, as the real service expects.
    const relabelled = (await dev.timelines.updateEventTypeProperty(t.appId, typeId, seats.id as number, { name: "seats", label: "Seat count", propertyType: "Numeric" })) as Record<string, unknown>;
    expect(relabelled).toMatchObject({ id: seats.id, name: "seats", label: "Seat count", propertyType: "Numeric" });

    const listed = (await dev.apiRequest({ path: `/integrations/v1/${t.appId}/timeline/event-types/${typeId}/properties` })) as { name: string; label: string }[];
    expect(listed.map((p) => [p.name, p.label])).toEqual([["title", "Title"], ["seats", "Seat count"]]);

    // The event write answers 204 with no body; node-hubspot resolves with that empty body.
    const oauth = withToken(t.oauth);
    const last = lastResponse(oauth);
    const written = await oauth.timelines.createTimelineEvent(t.appId, typeId, { id: "signup-1", email: "webinar@example.com", title: "Edge APIs", seats: 3 });
    expect(written).toBeUndefined();
    expect(last().statusCode).toBe(204);
    expect(last().headers["content-type"]).toBeUndefined();

    const stored = (await oauth.apiRequest({ path: `/integrations/v1/${t.appId}/timeline/event/${typeId}/signup-1` })) as Record<string, unknown>;
    expect(stored).toMatchObject({ id: "signup-1", eventTypeId: typeId, email: "webinar@example.com", title: "Edge APIs", seats: "3" });

    // The event created the contact (an unknown email creates one holding only that email) and renders on its timeline.
    const contacts = (await oauth.contacts.get({ property: "email" })) as V1Page;
    expect(contacts.contacts.map((c) => c.properties.email?.value)).toEqual(["webinar@example.com"]);
    const feed = (await oauth.apiRequest({ path: `/crm/v3/objects/contacts/${stored.objectId}/timeline` })) as { results: { id: string; headerHtml: string; detailHtml: string }[] };
    expect(feed.results).toHaveLength(1);
    expect(feed.results[0]!.id).toBe("signup-1");
    expect(feed.results[0]!.headerHtml).toContain("Registered for Edge APIs");
    expect(feed.results[0]!.detailHtml).toContain("Seats: 3");
  });

  it("createTimelineEvent generates an id when none is given, and a developer key cannot write events (403)", async () => {
    const t = await tenant();
    const type = (await withKey(t.developerKey).timelines.createEventType(t.appId, t.userId, { name: "Ping" })) as { id: number };
    const data: Record<string, unknown> = { email: "ping@example.com" };
    await withToken(t.oauth).timelines.createTimelineEvent(t.appId, type.id, data);
    expect(data.id).toEqual(expect.any(String)); // node-hubspot fills in a guid
    const stored = (await withToken(t.oauth).apiRequest({ path: `/integrations/v1/${t.appId}/timeline/event/${type.id}/${data.id}` })) as Record<string, unknown>;
    expect(stored).toMatchObject({ id: data.id, email: "ping@example.com" });

    const err = await rejection(withKey(t.developerKey).timelines.createTimelineEvent(t.appId, type.id, { email: "x@example.com" }));
    expect(err.statusCode).toBe(403);
    expect(err.error).toMatchObject({ status: "error", category: "FORBIDDEN" });
  });

  it("a validation failure rejects with 400 and the error envelope naming the field", async () => {
    const t = await tenant();
    const type = (await withKey(t.developerKey).timelines.createEventType(t.appId, t.userId, { name: "T" })) as { id: number };
    const err = await rejection(withKey(t.developerKey).timelines.createEventTypeProperty(t.appId, type.id, t.userId, { name: "log", label: "Log", propertyType: "String" }));
    expect(err.statusCode).toBe(400);
    expect(err.error).toMatchObject({ status: "error", category: "VALIDATION_ERROR" });
    expect(String(err.error.message)).toMatch(/log/);
  });
});

describe("node-hubspot 2.3.14: apiRequest for the ecommerce bridge", () => {
  it("app settings with the developer key, a store and a sync with the OAuth token, status and errors", async () => {
    const t = await tenant();
    const dev = withKey(t.developerKey);
    const settings = {
      enabled: true,
      mappings: {
        CONTACT: { properties: [{ externalPropertyName: "customer_email", servicePropertyName: "email", dataType: "STRING" }, { externalPropertyName: "first", servicePropertyName: "firstname", dataType: "STRING" }] },
        DEAL: { properties: [{ externalPropertyName: "stage", servicePropertyName: "dealstage", dataType: "STRING" }] },
        LINE_ITEM: { properties: [{ externalPropertyName: "deal", servicePropertyName: "hs_assoc__deal_id", dataType: "STRING" }, { externalPropertyName: "product", servicePropertyName: "hs_assoc__product_id", dataType: "STRING" }] },
      },
    };
    const saved = (await dev.apiRequest({ method: "PUT", path: "/extensions/ecomm/v2/settings", qs: { appId: t.appId }, body: settings })) as Record<string, unknown>;
    expect(saved).toMatchObject(settings);
    const read = (await dev.apiRequest({ path: "/extensions/ecomm/v2/settings", qs: { appId: t.appId } })) as Record<string, unknown>;
    expect(read).toMatchObject(settings);

    const oauth = withToken(t.oauth);
    const last = lastResponse(oauth);
    const store = (await oauth.apiRequest({ method: "PUT", path: "/extensions/ecomm/v2/stores", body: { id: "shop-1", label: "Shop", adminUri: "https://shop.example.com/admin" } })) as Record<string, unknown>;
    expect(store).toEqual({ id: "shop-1", label: "Shop", adminUri: "https://shop.example.com/admin" });

    // Queued, not applied: 204 with no body (clients fail to parse a body on a 204).
    const queued = await oauth.apiRequest({
      method: "PUT",
      path: "/extensions/ecomm/v2/sync/messages",
      body: {
        storeId: "shop-1",
        objectType: "CONTACT",
        messages: [
          { action: "UPSERT", externalObjectId: "c-1", changedAt: String(Date.now()), properties: { customer_email: "buyer@example.com", first: "Bo" } },
          { action: "UPSERT", externalObjectId: "c-2", changedAt: Date.now(), properties: { first: "No email" } },
        ],
      },
    });
    expect(queued).toBeUndefined();
    expect(last().statusCode).toBe(204);

    type Status = { serviceId: number | null; lastProcessedAt: string | null; errors: { type: string }[] };
    const ok = await eventually(async () => {
      const s = (await oauth.apiRequest({ path: "/extensions/ecomm/v2/sync/status/shop-1/CONTACT/c-1" }).catch(() => undefined)) as Status | undefined;
      return s?.serviceId ? s : undefined;
    }, "the sync of c-1");
    expect(ok.errors).toEqual([]);
    const contacts = (await oauth.contacts.get({ property: ["email", "firstname"] })) as V1Page;
    expect(contacts.contacts.map((c) => [c.vid, c.properties.email?.value, c.properties.firstname?.value])).toEqual([[ok.serviceId, "buyer@example.com", "Bo"]]);

    // A contact without an email fails with MISSING_REQUIRED_PROPERTY.
    const failed = await eventually(async () => {
      const s = (await oauth.apiRequest({ path: "/extensions/ecomm/v2/sync/status/shop-1/CONTACT/c-2" }).catch(() => undefined)) as Status | undefined;
      return s?.errors.length ? s : undefined;
    }, "the sync error of c-2");
    expect(failed).toMatchObject({ serviceId: null, lastProcessedAt: null, errors: [{ type: "MISSING_REQUIRED_PROPERTY" }] });
    const appErrors = (await dev.apiRequest({ path: `/extensions/ecomm/v2/sync/errors/app/${t.appId}` })) as { results: Record<string, unknown>[] };
    expect(appErrors.results).toEqual([expect.objectContaining({ portalId: t.portalId, storeId: "shop-1", objectType: "CONTACT", externalObjectId: "c-2", type: "MISSING_REQUIRED_PROPERTY", status: "OPEN" })]);
  });

  it("another app's settings are a 404 for the developer key", async () => {
    const [a, b] = [await tenant(), await tenant()];
    const err = await rejection(withKey(b.developerKey).apiRequest({ path: "/extensions/ecomm/v2/settings", qs: { appId: a.appId } }));
    expect(err.statusCode).toBe(404);
    expect(err.response.headers["x-service-notfound"]).toBe("true");
  });
});

describe("node-hubspot 2.3.14: apiRequest for blog posts and SMTP tokens", () => {
  it("creates, publishes and reads a blog post; an unknown id is a 404 with the error body", async () => {
    const t = await tenant();
    const hs = withToken(t.oauth);
    const post = (await hs.apiRequest({ method: "POST", path: "/content/api/v2/blog-posts", body: { name: "Hello", slug: "hello", post_body: "<p>Hi</p>" } })) as Record<string, unknown>;
    expect(post).toMatchObject({ name: "Hello", is_draft: true, state: "DRAFT", post_body: "<p>Hi</p>" });

    const published = (await hs.apiRequest({ method: "POST", path: `/content/api/v2/blog-posts/${post.id}/publish-action`, body: { action: "schedule-publish" } })) as Record<string, unknown>;
    expect(published).toMatchObject({ id: post.id, state: "PUBLISHED", is_draft: false });

    const read = (await hs.apiRequest({ path: `/content/api/v2/blog-posts/${post.id}` })) as Record<string, unknown>;
    expect(read).toMatchObject({ id: post.id, name: "Hello", state: "PUBLISHED", processing_status: "published" });
    const page = await fetch(String(read.url));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<p>Hi</p>");

    const err = await rejection(hs.apiRequest({ path: "/content/api/v2/blog-posts/999999999" }));
    expect(err.statusCode).toBe(404);
    expect(err.error).toMatchObject({ status: "error", category: "OBJECT_NOT_FOUND" });
    expect(err.response.headers["x-service-notfound"]).toBe("true");
  });

  it("creates an SMTP token (201), lists it without the password, resets its password and deletes it (204)", async () => {
    const t = await tenant({ addons: ["transactional-email"] });
    const hs = withToken(t.oauth);
    const last = lastResponse(hs);
    const created = (await hs.apiRequest({ method: "POST", path: "/email/public/v1/smtpapi/tokens", body: { createContact: false, campaignName: "Receipts" } })) as Record<string, unknown>;
    expect(last().statusCode).toBe(201);
    expect(created).toMatchObject({ portalId: t.portalId, campaignName: "Receipts", appId: t.appId, deleted: false });
    expect(created.password).toEqual(expect.any(String));

    const listed = (await hs.apiRequest({ path: "/email/public/v1/smtpapi/tokens" })) as Record<string, unknown>[];
    expect(listed.map((x) => x.userName)).toEqual([created.userName]);
    expect(listed[0]).not.toHaveProperty("password");

    const reset = (await hs.apiRequest({ method: "POST", path: `/email/public/v1/smtpapi/tokens/${encodeURIComponent(String(created.userName))}/password-reset` })) as Record<string, unknown>;
    expect(reset).toMatchObject({ userName: created.userName, passwordHash: null });
    expect(reset.password).toEqual(expect.any(String));
    expect(reset.password).not.toBe(created.password);

    const deleted = await hs.apiRequest({ method: "DELETE", path: `/email/public/v1/smtpapi/tokens/${encodeURIComponent(String(created.userName))}` });
    expect(deleted).toBeUndefined();
    expect(last().statusCode).toBe(204);
    expect(await hs.apiRequest({ path: "/email/public/v1/smtpapi/tokens" })).toEqual([]);
  });

  it("SMTP tokens need the add-on: 403 otherwise", async () => {
    const t = await tenant();
    const err = await rejection(withToken(t.oauth).apiRequest({ method: "POST", path: "/email/public/v1/smtpapi/tokens", body: { campaignName: "x" } }));
    expect(err.statusCode).toBe(403);
    expect(err.error.status).toBe("error");
  });
});

describe("node-hubspot 2.3.14: OAuth", () => {
  it("getAuthorizationUrl's query on our /oauth/authorize, then oauth.getAccessToken exchanges the code", async () => {
    const t = await tenant();
    const hs = new Hubspot({ clientId: t.clientId, clientSecret: t.clientSecret, redirectUri: REDIRECT_URI, refreshToken: "", baseUrl: workerUrl() });
    const url = hs.oauth.getAuthorizationUrl({ scope: "crm.objects.contacts.read timeline", state: "st-1" });
    expect(url.startsWith("https://app.hubspot.com/oauth/authorize?")).toBe(true); // host fixed by the client
    const back = await consent(t, url);
    expect(back.searchParams.get("state")).toBe("st-1");

    const tokens = (await hs.oauth.getAccessToken({ code: back.searchParams.get("code")! })) as Record<string, unknown>;
    expect(tokens).toMatchObject({ token_type: "bearer", expires_in: 1800 });
    const info = (await hs.oauth.getPortalInfo(String(tokens.access_token))) as Record<string, unknown>;
    expect(info).toMatchObject({ hub_id: t.portalId, app_id: t.appId, user: t.userEmail, user_id: t.userId });
    const page = (await withToken(String(tokens.access_token)).contacts.get()) as V1Page;
    expect(page.contacts).toEqual([]);
  });

  it("refreshAccessToken (which also sends redirect_uri) gets a new access token, and getPortalInfo describes it", async () => {
    const t = await tenant();
    const hs = new Hubspot({ clientId: t.clientId, clientSecret: t.clientSecret, redirectUri: REDIRECT_URI, refreshToken: t.refresh, baseUrl: workerUrl() });
    const tokens = (await hs.refreshAccessToken()) as unknown as Record<string, unknown>;
    expect(tokens).toMatchObject({ token_type: "bearer", expires_in: 1800 });
    expect(tokens.access_token).toEqual(expect.any(String));
    expect(tokens.refresh_token).toBe(t.refresh); // stable by default, as in the real service

    // refreshAccessToken put the new token on the client.
    const info = (await hs.oauth.getPortalInfo()) as Record<string, unknown>;
    expect(info).toMatchObject({ token: tokens.access_token, hub_id: t.portalId, app_id: t.appId, token_type: "access" });
    expect(info.scopes).toEqual(expect.arrayContaining(["crm.objects.contacts.read", "timeline"]));
    const page = (await hs.contacts.get()) as V1Page;
    expect(page.contacts).toEqual([]);
  });

  it("a bad refresh token rejects with 400 and both the RFC 6749 and the legacy fields", async () => {
    const t = await tenant();
    const hs = new Hubspot({ clientId: t.clientId, clientSecret: t.clientSecret, redirectUri: REDIRECT_URI, refreshToken: "nope", baseUrl: workerUrl() });
    const err = await rejection(hs.refreshAccessToken());
    expect(err.statusCode).toBe(400);
    expect(err.error).toMatchObject({ status: "BAD_REFRESH_TOKEN", error: "invalid_grant" });
    expect(err.error.message).toEqual(expect.any(String));
    expect(err.error.error_description).toEqual(expect.any(String));
  });
});
