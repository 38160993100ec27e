/**
 * Import pages and their end (docs/reference/ecomm.md "Import pages"): an OAuth app answers the
 * import webhook by sending pages keyed by the webhook's importStartedAt, then one end per object type.
 */
import { describe, expect, it } from "vitest";
import { admin, call, expectError, tenant, type Tenant } from "../helpers/api";
import { integratorPath, integratorUrl } from "../helpers/integrator";
import { appSettings, BRIDGE, processed, store, sync, waitForStatus } from "./helpers";
import { linkRow, record, storeGen } from "./queue-helpers";
import { accountD1 } from "../helpers/shards";

const PAGE = `${BRIDGE}/imports/page`;
const END = `${BRIDGE}/imports/end`;

/** A tenant whose app has a webhookUri and a store "shop", and an import of that store the app was asked for. */
async function importing(): Promise<{ t: Tenant; startedAt: number }> {
  const t = await tenant();
  await appSettings(t, { webhookUri: `${integratorUrl()}${integratorPath("import")}` });
  await store(t.oauth);
  const res = await call("POST", `${BRIDGE}/stores/shop/import`, { token: t.oauth });
  expect(res.status, res.text).toBe(200);
  return { t, startedAt: res.json.importStartedAt };
}

const page = (startedAt: number, over: Record<string, unknown> = {}) => ({
  importStartedAt: startedAt,
  pageNumber: 1,
  storeId: "shop",
  objectType: "PRODUCT",
  messages: [{ externalObjectId: "p1", properties: { title: "Imported" } }],
  ...over,
});
const end = (startedAt: number, over: Record<string, unknown> = {}) => ({ importStartedAt: startedAt, pageCount: 1, itemCount: 1, storeId: "shop", objectType: "PRODUCT", ...over });

const endRow = async (t: Tenant, startedAt: number, type: string) =>
  (await accountD1(t.portalId)).prepare("select page_count, item_count from ecomm_import_ends where portal_id = ? and store_id = 'shop' and import_started_at = ? and object_type = ?")
    .bind(t.portalId, startedAt, type)
    .first();

describe("POST /imports/page", () => {
  it("queues the page like sync messages, dated importStartedAt, so a live update sent meanwhile wins", async () => {
    const { t, startedAt } = await importing();
    await sync(t.oauth, "PRODUCT", [{ externalObjectId: "live", properties: { title: "Live" } }]); // dated now, after the import began
    const res = await call("POST", PAGE, {
      token: t.oauth,
      body: page(startedAt, {
        messages: [
          { externalObjectId: "live", properties: { title: "Stale import" } },
          { externalObjectId: "new", properties: { title: "Imported" } },
          { externalObjectId: "dated", action: "UPSERT", changedAt: startedAt + 5, properties: { title: "Own date" } },
        ],
      }),
    });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe("");
    const origin = { portalId: t.portalId, appId: t.appId, storeId: "shop", storeGen: await storeGen(t.portalId, "shop") };
    for (const id of ["new", "dated", "live"]) await waitForStatus(t.oauth, "PRODUCT", id, processed);
    expect((await linkRow(origin, "PRODUCT", "new"))!.changed_at).toBe(startedAt);
    expect((await linkRow(origin, "PRODUCT", "dated"))!.changed_at).toBe(startedAt + 5);
    const live = await linkRow(origin, "PRODUCT", "live");
    expect(live!.changed_at).toBeGreaterThan(startedAt);
    expect((await record(live!.service_id!)).properties.name).toBe("Live");
    expect((await record((await linkRow(origin, "PRODUCT", "new"))!.service_id!)).properties.name).toBe("Imported");
  });

  it("400 naming the field: no such import for this app and store, unknown store, DELETE, too many messages", async () => {
    const { t, startedAt } = await importing();
    const err = (body: unknown) => call("POST", PAGE, { token: t.oauth, body });
    expect(expectError(await err(page(startedAt + 1)), 400, "VALIDATION_ERROR").message).toContain("importStartedAt");
    await store(t.oauth, "other");
    expect(expectError(await err(page(startedAt, { storeId: "other" })), 400, "VALIDATION_ERROR").message).toContain("importStartedAt");
    expect(expectError(await err(page(startedAt, { storeId: "nope" })), 400, "VALIDATION_ERROR").message).toContain("storeId");
    const del = await err(page(startedAt, { messages: [{ externalObjectId: "p1", action: "DELETE" }] }));
    expect(expectError(del, 400, "VALIDATION_ERROR").message).toContain("UPSERT");
    const many = Array.from({ length: 501 }, (_, i) => ({ externalObjectId: `p${i}`, properties: {} }));
    expectError(await err(page(startedAt, { messages: many })), 400, "VALIDATION_ERROR");
    expectError(await err(page(startedAt, { pageNumber: 0 })), 400, "VALIDATION_ERROR");
    expectError(await err(page(startedAt, { importStartedAt: "soon" })), 400, "VALIDATION_ERROR");
    // The same app installed in another account: its token does not reach this account's import.
    const other = await tenant();
    const install = await admin("POST", `/admin/v1/accounts/${other.portalId}/installs`, { appId: t.appId });
    await store(install.access_token);
    expectError(await call("POST", PAGE, { token: install.access_token, body: page(startedAt) }), 400, "VALIDATION_ERROR");
  });

  it("auth: OAuth only (imports exist only for OAuth apps), 401 without a credential, scope", async () => {
    const { t, startedAt } = await importing();
    expectError(await call("POST", PAGE, { token: t.pat, body: page(startedAt) }), 403, "FORBIDDEN");
    expectError(await call("POST", `${PAGE}?hapikey=${t.developerKey}`, { body: page(startedAt) }), 403, "FORBIDDEN");
    expectError(await call("POST", PAGE, { body: page(startedAt) }), 401, "INVALID_AUTHENTICATION");
    const narrow = await tenant({ scopes: ["e-commerce"] });
    expectError(await call("POST", PAGE, { token: narrow.oauth, body: page(startedAt) }), 403, "MISSING_SCOPES");
  });
});

