import { describe, expect, it } from "vitest";
import { ACTION_TOKEN_TTL_MS } from "../../src/schemas/cards/view";
import { admin, call, expectError, tenant, unique, type Tenant } from "../helpers/api";
import { integratorPath, integratorUrl, received, script } from "../helpers/integrator";
import { callWithEnv, createRecord, defineCard, minted, offered, queryPairs, signedRequest, TYPES } from "./helpers";

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

describe("action hooks", () => {
  it.each(["GET", "DELETE"])("%s: properties go in the query after the data-fetch parameters, signed", async (method) => {
    const { t, card, id, email, base, base0 } = await setup();
    const path = `${base0}/hook-${method}`;
    await script(path, { body: JSON.stringify({ message: "Ticket resolved" }) });
    const [action] = await offered(t, card, id, [
      { type: "ACTION_HOOK", httpMethod: method, uri: `${base}/hook-${method}?existing=1`, label: "Go", associatedObjectProperties: ["protected_account", "firstname", "email", "not_set"] },
    ]);
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
    const [action] = await offered(t, card, id, [
      { type: "ACTION_HOOK", httpMethod: method.toLowerCase(), uri: `${base}/hook-${method}`, label: "Go", associatedObjectProperties: ["protected_account", "email"] },
    ]);
    expect(action!.httpMethod).toBe(method); // shown upper-case, and posted back so
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
      const [action] = await offered(t, card, id, [{ type: "CONFIRMATION_ACTION_HOOK", httpMethod: method, uri: `${base}/confirm-${method}`, confirmationMessage: "Sure?", associatedObjectProperties: ["firstname"] }]);
      expect((await run(t, id, card.id, action)).json).toEqual({ ok: true, integratorStatus: 201, message: `${method} done` });
      const req = await signedRequest(path, t.clientSecret);
      expect(req.method).toBe(method);
      if (method === "DELETE") expect(queryPairs(req.url).at(-1)).toEqual(["firstname", "Zoë"]);
      else expect(JSON.parse(req.body)).toEqual({ firstname: "Zoë" });
    }
  });

  it("IFRAME actions are not called: the answer is the unsigned iframe URL with the property values appended", async () => {
    const { t, card, id, email, base, base0 } = await setup();
    const [action] = await offered(t, card, id, [{ type: "IFRAME", uri: `${base}/edit?ticket=245`, width: 890, height: 748, label: "Edit", associatedObjectProperties: ["firstname", "email", "not_set"] }]);
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
      // A 2xx shows success; there is just no message to show when the body is not JSON.
      [{ status: 200, body: "OK!" }, { ok: true, integratorStatus: 200, message: null }],
      [{ status: 201, body: "<html>created</html>", headers: { "content-type": "text/html" } }, { ok: true, integratorStatus: 201, message: null }],
      [{ status: 409, body: "conflict" }, { ok: false, integratorStatus: 409, message: "The integrator's reply (HTTP 409) is not valid JSON" }],
      [{ status: 200, body: JSON.stringify({ other: 1 }) }, { ok: true, integratorStatus: 200, message: null }],
      [{ status: 204, body: "" }, { ok: true, integratorStatus: 204, message: null }],
      [{ bytes: 1024 * 1024 + 1 }, { ok: false, integratorStatus: null, message: "The integrator's response is larger than 1048576 bytes" }],
      [{ status: 307, headers: { location: `${integratorUrl()}/elsewhere` } }, { ok: false, integratorStatus: null, message: expect.stringContaining("redirect") }],
    ];
    const actions = await offered(t, card, id, replies.map((_, i) => ({ type: "ACTION_HOOK", httpMethod: "POST", uri: `${base}/reply-${i}` })));
    for (const [i, [reply, expected]] of replies.entries()) {
      await script(`${base0}/reply-${i}`, reply);
      const res = await run(t, id, card.id, actions[i]);
      expect(res.status, res.text).toBe(200);
      expect(res.json, JSON.stringify(reply)).toEqual(expected);
    }
  });

  it("no answer within the time limit is not ok, with a readable message (limit lowered for the test)", async () => {
    const { t, card, id, base, base0 } = await setup();
    await script(`${base0}/slow`, { delayMs: 3000 });
    const [action] = await offered(t, card, id, [{ type: "ACTION_HOOK", httpMethod: "PUT", uri: `${base}/slow` }]);
    const res = await callWithEnv({ CARD_FETCH_TIMEOUT_MS: "300" }, "POST", actionsPath("contacts", id, card.id), { token: t.oauth, body: { userId: t.userId, action } });
    expect(res.json).toEqual({ ok: false, integratorStatus: null, message: "The integrator did not answer within 300 ms" });
  });
});

