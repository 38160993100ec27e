/**
 * The record page's JSON endpoints: one card per request and card actions, authenticated by
 * the session cookie, CSRF-checked on POST, scoped to the session's account, rate limited per user.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { admin, call, expectError, tenant, unique } from "../helpers/api";
import { received, script } from "../helpers/integrator";
import { createRecord, defineCard, minted, queryPairs, signedRequest } from "../cards/helpers";
import { page, postAction, signIn, type Browser } from "./helpers";

const cardUrl = (type: string, id: number, cardId: number) => `/app/api/cards/${type}/${id}/${cardId}`;

/**
 * Actions as the record page receives them: the card's data fetch answers `actions` as secondary actions,
 * and the page's card endpoint returns them with their actionTokens.
 */
async function shown(b: Browser, card: { id: number; fetchPath: string }, id: number, actions: Record<string, unknown>[]) {
  await script(card.fetchPath, { body: JSON.stringify({ results: [], secondaryActions: actions.map((a) => ({ label: "Go", ...a })) }) });
  const res = await page(b, cardUrl("contacts", id, card.id));
  expect(res.json.status, res.text).toBe("OK");
  expect(res.json.secondaryActions).toHaveLength(actions.length);
  return res.json.secondaryActions as Record<string, unknown>[];
}

/** A tenant with a contact card (status definitions, requesting `email`), a contact, and a signed-in browser. */
async function setup() {
  const t = await tenant();
  const card = await defineCard(t, {
    title: "Tickets",
    propertyDefinitions: [{ name: "status", label: "Status", dataType: "STATUS", options: [{ type: "SUCCESS", label: "Open", name: "open" }] }],
    associatedHubSpotObjectTypeProperties: { CONTACT: ["email"] },
  });
  const email = `${unique()}@example.com`;
  const id = await createRecord(t, "contacts", { email, firstname: "Zoë" });
  const base = card.body.baseUris[0]!;
  return { t, card, id, email, base, basePath: new URL(base).pathname, b: await signIn(t) };
}

describe("GET /app/api/cards/:objectType/:objectId/:cardId", () => {
  it("fetches one card from its integrator as the signed-in user and adds the property definitions", async () => {
    const { t, card, id, email, b } = await setup();
    await script(card.fetchPath, { body: JSON.stringify({ results: [{ objectId: 1, title: "T-1", link: null, status: "open", extra: "dropped" }], totalCount: 7, allItemsLink: "https://x.example/all" }) });
    const res = await page(b, cardUrl("contacts", id, card.id));
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.json).toEqual({
      cardId: card.id,
      appId: t.appId,
      title: "Tickets",
      status: "OK",
      results: [{ objectId: 1, title: "T-1", link: null, status: "open", actions: [] }],
      totalCount: 7,
      allItemsLink: "https://x.example/all",
      itemLabel: "Tickets",
      propertyDefinitions: [{ name: "status", label: "Status", dataType: "STATUS", options: [{ type: "SUCCESS", label: "Open", name: "open" }] }],
    });
    const req = await signedRequest(card.fetchPath, t.clientSecret);
    expect(queryPairs(req.url)).toEqual([
      ["userId", String(t.userId)],
      ["userEmail", t.userEmail],
      ["associatedObjectId", String(id)],
      ["associatedObjectType", "CONTACT"],
      ["portalId", String(t.portalId)],
      ["email", email],
    ]);
    expect(req.headers.cookie).toBeUndefined(); // nothing of the browser's request is forwarded
  });

  it("answers a failing integrator as that card's ERROR", async () => {
    const { card, id, b } = await setup();
    await script(card.fetchPath, { status: 500, body: "{}" });
    const res = await page(b, cardUrl("contacts", id, card.id));
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ cardId: card.id, status: "ERROR", error: "The integrator answered HTTP 500", results: [] });
  });

  it("needs a session (401, never a redirect)", async () => {
    const { card, id } = await setup();
    expectError(await page(null, cardUrl("contacts", id, card.id)), 401, "INVALID_AUTHENTICATION");
    expect(await received(card.fetchPath)).toEqual([]);
  });

  it.each([
    ["an object type without cards", "products", "objectType"],
    ["a non-numeric record id", "contacts/abc", "objectId"],
  ])("refuses %s", async (_name, segment, field) => {
    const { b } = await setup();
    const path = segment.includes("/") ? `/app/api/cards/${segment}/1` : `/app/api/cards/${segment}/1/1`;
    const body = expectError(await page(b, path), 400, "VALIDATION_ERROR");
    expect(body.errors[0].context.propertyName).toEqual([field]);
  });

  it("is a 404 for another account's record, a card of another type and an unknown card, and calls nobody", async () => {
    const { card, id } = await setup();
    const intruder = await signIn(await tenant());
    expectError(await page(intruder, cardUrl("contacts", id, card.id)), 404, "OBJECT_NOT_FOUND");
    const own = await setup();
    const company = await createRecord(own.t, "companies", { name: "Acme" });
    expectError(await page(own.b, cardUrl("companies", company, own.card.id)), 404, "OBJECT_NOT_FOUND");
    expectError(await page(own.b, cardUrl("contacts", own.id, card.id)), 404, "OBJECT_NOT_FOUND"); // the other account's card
    expect(await received(card.fetchPath)).toEqual([]);
  });
});

