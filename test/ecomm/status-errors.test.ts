import { describe, expect, it } from "vitest";
import { admin, call, expectError, tenant, type Tenant } from "../helpers/api";
import { SYNC_ERROR_KEYS, SYNC_STATUS_KEYS } from "../fixtures/legacy-shapes";
import { accountSettings, BRIDGE, processed, status, store, sync, waitForStatus } from "./helpers";
import { bridgeTenant, deliver, qmsg } from "./queue-helpers";
import { accountD1 } from "../helpers/shards";

const PORTAL_ERRORS = `${BRIDGE}/sync/errors/portal`;
const ERRORS = `${BRIDGE}/sync/errors`;

/** Seeds sync errors directly (rows as the consumer writes them) so times and order are exact. */
async function seedErrors(t: Tenant, rows: { ext: string; type?: string; objectType?: string; status?: string; at: number; appId?: number | null }[]) {
  const d1 = await accountD1(t.portalId);
  await d1.batch(
    rows.map((r) =>
      d1.prepare(
        "insert into ecomm_sync_errors (portal_id, store_id, object_type, external_id, app_id, message_id, changed_at, errored_at, type, details, status) values (?, 'shop', ?, ?, ?, ?, ?, ?, ?, 'details', ?)",
      ).bind(t.portalId, r.objectType ?? "CONTACT", r.ext, r.appId === undefined ? t.appId : r.appId, `m-${r.ext}`, r.at - 50, r.at, r.type ?? "MISSING_REQUIRED_PROPERTY", r.status ?? "OPEN"),
    ),
  );
}

const ids = (res: { json: { results: { externalObjectId: string }[] } }) => res.json.results.map((r) => r.externalObjectId);