describe("action URIs must lie under the card's baseUris", () => {
  it.each([
    ["another host", () => "https://evil.example.com/steal"],
    ["the same host outside the base path", () => `${integratorUrl()}${integratorPath("outside")}`],
    ["a sibling path sharing the prefix", (base: string) => `${base}-evil/x`],
    ["a path climbing out of the base", (base: string) => `${base}/../../x`],
    ["an encoded climb out of the base", (base: string) => `${base}/%2e%2e/%2e%2e/x`],
    ["credentials in the URL", (base: string) => base.replace("http://", "http://u:p@")],
    ["cloud metadata", () => "http://169.254.169.254/latest/meta-data/"],
    ["not a URL", () => "/relative/path"],
  ])("%s: 400 and nothing is called, even with a token the service's key made", async (_name, uri) => {
    const { t, card, id, base } = await setup();
    const target = uri(base);
    for (const type of ["ACTION_HOOK", "IFRAME"]) {
      const res = await run(t, id, card.id, await minted(t, card.id, id, { type, httpMethod: "POST", width: 10, height: 10, uri: target }));
      const err = expectError(res, 400, "VALIDATION_ERROR");
      expect(err.message).toBe("The action's uri is not under the card's baseUris");
      expect(err.errors[0].context.propertyName).toEqual(["action.uri"]);
    }
    if (target.startsWith(integratorUrl())) expect(await received(new URL(target).pathname)).toEqual([]);
  });
});

