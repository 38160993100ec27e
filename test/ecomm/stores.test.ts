import { describe, expect, it } from "vitest";
import { verifySignature } from "../../src/lib/signature";
import { admin, call, expectError, tenant, unique } from "../helpers/api";
import { integratorPath, integratorUrl, received, script } from "../helpers/integrator";
import { BRIDGE, settingsBody } from "./helpers";
import { bridgeTenant, deliver, qmsg } from "./queue-helpers";
import { accountD1 } from "../helpers/shards";

const STORES = `${BRIDGE}/stores`;

const count = async (table: string, portalId: number) =>
  (await (await accountD1(portalId)).prepare(`select count(*) as n from ${table} where portal_id = ?`).bind(portalId).first<{ n: number }>())!.n;

async function waitForRequests(path: string, n: number) {
  const until = Date.now() + 15_000;
  for (;;) {
    const seen = await received(path);
    if (seen.length >= n) return seen;
    if (Date.now() > until) throw new Error(`expected ${n} requests on ${path}, saw ${seen.length}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("PUT/GET/DELETE /stores", () => {
  it("creates (200, echo), updates, lists, reads and deletes a store", async () => {
    const t = await tenant();
    const created = { id: "test-store", label: "Test store", adminUri: "https://shop.example.com/admin" };
    const put = await call("PUT", STORES, { token: t.oauth, body: created });
    expect(put.status, put.text).toBe(200);
    expect(put.json).toEqual(created);
    const upd = await call("PUT", STORES, { token: t.pat, body: { id: "test-store", label: "Renamed" } });
    expect(upd.json).toEqual({ id: "test-store", label: "Renamed" });
    await call("PUT", STORES, { token: t.pat, body: { id: "another", label: "Another", adminUri: null } });
    const list = await call("GET", STORES, { token: t.oauth });
    expect(list.json).toEqual({ results: [{ id: "another", label: "Another" }, { id: "test-store", label: "Renamed" }] });
    expect((await call("GET", `${STORES}/test-store`, { token: t.pat })).json).toEqual({ id: "test-store", label: "Renamed" });
    const del = await call("DELETE", `${STORES}/test-store`, { token: t.pat });
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expectError(await call("GET", `${STORES}/test-store`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("DELETE", `${STORES}/test-store`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
  });

  it("the account's first store sets up the ecommerce pipeline with its six stages, once", async () => {
    const t = await tenant();
    await call("PUT", STORES, { token: t.pat, body: { id: "s1", label: "One" } });
    await call("PUT", STORES, { token: t.pat, body: { id: "s2", label: "Two" } });
    const pipelines = await (await accountD1(t.portalId)).prepare("select pipeline_id, label from ecomm_pipelines where portal_id = ?").bind(t.portalId).all();
    expect(pipelines.results).toEqual([{ pipeline_id: "ecommerce", label: "Ecommerce Pipeline" }]);
    const stages = await (await accountD1(t.portalId)).prepare("select stage_id from ecomm_pipeline_stages where portal_id = ? order by display_order").bind(t.portalId).all<{ stage_id: string }>();
    expect(stages.results.map((s) => s.stage_id)).toEqual(["checkout_abandoned", "checkout_pending", "checkout_completed", "processed", "shipped", "cancelled"]);
  });

  it("if a setup step fails, nothing is created: no store and no pipeline", async () => {
    const t = await tenant();
    // A leftover stage row makes the stages insert of the setup fail (primary key conflict).
    await (await accountD1(t.portalId)).prepare("insert into ecomm_pipeline_stages (portal_id, stage_id, label, display_order) values (?, 'processed', 'x', 0)").bind(t.portalId).run();
    expectError(await call("PUT", STORES, { token: t.pat, body: { id: "s1", label: "One" } }), 500, "INTERNAL_ERROR");
    expect(await count("ecomm_stores", t.portalId)).toBe(0);
    expect(await count("ecomm_pipelines", t.portalId)).toBe(0);
    expect(await count("ecomm_pipeline_stages", t.portalId)).toBe(1); // only the leftover
    await (await accountD1(t.portalId)).prepare("delete from ecomm_pipeline_stages where portal_id = ?").bind(t.portalId).run();
    expect((await call("PUT", STORES, { token: t.pat, body: { id: "s1", label: "One" } })).status).toBe(200);
    expect(await count("ecomm_pipeline_stages", t.portalId)).toBe(6);
  });

  it("uninstalling the app deletes the stores it created, with their sync state; other stores stay", async () => {
    const { t, origin } = await bridgeTenant(); // "shop" created with the app's OAuth token
    await call("PUT", STORES, { token: t.pat, body: { id: "private", label: "Private app's" } });
    await deliver([qmsg(origin, "CONTACT", { externalObjectId: "c1", properties: { firstname: "no email" } })]);
    expect(await count("ecomm_links", t.portalId)).toBe(1);
    expect(await count("ecomm_sync_errors", t.portalId)).toBe(1);
    await admin("DELETE", `/admin/v1/accounts/${t.portalId}/installs/${t.appId}`);
    expect((await call("GET", STORES, { token: t.pat })).json).toEqual({ results: [{ id: "private", label: "Private app's" }] });
    expect(await count("ecomm_links", t.portalId)).toBe(0);
    expect(await count("ecomm_sync_errors", t.portalId)).toBe(0);
    expect(await count("ecomm_pipelines", t.portalId)).toBe(1); // CRM setup stays
  });
});

describe("stores: bad input", () => {
  it.each([
    ["id missing", { label: "x" }, "id"],
    ["id empty", { id: "", label: "x" }, "id"],
    ["id with a slash", { id: "a/b", label: "x" }, "id"],
    ["id with a space", { id: "a b", label: "x" }, "id"],
    ["id too long", { id: "a".repeat(101), label: "x" }, "id"],
    ["id a number", { id: 5, label: "x" }, "id"],
    ["label missing", { id: "s" }, "label"],
    ["label blank", { id: "s", label: "   " }, "label"],
    ["adminUri not a URI", { id: "s", label: "x", adminUri: "not a uri" }, "adminUri"],
    ["adminUri not http(s)", { id: "s", label: "x", adminUri: "javascript:alert(1)" }, "adminUri"],
  ])("400 for %s", async (_, body, field) => {
    const t = await tenant();
    const err = expectError(await call("PUT", STORES, { token: t.pat, body }), 400, "VALIDATION_ERROR");
    expect(err.message).toContain(field);
    expect(await count("ecomm_stores", t.portalId)).toBe(0);
  });

  it("400 for a malformed store id in the path", async () => {
    const t = await tenant();
    expectError(await call("GET", `${STORES}/%E0%A4%A`, { token: t.pat }), 400, "VALIDATION_ERROR");
  });
});

describe("stores: authentication and isolation", () => {
  it("401 without a credential, 403 for a developer key or a token without integration-sync", async () => {
    expectError(await call("GET", STORES), 401, "INVALID_AUTHENTICATION");
    const t = await tenant();
    expectError(await call("GET", STORES, { token: t.developerKey }), 403, "FORBIDDEN");
    const narrow = await tenant({ scopes: ["e-commerce"] });
    expectError(await call("PUT", STORES, { token: narrow.pat, body: { id: "s", label: "x" } }), 403, "MISSING_SCOPES");
  });

  it("account B gets 404 and no data for account A's store ids, and defining the same id makes B's own store", async () => {
    const a = await tenant();
    const b = await tenant();
    await call("PUT", STORES, { token: a.pat, body: { id: "shared-id", label: "A's" } });
    expectError(await call("GET", `${STORES}/shared-id`, { token: b.pat }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("DELETE", `${STORES}/shared-id`, { token: b.oauth }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("POST", `${STORES}/shared-id/import`, { token: b.oauth }), 404, "OBJECT_NOT_FOUND");
    expect((await call("GET", STORES, { token: b.pat })).json).toEqual({ results: [] });
    await call("PUT", STORES, { token: b.pat, body: { id: "shared-id", label: "B's" } });
    expect((await call("GET", `${STORES}/shared-id`, { token: a.pat })).json.label).toBe("A's");
    expect((await call("GET", `${STORES}/shared-id`, { token: b.pat })).json.label).toBe("B's");
  });
});

describe("import webhook", () => {
  it("creating a store with an OAuth app whose settings carry a webhookUri sends one signed import request", async () => {
    const t = await tenant();
    const path = integratorPath("import");
    await call("PUT", `${BRIDGE}/settings?appId=${t.appId}`, { token: t.developerKey, body: settingsBody({ webhookUri: `${integratorUrl()}${path}` }) });
    const res = await call("PUT", STORES, { token: t.oauth, body: { id: "shop", label: "Shop" } });
    expect(res.status).toBe(200);
    const [req] = await waitForRequests(path, 1);
    expect(req!.method).toBe("POST");
    expect(JSON.parse(req!.body)).toEqual({
      portalId: t.portalId,
      appId: t.appId,
      storeId: "shop",
      importStartedAt: expect.any(Number),
      trigger: "STORE_CREATED",
      objectTypes: ["CONTACT", "PRODUCT", "DEAL", "LINE_ITEM"],
    });
    const verdict = await verifySignature({ secret: t.clientSecret, method: "POST", uri: req!.url, body: req!.body, headers: req!.headers, now: Date.now() });
    expect(verdict).toEqual({ ok: true, version: "v3" });
    expect(await verifySignature({ secret: t.clientSecret, method: "POST", uri: req!.url, body: req!.body, headers: { "x-service-signature": req!.headers["x-service-signature"] }, allowV2: true })).toEqual({ ok: true, version: "v2" });
    expect(req!.headers.authorization).toBeUndefined();

    // Updating the store is not a creation: no second request. The trigger endpoint sends one on demand.
    await call("PUT", STORES, { token: t.oauth, body: { id: "shop", label: "Shop 2" } });
    await script(path, { body: JSON.stringify({ CONTACT: 3, DEAL: 1, bogus: "x", LINE_ITEM: -1 }) });
    const trig = await call("POST", `${STORES}/shop/import`, { token: t.oauth });
    expect(trig.status, trig.text).toBe(200);
    expect(trig.json).toEqual({ storeId: "shop", importStartedAt: expect.any(Number), outcome: "DELIVERED", httpStatus: 200, detail: null, counts: { CONTACT: 3, DEAL: 1 } });
    const all = await received(path);
    expect(all.map((r) => JSON.parse(r.body).trigger)).toEqual(["STORE_CREATED", "REQUESTED"]);
    const rows = await (await accountD1(t.portalId)).prepare("select trigger, outcome from ecomm_imports where portal_id = ? order by id").bind(t.portalId).all();
    expect(rows.results).toEqual([
      { trigger: "STORE_CREATED", outcome: "DELIVERED" },
      { trigger: "REQUESTED", outcome: "DELIVERED" },
    ]);
  });

  it("an integrator that answers an error or is down never fails the request; the outcome is recorded", async () => {
    const t = await tenant();
    const path = integratorPath("import-err");
    await script(path, { status: 503 });
    await call("PUT", `${BRIDGE}/settings?appId=${t.appId}`, { token: t.developerKey, body: settingsBody({ webhookUri: `${integratorUrl()}${path}` }) });
    await call("PUT", STORES, { token: t.oauth, body: { id: "shop", label: "Shop" } });
    const rejected = await call("POST", `${STORES}/shop/import`, { token: t.oauth });
    expect(rejected.json).toMatchObject({ outcome: "REJECTED", httpStatus: 503, detail: "the integrator answered 503" });

    // Nothing listens on port 9: connection refused.
    await call("PUT", `${BRIDGE}/settings?appId=${t.appId}`, { token: t.developerKey, body: settingsBody({ webhookUri: "http://127.0.0.1:9/import" }) });
    const down = await call("POST", `${STORES}/shop/import`, { token: t.oauth });
    expect(down.status).toBe(200);
    expect(down.json).toMatchObject({ outcome: "FAILED", httpStatus: null, detail: expect.stringMatching(/^network: /) });
    const created = await call("PUT", STORES, { token: t.oauth, body: { id: "second", label: "Second" } });
    expect(created.status).toBe(200);
  });

  it("a too-large answer is cut off by the guard and recorded as FAILED", async () => {
    const t = await tenant();
    const path = integratorPath("import-big");
    await script(path, { bytes: 1_100_000 });
    await call("PUT", `${BRIDGE}/settings?appId=${t.appId}`, { token: t.developerKey, body: settingsBody({ webhookUri: `${integratorUrl()}${path}` }) });
    await call("PUT", STORES, { token: t.pat, body: { id: "shop", label: "Shop" } });
    const res = await call("POST", `${STORES}/shop/import`, { token: t.oauth });
    expect(res.json).toMatchObject({ outcome: "FAILED", detail: expect.stringMatching(/^too_large: /) });
  });

  it("private apps never send it (no app secret to sign with); the trigger is OAuth-only and needs a webhookUri", async () => {
    const t = await tenant();
    const accountPath = integratorPath("import-account");
    await call("PUT", `${BRIDGE}/settings`, { token: t.pat, body: settingsBody({ webhookUri: `${integratorUrl()}${accountPath}` }) });
    await call("PUT", STORES, { token: t.pat, body: { id: "by-pat", label: "x" } });
    expectError(await call("POST", `${STORES}/by-pat/import`, { token: t.pat }), 403, "FORBIDDEN");
    const err = expectError(await call("POST", `${STORES}/by-pat/import`, { token: t.oauth }), 400, "VALIDATION_ERROR");
    expect(err.message).toContain("webhookUri");
    expectError(await call("POST", `${STORES}/${unique("nope")}/import`, { token: t.oauth }), 404, "OBJECT_NOT_FOUND");
    // An OAuth store creation with an app webhook is sent; by then the private app's would have been too.
    const appPath = integratorPath("import-app");
    await call("PUT", `${BRIDGE}/settings?appId=${t.appId}`, { token: t.developerKey, body: settingsBody({ webhookUri: `${integratorUrl()}${appPath}` }) });
    await call("PUT", STORES, { token: t.oauth, body: { id: "by-app", label: "x" } });
    await waitForRequests(appPath, 1);
    expect(await received(accountPath)).toEqual([]);
  });
});
