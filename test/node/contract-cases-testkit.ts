/** Contract cases (see contract-cases.ts) of the test kit's operator routes. */
import type { Case } from "./contract-cases";
import { adminToken, api, ok, uniq } from "./contract-fixtures";
import { integratorUrl } from "./helpers";

/** A test account (the kit's controls answer 409 on a STANDARD one, such as the fixtures' tenant). */
const testAccount = async () => (await ok(api("POST", "/admin/v1/accounts", { token: adminToken(), json: { name: uniq("kit"), accountType: "DEVELOPER_TEST" } }), 201)).json.portalId as number;
/** A test account with a snapshot named `kept`. */
const withSnapshot = async () => {
  const portalId = await testAccount();
  await ok(api("POST", `/admin/v1/accounts/${portalId}/snapshots`, { token: adminToken(), json: { name: "kept" } }), 201);
  return portalId;
};
/** A test account holding one contact, loaded by a fixture. */
const withRecord = async () => {
  const portalId = await testAccount();
  await ok(api("POST", `/admin/v1/accounts/${portalId}/fixtures`, { token: adminToken(), json: { records: { contacts: [{ properties: { firstname: "Kept" } }] } } }), 201);
  return portalId;
};
/** The NDJSON export of a fresh account: its header and its control-plane rows (no data rows). */
const freshExport = async () => {
  const res = await ok(api("GET", `/admin/v1/accounts/${await testAccount()}/export`, { token: adminToken() }));
  return res.text;
};
const ndjson = { "content-type": "application/x-ndjson" };
const standard = async () => (await ok(api("POST", "/admin/v1/accounts", { token: adminToken(), json: { name: uniq("std") } }), 201)).json.portalId as number;

/** An app installed in `portalId`, with webhook settings pointing at the local integrator when `hooked`. */
const appIn = async (portalId: number, hooked = true) => {
  const app = (await ok(api("POST", "/admin/v1/apps", { token: adminToken(), json: { name: uniq("kit-app"), redirectUris: ["http://127.0.0.1/callback"] } }), 201)).json;
  await ok(api("POST", `/admin/v1/accounts/${portalId}/installs`, { token: adminToken(), json: { appId: app.appId } }), 201);
  const targetUrl = `${integratorUrl()}/${uniq("kit-hooks")}`;
  if (hooked) await ok(api("PUT", `/webhooks/v3/${app.appId}/settings`, { token: app.developerKey, json: { targetUrl, throttling: { maxConcurrentRequests: 2 } } }));
  return app.appId as number;
};

