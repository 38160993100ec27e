/**
 * Outbound faults and SSRF through every entry point: redirect chains longer than
 * three hops, redirects to a private address from a card action hook, a data fetch and the import
 * webhook, oversize answers, and integrator-supplied URLs in every encoding of this machine's addresses
 * — card dataFetchUri and baseUris on create and update, action URIs, the settings webhookUri, and the
 * stored URLs at call time. The proof that nothing reached a socket is the local integrator's own log:
 * every URL used points at it, and a control shows the same URLs do reach it when fetched unguarded.
 */
import { describe, expect, it } from "vitest";
import { call, tenant, type Tenant } from "../helpers/api";
import { integratorPath, integratorUrl, received, script } from "../helpers/integrator";
import { callWithEnv, createRecord, defineCard, minted, TYPES, viewPath } from "../cards/helpers";
import { BRIDGE, settingsBody } from "../ecomm/helpers";

const port = () => new URL(integratorUrl()).port;

/** Hosts that reach the integrator (listening on 127.0.0.1) from workerd when nothing guards the call. */
const LOOPBACK_ENCODINGS = ["127.0.0.1", "localhost", "127.1", "2130706433", "0x7f000001", "0177.0.0.1", "0x7f.0.0.1", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[0:0:0:0:0:ffff:7f00:1]"];
/** "This host" addresses: the kernel routes them to loopback, but they are refused even where loopback is allowed. */
const THIS_HOST = ["0.0.0.0", "0", "0x0", "[::]", "[::ffff:0.0.0.0]"];

const OFF = { ALLOW_LOOPBACK_OUTBOUND: "false" };

/** A unique folder on the integrator per test: `received(root)` lists everything any URL under it got. */
const folder = () => integratorPath("ssrf");
const at = (host: string, path: string) => `http://${host}:${port()}${path}`;

async function card(t: Tenant, overrides: Record<string, unknown> = {}) {
  return defineCard(t, overrides);
}

const hook = (uri: string, httpMethod = "GET") => ({ type: "ACTION_HOOK", httpMethod, uri, label: "Go", associatedObjectProperties: [] });
/**
 * Runs `action` with a valid action token minted with the app's secret (test/cards/helpers.ts), so what is
 * tested here is the outbound guard behind the token check: several of these URLs no card view would show.
 */
async function runAction(t: Tenant, record: number, cardId: number, action: Record<string, unknown>, env?: Record<string, string>) {
  const body = { userId: t.userId, action: await minted(t, cardId, record, action) };
  const path = `/crm/v3/objects/contacts/${record}/cards/${cardId}/actions`;
  return env ? callWithEnv(env, "POST", path, { token: t.oauth, body }) : call("POST", path, { token: t.oauth, body });
}

/** A chain of `hops` redirects on the integrator ending at `end`; returns the first URL and every path. */
async function chain(root: string, hops: number, end: string) {
  const paths = Array.from({ length: hops }, (_, i) => `${root}/hop${i}`);
  for (let i = 0; i < hops; i++) await script(paths[i]!, { status: 302, headers: { location: i + 1 < hops ? `${integratorUrl()}${paths[i + 1]}` : end } });
  return { first: `${integratorUrl()}${paths[0]}`, paths };
}

describe("control: the URLs below do reach the integrator when nothing guards the call", () => {
  it("127.0.0.1 and 0.0.0.0 reach it from workerd (so an empty integrator log below means the guard stopped the call)", async () => {
    for (const host of ["127.0.0.1", "0.0.0.0"]) {
      const path = `${folder()}/control`;
      const res = await fetch(at(host, path));
      await res.text();
      expect(await received(path), host).toHaveLength(1);
    }
  });
});

describe("redirects", () => {
  it("a data fetch follows at most 3 redirects: the 4th is refused and its target never called; 3 are fine", async () => {
    const t = await tenant();
    const record = await createRecord(t, "contacts");
    const long = folder();
    const target = `${long}/target`;
    const four = await chain(long, 4, `${integratorUrl()}${target}`);
    const tooLong = await card(t, { dataFetchUri: four.first, title: "four" });
    const short = folder();
    const three = await chain(short, 3, `${integratorUrl()}${short}/target`);
    await script(`${short}/target`, { body: JSON.stringify({ results: [{ objectId: 1, title: "arrived" }] }) });
    const fine = await card(t, { dataFetchUri: three.first, title: "three" });
    const res = await call("GET", viewPath("contacts", record, t.userId), { token: t.oauth });
    const cards = new Map(res.json.cards.map((c: { cardId: number }) => [c.cardId, c]));
    expect(cards.get(tooLong.id)).toMatchObject({ status: "ERROR", error: expect.stringContaining("redirect that is not followed") });
    expect(cards.get(fine.id)).toMatchObject({ status: "OK", results: [{ objectId: 1, title: "arrived" }] });
    expect((await received(long)).map((r) => r.path)).toEqual(four.paths); // each hop once, the target never
    expect(await received(target)).toEqual([]);
  });

  it("a GET action hook follows at most 3 redirects; a POST hook follows none", async () => {
    const t = await tenant();
    const c = await card(t);
    const record = await createRecord(t, "contacts");
    const base = `${c.actionBase}`;
    const four = await chain(`${base}/long`, 4, `${integratorUrl()}${base}/long-target`);
    const res = await runAction(t, record, c.id, hook(four.first));
    expect(res.json).toMatchObject({ ok: false, integratorStatus: null, message: expect.stringContaining("redirect that is not followed") });
    expect(await received(`${base}/long-target`)).toEqual([]);
    expect((await received(`${base}/long/`)).map((r) => r.path)).toEqual(four.paths);

    const once = await chain(`${base}/post`, 1, `${integratorUrl()}${base}/post-target`);
    const post = await runAction(t, record, c.id, hook(once.first, "POST"));
    expect(post.json).toMatchObject({ ok: false, message: expect.stringContaining("redirect") });
    expect(await received(`${base}/post-target`)).toEqual([]);
  });

  it.each(THIS_HOST.concat(["169.254.169.254", "10.0.0.1", "[fd00::2]", "192.0.2.2"]))(
    "a redirect to %s from a data fetch, a GET action hook or the import webhook is never followed",
    async (host) => {
      const t = await tenant();
      const record = await createRecord(t, "contacts");
      const root = folder();
      const secret = `${root}/private`; // where the redirect points: on the integrator when the host is "this host"
      const privateUrl = at(host, secret);

      const fetchPath = `${root}/fetch`;
      await script(fetchPath, { status: 302, headers: { location: privateUrl } });
      const fetchCard = await card(t, { dataFetchUri: `${integratorUrl()}${fetchPath}` });
      const view = await call("GET", viewPath("contacts", record, t.userId), { token: t.oauth });
      const shown = view.json.cards.find((c: { cardId: number }) => c.cardId === fetchCard.id);
      expect(shown).toMatchObject({ status: "ERROR", error: expect.stringContaining("refused") });

      const hookPath = `${fetchCard.actionBase}/to-private`;
      await script(hookPath, { status: 302, headers: { location: privateUrl } });
      const action = await runAction(t, record, fetchCard.id, hook(`${integratorUrl()}${hookPath}`));
      expect(action.json).toMatchObject({ ok: false, integratorStatus: null, message: expect.stringContaining("refused") });

      const importPath = `${root}/import`;
      await script(importPath, { status: 307, headers: { location: privateUrl } });
      await call("PUT", `${BRIDGE}/settings?appId=${t.appId}`, { token: t.developerKey, body: settingsBody({ webhookUri: `${integratorUrl()}${importPath}` }) });
      await call("PUT", `${BRIDGE}/stores`, { token: t.oauth, body: { id: "shop", label: "Shop" } });
      const imported = await call("POST", `${BRIDGE}/stores/shop/import`, { token: t.oauth });
      expect(imported.json).toMatchObject({ outcome: "FAILED", detail: expect.stringMatching(/^redirect: /) });

      expect(await received(secret)).toEqual([]);
      expect(await received(hookPath)).toHaveLength(1);
      expect((await received(importPath)).length).toBeGreaterThanOrEqual(1); // the store's creation sent one too
    },
  );
});

describe("oversize answers", () => {
  it("an action hook's answer over 1 MiB is cut off: not ok, with a readable message", async () => {
    const t = await tenant();
    const c = await card(t);
    const record = await createRecord(t, "contacts");
    const path = `${c.actionBase}/big`;
    await script(path, { bytes: 1024 * 1024 + 1 });
    const res = await runAction(t, record, c.id, hook(`${integratorUrl()}${path}`, "POST"));
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: false, integratorStatus: null, message: "The integrator's response is larger than 1048576 bytes" });
  });

  it("a data fetch answer over 1 MiB without a content-length (streamed) is cut off too", async () => {
    const t = await tenant();
    const c = await card(t);
    const record = await createRecord(t, "contacts");
    // transfer-encoding: chunked hides the size until the stream passes the cap.
    await script(c.fetchPath, { bytes: 2 * 1024 * 1024, headers: { "transfer-encoding": "chunked" } });
    const res = await call("GET", viewPath("contacts", record, t.userId), { token: t.oauth });
    expect(res.json.cards[0]).toMatchObject({ status: "ERROR", error: "The integrator's response is larger than 1048576 bytes" });
  });
});

