import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, tenant } from "../helpers/api";
import { integratorPath, integratorUrl, received, script } from "../helpers/integrator";
import { callWithEnv, createRecord, defineCard, viewPath } from "./helpers";

type Card = { cardId: number; status: string; error?: string; results: unknown[] };

describe("data fetch failures: only the failing card turns ERROR", () => {
  it("invalid JSON, non-2xx, oversize, a redirect to a private address and a wrong format, next to a good card", async () => {
    const t = await tenant();
    const good = await defineCard(t, { title: "good" });
    const cases = {
      invalidJson: { script: { body: "{not json" }, error: "The integrator's response is not valid JSON" },
      serverError: { script: { status: 500, body: '{"message":"boom"}' }, error: "The integrator answered HTTP 500" },
      notFound: { script: { status: 404 }, error: "The integrator answered HTTP 404" },
      oversize: { script: { bytes: 1024 * 1024 + 1 }, error: "The integrator's response is larger than 1048576 bytes" },
      privateRedirect: {
        script: { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } },
        error: "The integrator URL was refused: the host 169.254.169.254 is a private, reserved or internal address",
      },
      // The newer v3 card payload (recorded as datafetch_v3, see test/traffic/cards-recorded.test.ts) is not this API's format.
      v3Format: { script: { body: JSON.stringify({ responseVersion: "v3", sections: [] }) }, error: "does not match the data-fetch format: results: results must be an array" },
      noTitle: { script: { body: JSON.stringify({ results: [{ objectId: 1 }] }) }, error: "results.0.title" },
      badObjectId: { script: { body: JSON.stringify({ results: [{ objectId: "abc", title: "x" }] }) }, error: "results.0.objectId" },
      scriptLink: { script: { body: JSON.stringify({ results: [{ objectId: 1, title: "x", link: "javascript:alert(1)" }] }) }, error: "results.0.link: must be an absolute http(s) URL" },
      currencyNoCode: {
        script: { body: JSON.stringify({ results: [{ objectId: 1, title: "x", properties: [{ label: "P", dataType: "CURRENCY", value: "1" }] }] }) },
        error: "results.0.properties.0.currencyCode: a CURRENCY property needs a currencyCode",
      },
      badDataType: {
        script: { body: JSON.stringify({ results: [{ objectId: 1, title: "x", properties: [{ label: "P", dataType: "HTML", value: "<b>" }] }] }) },
        error: "results.0.properties.0.dataType",
      },
      badTotal: { script: { body: JSON.stringify({ results: [], totalCount: -1 }) }, error: "totalCount" },
    };
    const cards: Record<string, { id: number; fetchPath: string }> = {};
    for (const [name, c] of Object.entries(cases)) {
      cards[name] = await defineCard(t, { title: name });
      await script(cards[name].fetchPath, c.script);
    }
    await script(good.fetchPath, { body: JSON.stringify({ results: [{ objectId: 1, title: "fine" }] }) });
    const id = await createRecord(t, "contacts");

    const res = await call("GET", viewPath("contacts", id, t.userId), { token: t.oauth });
    expect(res.status, res.text).toBe(200);
    const byId = new Map<number, Card>(res.json.cards.map((c: Card) => [c.cardId, c]));
    expect(byId.get(good.id)).toMatchObject({ status: "OK", results: [{ objectId: 1, title: "fine" }] });
    for (const [name, c] of Object.entries(cases)) {
      const card = byId.get(cards[name]!.id)!;
      expect(card.status, name).toBe("ERROR");
      expect(card.error, name).toContain(c.error);
      expect(card.results, name).toEqual([]);
    }
    // The redirect was not followed: nothing but the first hop was requested.
    expect(await received(cards.privateRedirect!.fetchPath)).toHaveLength(1);
  });

  it("a redirect to another loopback path is followed and re-checked", async () => {
    const t = await tenant();
    const card = await defineCard(t);
    const target = integratorPath("moved");
    await script(card.fetchPath, { status: 302, headers: { location: `${integratorUrl()}${target}` } });
    await script(target, { body: JSON.stringify({ results: [{ objectId: 3, title: "moved" }] }) });
    const id = await createRecord(t, "contacts");
    const [c] = (await call("GET", viewPath("contacts", id, t.userId), { token: t.oauth })).json.cards;
    expect(c).toMatchObject({ status: "OK", results: [{ objectId: 3, title: "moved" }] });
  });

  it("no answer within the time limit makes that card ERROR (limit lowered for the test)", async () => {
    const t = await tenant();
    const slow = await defineCard(t, { title: "slow" });
    const fast = await defineCard(t, { title: "fast" });
    await script(slow.fetchPath, { delayMs: 3000, body: JSON.stringify({ results: [] }) });
    await script(fast.fetchPath, { body: JSON.stringify({ results: [] }) });
    const id = await createRecord(t, "contacts");
    const res = await callWithEnv({ CARD_FETCH_TIMEOUT_MS: "300" }, "GET", viewPath("contacts", id, t.userId), { token: t.oauth });
    expect(res.status, res.text).toBe(200);
    const [s, f] = res.json.cards;
    expect(s).toMatchObject({ cardId: slow.id, status: "ERROR", error: "The integrator did not answer within 300 ms", results: [] });
    expect(f).toMatchObject({ cardId: fast.id, status: "OK" });
  });

  it("a stored dataFetchUri the guard refuses is never called (defence in depth)", async () => {
    const t = await tenant();
    const good = await defineCard(t);
    await script(good.fetchPath, { body: JSON.stringify({ results: [] }) });
    // Rows written before a rule tightened, or by hand: the guard runs again on every call.
    const now = Date.now();
    const insert = env.DB.prepare(
      "insert into card_types (app_id, title, base_uris, data_fetch_uri, property_definitions, object_types, object_type_properties, created_at, updated_at) values (?, ?, ?, ?, '[]', '[\"CONTACT\"]', '{}', ?, ?) returning id",
    );
    const metadata = await insert.bind(t.appId, "metadata", '["https://example.com/a"]', "https://169.254.169.254/latest/meta-data/", now, now).first<{ id: number }>();
    const plainHttp = await insert.bind(t.appId, "plain http", '["https://example.com/a"]', "http://example.com/fetch", now, now).first<{ id: number }>();
    const id = await createRecord(t, "contacts");
    const cards: Card[] = (await call("GET", viewPath("contacts", id, t.userId), { token: t.oauth })).json.cards;
    expect(cards.find((c) => c.cardId === good.id)?.status).toBe("OK");
    expect(cards.find((c) => c.cardId === metadata!.id)).toMatchObject({ status: "ERROR", error: "The integrator URL was refused: the host 169.254.169.254 is a private, reserved or internal address" });
    expect(cards.find((c) => c.cardId === plainHttp!.id)).toMatchObject({ status: "ERROR", error: "The integrator URL was refused: only https URLs are allowed" });

    // And a loopback dataFetchUri is refused once ALLOW_LOOPBACK_OUTBOUND is off.
    const off = await callWithEnv({ ALLOW_LOOPBACK_OUTBOUND: "false" }, "GET", viewPath("contacts", id, t.userId), { token: t.oauth });
    expect(off.json.cards.find((c: Card) => c.cardId === good.id)).toMatchObject({ status: "ERROR", error: "The integrator URL was refused: loopback addresses are not allowed" });
    expect(await received(good.fetchPath)).toHaveLength(1); // only the first, allowed, view reached it
  });
});

describe("data fetch: an integrator that cannot be reached", () => {
  // workerd logs "Uncaught (in promise) ... Network connection lost" for any refused fetch, even a caught one.
  it("a refused connection makes that card ERROR", async () => {
    const t = await tenant();
    const card = await defineCard(t, { dataFetchUri: "http://127.0.0.1:9/nothing-listens-here" });
    const id = await createRecord(t, "contacts");
    const [c] = (await call("GET", viewPath("contacts", id, t.userId), { token: t.oauth })).json.cards;
    expect(c).toMatchObject({ cardId: card.id, status: "ERROR", error: "The integrator could not be reached", results: [] });
  });
});
