import { describe, expect, it } from "vitest";
import { admin, call, expectError, tenant, unique } from "../helpers/api";
import { integratorPath, integratorUrl, received, script } from "../helpers/integrator";
import { createRecord, defineCard, queryPairs, signedRequest, TYPES, viewPath } from "./helpers";

/** An action token as the view attaches it (card-action-token.ts). */
const TOKEN = expect.stringMatching(/^v1\.\d+\.[\w-]{43}$/);

const ok = (body: unknown) => ({ body: JSON.stringify(body) });

describe("data fetch: the signed request the integrator receives", () => {
  it("sends exactly the documented parameters in order, after the dataFetchUri's own query, signed v2 and v3", async () => {
    const t = await tenant();
    const fetchPath = integratorPath("fetch");
    const card = await defineCard(t, {
      dataFetchUri: `${integratorUrl()}${fetchPath}?source=crm&x=1`,
      associatedHubSpotObjectTypeProperties: { CONTACT: ["lastname", "not_set", "email", "firstname", "hs_object_id"] },
    });
    const id = await createRecord(t, "contacts", { email: "o'brien+x@example.com", firstname: "Zoë", lastname: "O'Brien & Co", phone: "123" });
    await script(fetchPath, ok({ results: [] }));

    const res = await call("GET", viewPath("contacts", id, t.userId), { token: t.oauth });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ cards: [{ cardId: card.id, appId: t.appId, title: "Tickets", status: "OK", results: [], itemLabel: "Tickets" }] });

    const req = await signedRequest(fetchPath, t.clientSecret);
    expect(req.method).toBe("GET");
    expect(queryPairs(req.url)).toEqual([
      ["source", "crm"],
      ["x", "1"],
      ["userId", String(t.userId)],
      ["userEmail", t.userEmail],
      ["associatedObjectId", String(id)],
      ["associatedObjectType", "CONTACT"],
      ["portalId", String(t.portalId)],
      ["lastname", "O'Brien & Co"],
      ["email", "o'brien+x@example.com"],
      ["firstname", "Zoë"],
      ["hs_object_id", String(id)],
    ]);
    // The e-mail's @ travels unescaped, as in the real service's documented URL (the signature covers the URL as sent).
    expect(req.url).toContain(`&userEmail=${t.userEmail}&`);
    // Nothing of the caller's credentials is forwarded.
    expect(req.headers.authorization).toBeUndefined();
    expect(req.headers.cookie).toBeUndefined();
  });

  it("asks every installed app's record types for this object type, and no others", async () => {
    const t = await tenant();
    const mine = await defineCard(t, { title: "Mine" });
    const onCompanies = await defineCard(t, { associatedHubSpotObjectTypes: ["COMPANY"] });
    // A second app installed in the account, with a contact card.
    const other = await admin("POST", "/admin/v1/apps", { name: unique("app"), redirectUris: ["https://x.example.com/cb"] });
    await admin("POST", `/admin/v1/accounts/${t.portalId}/installs`, { appId: other.appId });
    const theirs = await defineCard({ ...t, appId: other.appId, developerKey: other.developerKey }, { title: "Theirs" });
    // A third app with a contact card that is not installed here.
    const stranger = await tenant();
    const notInstalled = await defineCard(stranger);

    const id = await createRecord(t, "contacts", { email: `${unique()}@example.com` });
    const res = await call("GET", viewPath("contacts", id, t.userId), { token: t.pat });
    expect(res.status, res.text).toBe(200);
    expect(res.json.cards.map((c: { cardId: number; appId: number; title: string }) => [c.cardId, c.appId, c.title])).toEqual([
      [mine.id, t.appId, "Mine"],
      [theirs.id, other.appId, "Theirs"],
    ]);
    await signedRequest(theirs.fetchPath, other.clientSecret); // each app signs with its own secret
    expect(await received(onCompanies.fetchPath)).toEqual([]);
    expect(await received(notInstalled.fetchPath)).toEqual([]);
  });

  it("sends COMPANY, DEAL and TICKET with their own requested properties", async () => {
    const t = await tenant();
    const card = await defineCard(t, {
      associatedHubSpotObjectTypes: ["COMPANY", "DEAL", "TICKET"],
      associatedHubSpotObjectTypeProperties: { COMPANY: ["domain"], DEAL: ["dealname", "amount"], TICKET: ["subject"] },
    });
    const records = {
      companies: ["COMPANY", await createRecord(t, "companies", { domain: "acme.example", name: "Acme" }), [["domain", "acme.example"]]],
      deals: ["DEAL", await createRecord(t, "deals", { dealname: "Big", amount: "10.5" }), [["dealname", "Big"], ["amount", "10.5"]]],
      tickets: ["TICKET", await createRecord(t, "tickets", { subject: "Help" }), [["subject", "Help"]]],
    } as const;
    for (const [type, [name, id, props]] of Object.entries(records)) {
      await script(card.fetchPath, ok({ results: [] }));
      const res = await call("GET", viewPath(type, id, t.userId), { token: t.oauth });
      expect(res.json.cards[0].status, res.text).toBe("OK");
      const all = await received(card.fetchPath);
      const pairs = queryPairs(all.at(-1)!.url);
      expect(pairs.slice(3)).toEqual([["associatedObjectType", name], ["portalId", String(t.portalId)], ...props]);
      expect(pairs[2]).toEqual(["associatedObjectId", String(id)]);
    }
  });

  it("calls the integrators in parallel: every request arrived before the first answer was sent", async () => {
    const t = await tenant();
    const delayMs = 1000;
    const cards = [await defineCard(t, { title: "one" }), await defineCard(t, { title: "two" }), await defineCard(t, { title: "three" })];
    for (const c of cards) await script(c.fetchPath, { delayMs, body: JSON.stringify({ results: [{ objectId: 1, title: c.body.title }] }) });
    const id = await createRecord(t, "contacts");
    const res = await call("GET", viewPath("contacts", id, t.userId), { token: t.oauth });
    expect(res.json.cards.map((c: { status: string; results: { title: string }[] }) => [c.status, c.results[0]?.title])).toEqual([
      ["OK", "one"],
      ["OK", "two"],
      ["OK", "three"],
    ]);
    // The integrator stamps each request on arrival and answers delayMs later. Had the calls been made one
    // after another, each would have arrived only after the previous answer, i.e. at least delayMs apart.
    const arrivals = (await Promise.all(cards.map((c) => received(c.fetchPath)))).map((r) => r[0]!.at);
    const firstAnswerSent = Math.min(...arrivals) + delayMs;
    expect(Math.max(...arrivals)).toBeLessThan(firstAnswerSent);
  });

  it("only calls apps whose install was granted the scope the card needs", async () => {
    const t = await tenant();
    const limited = await admin("POST", "/admin/v1/apps", { name: unique("app"), redirectUris: ["https://x.example.com/cb"] });
    await admin("POST", `/admin/v1/accounts/${t.portalId}/installs`, { appId: limited.appId, scopes: ["oauth", "tickets"] });
    const contactCard = await defineCard({ ...t, appId: limited.appId, developerKey: limited.developerKey }, { associatedHubSpotObjectTypes: ["CONTACT", "TICKET"] });
    const contact = await createRecord(t, "contacts");
    expect((await call("GET", viewPath("contacts", contact, t.userId), { token: t.oauth })).json.cards).toEqual([]);
    expect(await received(contactCard.fetchPath)).toEqual([]);
    const ticket = await createRecord(t, "tickets", { subject: "s" });
    expect((await call("GET", viewPath("tickets", ticket, t.userId), { token: t.oauth })).json.cards).toHaveLength(1);
  });

  it("a record without cards answers {cards: []}", async () => {
    const t = await tenant();
    const id = await createRecord(t, "deals", { dealname: "d" });
    expect((await call("GET", viewPath("deals", id, t.userId), { token: t.oauth })).json).toEqual({ cards: [] });
  });
});

