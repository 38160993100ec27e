import { describe, expect, it } from "vitest";
import { call, expectError, tenant, unique, type Tenant } from "../helpers/api";
import { integratorPath, integratorUrl, received, script } from "../helpers/integrator";
import { callWithEnv, createRecord, defineCard, queryPairs, signedRequest } from "./helpers";

const actionsPath = (type: string, id: number, cardId: number) => `/crm/v3/objects/${type}/${id}/cards/${cardId}/actions`;

/** A tenant with a contact card that requests `email`, and a contact with a few properties. */
async function setup() {
  const t = await tenant();
  const card = await defineCard(t, { associatedHubSpotObjectTypeProperties: { CONTACT: ["email"] } });
  const email = `${unique()}@example.com`;
  const id = await createRecord(t, "contacts", { email, firstname: "Zoë", protected_account: "yes" });
  const base = card.body.baseUris[0]!;
  return { t, card, id, email, base, base0: new URL(base).pathname };
}

const run = (t: Tenant, id: number, cardId: number, action: unknown, userId: unknown = t.userId) =>
  call("POST", actionsPath("contacts", id, cardId), { token: t.oauth, body: { userId, action } });

describe("action hooks (spec 2.11, 4.6, 7.1)", () => {
  it.each(["GET", "DELETE"])("%s: properties go in the query after the data-fetch parameters, signed", async (method) => {
    const { t, card, id, email, base, base0 } = await setup();
    const path = `${base0}/hook-${method}`;
    await script(path, { body: JSON.stringify({ message: "Ticket resolved" }) });
    const action = { type: "ACTION_HOOK", httpMethod: method, uri: `${base}/hook-${method}?existing=1`, label: "Go", associatedObjectProperties: ["protected_account", "firstname", "email", "not_set"] };
    const res = await run(t, id, card.id, action);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ ok: true, integratorStatus: 200, message: "Ticket resolved" });

    const req = await signedRequest(path, t.clientSecret);
    expect(req.method).toBe(method);
    expect(req.body).toBe("");
    expect(queryPairs(req.url)).toEqual([
      ["existing", "1"],
      ["userId", String(t.userId)],
      ["userEmail", t.userEmail],
      ["associatedObjectId", String(id)],
      ["associatedObjectType", "CONTACT"],
      ["portalId", String(t.portalId)],
      ["email", email],
      ["protected_account", "yes"],
      ["firstname", "Zoë"], // email is already there as a data-fetch parameter; not_set has no value
    ]);
  });

  it.each(["POST", "PUT", "PATCH"])("%s: properties go in a JSON body, signed with the body", async (method) => {
    const { t, card, id, email, base, base0 } = await setup();
    const path = `${base0}/hook-${method}`;
    const action = { type: "ACTION_HOOK", httpMethod: method.toLowerCase(), uri: `${base}/hook-${method}`, label: "Go", associatedObjectProperties: ["protected_account", "email"] };
    const res = await run(t, id, card.id, action);
    expect(res.json).toEqual({ ok: true, integratorStatus: 200, message: "ok" });
    const req = await signedRequest(path, t.clientSecret);
    expect(req.method).toBe(method);
    expect(req.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(req.body)).toEqual({ protected_account: "yes", email });
    expect(queryPairs(req.url).map(([k]) => k)).toEqual(["userId", "userEmail", "associatedObjectId", "associatedObjectType", "portalId", "email"]);
  });

  it("CONFIRMATION_ACTION_HOOK is called the same way (the user has confirmed)", async () => {
    const { t, card, id, base, base0 } = await setup();
    for (const method of ["DELETE", "POST"]) {
      const path = `${base0}/confirm-${method}`;
      await script(path, { status: 201, body: JSON.stringify({ message: `${method} done` }) });
      const action = { type: "CONFIRMATION_ACTION_HOOK", httpMethod: method, uri: `${base}/confirm-${method}`, confirmationMessage: "Sure?", associatedObjectProperties: ["firstname"] };
      expect((await run(t, id, card.id, action)).json).toEqual({ ok: true, integratorStatus: 201, message: `${method} done` });
      const req = await signedRequest(path, t.clientSecret);
      expect(req.method).toBe(method);
      if (method === "DELETE") expect(queryPairs(req.url).at(-1)).toEqual(["firstname", "Zoë"]);
      else expect(JSON.parse(req.body)).toEqual({ firstname: "Zoë" });
    }
  });

  it("IFRAME actions are not called: the answer is the unsigned iframe URL with the property values appended", async () => {
    const { t, card, id, email, base, base0 } = await setup();
    const action = { type: "IFRAME", uri: `${base}/edit?ticket=245`, width: 890, height: 748, label: "Edit", associatedObjectProperties: ["firstname", "email", "not_set"] };
    const res = await run(t, id, card.id, action);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ ok: true, iframeUrl: `${base}/edit?ticket=245&firstname=Zo%C3%AB&email=${email}`, width: 890, height: 748 });
    expect(await received(`${base0}/edit`)).toEqual([]);
  });

  it("the integrator's reply: 2xx is ok and 4xx/5xx are not, whatever the body; the JSON message is passed on; an error without JSON is explained", async () => {
    const { t, card, id, base, base0 } = await setup();
    const replies: [Record<string, unknown>, unknown][] = [
      [{ status: 400, body: JSON.stringify({ message: "Ticket is locked" }) }, { ok: false, integratorStatus: 400, message: "Ticket is locked" }],
      [{ status: 404, body: "" }, { ok: false, integratorStatus: 404, message: "The integrator answered HTTP 404" }],
      [{ status: 503, body: JSON.stringify({ message: "down for maintenance" }) }, { ok: false, integratorStatus: 503, message: "down for maintenance" }],
      [{ status: 500, body: "<html>oops</html>" }, { ok: false, integratorStatus: 500, message: "The integrator's reply (HTTP 500) is not valid JSON" }],
      // spec 7.1: a 2xx shows success; there is just no message to show when the body is not JSON.
      [{ status: 200, body: "OK!" }, { ok: true, integratorStatus: 200, message: null }],
      [{ status: 201, body: "<html>created</html>", headers: { "content-type": "text/html" } }, { ok: true, integratorStatus: 201, message: null }],
      [{ status: 409, body: "conflict" }, { ok: false, integratorStatus: 409, message: "The integrator's reply (HTTP 409) is not valid JSON" }],
      [{ status: 200, body: JSON.stringify({ other: 1 }) }, { ok: true, integratorStatus: 200, message: null }],
      [{ status: 204, body: "" }, { ok: true, integratorStatus: 204, message: null }],
      [{ bytes: 1024 * 1024 + 1 }, { ok: false, integratorStatus: null, message: "The integrator's response is larger than 1048576 bytes" }],
      [{ status: 307, headers: { location: `${integratorUrl()}/elsewhere` } }, { ok: false, integratorStatus: null, message: expect.stringContaining("redirect") }],
    ];
    for (const [i, [reply, expected]] of replies.entries()) {
      await script(`${base0}/reply-${i}`, reply);
      const res = await run(t, id, card.id, { type: "ACTION_HOOK", httpMethod: "POST", uri: `${base}/reply-${i}` });
      expect(res.status, res.text).toBe(200);
      expect(res.json, JSON.stringify(reply)).toEqual(expected);
    }
  });

  it("no answer within the time limit is not ok, with a readable message (limit lowered for the test)", async () => {
    const { t, card, id, base, base0 } = await setup();
    await script(`${base0}/slow`, { delayMs: 3000 });
    const res = await callWithEnv({ CARD_FETCH_TIMEOUT_MS: "300" }, "POST", actionsPath("contacts", id, card.id), {
      token: t.oauth,
      body: { userId: t.userId, action: { type: "ACTION_HOOK", httpMethod: "PUT", uri: `${base}/slow` } },
    });
    expect(res.json).toEqual({ ok: false, integratorStatus: null, message: "The integrator did not answer within 300 ms" });
  });
});