describe("GET /sync/status/:storeId/:objectType/:externalObjectId", () => {
  it("reports the link, the processing time and the latest error", async () => {
    const { t, origin } = await bridgeTenant();
    await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p/1 x", properties: { title: "A" } })]);
    const res = await status(t.oauth, "PRODUCT", "p/1 x");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      storeId: "shop",
      objectType: "PRODUCT",
      externalObjectId: "p/1 x",
      serviceId: expect.any(Number),
      lastProcessedAt: expect.stringMatching(/^\d{13}$/),
      errors: [],
      numErrors: 0,
    });
    // The real service's status fields, with this API's neutral names (hubspotId -> serviceId).
    const expected = SYNC_STATUS_KEYS.map((k) => (k === "hubspotId" ? "serviceId" : k));
    for (const k of expected) expect(res.json).toHaveProperty(k);
    expect((await status(t.pat, "PRODUCT", "p/1 x")).json.serviceId).toBe(res.json.serviceId); // any token of the account
  });

  it("reports an object's latest error in every field, open or resolved, with or without a link", async () => {
    const t = await tenant();
    await store(t.pat);
    await seedErrors(t, [
      { ext: "e-open", at: 3000, type: "INVALID_EMAIL_ADDRESS" },
      { ext: "e-done", at: 2000, status: "RESOLVED", appId: null },
    ]);
    const open = await status(t.pat, "CONTACT", "e-open");
    expect(open.status).toBe(200);
    expect(open.json).toEqual({
      storeId: "shop",
      objectType: "CONTACT",
      externalObjectId: "e-open",
      serviceId: null,
      lastProcessedAt: null,
      errors: [{ portalId: t.portalId, storeId: "shop", objectType: "CONTACT", externalObjectId: "e-open", changedAt: "2950", erroredAt: "3000", type: "INVALID_EMAIL_ADDRESS", details: "details", status: "OPEN" }],
      numErrors: 1,
    });
    const resolved = await status(t.pat, "CONTACT", "e-done");
    expect(resolved.json).toMatchObject({ errors: [{ externalObjectId: "e-done", status: "RESOLVED", changedAt: "1950", erroredAt: "2000" }], numErrors: 0 });
  });

  it("an accepted, not yet processed object has a status with nothing processed (200), then its link", async () => {
    const t = await tenant();
    await accountSettings(t);
    await store(t.pat);
    await sync(t.pat, "PRODUCT", [{ externalObjectId: "queued-1", properties: { title: "A" } }]);
    // The consumer waits up to max_batch_timeout (2 s) for a fuller batch: this read comes first.
    const early = await status(t.pat, "PRODUCT", "queued-1");
    expect(early.status).toBe(200);
    expect(early.json).toMatchObject({ storeId: "shop", objectType: "PRODUCT", externalObjectId: "queued-1", errors: [], numErrors: 0 });
    const done = await waitForStatus(t.pat, "PRODUCT", "queued-1", processed);
    expect(done.serviceId).toEqual(expect.any(Number));
    // Another object of the same request body was never sent: still 404; another account sees nothing.
    expectError(await status(t.pat, "PRODUCT", "queued-2"), 404, "OBJECT_NOT_FOUND");
    const b = await tenant();
    await store(b.pat);
    expectError(await status(b.pat, "PRODUCT", "queued-1"), 404, "OBJECT_NOT_FOUND");
    // A refused request (unknown store) leaves nothing pending.
    expect((await call("PUT", `${BRIDGE}/sync/messages`, { token: t.pat, body: { storeId: "nope", objectType: "PRODUCT", messages: [{ externalObjectId: "q3" }] } })).status).toBe(400);
    expect((await (await accountD1(t.portalId)).prepare("select count(*) as n from ecomm_pending where portal_id = ?").bind(t.portalId).first<number>("n"))).toBe(1);
  });

  it("404 for an object never synced and for an unknown store; 400 for a bad object type or path", async () => {
    const t = await tenant();
    await call("PUT", `${BRIDGE}/stores`, { token: t.pat, body: { id: "shop", label: "x" } });
    expectError(await status(t.pat, "CONTACT", "never"), 404, "OBJECT_NOT_FOUND");
    expectError(await status(t.pat, "CONTACT", "never", "nostore"), 404, "OBJECT_NOT_FOUND");
    expect(expectError(await status(t.pat, "COMPANY", "x"), 400, "VALIDATION_ERROR").message).toContain("objectType");
    expectError(await call("GET", `${BRIDGE}/sync/status/shop/CONTACT/%C3%A9`, { token: t.pat }), 400, "VALIDATION_ERROR");
    expectError(await call("GET", `${BRIDGE}/sync/status/shop/CONTACT/%E0%A4%A`, { token: t.pat }), 400, "VALIDATION_ERROR");
  });

  it("auth: 401 without a credential, 403 for a developer key; isolation: account B gets 404 and no data", async () => {
    const { t, origin } = await bridgeTenant();
    await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p1", properties: { title: "secret" } })]);
    expectError(await status("", "PRODUCT", "p1"), 401, "INVALID_AUTHENTICATION");
    expectError(await status(t.developerKey, "PRODUCT", "p1"), 403, "FORBIDDEN");
    const b = await tenant();
    await call("PUT", `${BRIDGE}/stores`, { token: b.pat, body: { id: "shop", label: "B's shop" } });
    const err = expectError(await status(b.pat, "PRODUCT", "p1"), 404, "OBJECT_NOT_FOUND");
    expect(JSON.stringify(err)).not.toMatch(/serviceId/);
  });
});