describe("POST /imports/end", () => {
  it("records the integrator's counts per object type; that type then takes no more pages, the others still do", async () => {
    const { t, startedAt } = await importing();
    const res = await call("POST", END, { token: t.oauth, body: end(startedAt, { pageCount: 3, itemCount: 250 }) });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe("");
    expect(await endRow(t, startedAt, "PRODUCT")).toEqual({ page_count: 3, item_count: 250 });
    const late = await call("POST", PAGE, { token: t.oauth, body: page(startedAt, { pageNumber: 4 }) });
    expect(expectError(late, 400, "VALIDATION_ERROR").message).toContain("has ended");
    const contacts = page(startedAt, { objectType: "CONTACT", messages: [{ externalObjectId: "c1", properties: { customer_email: "c1@example.com" } }] });
    expect((await call("POST", PAGE, { token: t.oauth, body: contacts })).status).toBe(204);
    // Ending again replaces the counts.
    expect((await call("POST", END, { token: t.oauth, body: end(startedAt, { pageCount: 4, itemCount: 251 }) })).status).toBe(204);
    expect(await endRow(t, startedAt, "PRODUCT")).toEqual({ page_count: 4, item_count: 251 });
  });

  it("400 for an unknown import or store and bad counts; OAuth only; deleting the store removes its ends", async () => {
    const { t, startedAt } = await importing();
    expect(expectError(await call("POST", END, { token: t.oauth, body: end(startedAt - 1) }), 400, "VALIDATION_ERROR").message).toContain("importStartedAt");
    expect(expectError(await call("POST", END, { token: t.oauth, body: end(startedAt, { storeId: "nope" }) }), 400, "VALIDATION_ERROR").message).toContain("storeId");
    expectError(await call("POST", END, { token: t.oauth, body: end(startedAt, { itemCount: -1 }) }), 400, "VALIDATION_ERROR");
    expectError(await call("POST", END, { token: t.oauth, body: end(startedAt, { objectType: "COMPANY" }) }), 400, "VALIDATION_ERROR");
    expectError(await call("POST", END, { token: t.pat, body: end(startedAt) }), 403, "FORBIDDEN");
    expect((await call("POST", END, { token: t.oauth, body: end(startedAt) })).status).toBe(204);
    expect((await call("DELETE", `${BRIDGE}/stores/shop`, { token: t.oauth })).status).toBe(204);
    expect(await endRow(t, startedAt, "PRODUCT")).toBeNull();
  });
});