export const TESTKIT_CASES: Record<string, Case> = {
  "PUT /admin/v1/accounts/{portalId}/faults": {
    ok: async () => ({ token: adminToken(), params: { portalId: await testAccount() }, json: { rules: [{ match: { path: "/crm/v3/objects/*" }, respond: { status: 429 }, times: 1 }] } }),
    errors: {
      400: async () => ({ token: adminToken(), params: { portalId: await testAccount() }, json: { rules: [{ respond: { status: 418 } }] } }),
      409: async () => ({ token: adminToken(), params: { portalId: await standard() }, json: { rules: [] } }),
    },
  },
  "GET /admin/v1/accounts/{portalId}/faults": {
    ok: async () => ({ token: adminToken(), params: { portalId: await testAccount() } }),
    errors: { 409: async () => ({ token: adminToken(), params: { portalId: await standard() } }) },
  },
  "DELETE /admin/v1/accounts/{portalId}/faults": {
    ok: async () => ({ token: adminToken(), params: { portalId: await testAccount() } }),
    errors: { 409: async () => ({ token: adminToken(), params: { portalId: await standard() } }) },
  },
  "POST /admin/v1/accounts/{portalId}/snapshots": {
    ok: async () => ({ token: adminToken(), params: { portalId: await testAccount() }, json: { name: "first" } }),
    errors: {
      400: async () => ({ token: adminToken(), params: { portalId: await testAccount() }, json: { name: "a/b" } }),
      409: async () => ({ token: adminToken(), params: { portalId: await standard() }, json: { name: "first" } }),
    },
  },
  "GET /admin/v1/accounts/{portalId}/snapshots": {
    ok: async () => ({ token: adminToken(), params: { portalId: await withSnapshot() } }),
    errors: { 409: async () => ({ token: adminToken(), params: { portalId: await standard() } }) },
  },
  "DELETE /admin/v1/accounts/{portalId}/snapshots/{name}": {
    ok: async () => ({ token: adminToken(), params: { portalId: await withSnapshot(), name: "kept" } }),
    errors: {
      404: async () => ({ token: adminToken(), params: { portalId: await testAccount(), name: "none" } }),
      409: async () => ({ token: adminToken(), params: { portalId: await standard(), name: "kept" } }),
    },
  },
  "POST /admin/v1/accounts/{portalId}/snapshots/{name}/restore": {
    ok: async () => ({ token: adminToken(), params: { portalId: await withSnapshot(), name: "kept" } }),
    errors: {
      404: async () => ({ token: adminToken(), params: { portalId: await testAccount(), name: "none" } }),
      409: async () => ({ token: adminToken(), params: { portalId: await standard(), name: "kept" } }),
    },
  },
  "POST /admin/v1/accounts/{portalId}/reset": {
    ok: async () => ({ token: adminToken(), params: { portalId: await testAccount() } }),
    errors: { 409: async () => ({ token: adminToken(), params: { portalId: await standard() } }) },
  },
  "GET /admin/v1/accounts/{portalId}/quirks": {
    ok: async () => ({ token: adminToken(), params: { portalId: await testAccount() } }),
    errors: { 409: async () => ({ token: adminToken(), params: { portalId: await standard() } }) },
  },
  "PATCH /admin/v1/accounts/{portalId}/quirks": {
    ok: async () => ({ token: adminToken(), params: { portalId: await testAccount() }, json: { searchLagMs: 2000 } }),
    errors: { 409: async () => ({ token: adminToken(), params: { portalId: await standard() }, json: { searchLagMs: 2000 } }) },
  },
  "GET /admin/v1/accounts/{portalId}/clock": {
    ok: async () => ({ token: adminToken(), params: { portalId: await testAccount() } }),
    errors: { 409: async () => ({ token: adminToken(), params: { portalId: await standard() } }) },
  },
  "POST /admin/v1/accounts/{portalId}/clock": {
    ok: async () => ({ token: adminToken(), params: { portalId: await testAccount() }, json: { advanceSeconds: 60 } }),
    errors: { 409: async () => ({ token: adminToken(), params: { portalId: await standard() }, json: { advanceSeconds: 60 } }) },
  },
  "DELETE /admin/v1/accounts/{portalId}/clock": {
    ok: async () => ({ token: adminToken(), params: { portalId: await testAccount() } }),
    errors: { 409: async () => ({ token: adminToken(), params: { portalId: await standard() } }) },
  },
  "POST /admin/v1/apps/{appId}/webhooks/test-events": {
    ok: async () => {
      const portalId = await testAccount();
      return { token: adminToken(), params: { appId: await appIn(portalId) }, json: { portalId, subscriptionType: "contact.propertyChange", propertyName: "email", propertyValue: "a@example.com" } };
    },
    errors: {
      // A STANDARD account (so are an account without the app and an app without settings: test/testkit/test-events.test.ts).
      409: async () => {
        const portalId = await standard();
        return { token: adminToken(), params: { appId: await appIn(portalId) }, json: { portalId, subscriptionType: "contact.creation" } };
      },
    },
  },
  "GET /admin/v1/apps/{appId}/webhooks": {
    ok: async () => ({ token: adminToken(), params: { appId: await appIn(await testAccount()) } }),
  },
  "PATCH /admin/v1/apps/{appId}/webhooks": {
    ok: async () => ({ token: adminToken(), params: { appId: await appIn(await testAccount()) }, json: { held: true } }),
    errors: { 409: async () => ({ token: adminToken(), params: { appId: await appIn(await standard(), false) }, json: { held: true } }) },
  },
  "POST /admin/v1/accounts/{portalId}/fixtures": {
    ok: async () => ({
      token: adminToken(),
      params: { portalId: await testAccount() },
      json: {
        records: { contacts: [{ ref: "ada", properties: { firstname: "Ada" } }], companies: [{ ref: "acme", properties: { name: "Acme" } }] },
        associations: [{ from: "ada", to: "acme" }],
        blogPosts: [{ ref: "hello", name: "Hello", state: "PUBLISHED" }],
      },
    }),
    errors: {
      400: async () => ({ token: adminToken(), params: { portalId: await testAccount() }, json: { records: { contacts: [{ properties: { "no such name!": "x" } }] } } }),
      409: async () => ({ token: adminToken(), params: { portalId: await standard() }, json: { records: {} } }),
    },
  },
  "POST /admin/v1/accounts/{portalId}/import": {
    ok: async () => ({ token: adminToken(), params: { portalId: await standard() }, raw: await freshExport(), headers: ndjson }),
    errors: {
      400: async () => ({ token: adminToken(), params: { portalId: await standard() }, raw: "{not json\n", headers: ndjson }),
      409: async () => ({ token: adminToken(), params: { portalId: await withRecord() }, raw: await freshExport(), headers: ndjson }),
    },
    cannot: { 413: "a body over 100 MB: too large to send in this test; the cap is the platform's request size" },
  },
};