describe("GET /sync/errors/portal[/:portalId]", () => {
  it("lists the account's open errors, newest first, in the real service's shape", async () => {
    const t = await tenant();
    await seedErrors(t, [
      { ext: "a", at: 1000 },
      { ext: "b", at: 3000, type: "INVALID_EMAIL_ADDRESS" },
      { ext: "c", at: 2000, status: "RESOLVED" },
      { ext: "d", at: 4000, objectType: "PRODUCT", type: "NO_SYNC_SETTINGS" },
    ]);
    const res = await call("GET", PORTAL_ERRORS, { token: t.pat });
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(["d", "b", "a"]);
    expect(res.json.paging).toBeUndefined();
    expect(Object.keys(res.json.results[0]).sort()).toEqual([...SYNC_ERROR_KEYS].sort());
    expect(res.json.results[1]).toEqual({
      portalId: t.portalId,
      storeId: "shop",
      objectType: "CONTACT",
      externalObjectId: "b",
      changedAt: "2950",
      erroredAt: "3000",
      type: "INVALID_EMAIL_ADDRESS",
      details: "details",
      status: "OPEN",
    });
    expect(ids(await call("GET", `${PORTAL_ERRORS}/${t.portalId}`, { token: t.oauth }))).toEqual(["d", "b", "a"]);
  });

  it("filters by includeResolved, objectType and errorType", async () => {
    const t = await tenant();
    await seedErrors(t, [
      { ext: "a", at: 1000 },
      { ext: "b", at: 3000, type: "INVALID_EMAIL_ADDRESS" },
      { ext: "c", at: 2000, status: "RESOLVED" },
      { ext: "d", at: 4000, objectType: "PRODUCT", type: "NO_SYNC_SETTINGS" },
    ]);
    const get = (q: string) => call("GET", `${PORTAL_ERRORS}?${q}`, { token: t.pat });
    expect(ids(await get("includeResolved=true"))).toEqual(["d", "b", "c", "a"]);
    expect(ids(await get("objectType=PRODUCT"))).toEqual(["d"]);
    expect(ids(await get("errorType=INVALID_EMAIL_ADDRESS"))).toEqual(["b"]);
    expect(ids(await get("errorType=MISSING_REQUIRED_PROPERTY&includeResolved=true"))).toEqual(["c", "a"]);
  });

  it("pages with `page` as a 1-based record offset; paging.next.page (a string) appears only while more exist", async () => {
    const t = await tenant();
    await seedErrors(t, Array.from({ length: 5 }, (_, i) => ({ ext: `e${i}`, at: 1000 + i })));
    const first = await call("GET", `${PORTAL_ERRORS}?limit=2&page=1&hapikey=ignored`, { token: t.pat });
    expect(ids(first)).toEqual(["e4", "e3"]);
    expect(first.json.paging.next.page).toBe("3");
    expect(first.json.paging.next.link).toContain("page=3");
    expect(first.json.paging.next.link).not.toContain("hapikey");
    // hubspot3's loop: page += limit
    const second = await call("GET", `${PORTAL_ERRORS}?limit=2&page=3`, { token: t.pat });
    expect(ids(second)).toEqual(["e2", "e1"]);
    const third = await call("GET", `${PORTAL_ERRORS}?limit=2&page=5`, { token: t.pat });
    expect(ids(third)).toEqual(["e0"]);
    expect(third.json.paging).toBeUndefined();
    expect(ids(await call("GET", `${PORTAL_ERRORS}?limit=2&page=2`, { token: t.pat }))).toEqual(["e3", "e2"]);
  });

  it.each([
    ["limit=0", "limit"],
    ["limit=201", "limit"],
    ["limit=abc", "limit"],
    ["page=0", "page"],
    ["page=x", "page"],
    ["objectType=COMPANY", "objectType"],
    ["errorType=NOPE", "errorType"],
    ["includeResolved=yes", "includeResolved"],
  ])("400 for %s", async (q, field) => {
    const t = await tenant();
    const err = expectError(await call("GET", `${PORTAL_ERRORS}?${q}`, { token: t.pat }), 400, "VALIDATION_ERROR");
    expect(err.message).toContain(field);
  });

  it("auth and isolation: another account's portalId is 404; a developer key is 403; B never sees A's errors", async () => {
    const a = await tenant();
    const b = await tenant();
    await seedErrors(a, [{ ext: "a-secret", at: 1000 }]);
    expectError(await call("GET", `${PORTAL_ERRORS}/${a.portalId}`, { token: b.pat }), 404, "OBJECT_NOT_FOUND");
    expect(ids(await call("GET", PORTAL_ERRORS, { token: b.oauth }))).toEqual([]);
    expectError(await call("GET", PORTAL_ERRORS, { token: a.developerKey }), 403, "FORBIDDEN");
    expectError(await call("GET", PORTAL_ERRORS), 401, "INVALID_AUTHENTICATION");
    expectError(await call("GET", `${PORTAL_ERRORS}/abc`, { token: a.pat }), 400, "VALIDATION_ERROR");
    const narrow = await tenant({ scopes: ["e-commerce"] });
    expectError(await call("GET", PORTAL_ERRORS, { token: narrow.pat }), 403, "MISSING_SCOPES");
  });
});