describe("SSRF through every entry point never reaches a socket", () => {
  const evil = (root: string, label: string) => LOOPBACK_ENCODINGS.map((host, i) => ({ host, url: at(host, `${root}/${label}-${i}`) }));

  it("with loopback off (production): every encoding of this machine is refused on create, on update, in settings, and at call time", async () => {
    const t = await tenant();
    const root = folder();
    const record = await createRecord(t, "contacts");
    const definition = { applicationId: t.appId, title: "x", propertyDefinitions: [], associatedHubSpotObjectTypes: ["CONTACT"], associatedHubSpotObjectTypeProperties: {} };
    // A record type on public URLs, so an update is refused for the field it changes and nothing else.
    // (on company records, so viewing the contact below never calls example.com)
    const existing = await call("POST", TYPES, {
      token: t.developerKey,
      body: { ...definition, associatedHubSpotObjectTypes: ["COMPANY"], baseUris: ["https://example.com/a"], dataFetchUri: "https://example.com/f" },
    });
    expect(existing.status, existing.text).toBe(200);
    const refusals: string[] = [];
    const refused = (what: string, res: { status: number; text: string }, field: string) => {
      if (res.status !== 400 || !res.text.includes(field)) refusals.push(`${what} → ${res.status} ${res.text.slice(0, 200)}`);
    };
    for (const { host, url } of evil(root, "stored")) {
      refused(`create dataFetchUri ${host}`, await callWithEnv(OFF, "POST", TYPES, { token: t.developerKey, body: { ...definition, baseUris: ["https://example.com/a"], dataFetchUri: url } }), "dataFetchUri");
      refused(`create baseUris ${host}`, await callWithEnv(OFF, "POST", TYPES, { token: t.developerKey, body: { ...definition, baseUris: [url], dataFetchUri: "https://example.com/f" } }), "baseUris");
      refused(`update dataFetchUri ${host}`, await callWithEnv(OFF, "PUT", `${TYPES}/${existing.json.id}`, { token: t.developerKey, body: { dataFetchUri: url } }), "dataFetchUri");
      refused(`update baseUris ${host}`, await callWithEnv(OFF, "PUT", `${TYPES}/${existing.json.id}`, { token: t.developerKey, body: { baseUris: [url] } }), "baseUris");
      refused(`settings webhookUri ${host}`, await callWithEnv(OFF, "PUT", `${BRIDGE}/settings?appId=${t.appId}`, { token: t.developerKey, body: settingsBody({ webhookUri: url }) }), "webhookUri");
      refused(`account settings webhookUri ${host}`, await callWithEnv(OFF, "PUT", `${BRIDGE}/settings`, { token: t.pat, body: settingsBody({ webhookUri: url }) }), "webhookUri");
    }
    expect(refusals).toEqual([]);

    // URLs stored while loopback was allowed (or written before a rule tightened) are checked again at call time.
    const called: string[] = [];
    for (const { host, url } of evil(root, "called")) {
      const c = await card(t, { dataFetchUri: url, baseUris: [url.replace(/\/called-\d+$/, `/actions-${host.length}`)], title: host });
      const view = await callWithEnv(OFF, "GET", viewPath("contacts", record, t.userId), { token: t.oauth });
      const shown = view.json.cards.find((x: { cardId: number }) => x.cardId === c.id);
      if (shown?.status !== "ERROR" || !String(shown.error).includes("refused")) called.push(`data fetch ${host}: ${JSON.stringify(shown)}`);
      const action = await runAction(t, record, c.id, hook(`${c.body.baseUris[0]}/go`), OFF);
      if (action.json?.ok !== false || !String(action.json.message).includes("refused")) called.push(`action ${host}: ${action.text}`);
      await call("PUT", `${TYPES}/${c.id}`, { token: t.developerKey, body: { associatedHubSpotObjectTypes: ["COMPANY"] } }); // off this record's view
    }
    await call("PUT", `${BRIDGE}/settings?appId=${t.appId}`, { token: t.developerKey, body: settingsBody({ webhookUri: `http://2130706433:${port()}${root}/import` }) });
    await call("PUT", `${BRIDGE}/stores`, { token: t.pat, body: { id: "shop", label: "Shop" } });
    const imported = await callWithEnv(OFF, "POST", `${BRIDGE}/stores/shop/import`, { token: t.oauth });
    expect(imported.json).toMatchObject({ outcome: "FAILED", detail: expect.stringContaining("blocked: loopback addresses are not allowed") });
    expect(called).toEqual([]);
    expect(await received(root)).toEqual([]);
  });

  it("with loopback allowed (local development): the 'this host' addresses are still refused everywhere", async () => {
    const t = await tenant();
    const root = folder();
    const record = await createRecord(t, "contacts");
    const c = await card(t);
    const definition = { applicationId: t.appId, title: "x", propertyDefinitions: [], associatedHubSpotObjectTypes: ["CONTACT"], associatedHubSpotObjectTypeProperties: {} };
    const statuses: string[] = [];
    for (const [i, host] of THIS_HOST.entries()) {
      const url = at(host, `${root}/this-host-${i}`);
      const attempts = [
        await call("POST", TYPES, { token: t.developerKey, body: { ...definition, baseUris: [`${integratorUrl()}${c.actionBase}`], dataFetchUri: url } }),
        await call("POST", TYPES, { token: t.developerKey, body: { ...definition, baseUris: [url], dataFetchUri: `${integratorUrl()}${c.fetchPath}` } }),
        await call("PUT", `${TYPES}/${c.id}`, { token: t.developerKey, body: { dataFetchUri: url } }),
        await call("PUT", `${BRIDGE}/settings?appId=${t.appId}`, { token: t.developerKey, body: settingsBody({ webhookUri: url }) }),
        // An action URI outside the card's baseUris is refused before any call.
        await runAction(t, record, c.id, hook(url)),
      ];
      statuses.push(`${host}: ${attempts.map((a) => a.status).join(",")}`);
    }
    expect(statuses).toEqual(THIS_HOST.map((h) => `${h}: 400,400,400,400,400`));
    expect(await received(root)).toEqual([]);
  });

  it("action URIs cannot leave the card's baseUris by dot segments, encoded dots, userinfo or a look-alike path", async () => {
    const t = await tenant();
    const c = await card(t);
    const record = await createRecord(t, "contacts");
    const base = `${integratorUrl()}${c.actionBase}`;
    const outside = `${c.actionBase}-outside`; // one path segment: a look-alike of the base path
    const attempts = [
      `${base}/../${outside.slice(1)}`,
      `${base}/%2e%2e/${outside.slice(1)}`,
      `${base}/.%2E/${outside.slice(1)}`,
      `${base}%2F..%2F${outside.slice(1)}`,
      `${integratorUrl()}${outside}`,
      `http://user:pass@127.0.0.1:${port()}${c.actionBase}/x`,
      `http://0.0.0.0:${port()}${c.actionBase}/x`,
      `${base.replace("127.0.0.1", "127.0.0.2")}/x`,
    ];
    for (const uri of attempts) {
      const res = await runAction(t, record, c.id, hook(uri));
      expect(res.status, `${uri} → ${res.text}`).toBe(400);
      expect(res.json.errors[0].code, uri).toBe("NOT_UNDER_BASE_URIS");
    }
    expect(await received(outside)).toEqual([]);
    expect(await received(c.actionBase)).toEqual([]);
  });
});