describe("data fetch: what the card shows", () => {
  it("passes defined properties, typed item properties and actions through, with confirmation defaults", async () => {
    const t = await tenant();
    const card = await defineCard(t, {
      propertyDefinitions: [
        { name: "priority", label: "Priority", dataType: "STRING" },
        { name: "amount", label: "Amount", dataType: "CURRENCY" },
        { name: "state", label: "State", dataType: "STATUS", options: [{ type: "SUCCESS", label: "Open", name: "open" }] },
        { name: "site", label: "Site", dataType: "LINK" },
        { name: "unsent", label: "Unsent", dataType: "NUMERIC" },
      ],
    });
    const base = card.body.baseUris[0]!;
    const confirm = { type: "CONFIRMATION_ACTION_HOOK", httpMethod: "delete", uri: `${base}/tickets/245`, label: "Delete", confirmationMessage: "Sure?", associatedObjectProperties: ["email"] };
    await script(card.fetchPath, ok({
      results: [
        {
          objectId: 245,
          title: "API-22: APIs working too fast",
          link: "http://example.com/1",
          priority: "HIGH",
          amount: { value: "95.50", currencyCode: "USD" },
          state: "open",
          site: "https://example.com/site",
          undeclared: "<script>alert(1)</script>",
          properties: [
            { label: "Resolved by", dataType: "EMAIL", value: "ijones@example.com" },
            { label: "Impact", dataType: "CURRENCY", value: "94.34", currencyCode: "GBP" },
            { label: "Docs", dataType: "LINK", value: "https://example.com/docs", linkLabel: "Open" },
            { label: "Health", dataType: "STATUS", value: "Errors", optionType: "DANGER" },
          ],
          actions: [
            { type: "IFRAME", width: 890, height: 748, uri: `${base}/edit`, label: "Edit", associatedObjectProperties: [] },
            { type: "ACTION_HOOK", httpMethod: "PUT", uri: `${base}/tickets/245/resolve`, label: "Resolve" },
            confirm,
          ],
        },
        { objectId: "988", title: "API-54" },
      ],
      itemLabel: "See all tickets",
      allItemsLink: "https://example.com/all",
      settingsAction: { type: "IFRAME", width: 890, height: 748, uri: `${base}/settings`, label: "Settings" },
      primaryAction: { type: "IFRAME", width: 890, height: 748, uri: `${base}/create`, label: "Create Ticket" },
      secondaryActions: [{ type: "ACTION_HOOK", httpMethod: "POST", uri: `${base}/sync`, label: "Sync" }],
    }));
    const id = await createRecord(t, "contacts");
    const res = await call("GET", viewPath("contacts", id, t.userId), { token: t.oauth });
    const [c] = res.json.cards;
    expect(c.status, res.text).toBe("OK");
    expect(c.warnings).toBeUndefined();
    expect(c.results[0]).toEqual({
      objectId: 245,
      title: "API-22: APIs working too fast",
      link: "http://example.com/1",
      priority: "HIGH",
      amount: { value: "95.50", currencyCode: "USD" },
      state: "open",
      site: "https://example.com/site",
      properties: [
        { label: "Resolved by", dataType: "EMAIL", value: "ijones@example.com" },
        { label: "Impact", dataType: "CURRENCY", value: "94.34", currencyCode: "GBP" },
        { label: "Docs", dataType: "LINK", value: "https://example.com/docs", linkLabel: "Open" },
        { label: "Health", dataType: "STATUS", value: "Errors", optionType: "DANGER" },
      ],
      // Each with the token that lets this user run it on this record (card-actions.test.ts).
      actions: [
        { type: "IFRAME", width: 890, height: 748, uri: `${base}/edit`, label: "Edit", associatedObjectProperties: [], actionToken: TOKEN },
        { type: "ACTION_HOOK", httpMethod: "PUT", uri: `${base}/tickets/245/resolve`, label: "Resolve", associatedObjectProperties: [], actionToken: TOKEN },
        { ...confirm, httpMethod: "DELETE", confirmButtonText: "OK", cancelButtonText: "Cancel", actionToken: TOKEN },
      ],
    });
    // An id sent as a numeric string becomes a number; a missing link is null.
    expect(c.results[1]).toEqual({ objectId: 988, title: "API-54", link: null, actions: [] });
    expect(c).toMatchObject({
      itemLabel: "See all tickets",
      allItemsLink: "https://example.com/all",
      settingsAction: { type: "IFRAME", label: "Settings", actionToken: TOKEN },
      primaryAction: { type: "IFRAME", label: "Create Ticket", actionToken: TOKEN },
      secondaryActions: [{ type: "ACTION_HOOK", httpMethod: "POST", label: "Sync", actionToken: TOKEN }],
    });
    expect(c.totalCount).toBeUndefined();
  });

  it("shows at most five items and says how many there are", async () => {
    const t = await tenant();
    const seven = await defineCard(t, { title: "seven" });
    const counted = await defineCard(t, { title: "counted" });
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ objectId: i + 1, title: `item ${i + 1}` }));
    await script(seven.fetchPath, ok({ results: items(7) }));
    await script(counted.fetchPath, ok({ results: items(6), totalCount: 42, allItemsLink: "https://example.com/all" }));
    const id = await createRecord(t, "contacts");
    const [a, b] = (await call("GET", viewPath("contacts", id, t.userId), { token: t.oauth })).json.cards;
    expect(a.results.map((r: { objectId: number }) => r.objectId)).toEqual([1, 2, 3, 4, 5]);
    expect(a.totalCount).toBe(7);
    expect(b.results).toHaveLength(5);
    expect(b.totalCount).toBe(42);
  });

  it("drops actions whose uri is not under the record type's baseUris, and malformed ones, saying why", async () => {
    const t = await tenant();
    const card = await defineCard(t);
    const base = card.body.baseUris[0]!;
    const origin = integratorUrl();
    const hook = (uri: string) => ({ type: "ACTION_HOOK", httpMethod: "POST", uri, label: "x" });
    await script(card.fetchPath, ok({
      results: [
        {
          objectId: 1,
          title: "t",
          actions: [
            hook(`${base}/fine`),
            hook(base),
            hook("https://evil.example.com/steal"),
            hook(`${base}-evil/x`), // a sibling path that merely shares the prefix
            hook(`${base}/../admin`), // normalised out of the base path
            hook(`${origin.replace("127.0.0.1", "localhost")}${new URL(base).pathname}/x`), // another host
            hook(`${base.replace("http://", "http://user:pw@")}/x`),
            { type: "ACTION_HOOK", uri: `${base}/no-method`, label: "x" },
            { type: "SOMETHING", uri: `${base}/x`, label: "x" },
            { type: "IFRAME", uri: `${base}/x`, label: "no size" },
          ],
        },
      ],
      settingsAction: hook(`${base}/settings`), // must be an IFRAME
      primaryAction: hook("https://169.254.169.254/latest/meta-data/"),
      secondaryActions: [hook(`${base}/ok`), hook("not a url")],
    }));
    const id = await createRecord(t, "contacts");
    const [c] = (await call("GET", viewPath("contacts", id, t.userId), { token: t.oauth })).json.cards;
    expect(c.status).toBe("OK");
    expect(c.results[0].actions.map((a: { uri: string }) => a.uri)).toEqual([`${base}/fine`, base]);
    expect(c.settingsAction).toBeUndefined();
    expect(c.primaryAction).toBeUndefined();
    expect(c.secondaryActions.map((a: { uri: string }) => a.uri)).toEqual([`${base}/ok`]);
    expect(c.warnings).toHaveLength(11);
    expect(c.warnings).toContain("results.0.actions.2 dropped: its uri is not under the record type's baseUris");
    expect(c.warnings).toContain("settingsAction dropped: a settingsAction must be an IFRAME action");
    expect(c.warnings.find((w: string) => w.startsWith("results.0.actions.7"))).toContain("httpMethod");
  });

  it("drops an action whose uri gives a parameter the service sends another value, and makes no token for it", async () => {
    const t = await tenant();
    const card = await defineCard(t, { associatedHubSpotObjectTypeProperties: { CONTACT: ["email"] } });
    const base = card.body.baseUris[0]!;
    const id = await createRecord(t, "contacts", { email: "zoe@example.com", firstname: "Zoë" });
    const hook = (query: string, extra: Record<string, unknown> = {}) => ({ type: "ACTION_HOOK", httpMethod: "POST", uri: `${base}/x${query}`, label: query, ...extra });
    await script(card.fetchPath, ok({
      results: [],
      secondaryActions: [
        hook("?portalId=1"),
        hook("?userId=1"),
        hook("?associatedObjectType=DEAL"),
        hook("?email=boss@example.com"),
        hook("?firstname=Bob", { httpMethod: "GET", associatedObjectProperties: ["firstname"] }),
        // Kept: the values the service sends, its own names, a property that goes in the body.
        hook(`?portalId=${t.portalId}&userId=${t.userId}&associatedObjectId=${id}&email=zoe@example.com`),
        hook("?ticket=1&portal=2"),
        hook("?firstname=Bob", { associatedObjectProperties: ["firstname"] }),
        { type: "IFRAME", uri: `${base}/frame?portalId=1`, label: "iframe", width: 1, height: 1 },
      ],
    }));
    const [c] = (await call("GET", viewPath("contacts", id, t.userId), { token: t.oauth })).json.cards;
    expect(c.status).toBe("OK");
    expect(c.secondaryActions.map((a: { label: string }) => a.label)).toEqual([`?portalId=${t.portalId}&userId=${t.userId}&associatedObjectId=${id}&email=zoe@example.com`, "?ticket=1&portal=2", "?firstname=Bob", "iframe"]);
    for (const a of c.secondaryActions) expect(a.actionToken).toEqual(TOKEN);
    expect(c.warnings).toEqual(
      ["portalId", "userId", "associatedObjectType", "email", "firstname"].map((name, i) => `secondaryActions.${i} dropped: its uri's query gives ${name} another value than the service sends when it calls the action`),
    );
  });
});