describe("GET /sync/errors/app/:appId", () => {
  it("lists the errors of syncs governed by the app's settings (developer key), not the account-level ones", async () => {
    const { t, origin } = await bridgeTenant();
    await deliver([
      qmsg(origin, "CONTACT", { externalObjectId: "via-app", properties: { customer_email: "bad" } }),
      qmsg({ ...origin, appId: null }, "CONTACT", { externalObjectId: "via-pat", properties: {} }), // no account settings
    ]);
    const res = await call("GET", `${BRIDGE}/sync/errors/app/${t.appId}?hapikey=${t.developerKey}&limit=5&page=1&includeResolved=true`);
    expect(res.status, res.text).toBe(200);
    expect(res.json.results).toEqual([expect.objectContaining({ externalObjectId: "via-app", type: "INVALID_EMAIL_ADDRESS", portalId: t.portalId })]);
    expect(ids(await call("GET", PORTAL_ERRORS, { token: t.pat })).sort()).toEqual(["via-app", "via-pat"]);
  });

  it("auth and isolation: that app's developer key or OAuth token; another app's is 404, a private app's 403", async () => {
    const { t, origin } = await bridgeTenant();
    await deliver([qmsg(origin, "CONTACT", { externalObjectId: "x", properties: {} })]);
    const other = await tenant();
    const path = `${BRIDGE}/sync/errors/app/${t.appId}`;
    expectError(await call("GET", path, { token: other.developerKey }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("GET", path, { token: other.oauth }), 404, "OBJECT_NOT_FOUND");
    expect(expectError(await call("GET", path, { token: t.pat }), 403, "FORBIDDEN").message).toContain("private app token");
    expectError(await call("GET", path), 401, "INVALID_AUTHENTICATION");
    expectError(await call("GET", `${path}?hapikey=${t.oauth}`), 401, "INVALID_AUTHENTICATION");
    expectError(await call("GET", `${path}?limit=500`, { token: t.developerKey }), 400, "VALIDATION_ERROR");
    expectError(await call("GET", `${path}?limit=500`, { token: t.oauth }), 400, "VALIDATION_ERROR");
    expect(ids(await call("GET", path, { token: t.developerKey }))).toEqual(["x"]);
    expect(ids(await call("GET", path, { token: t.oauth }))).toEqual(["x"]);
  });

  it("with an OAuth token of the app: only the token's account's errors; the developer key still sees every account's", async () => {
    const t = await tenant();
    const other = await tenant();
    // The same app installed in a second account, and another app installed in the first.
    const second = (await admin("POST", `/admin/v1/accounts/${other.portalId}/installs`, { appId: t.appId })).access_token as string;
    await seedErrors(t, [
      { ext: "mine-old", at: 1000 },
      { ext: "account-level", at: 2000, appId: null },
      { ext: "mine-new", at: 3000, type: "INVALID_EMAIL_ADDRESS" },
      { ext: "mine-resolved", at: 4000, status: "RESOLVED" },
      { ext: "other-app-here", at: 4500, appId: other.appId },
    ]);
    await seedErrors(other, [
      { ext: "same-app-other-account", at: 5000, appId: t.appId },
      { ext: "other-app-there", at: 6000, appId: other.appId },
    ]);
    const path = `${BRIDGE}/sync/errors/app/${t.appId}`;
    const res = await call("GET", path, { token: t.oauth });
    expect(res.status, res.text).toBe(200);
    expect(ids(res)).toEqual(["mine-new", "mine-old"]);
    expect(res.json.results.every((e: { portalId: number }) => e.portalId === t.portalId)).toBe(true);
    expect(ids(await call("GET", `${path}?includeResolved=true`, { token: t.oauth }))).toEqual(["mine-resolved", "mine-new", "mine-old"]);
    // Paging stays within the account: one record past the end of its errors, nothing of the other account.
    const paged = await call("GET", `${path}?limit=1&page=2`, { token: t.oauth });
    expect(ids(paged)).toEqual(["mine-old"]);
    expect(paged.json.paging).toBeUndefined();
    expect(ids(await call("GET", path, { token: second }))).toEqual(["same-app-other-account"]);
    // The same answer as GET /sync/errors, which lists the token's app in the token's account.
    expect(ids(await call("GET", ERRORS, { token: t.oauth }))).toEqual(ids(res));
    // The developer key keeps seeing the app's errors in every account.
    expect(ids(await call("GET", `${path}?hapikey=${t.developerKey}`))).toEqual(["same-app-other-account", "mine-new", "mine-old"]);
    // The other app's token on its own path sees only its own app's errors in its own account.
    expect(ids(await call("GET", `${BRIDGE}/sync/errors/app/${other.appId}`, { token: other.oauth }))).toEqual(["other-app-there"]);
  });

  it("an OAuth token needs the integration-sync scope", async () => {
    const narrow = await tenant({ scopes: ["oauth", "e-commerce", "timeline"] });
    const err = expectError(await call("GET", `${BRIDGE}/sync/errors/app/${narrow.appId}`, { token: narrow.oauth }), 403, "MISSING_SCOPES");
    expect(err.errors[0].context.requiredScopes).toEqual(["integration-sync"]);
    expect((await call("GET", `${BRIDGE}/sync/errors/app/${narrow.appId}`, { token: narrow.developerKey })).status).toBe(200);
  });
});

describe("GET /sync/errors (OAuth: the token's app in the token's account)", () => {
  it("lists the errors of syncs under the token's app in its account: not account-level ones, not other accounts'", async () => {
    const t = await tenant();
    const other = await tenant();
    // The same app installed in a second account: its errors there belong to that install only.
    const second = await admin("POST", `/admin/v1/accounts/${other.portalId}/installs`, { appId: t.appId });
    await seedErrors(t, [
      { ext: "app-old", at: 1000 },
      { ext: "account-level", at: 2000, appId: null },
      { ext: "app-new", at: 3000, type: "INVALID_EMAIL_ADDRESS" },
      { ext: "app-resolved", at: 4000, status: "RESOLVED" },
    ]);
    await seedErrors(other, [{ ext: "same-app-other-account", at: 5000, appId: t.appId }]);
    const res = await call("GET", ERRORS, { token: t.oauth });
    expect(res.status, res.text).toBe(200);
    expect(ids(res)).toEqual(["app-new", "app-old"]);
    expect(res.json.results[0]).toMatchObject({ portalId: t.portalId, externalObjectId: "app-new", type: "INVALID_EMAIL_ADDRESS", status: "OPEN" });
    expect(ids(await call("GET", `${ERRORS}?includeResolved=true&limit=1&page=2`, { token: t.oauth }))).toEqual(["app-new"]);
    expect(ids(await call("GET", ERRORS, { token: second.access_token }))).toEqual(["same-app-other-account"]);
  });

  it("auth: OAuth only (a private app or a developer key is 403: neither is an install), 401 without, scopes", async () => {
    const t = await tenant();
    expectError(await call("GET", ERRORS, { token: t.pat }), 403, "FORBIDDEN");
    expectError(await call("GET", `${ERRORS}?hapikey=${t.developerKey}`), 403, "FORBIDDEN");
    expectError(await call("GET", ERRORS), 401, "INVALID_AUTHENTICATION");
    expectError(await call("GET", `${ERRORS}?limit=0`, { token: t.oauth }), 400, "VALIDATION_ERROR");
    const narrow = await tenant({ scopes: ["e-commerce"] });
    expectError(await call("GET", ERRORS, { token: narrow.oauth }), 403, "MISSING_SCOPES");
  });
});