describe("action URIs must lie under the card's baseUris (spec 2.9)", () => {
  it.each([
    ["another host", () => "https://evil.example.com/steal"],
    ["the same host outside the base path", () => `${integratorUrl()}${integratorPath("outside")}`],
    ["a sibling path sharing the prefix", (base: string) => `${base}-evil/x`],
    ["a path climbing out of the base", (base: string) => `${base}/../../x`],
    ["an encoded climb out of the base", (base: string) => `${base}/%2e%2e/%2e%2e/x`],
    ["credentials in the URL", (base: string) => base.replace("http://", "http://u:p@")],
    ["cloud metadata", () => "http://169.254.169.254/latest/meta-data/"],
    ["not a URL", () => "/relative/path"],
  ])("%s: 400 and nothing is called", async (_name, uri) => {
    const { t, card, id, base } = await setup();
    const target = uri(base);
    for (const type of ["ACTION_HOOK", "IFRAME"]) {
      const res = await run(t, id, card.id, { type, httpMethod: "POST", width: 10, height: 10, uri: target });
      const err = expectError(res, 400, "VALIDATION_ERROR");
      expect(err.message).toBe("The action's uri is not under the card's baseUris");
      expect(err.errors[0].context.propertyName).toEqual(["action.uri"]);
    }
    if (target.startsWith(integratorUrl())) expect(await received(new URL(target).pathname)).toEqual([]);
  });
});