describe("actions: bad input, credentials and isolation", () => {
  // These are refused before the token is looked at; a well-formed token keeps the body valid.
  const hook = (base: string) => ({ type: "ACTION_HOOK", httpMethod: "POST", uri: `${base}/x`, actionToken: `v1.${Date.now()}.${"A".repeat(43)}` });
  it.each([
    ["userId missing", (b: string) => ({ action: hook(b) }), "userId"],
    ["userId not numeric", (b: string) => ({ userId: "me", action: hook(b) }), "userId"],
    ["action missing", () => ({ userId: 1 }), "action"],
    ["action not an object", () => ({ userId: 1, action: "click" }), "action"],
    ["type unknown", (b: string) => ({ userId: 1, action: { ...hook(b), type: "WEBHOOK" } }), "action.type"],
    ["hook without httpMethod", (b: string) => ({ userId: 1, action: { ...hook(b), httpMethod: undefined } }), "action.httpMethod"],
    ["httpMethod not allowed", (b: string) => ({ userId: 1, action: { ...hook(b), httpMethod: "TRACE" } }), "action.httpMethod"],
    ["uri missing", (b: string) => ({ userId: 1, action: { ...hook(b), uri: undefined } }), "action.uri"],
    ["IFRAME without a size", (b: string) => ({ userId: 1, action: { ...hook(b), type: "IFRAME" } }), "action.width"],
    ["IFRAME size not an integer", (b: string) => ({ userId: 1, action: { ...hook(b), type: "IFRAME", width: 1.5, height: 2 } }), "action.width"],
    ["properties not a list", (b: string) => ({ userId: 1, action: { ...hook(b), associatedObjectProperties: "email" } }), "action.associatedObjectProperties"],
    ["actionToken missing", (b: string) => ({ userId: 1, action: { ...hook(b), actionToken: undefined } }), "action.actionToken"],
    ["actionToken not a string", (b: string) => ({ userId: 1, action: { ...hook(b), actionToken: 42 } }), "action.actionToken"],
    ["actionToken empty", (b: string) => ({ userId: 1, action: { ...hook(b), actionToken: "" } }), "action.actionToken"],
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

/** The refusal of an action the card did not offer to this viewer on this record. */
function expectNotOffered(res: Awaited<ReturnType<typeof call>>, what = "") {
  const err = expectError(res, 400, "VALIDATION_ERROR");
  expect(err.errors[0], what).toMatchObject({ code: "ACTION_NOT_OFFERED", in: "body", context: { propertyName: ["action.actionToken"] } });
  return err;
}

describe("only actions the integrator offered run (the caller never chooses what the service signs)", () => {
  it("the card view gives every action a token wherever it appears, and each one runs with it", async () => {
    const { t, card, id, base, base0 } = await setup();
    const iframe = (name: string) => ({ type: "IFRAME", uri: `${base}/${name}`, width: 300, height: 200, label: name });
    await script(card.fetchPath, {
      body: JSON.stringify({
        // An integrator cannot choose a token: one it sends is replaced by the service's.
        results: [{ objectId: 1, title: "T-1", actions: [{ type: "ACTION_HOOK", httpMethod: "POST", uri: `${base}/item`, label: "Item", actionToken: "chosen" }, iframe("item-edit")] }],
        primaryAction: iframe("create"),
        secondaryActions: [{ type: "CONFIRMATION_ACTION_HOOK", httpMethod: "DELETE", uri: `${base}/secondary`, label: "Delete", confirmationMessage: "Sure?" }],
        settingsAction: iframe("settings"),
      }),
    });
    const c = (await call("GET", `/crm/v3/objects/contacts/${id}/cards?userId=${t.userId}`, { token: t.oauth })).json.cards[0];
    const shown = [...c.results[0].actions, c.primaryAction, ...c.secondaryActions, c.settingsAction];
    expect(shown).toHaveLength(5);
    const tokens = shown.map((a: { actionToken: string }) => a.actionToken);
    for (const token of tokens) expect(token).toMatch(/^v1\.\d+\.[\w-]{43}$/);
    expect(new Set(tokens).size).toBe(5); // one per action: each binds its own call
    for (const action of shown) {
      const res = await run(t, id, card.id, action);
      expect(res.status, res.text).toBe(200);
      expect(res.json.ok, res.text).toBe(true);
    }
    expect((await received(`${base0}/item`)).map((r) => r.method)).toEqual(["POST"]);
    expect((await received(`${base0}/secondary`)).map((r) => r.method)).toEqual(["DELETE"]);
  });

  it("a forged ?portalId= of another account is refused, with or without a token, and the integrator receives nothing", async () => {
    const { t, card, id, base, base0 } = await setup();
    const victim = await tenant();
    const uri = `${base}/delete-account?portalId=${victim.portalId}`;
    const attempts = [
      { type: "ACTION_HOOK", httpMethod: "DELETE", uri, actionToken: "anything" }, // as an attacker would post it
      // Even a token the service's own key made (a leaked key, or an integrator offering such a uri).
      await minted(t, card.id, id, { type: "ACTION_HOOK", httpMethod: "DELETE", uri }),
      await minted(t, card.id, id, { type: "ACTION_HOOK", httpMethod: "POST", uri }),
      await minted(t, card.id, id, { type: "CONFIRMATION_ACTION_HOOK", httpMethod: "GET", uri }),
    ];
    for (const action of attempts) {
      const err = expectError(await run(t, id, card.id, action), 400, "VALIDATION_ERROR");
      expect(err.message).toBe("The action's uri gives the query parameter portalId another value than the service sends for this user and record");
      expect(err.errors[0]).toMatchObject({ code: "CONFLICTING_QUERY_PARAMETER", context: { propertyName: ["action.uri"], parameter: "portalId" } });
    }
    expect(await received(`${base0}/delete-account`)).toEqual([]);
    // The web page's endpoint refuses it the same way (test/web/api.test.ts covers its normal flow).
  });

  it.each([
    ["portalId in another case", { query: "?PORTALID=1" }],
    ["a percent-encoded portalId", { query: "?portal%49d=1" }],
    ["portalId[] (PHP and qs read it as portalId)", { query: "?portalId[]=1" }],
    ["portalId after a ; separator", { query: "?x=1;portalId=1" }],
    ["userId", { query: "?a=b&userId=1" }],
    ["userEmail", { query: "?userEmail=boss@example.com" }],
    ["associatedObjectId", { query: "?associatedObjectId=0" }],
    ["associatedObjectType", { query: "?associatedObjectType=DEAL" }],
    ["a CRM property the record type requests (email)", { query: "?email=x@example.com" }],
    ["a property a GET hook appends", { query: "?firstname=x", method: "GET", props: ["firstname"] }],
    ["a property a DELETE hook appends", { query: "?firstname=x", method: "DELETE", props: ["firstname"] }],
    ["a property an IFRAME appends", { query: "?firstname=x", type: "IFRAME", props: ["firstname"] }],
  ])("refuses an action uri whose query gives %s another value than the service sends, before any call", async (_name, c: { query: string; method?: string; type?: string; props?: string[] }) => {
    const { t, card, id, base, base0 } = await setup();
    const action = await minted(t, card.id, id, { type: c.type ?? "ACTION_HOOK", httpMethod: c.method ?? "POST", width: 10, height: 10, uri: `${base}/q${c.query}`, associatedObjectProperties: c.props ?? [] });
    const err = expectError(await run(t, id, card.id, action), 400, "VALIDATION_ERROR");
    expect(err.errors[0].code).toBe("CONFLICTING_QUERY_PARAMETER");
    expect(await received(`${base0}/q`)).toEqual([]);
  });

  it("the integrator's own query is kept: its own names, the service's with the values it sends, a POST hook's property (sent in the body), an IFRAME's other account", async () => {
    const { t, card, id, email, base, base0 } = await setup();
    const echoed = `portalId=${t.portalId}&userId=${t.userId}&associatedObjectId=${id}&email=${encodeURIComponent(email)}`;
    const actions = await offered(t, card, id, [
      { type: "ACTION_HOOK", httpMethod: "POST", uri: `${base}/own?ticket=245&portal=x`, associatedObjectProperties: ["firstname"] },
      { type: "ACTION_HOOK", httpMethod: "POST", uri: `${base}/body?firstname=x`, associatedObjectProperties: ["firstname"] },
      // Integrators echo what their data fetch received into their action URLs (recorded samples do).
      { type: "CONFIRMATION_ACTION_HOOK", httpMethod: "DELETE", uri: `${base}/echo?lineItemId=7&${echoed}`, associatedObjectProperties: ["firstname"] },
      // An IFRAME gets none of the data-fetch parameters appended: its query is the integrator's alone.
      { type: "IFRAME", uri: `${base}/frame?portalId=1&userId=2`, width: 10, height: 10 },
    ]);
    for (const action of actions.slice(0, 3)) expect((await run(t, id, card.id, action)).json).toEqual({ ok: true, integratorStatus: 200, message: "ok" });
    expect((await run(t, id, card.id, actions[3])).json).toEqual({ ok: true, iframeUrl: `${base}/frame?portalId=1&userId=2`, width: 10, height: 10 });
    expect(queryPairs((await received(`${base0}/own`))[0]!.url).slice(0, 3)).toEqual([["ticket", "245"], ["portal", "x"], ["userId", String(t.userId)]]);
    expect(JSON.parse((await received(`${base0}/body`))[0]!.body)).toEqual({ firstname: "Zoë" });
    const echo = new URL((await received(`${base0}/echo`))[0]!.url).searchParams;
    expect([echo.getAll("portalId"), echo.getAll("userId"), echo.get("firstname")]).toEqual([[String(t.portalId), String(t.portalId)], [String(t.userId), String(t.userId)], "Zoë"]);
  });

  it("an action that was not offered is refused and nothing is called: another path, query, method, type, properties or size", async () => {
    const { t, card, id, base, base0 } = await setup();
    const [hook, frame] = await offered(t, card, id, [
      { type: "ACTION_HOOK", httpMethod: "POST", uri: `${base}/resolve`, associatedObjectProperties: ["firstname"] },
      { type: "IFRAME", uri: `${base}/edit`, width: 300, height: 200 },
    ]);
    const token = hook!.actionToken as string;
    const flip = (s: string, at: number) => s.slice(0, at) + (s[at] === "A" ? "B" : "A") + s.slice(at + 1);
    const [, expiresAt, mac] = token.split(".");
    const attempts: [string, Record<string, unknown>][] = [
      ["another path", { ...hook, uri: `${base}/delete-account` }],
      ["another query", { ...hook, uri: `${base}/resolve?force=1` }],
      ["a trailing slash", { ...hook, uri: `${base}/resolve/` }],
      ["another method", { ...hook, httpMethod: "DELETE" }],
      ["another type", { ...hook, type: "CONFIRMATION_ACTION_HOOK" }],
      ["more properties", { ...hook, associatedObjectProperties: ["firstname", "protected_account"] }],
      ["no properties", { ...hook, associatedObjectProperties: [] }],
      ["a hook made of the iframe", { ...frame, type: "ACTION_HOOK", httpMethod: "GET" }],
      ["another iframe size", { ...frame, width: 3000 }],
      ["another action's token", { ...hook, actionToken: frame!.actionToken }],
      ["a token with one character changed", { ...hook, actionToken: flip(token, token.length - 5) }],
      ["a token with a later expiry", { ...hook, actionToken: `v1.${Number(expiresAt) + 1000}.${mac}` }],
      ["a token of another format", { ...hook, actionToken: `v2.${expiresAt}.${mac}` }],
      ["garbage", { ...hook, actionToken: "not-a-token" }],
    ];
    for (const [what, action] of attempts) {
      expectNotOffered(await run(t, id, card.id, action), what);
    }
    expect(await received(base0)).toEqual([]);
    // Control: the actions as shown run (the label and confirmation texts are not bound: they change no call).
    expect((await run(t, id, card.id, { ...hook, httpMethod: "post", label: "Renamed" })).json).toMatchObject({ ok: true });
    expect((await run(t, id, card.id, frame)).json).toMatchObject({ ok: true, iframeUrl: `${base}/edit`, width: 300, height: 200 });
    expect(await received(`${base0}/resolve`)).toHaveLength(1);
  });

  it("a valid token does not carry over to another record, user, card or account", async () => {
    const { t, card, id, base, base0 } = await setup();
    const [action] = await offered(t, card, id, [{ type: "ACTION_HOOK", httpMethod: "POST", uri: `${base}/resolve` }]);
    // Another record of the same account.
    expectNotOffered(await run(t, await createRecord(t, "contacts"), card.id, action), "another record");
    // Another user of the same account.
    const colleague = await admin("POST", `/admin/v1/accounts/${t.portalId}/users`, { email: `${unique("u")}@example.com`, password: "correct horse battery" });
    expectNotOffered(await run(t, id, card.id, action, colleague.userId), "another user");
    // Another record type (card) of the same app with the same base URI.
    const sibling = await defineCard(t, { baseUris: card.body.baseUris });
    expectNotOffered(await run(t, id, sibling.id, action), "another card");
    // The same record id on another object type: the card is not shown there (404 before any token check).
    // Another account where the same app is installed, on that account's own record, as its own user.
    const b = await tenant();
    const shared = (await admin("POST", `/admin/v1/accounts/${b.portalId}/installs`, { appId: t.appId })).access_token as string;
    const theirs = await createRecord(b, "contacts");
    expectNotOffered(await call("POST", actionsPath("contacts", theirs, card.id), { token: shared, body: { userId: b.userId, action } }), "another account");
    // And this account's record is not theirs to act on at all.
    expectError(await call("POST", actionsPath("contacts", id, card.id), { token: shared, body: { userId: b.userId, action } }), 404, "OBJECT_NOT_FOUND");
    expect(await received(base0)).toEqual([]);
    // Control: it still runs for the viewer and record it was shown for.
    expect((await run(t, id, card.id, action)).json).toMatchObject({ ok: true });
    expect(await received(`${base0}/resolve`)).toHaveLength(1);
  });

  it("an expired token is refused with its own code; a token from the future or another app's secret is not offered", async () => {
    const { t, card, id, base, base0 } = await setup();
    const action = { type: "ACTION_HOOK", httpMethod: "POST", uri: `${base}/late` };
    const expired = expectError(await run(t, id, card.id, await minted(t, card.id, id, action, { now: Date.now() - ACTION_TOKEN_TTL_MS - 1 })), 400, "VALIDATION_ERROR");
    expect(expired.errors[0]).toMatchObject({ code: "ACTION_TOKEN_EXPIRED", context: { propertyName: ["action.actionToken"] } });
    expect(expired.message).toContain("view the card again");
    expectNotOffered(await run(t, id, card.id, await minted(t, card.id, id, action, { now: Date.now() + 10 * 60_000 })), "future");
    const other = await tenant();
    expectNotOffered(await run(t, id, card.id, await minted(t, card.id, id, action, { secret: other.clientSecret })), "another secret");
    expectNotOffered(await run(t, id, card.id, await minted(t, card.id, id, action, { appId: other.appId })), "another app id");
    expect(await received(base0)).toEqual([]);
    // A token made a little under an hour ago still runs.
    expect((await run(t, id, card.id, await minted(t, card.id, id, action, { now: Date.now() - ACTION_TOKEN_TTL_MS + 60_000 }))).json).toMatchObject({ ok: true });
  });

  it("the baseUris are checked again when the action runs: narrowed after the view, the shown action is refused", async () => {
    const { t, card, id, base, base0 } = await setup();
    const [action] = await offered(t, card, id, [{ type: "ACTION_HOOK", httpMethod: "POST", uri: `${base}/resolve` }]);
    const put = await call("PUT", `${TYPES}/${card.id}`, { token: t.developerKey, body: { baseUris: [`${integratorUrl()}${integratorPath("elsewhere")}`] } });
    expect(put.status, put.text).toBe(200);
    expect(expectError(await run(t, id, card.id, action), 400, "VALIDATION_ERROR").errors[0].code).toBe("NOT_UNDER_BASE_URIS");
    expect(await received(base0)).toEqual([]);
  });
});