describe("data fetch: bad input, credentials and isolation", () => {
  it.each([
    ["userId missing", (t: { userId: number }, id: number) => `/crm/v3/objects/contacts/${id}/cards`, "userId"],
    ["userId not numeric", (_t: { userId: number }, id: number) => `/crm/v3/objects/contacts/${id}/cards?userId=abc`, "userId"],
    ["objectType without cards", (t: { userId: number }, id: number) => `/crm/v3/objects/products/${id}/cards?userId=${t.userId}`, "objectType"],
    ["objectType unknown", (t: { userId: number }, id: number) => `/crm/v3/objects/leads/${id}/cards?userId=${t.userId}`, "objectType"],
    ["objectId not numeric", (t: { userId: number }) => `/crm/v3/objects/contacts/abc/cards?userId=${t.userId}`, "objectId"],
  ])("400: %s", async (_name, path, field) => {
    const t = await tenant();
    const id = await createRecord(t, "contacts");
    expect(expectError(await call("GET", path(t, id), { token: t.oauth }), 400, "VALIDATION_ERROR").message).toContain(field);
  });

  it("400 when userId is not a user of this account, 404 for a missing record; no integrator is called", async () => {
    const a = await tenant();
    const b = await tenant();
    const card = await defineCard(a);
    const id = await createRecord(a, "contacts");
    expect(expectError(await call("GET", viewPath("contacts", id, b.userId), { token: a.oauth }), 400, "VALIDATION_ERROR").message).toContain(`userId ${b.userId}`);
    expectError(await call("GET", viewPath("contacts", id, 999_999_999), { token: a.oauth }), 400, "VALIDATION_ERROR");
    expectError(await call("GET", viewPath("contacts", 999_999_999, a.userId), { token: a.oauth }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("GET", viewPath("companies", id, a.userId), { token: a.oauth }), 404, "OBJECT_NOT_FOUND"); // a contact id is not a company
    expect(await received(card.fetchPath)).toEqual([]);
  });

  it("needs an account token with the read scope of the object type", async () => {
    const t = await tenant();
    const id = await createRecord(t, "contacts");
    expectError(await call("GET", viewPath("contacts", id, t.userId)), 401, "INVALID_AUTHENTICATION");
    expectError(await call("GET", viewPath("contacts", id, t.userId), { token: t.developerKey }), 403, "FORBIDDEN");
    const ticketsOnly = await tenant({ scopes: ["oauth", "tickets"] });
    const res = await call("GET", viewPath("contacts", id, ticketsOnly.userId), { token: ticketsOnly.oauth });
    expect(expectError(res, 403, "MISSING_SCOPES").errors[0].context.requiredScopes).toEqual(["crm.objects.contacts.read"]);
    const contactsOnly = await tenant({ scopes: ["oauth", "contacts"] });
    expectError(await call("GET", viewPath("tickets", 1, contactsOnly.userId), { token: contactsOnly.pat }), 403, "MISSING_SCOPES");
  });

  it("another account's token on this account's record is a 404 and triggers no data fetch", async () => {
    const a = await tenant();
    const b = await tenant();
    const card = await defineCard(a);
    const id = await createRecord(a, "contacts", { email: `${unique()}@example.com` });
    for (const token of [b.oauth, b.pat]) {
      const err = expectError(await call("GET", viewPath("contacts", id, b.userId), { token }), 404, "OBJECT_NOT_FOUND");
      expect(JSON.stringify(err)).not.toContain("example.com");
    }
    expect(await received(card.fetchPath)).toEqual([]);
    // The record types API is not reachable with B's developer key either.
    expectError(await call("GET", `${TYPES}/${card.id}`, { token: b.developerKey }), 404, "OBJECT_NOT_FOUND");
  });
});