describe("POST /app/api/cards/:objectType/:objectId/:cardId/actions", () => {
  it("runs an action hook as the signed-in user and returns the integrator's message", async () => {
    const { t, card, id, base, basePath, b } = await setup();
    const path = `${basePath}/resolve`;
    await script(path, { body: JSON.stringify({ message: "Ticket resolved" }) });
    const [action] = await shown(b, card, id, [{ type: "ACTION_HOOK", httpMethod: "POST", uri: `${base}/resolve`, label: "Resolve", associatedObjectProperties: ["firstname"] }]);
    expect(action!.actionToken).toMatch(/^v1\./);
    const res = await postAction(b, `${cardUrl("contacts", id, card.id)}/actions`, { action });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ ok: true, integratorStatus: 200, message: "Ticket resolved" });
    const req = await signedRequest(path, t.clientSecret);
    expect(JSON.parse(req.body)).toEqual({ firstname: "Zoë" });
    expect(queryPairs(req.url)[0]).toEqual(["userId", String(t.userId)]);
  });

  it("runs only actions the card offered to this user on this record: nothing is called otherwise", async () => {
    const { t, card, id, base, basePath, b } = await setup();
    const [action] = await shown(b, card, id, [{ type: "ACTION_HOOK", httpMethod: "POST", uri: `${base}/resolve` }]);
    const post = (body: unknown, who = b, record = id) => postAction(who, `${cardUrl("contacts", record, card.id)}/actions`, body);
    // Without the token, with another action's uri or method, and with a forged portalId.
    expect(expectError(await post({ action: { ...action, actionToken: undefined } }), 400, "VALIDATION_ERROR").errors[0].context.propertyName).toEqual(["action.actionToken"]);
    for (const forged of [{ ...action, uri: `${base}/delete-account` }, { ...action, httpMethod: "DELETE" }, { ...action, actionToken: "v1.1.x" }]) {
      expect(expectError(await post({ action: forged }), 400, "VALIDATION_ERROR").errors[0].code).toBe("ACTION_NOT_OFFERED");
    }
    const portal = await minted(t, card.id, id, { type: "ACTION_HOOK", httpMethod: "POST", uri: `${base}/delete-account?portalId=1` });
    expect(expectError(await post({ action: portal }), 400, "VALIDATION_ERROR").errors[0].code).toBe("CONFLICTING_QUERY_PARAMETER");
    // The same token on another record of the account, and by another user of it.
    expect(expectError(await post({ action }, b, await createRecord(t, "contacts")), 400, "VALIDATION_ERROR").errors[0].code).toBe("ACTION_NOT_OFFERED");
    const colleague = await admin("POST", `/admin/v1/accounts/${t.portalId}/users`, { email: `${unique("u")}@example.com`, password: "correct horse battery" });
    const other = await signIn({ ...t, userId: colleague.userId, userEmail: colleague.email });
    expect(expectError(await post({ action }, other), 400, "VALIDATION_ERROR").errors[0].code).toBe("ACTION_NOT_OFFERED");
    expect(await received(basePath)).toEqual([]);
    // The signed-in user it was shown to runs it.
    expect((await post({ action })).json).toEqual({ ok: true, integratorStatus: 200, message: "ok" });
  });

  it("gives the iframe URL of an IFRAME action without calling it", async () => {
    const { card, id, base, basePath, b } = await setup();
    const [action] = await shown(b, card, id, [{ type: "IFRAME", uri: `${base}/edit?x=1`, width: 890, height: 748, label: "Edit", associatedObjectProperties: ["firstname"] }]);
    const res = await postAction(b, `${cardUrl("contacts", id, card.id)}/actions`, { action });
    expect(res.json).toEqual({ ok: true, iframeUrl: `${base}/edit?x=1&firstname=Zo%C3%AB`, width: 890, height: 748 });
    expect(await received(`${basePath}/edit`)).toEqual([]);
  });

  it.each([
    ["no CSRF token", null],
    ["a wrong CSRF token", "not-the-token"],
  ])("refuses %s with 403 and calls nothing", async (_name, csrf) => {
    const { card, id, base, basePath, b } = await setup();
    const [action] = await shown(b, card, id, [{ type: "ACTION_HOOK", httpMethod: "POST", uri: `${base}/csrf` }]);
    const res = await postAction(b, `${cardUrl("contacts", id, card.id)}/actions`, { action }, csrf);
    expectError(res, 403, "FORBIDDEN");
    expect(await received(`${basePath}/csrf`)).toEqual([]);
  });

  it("refuses another session's CSRF token", async () => {
    const { t, card, id, base, basePath, b } = await setup();
    const second = await signIn(t); // same user, another session: another token
    expect(second.csrf).not.toBe(b.csrf);
    const [action] = await shown(b, card, id, [{ type: "ACTION_HOOK", httpMethod: "POST", uri: `${base}/csrf2` }]);
    expectError(await postAction(b, `${cardUrl("contacts", id, card.id)}/actions`, { action }, second.csrf), 403, "FORBIDDEN");
    expect(await received(`${basePath}/csrf2`)).toEqual([]);
  });

  it("needs a session", async () => {
    const { card, id, base, b } = await setup();
    const [action] = await shown(b, card, id, [{ type: "ACTION_HOOK", httpMethod: "POST", uri: `${base}/x` }]);
    expectError(await postAction(null, `${cardUrl("contacts", id, card.id)}/actions`, { action }, "x"), 401, "INVALID_AUTHENTICATION");
  });

  it.each([
    ["no action", {}, "action"],
    ["an unknown action type", { action: { type: "LINK", uri: "https://x.example" } }, "action.type"],
    ["an IFRAME without a size", { action: { type: "IFRAME", uri: "https://x.example", actionToken: "x" } }, "action.width"],
    ["an action without its token", { action: { type: "IFRAME", uri: "https://x.example", width: 1, height: 1 } }, "action.actionToken"],
  ])("refuses %s", async (_name, body, field) => {
    const { card, id, b } = await setup();
    const res = expectError(await postAction(b, `${cardUrl("contacts", id, card.id)}/actions`, body), 400, "VALIDATION_ERROR");
    expect(res.errors[0].context.propertyName).toEqual([field]);
  });

  it("refuses a URI outside the card's baseUris and calls nothing", async () => {
    const { t, card, id, base, basePath, b } = await setup();
    const action = await minted(t, card.id, id, { type: "ACTION_HOOK", httpMethod: "GET", uri: `${base}-evil/x` }); // a token the view could not give
    const res = expectError(await postAction(b, `${cardUrl("contacts", id, card.id)}/actions`, { action }), 400, "VALIDATION_ERROR");
    expect(res.errors[0].context.propertyName).toEqual(["action.uri"]);
    expect(await received(`${basePath}-evil`)).toEqual([]);
  });

  it("is a 404 on another account's record", async () => {
    const { card, id, base, basePath, b } = await setup();
    const intruder = await signIn(await tenant());
    const [action] = await shown(b, card, id, [{ type: "ACTION_HOOK", httpMethod: "POST", uri: `${base}/steal` }]); // a genuine token of the owner
    expectError(await postAction(intruder, `${cardUrl("contacts", id, card.id)}/actions`, { action }), 404, "OBJECT_NOT_FOUND");
    expect(await received(`${basePath}/steal`)).toEqual([]);
  });

  it("GET on the actions path is not allowed", async () => {
    const { card, id, b } = await setup();
    const res = await call("GET", `${cardUrl("contacts", id, card.id)}/actions`, { headers: { cookie: b.cookie } });
    expectError(res, 405, "METHOD_NOT_ALLOWED");
  });
});