describe("actions: bad input, credentials and isolation", () => {
  const hook = (base: string) => ({ type: "ACTION_HOOK", httpMethod: "POST", uri: `${base}/x` });
  it.each([
    ["userId missing", (b: string) => ({ action: hook(b) }), "userId"],
    ["userId not numeric", (b: string) => ({ userId: "me", action: hook(b) }), "userId"],
    ["action missing", () => ({ userId: 1 }), "action"],
    ["action not an object", () => ({ userId: 1, action: "click" }), "action"],
    ["type unknown", (b: string) => ({ userId: 1, action: { ...hook(b), type: "WEBHOOK" } }), "action.type"],
    ["hook without httpMethod", (b: string) => ({ userId: 1, action: { type: "ACTION_HOOK", uri: `${b}/x` } }), "action.httpMethod"],
    ["httpMethod not allowed", (b: string) => ({ userId: 1, action: { ...hook(b), httpMethod: "TRACE" } }), "action.httpMethod"],
    ["uri missing", () => ({ userId: 1, action: { type: "ACTION_HOOK", httpMethod: "GET" } }), "action.uri"],
    ["IFRAME without a size", (b: string) => ({ userId: 1, action: { type: "IFRAME", uri: `${b}/x` } }), "action.width"],
    ["IFRAME size not an integer", (b: string) => ({ userId: 1, action: { type: "IFRAME", uri: `${b}/x`, width: 1.5, height: 2 } }), "action.width"],
    ["properties not a list", (b: string) => ({ userId: 1, action: { ...hook(b), associatedObjectProperties: "email" } }), "action.associatedObjectProperties"],
  ])("400: %s", async (_name, body, field) => {
    const { t, card, id, base } = await setup();
    const b = body(base) as { userId?: number };
    if (b.userId === 1) b.userId = t.userId;
    const res = await call("POST", actionsPath("contacts", id, card.id), { token: t.oauth, body: b });
    expect(expectError(res, 400, "VALIDATION_ERROR").message).toContain(field);
  });

  it("400 for a user of another account; 404 for an unknown card, a card not on this object type, or a missing record", async () => {
    const { t, card, id, base } = await setup();
    const other = await tenant();
    expectError(await run(t, id, card.id, hook(base), other.userId), 400, "VALIDATION_ERROR");
    expectError(await run(t, id, 999_999_999, hook(base)), 404, "OBJECT_NOT_FOUND");
    const companyCard = await defineCard(t, { associatedHubSpotObjectTypes: ["COMPANY"] });
    expectError(await run(t, id, companyCard.id, { ...hook(companyCard.body.baseUris[0]!) }), 404, "OBJECT_NOT_FOUND");
    expectError(await run(t, 999_999_999, card.id, hook(base)), 404, "OBJECT_NOT_FOUND");
    expect(expectError(await call("POST", `/crm/v3/objects/contacts/${id}/cards/abc/actions`, { token: t.oauth, body: { userId: t.userId, action: hook(base) } }), 400, "VALIDATION_ERROR").message).toContain("cardId");
    expect(expectError(await call("POST", `/crm/v3/objects/products/${id}/cards/${card.id}/actions`, { token: t.oauth, body: { userId: t.userId, action: hook(base) } }), 400, "VALIDATION_ERROR").message).toContain("objectType");
    expect(await received(new URL(`${base}/x`).pathname)).toEqual([]);
  });

  it("needs an account token with the object type's read scope", async () => {
    const { t, card, id, base } = await setup();
    const body = { userId: t.userId, action: hook(base) };
    expectError(await call("POST", actionsPath("contacts", id, card.id), { body }), 401, "INVALID_AUTHENTICATION");
    expectError(await call("POST", actionsPath("contacts", id, card.id), { token: t.developerKey, body }), 403, "FORBIDDEN");
    const ticketsOnly = await tenant({ scopes: ["oauth", "tickets"] });
    expectError(await call("POST", actionsPath("contacts", id, card.id), { token: ticketsOnly.pat, body: { ...body, userId: ticketsOnly.userId } }), 403, "MISSING_SCOPES");
  });

  it("another account cannot run this account's card actions: 404 and no call", async () => {
    const { t, card, id, base, base0 } = await setup();
    const b = await tenant();
    const theirRecord = await createRecord(b, "contacts");
    // A's record with B's token.
    expectError(await call("POST", actionsPath("contacts", id, card.id), { token: b.oauth, body: { userId: b.userId, action: hook(base) } }), 404, "OBJECT_NOT_FOUND");
    // B's own record with A's card, whose app is not installed in B's account.
    expectError(await call("POST", actionsPath("contacts", theirRecord, card.id), { token: b.pat, body: { userId: b.userId, action: hook(base) } }), 404, "OBJECT_NOT_FOUND");
    expect(await received(`${base0}/x`)).toEqual([]);
    expect(t.portalId).not.toBe(b.portalId);
  });
});