describe("rate limit of signed-in users", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A session cookie straight from POST /login (no page visited, so nothing counted yet). */
  async function cookieFor(email: string) {
    const res = await call("POST", "/login", {
      raw: new URLSearchParams({ email, password: "correct horse battery" }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(303);
    return { cookie: (res.headers.get("set-cookie") ?? "").split(";")[0]!, csrf: "" };
  }

  it("the (limit+1)th card fetch in a window is a 429 that never reaches the integrator; the user's sessions share one count, another user has their own", async () => {
    // The clock the Worker reads is pinned to the start of a 10-second window, so the window cannot turn mid-test.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Math.ceil(Date.now() / 10_000) * 10_000 + 10_000);
    const t = await tenant({ rateLimit: 3 });
    const card = await defineCard(t, {});
    await script(card.fetchPath, { body: JSON.stringify({ results: [] }) });
    const id = await createRecord(t, "contacts", { email: `${unique()}@example.com` }); // the private app's own bucket
    const b = await cookieFor(t.userEmail);
    const url = cardUrl("contacts", id, card.id);

    for (let i = 0; i < 3; i++) {
      const res = await page(b, url);
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get("x-service-ratelimit-max")).toBe("3");
      expect(res.headers.get("x-service-ratelimit-remaining")).toBe(String(2 - i));
    }
    const limited = await page(b, url);
    const body = expectError(limited, 429, "RATE_LIMITS");
    expect(body.policyName).toBe("TEN_SECONDLY_ROLLING");
    expect(limited.headers.get("x-service-ratelimit-remaining")).toBe("0");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await received(card.fetchPath)).toHaveLength(3);

    // Signing in again gives no fresh budget: pages and card actions of any session of the user are counted.
    const again = await cookieFor(t.userEmail);
    expectError(await page(again, url), 429, "RATE_LIMITS");
    expectError(await page(again, "/app"), 429, "RATE_LIMITS");
    expectError(await postAction(again, `${url}/actions`, { action: { type: "ACTION_HOOK", httpMethod: "POST", uri: `${card.body.baseUris[0]}/hook` } }, "x"), 429, "RATE_LIMITS");
    expect(await received(card.fetchPath)).toHaveLength(3);

    const colleague = `${unique("u")}@example.com`;
    await admin("POST", `/admin/v1/accounts/${t.portalId}/users`, { email: colleague, password: "correct horse battery" });
    expect((await page(await cookieFor(colleague), url)).status).toBe(200);
    expect(await received(card.fetchPath)).toHaveLength(4);
  });

  it("signed-out requests are not counted (they are answered without any work)", async () => {
    const t = await tenant({ rateLimit: 1 });
    for (let i = 0; i < 3; i++) expect((await page(null, "/app")).status).toBe(302);
    const res = await page(await cookieFor(t.userEmail), "/app");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-service-ratelimit-remaining")).toBe("0");
  });
});
