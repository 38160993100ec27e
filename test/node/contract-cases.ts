/**
 * One case per operation of the OpenAPI document: the request that succeeds, and the requests
 * for the error statuses the generic provocations of the contract test cannot reach. A case is keyed
 * `METHOD /path/{param}` as the document names the operation; an operation without a case fails the guard.
 */
import { developerApp, integratorUrl, tenant, workerUrl, type NodeTenant } from "./helpers";
import { adminToken, api, cardBody, freshInstall, ok, script, settingsBody, signIn, uniq, type Fixtures } from "./contract-fixtures";
import { V3_CASES } from "./contract-cases-v3";
import { listCases } from "./contract-cases-lists";
import { OWNER_CASES } from "./contract-cases-owners";
import { TESTKIT_CASES } from "./contract-cases-testkit";
import { ASSOCIATION_CASES } from "./contract-cases-associations";
import { EXTENSION_CASES } from "./contract-cases-extensions";

export interface Req {
  params?: Record<string, string | number>;
  query?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  /** Sent as the body as it is (malformed JSON, oversize bodies). */
  raw?: string;
  token?: string;
  cookie?: string;
  headers?: Record<string, string>;
}

type Make = (f: Fixtures) => Req | Promise<Req>;

export interface Case {
  /** The request that succeeds (any documented status below 400). */
  ok: Make;
  /** Requests for error statuses, where the generic provocation does not fit the operation. */
  errors?: Partial<Record<number, Make>>;
  /** Documented statuses this test cannot provoke, each with the reason. */
  cannot?: Partial<Record<number, string>>;
}

const V2 = "/content/api/v2";
/** A fresh SMTP API token's userName and password, for the operator's SMTP operations. */
const newSmtpCredentials = async (f: Fixtures) => {
  const token = (await ok(api("POST", "/email/public/v1/smtpapi/tokens", { token: f.t.oauth, json: { campaignName: "c" } }), 201)).json;
  return { userName: token.userName as string, password: token.password as string };
};
const dev = (f: Fixtures) => f.t.developerKey;
const appParams = (f: Fixtures) => ({ appId: f.t.appId });
const typeParams = (f: Fixtures) => ({ appId: f.t.appId, eventTypeId: f.eventType });
const crm = (f: Fixtures) => ({ objectType: "contacts", objectId: f.contact });
const newContact = async (f: Fixtures) =>
  Number((await ok(api("POST", "/crm/v3/objects/contacts", { token: f.t.pat, json: { properties: { firstname: "x" } } }), 201)).json.id);
/** The email of a fresh contact: a write giving it to another contact is the 409. */
const emailContact = async (f: Fixtures) => {
  const email = `${uniq("taken")}@example.com`;
  await ok(api("POST", "/crm/v3/objects/contacts", { token: f.t.pat, json: { properties: { email } } }), 201);
  return email;
};
const propertyName = () => uniq("p").toLowerCase().replace(/[^a-z0-9_]/g, "_");
const propertyBody = (name: string) => ({ name, label: "P", type: "string", fieldType: "text", groupName: "contactinformation" });
/** A fresh custom contact property, for the operations that change or archive one. */
const customProperty = async (f: Fixtures) => {
  const name = propertyName();
  await ok(api("POST", "/crm/v3/properties/contacts", { token: f.t.pat, json: propertyBody(name) }), 201);
  return name;
};
const groupName = () => uniq("g").toLowerCase().replace(/[^a-z0-9_]/g, "_");
/** A fresh custom contact property group, for the operations that change or archive one. */
const customGroup = async (f: Fixtures) => {
  const name = groupName();
  await ok(api("POST", "/crm/v3/properties/contacts/groups", { token: f.t.pat, json: { name, label: "G" } }), 201);
  return name;
};
const importStarted = async (f: Fixtures) => (await ok(api("POST", `/extensions/ecomm/v2/stores/${encodeURIComponent(f.storeId)}/import`, { token: f.t.oauth }))).json.importStartedAt as number;
const authorize = (f: Fixtures) => ({ client_id: f.t.clientId, redirect_uri: "http://127.0.0.1/callback", scope: "crm.objects.contacts.read" });
const QUEUE_REFUSAL = "the sync queue refusing sendBatch is a platform fault, injected in test/reliability/queue-faults.test.ts";
const V1 = "/contacts/v1/contact";
const props = (extra: Record<string, string> = {}) => ({ properties: Object.entries({ firstname: "v1", ...extra }).map(([property, value]) => ({ property, value })) });
/** A fresh v1 contact with its own email, for the operations that change or remove one. */
const v1Contact = async (f: Fixtures) => {
  const email = `${uniq("v1")}@example.com`;
  const vid = (await ok(api("POST", V1, { token: f.t.pat, json: props({ email }) }))).json.vid as number;
  return { vid, email };
};

/** A tenant of its own, signed in, then suspended: every credential of it gets 403. */
const suspendedTenant = async () => {
  const t = await tenant();
  const { cookie } = await signIn(t);
  await ok(api("PATCH", `/admin/v1/accounts/${t.portalId}`, { token: adminToken(), json: { status: "suspended" } }));
  return { t, cookie };
};
const freshAccount = async () => (await ok(api("POST", "/admin/v1/accounts", { token: adminToken(), json: { name: uniq("lc") } }), 201)).json.portalId as number;
/** An account whose deletion has started (it stays `deleting` for the drain, seconds at least). */
const deletingAccount = async () => {
  const portalId = await freshAccount();
  await ok(api("DELETE", `/admin/v1/accounts/${portalId}`, { token: adminToken() }), 202);
  return portalId;
};
/** An account whose move has started (it waits out the drain before it is over). */
const movingAccount = async () => {
  const acct = await ok(api("POST", "/admin/v1/accounts", { token: adminToken(), json: { name: uniq("mv"), shard: "SHARD_1" } }), 201);
  await ok(api("POST", `/admin/v1/accounts/${acct.json.portalId}/move`, { token: adminToken(), json: { shard: "SHARD_2" } }), 202);
  return acct.json.portalId as number;
};
const freshPrivateApp = async (f: Fixtures) =>
  (await ok(api("POST", `/admin/v1/accounts/${f.t.portalId}/private-apps`, { token: adminToken(), json: { name: uniq("pa") } }), 201)).json.privateAppId as number;
const freshUser = async (f: Fixtures) =>
  (await ok(api("POST", `/admin/v1/accounts/${f.t.portalId}/users`, { token: adminToken(), json: { email: `${uniq("u")}@example.com` } }), 201)).json.userId as number;
// App webhooks: each case works on an app of its own, so the shared fixture app never has webhooks and no
// other case's writes are delivered anywhere. Settings and subscriptions are the app's alone (an app in no
// account); a delivery needs an account the app is installed in, whose writes it hears (a fresh tenant).
const W = "/webhooks/v3";
const hookSettings = (path: string) => ({ targetUrl: `${integratorUrl()}${path}`, throttling: { maxConcurrentRequests: 2 } });
async function hookApp<T extends { appId: number; developerKey: string }>(path = `/${uniq("hooks")}`, make: () => Promise<T> = developerApp as () => Promise<T>): Promise<T> {
  const t = await make();
  await ok(api("PUT", `${W}/${t.appId}/settings`, { token: t.developerKey, json: hookSettings(path) }));
  return t;
}
async function hookSubscription() {
  const t = await hookApp();
  const sub = await ok(api("POST", `${W}/${t.appId}/subscriptions`, { token: t.developerKey, json: { eventType: "deal.creation", active: false } }), 201);
  return { t, id: Number(sub.json.id) };
}
/** Polls the app's delivery log until its newest delivery has `status` (the webhook queue delivers). */
async function deliveryOf(t: NodeTenant, status: string): Promise<number> {
  for (let i = 0; i < 300; i++) {
    const newest = (await ok(api("GET", `${W}/${t.appId}/deliveries`, { token: t.developerKey }))).json.results[0];
    if (newest?.status === status) return Number(newest.id);
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no ${status} delivery for app ${t.appId}`);
}
/** An app whose receiver always answers 500, and its delivery once exhausted (retries at once in this worker). */
async function exhaustedDelivery() {
  const path = `/${uniq("failing-hooks")}`;
  const scripted = await fetch(`${integratorUrl()}/__script`, { method: "POST", body: JSON.stringify({ path, status: 500 }) });
  if (scripted.status !== 204) throw new Error("script failed");
  const t = await hookApp(path, tenant);
  await ok(api("POST", `${W}/${t.appId}/subscriptions`, { token: t.developerKey, json: { eventType: "contact.creation" } }), 201);
  await ok(api("POST", "/crm/v3/objects/contacts", { token: t.pat, json: { properties: { firstname: "hooked" } } }), 201);
  return { t, id: await deliveryOf(t, "exhausted") };
}
let exhausted: ReturnType<typeof exhaustedDelivery> | undefined;
let delivered: Promise<{ t: NodeTenant; id: number }> | undefined;
const deliveredOnce = () =>
  (delivered ??= (async () => {
    const t = await hookApp(undefined, tenant);
    await ok(api("POST", `${W}/${t.appId}/subscriptions`, { token: t.developerKey, json: { eventType: "contact.creation" } }), 201);
    await ok(api("POST", "/crm/v3/objects/contacts", { token: t.pat, json: { properties: { firstname: "hooked" } } }), 201);
    return { t, id: await deliveryOf(t, "delivered") };
  })());

export const CASES: Record<string, Case> = {
  // ---------------------------------------------------------------- operator API
  "POST /admin/v1/accounts": { ok: () => ({ token: adminToken(), json: { name: uniq("acct") } }) },
  "POST /admin/v1/apps": { ok: () => ({ token: adminToken(), json: { name: uniq("app"), redirectUris: ["http://127.0.0.1/cb"] } }) },
  "POST /admin/v1/accounts/{portalId}/private-apps": { ok: (f) => ({ token: adminToken(), params: { portalId: f.t.portalId }, json: { name: "pa" } }) },
  "POST /admin/v1/accounts/{portalId}/installs": {
    ok: async (f) => {
      const acct = await ok(api("POST", "/admin/v1/accounts", { token: adminToken(), json: { name: uniq("i") } }), 201);
      return { token: adminToken(), params: { portalId: acct.json.portalId }, json: { appId: f.t.appId } };
    },
  },
  "DELETE /admin/v1/accounts/{portalId}/installs/{appId}": {
    ok: async (f) => {
      const acct = await ok(api("POST", "/admin/v1/accounts", { token: adminToken(), json: { name: uniq("d") } }), 201);
      await ok(api("POST", `/admin/v1/accounts/${acct.json.portalId}/installs`, { token: adminToken(), json: { appId: f.t.appId } }), 201);
      return { token: adminToken(), params: { portalId: acct.json.portalId, appId: f.t.appId } };
    },
  },
  // Shards and account moves. A move starts on a fresh account so the shared fixtures never move.
  "GET /admin/v1/shards": { ok: () => ({ token: adminToken() }), errors: { 400: () => ({ token: adminToken(), query: { check: "everything" } }) } },
  // Reopening an open shard changes nothing, so the shared fixtures' placement is never affected.
  "PATCH /admin/v1/shards/{name}": {
    ok: () => ({ token: adminToken(), params: { name: "SHARD_1" }, json: { open: true } }),
    errors: { 404: () => ({ token: adminToken(), params: { name: "SHARD_9" }, json: { open: true } }) },
  },
  "GET /admin/v1/accounts": {
    ok: () => ({ token: adminToken(), query: { limit: "2" } }),
    errors: { 400: () => ({ token: adminToken(), query: { limit: "many" } }) },
  },
  "GET /admin/v1/accounts/{portalId}": { ok: (f) => ({ token: adminToken(), params: { portalId: f.t.portalId } }) },
  "POST /admin/v1/accounts/{portalId}/move": {
    ok: async () => {
      const acct = await ok(api("POST", "/admin/v1/accounts", { token: adminToken(), json: { name: uniq("mv"), shard: "SHARD_1" } }), 201);
      return { token: adminToken(), params: { portalId: acct.json.portalId }, json: { shard: "SHARD_2" } };
    },
    errors: {
      400: (f) => ({ token: adminToken(), params: { portalId: f.t.portalId }, json: { shard: "SHARD_99" } }),
      409: async () => {
        const acct = await ok(api("POST", "/admin/v1/accounts", { token: adminToken(), json: { name: uniq("mv"), shard: "SHARD_1" } }), 201);
        return { token: adminToken(), params: { portalId: acct.json.portalId }, json: { shard: "SHARD_1" } };
      },
    },
  },
  "POST /admin/v1/accounts/{portalId}/companion": {
    ok: async () => {
      const acct = await ok(api("POST", "/admin/v1/accounts", { token: adminToken(), json: { name: uniq("cp"), shard: "SHARD_1" } }), 201);
      return { token: adminToken(), params: { portalId: acct.json.portalId }, json: { shard: "SHARD_2" } };
    },
    errors: {
      400: (f) => ({ token: adminToken(), params: { portalId: f.t.portalId }, json: { shard: "SHARD_99" } }),
      // The account's own shard is never its companion.
      409: async () => {
        const acct = await ok(api("POST", "/admin/v1/accounts", { token: adminToken(), json: { name: uniq("cp"), shard: "SHARD_1" } }), 201);
        return { token: adminToken(), params: { portalId: acct.json.portalId }, json: { shard: "SHARD_1" } };
      },
    },
  },
  "GET /admin/v1/accounts/{portalId}/usage": { ok: (f) => ({ token: adminToken(), params: { portalId: f.t.portalId } }) },
  "GET /admin/v1/accounts/{portalId}/emails": { ok: (f) => ({ token: adminToken(), params: { portalId: f.t.portalId }, query: { limit: "1" } }) },
  "POST /admin/v1/smtp/verify": {
    ok: async (f) => ({ token: adminToken(), json: await newSmtpCredentials(f) }),
    errors: { 401: async (f) => ({ token: adminToken(), json: { ...(await newSmtpCredentials(f)), password: "wrong" } }) },
  },
  "POST /admin/v1/smtp/messages": {
    ok: async (f) => ({ token: adminToken(), json: { ...(await newSmtpCredentials(f)), from: "shop@example.com", to: ["buyer@example.com"], subject: "s", text: "t" } }),
  },
  "POST /admin/v1/accounts/{portalId}/users": { ok: (f) => ({ token: adminToken(), params: { portalId: f.t.portalId }, json: { email: `${uniq("u")}@example.com` } }) },
  "PATCH /admin/v1/apps/{appId}": {
    ok: async () => {
      const app = await ok(api("POST", "/admin/v1/apps", { token: adminToken(), json: { name: uniq("p"), redirectUris: ["http://127.0.0.1/cb"] } }), 201);
      return { token: adminToken(), params: { appId: app.json.appId }, json: { scopes: ["crm.objects.contacts.read"] } };
    },
    // t's app has a CRM card, which needs more than this one scope.
    errors: { 409: (f) => ({ token: adminToken(), params: { appId: f.t.appId }, json: { scopes: ["content"] } }) },
  },

  // Account lifecycle (docs/how-to/account-lifecycle.md). Each changing case works on fresh accounts, apps,
  // private apps and users, so the shared fixtures keep their credentials.
  "PATCH /admin/v1/accounts/{portalId}": {
    ok: async () => ({ token: adminToken(), params: { portalId: await freshAccount() }, json: { status: "suspended" } }),
    errors: { 409: async () => ({ token: adminToken(), params: { portalId: await deletingAccount() }, json: { status: "active" } }) },
  },
  "DELETE /admin/v1/accounts/{portalId}": {
    ok: async () => ({ token: adminToken(), params: { portalId: await freshAccount() } }),
    errors: { 409: async () => ({ token: adminToken(), params: { portalId: await movingAccount() } }) },
  },
  "GET /admin/v1/accounts/{portalId}/export": {
    ok: (f) => ({ token: adminToken(), params: { portalId: f.t.portalId } }),
    errors: { 409: async () => ({ token: adminToken(), params: { portalId: await deletingAccount() } }) },
  },
  "DELETE /admin/v1/accounts/{portalId}/private-apps/{privateAppId}": {
    ok: async (f) => ({ token: adminToken(), params: { portalId: f.t.portalId, privateAppId: await freshPrivateApp(f) } }),
  },
  "POST /admin/v1/accounts/{portalId}/private-apps/{privateAppId}/rotate": {
    ok: async (f) => ({ token: adminToken(), params: { portalId: f.t.portalId, privateAppId: await freshPrivateApp(f) } }),
  },
  "POST /admin/v1/apps/{appId}/rotate-secret": {
    ok: async () => {
      const app = await ok(api("POST", "/admin/v1/apps", { token: adminToken(), json: { name: uniq("r"), redirectUris: ["http://127.0.0.1/cb"] } }), 201);
      return { token: adminToken(), params: { appId: app.json.appId }, json: { graceSeconds: 60 } };
    },
    cannot: { 409: "two rotations of one secret at the same instant: a race no single request provokes" },
  },
  "DELETE /admin/v1/accounts/{portalId}/users/{userId}": {
    ok: async (f) => ({ token: adminToken(), params: { portalId: f.t.portalId, userId: await freshUser(f) } }),
  },
  "POST /admin/v1/accounts/{portalId}/users/{userId}/password": {
    ok: async (f) => ({ token: adminToken(), params: { portalId: f.t.portalId, userId: await freshUser(f) }, json: { password: "a long enough one" } }),
  },

  // ---------------------------------------------------------------- OAuth and sign-in
  "GET /oauth/authorize": {
    ok: (f) => ({ query: authorize(f), cookie: f.session.cookie }),
    errors: {
      400: (f) => ({ query: { ...authorize(f), client_id: "unknown-client" } }),
      403: async (f) => ({ query: authorize(f), cookie: (await suspendedTenant()).cookie }),
    },
  },
  "POST /oauth/authorize": {
    ok: (f) => ({ form: { ...authorize(f), csrf: f.session.csrf, decision: "approve" }, cookie: f.session.cookie }),
    errors: { 403: (f) => ({ form: { ...authorize(f), csrf: "wrong", decision: "approve" }, cookie: f.session.cookie }) },
  },
  "POST /oauth/v1/token": {
    ok: async (f) => ({ form: { grant_type: "refresh_token", refresh_token: (await freshInstall(f.t)).refresh_token, client_id: f.t.clientId, client_secret: f.t.clientSecret } }),
    // The client's credentials travel in the form, so leaving out a bearer token is no 401; a wrong secret
    // over HTTP Basic is (401 invalid_client; a wrong secret in the form stays the 400 the real service answers).
    errors: {
      401: async (f) => ({
        form: { grant_type: "refresh_token", refresh_token: (await freshInstall(f.t)).refresh_token },
        headers: { authorization: `Basic ${Buffer.from(`${f.t.clientId}:wrong`).toString("base64")}` },
      }),
      403: async () => {
        const t = (await suspendedTenant()).t;
        return { form: { grant_type: "refresh_token", refresh_token: t.refresh, client_id: t.clientId, client_secret: t.clientSecret } };
      },
    },
  },
  "GET /oauth/v1/access-tokens/{token}": { ok: (f) => ({ params: { token: f.t.oauth } }) },
  "GET /oauth/v1/refresh-tokens/{token}": { ok: (f) => ({ params: { token: f.t.refresh } }) },
  "DELETE /oauth/v1/refresh-tokens/{token}": {
    ok: async (f) => ({ params: { token: (await freshInstall(f.t)).refresh_token } }),
  },
  "GET /oauth-callback": { ok: () => ({ query: { code: "walkthrough-code", state: "s" } }), errors: { 400: () => ({ query: { code: "c".repeat(201) } }) } },
  "GET /login": { ok: () => ({ query: { next: "/app" } }), errors: { 400: () => ({ query: { next: "x".repeat(2001) } }) } },
  "POST /login": {
    ok: (f) => ({ form: { email: f.t.userEmail, password: f.t.userPassword }, headers: { origin: workerUrl() } }),
    errors: {
      401: (f) => ({ form: { email: f.t.userEmail, password: "wrong password" }, headers: { origin: workerUrl() } }),
      403: (f) => ({ form: { email: f.t.userEmail, password: f.t.userPassword }, headers: { origin: "https://evil.example" } }),
    },
    cannot: { 429: "needs the sign-in throttle's budget of failures; test/web covers it, and running it here would lock the fixture user out" },
  },
  "POST /logout": {
    ok: async (f) => {
      const s = await signIn(f.t);
      return { form: { csrf: s.csrf }, cookie: s.cookie };
    },
    errors: {
      400: () => ({ form: { csrf: "x".repeat(201) } }),
      403: (f) => ({ form: { csrf: "wrong" }, cookie: f.session.cookie }),
    },
  },

  // ---------------------------------------------------------------- contacts v1, CRM records
  "GET /contacts/v1/lists/all/contacts/all": {
    ok: (f) => ({ token: f.t.pat, query: { count: "5", propertyMode: "value_only", formSubmissionMode: "none" } }),
    errors: { 400: (f) => ({ token: f.t.pat, query: { count: "many" } }) },
  },
  // Legacy v1 contacts.
  "GET /contacts/v1/lists/all/contacts/recent": {
    ok: (f) => ({ token: f.t.pat, query: { count: "5", property: "email" } }),
    errors: { 400: (f) => ({ token: f.t.pat, query: { timeOffset: "yesterday" } }) },
  },
  "GET /contacts/v1/lists/recently_updated/contacts/recent": {
    ok: (f) => ({ token: f.t.pat, query: { count: "5" } }),
    errors: { 400: (f) => ({ token: f.t.pat, query: { vidOffset: "x" } }) },
  },
  "GET /contacts/v1/search/query": {
    ok: (f) => ({ token: f.t.pat, query: { q: "example.com", count: "5" } }),
    errors: { 400: (f) => ({ token: f.t.pat, query: { q: "" } }) },
  },
  "GET /contacts/v1/contact/vid/{vid}/profile": { ok: (f) => ({ token: f.t.pat, params: { vid: f.contact }, query: { propertyMode: "value_and_history" } }) },
  "GET /contacts/v1/contact/email/{email}/profile": {
    ok: async (f) => ({ token: f.t.pat, params: { email: (await v1Contact(f)).email } }),
    errors: { 404: (f) => ({ token: f.t.pat, params: { email: `${uniq("nobody")}@example.com` } }) },
  },
  "GET /contacts/v1/contact/utk/{utk}/profile": {
    ok: async (f) => {
      const utk = uniq("utk");
      await ok(api("POST", "/tracking/v1/identify", { token: f.t.pat, json: { utk, email: `${uniq("u")}@example.com` } }));
      return { token: f.t.pat, params: { utk } };
    },
    errors: { 404: (f) => ({ token: f.t.pat, params: { utk: uniq("unknown") } }) },
  },
  "GET /contacts/v1/contact/vids/batch": {
    ok: (f) => ({ token: f.t.pat, query: { vid: String(f.contact) } }),
    errors: { 400: (f) => ({ token: f.t.pat, query: { vid: "x" } }) },
  },
  "GET /contacts/v1/contact/emails/batch": {
    ok: async (f) => ({ token: f.t.pat, query: { email: (await v1Contact(f)).email } }),
    errors: { 400: (f) => ({ token: f.t.pat }) },
  },
  "POST /contacts/v1/contact": {
    ok: (f) => ({ token: f.t.pat, json: props({ email: `${uniq("new")}@example.com` }) }),
    errors: {
      400: (f) => ({ token: f.t.pat, json: props({ email: "not an email" }) }),
      409: async (f) => ({ token: f.t.pat, json: props({ email: (await v1Contact(f)).email }) }),
    },
  },
  "POST /contacts/v1/contact/vid/{vid}/profile": { ok: (f) => ({ token: f.t.pat, params: { vid: f.contact }, json: props({ lastname: "v1" }) }) },
  "POST /contacts/v1/contact/email/{email}/profile": {
    ok: async (f) => ({ token: f.t.pat, params: { email: (await v1Contact(f)).email }, json: props({ lastname: "v1" }) }),
    errors: { 404: (f) => ({ token: f.t.pat, params: { email: `${uniq("nobody")}@example.com` }, json: props() }) },
  },
  "POST /contacts/v1/contact/createOrUpdate/email/{email}": {
    ok: (f) => ({ token: f.t.pat, params: { email: `${uniq("cu")}@example.com` }, json: props() }),
    errors: { 400: (f) => ({ token: f.t.pat, params: { email: "not-an-email" }, json: props() }) },
  },
  "POST /contacts/v1/contact/batch": {
    ok: (f) => ({ token: f.t.pat, json: [{ email: `${uniq("b")}@example.com`, ...props() }, { vid: f.contact, ...props({ lastname: "b" }) }] }),
    errors: { 400: (f) => ({ token: f.t.pat, json: [{ email: "not an email", ...props() }] }) },
  },
  "DELETE /contacts/v1/contact/vid/{vid}": { ok: async (f) => ({ token: f.t.pat, params: { vid: (await v1Contact(f)).vid } }) },
  "POST /contacts/v1/contact/merge-vids/{vid}": {
    ok: async (f) => ({ token: f.t.pat, params: { vid: (await v1Contact(f)).vid }, json: { vidToMerge: (await v1Contact(f)).vid } }),
    errors: {
      400: async (f) => {
        const { vid } = await v1Contact(f);
        return { token: f.t.pat, params: { vid }, json: { vidToMerge: vid } };
      },
    },
  },
  "POST /crm/v3/objects/{objectType}": {
    ok: (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, json: { properties: { firstname: "x" } } }),
    errors: { 409: async (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, json: { properties: { email: await emailContact(f) } } }) },
  },
  "GET /crm/v3/objects/{objectType}": {
    ok: (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, query: { limit: "2", properties: "email", archived: "false", associations: "companies" } }),
  },
  "GET /crm/v3/objects/{objectType}/{objectId}": { ok: (f) => ({ token: f.t.pat, params: crm(f), query: { propertiesWithHistory: "email" } }) },
  "PATCH /crm/v3/objects/{objectType}/{objectId}": {
    ok: (f) => ({ token: f.t.pat, params: crm(f), json: { properties: { lastname: "y" } } }),
    errors: { 409: async (f) => ({ token: f.t.pat, params: { objectType: "contacts", objectId: await newContact(f) }, json: { properties: { email: await emailContact(f) } } }) },
  },
  "DELETE /crm/v3/objects/{objectType}/{objectId}": { ok: async (f) => ({ token: f.t.pat, params: { objectType: "contacts", objectId: await newContact(f) } }) },
  "PUT /crm/v3/objects/{objectType}/{objectId}/associations/{toObjectType}/{toObjectId}": {
    ok: (f) => ({ token: f.t.pat, params: { ...crm(f), toObjectType: "companies", toObjectId: f.company } }),
  },
  "DELETE /crm/v3/objects/{objectType}/{objectId}/associations/{toObjectType}/{toObjectId}": {
    ok: (f) => ({ token: f.t.pat, params: { ...crm(f), toObjectType: "companies", toObjectId: f.company } }),
  },

  // CRM v3 search, batch, properties and associations v4 (docs/reference/crm.md).
  "POST /crm/v3/objects/{objectType}/search": {
    ok: (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, json: { filterGroups: [{ filters: [{ propertyName: "firstname", operator: "HAS_PROPERTY" }] }], limit: 1 } }),
  },
  "POST /crm/v3/objects/{objectType}/batch/create": {
    ok: (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, json: { inputs: [{ properties: { firstname: "b" } }] } }),
    errors: { 409: async (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, json: { inputs: [{ properties: { email: await emailContact(f) } }] } }) },
  },
  "POST /crm/v3/objects/{objectType}/batch/read": {
    ok: (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, json: { inputs: [{ id: String(f.contact) }], properties: ["email"] } }),
    errors: { 207: (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, json: { inputs: [{ id: String(f.contact) }, { id: "999999999" }] } }) },
  },
  "POST /crm/v3/objects/{objectType}/batch/update": {
    ok: (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, json: { inputs: [{ id: String(f.contact), properties: { lastname: "b" } }] } }),
    errors: {
      207: (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, json: { inputs: [{ id: "999999999", properties: { lastname: "b" } }] } }),
      409: async (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, json: { inputs: [{ id: String(await newContact(f)), properties: { email: await emailContact(f) } }] } }),
    },
  },
  "POST /crm/v3/objects/{objectType}/batch/upsert": {
    ok: (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, json: { inputs: [{ id: `${uniq("up")}@example.com`, idProperty: "email", properties: { firstname: "u" } }] } }),
  },
  "POST /crm/v3/objects/{objectType}/batch/archive": {
    ok: async (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, json: { inputs: [{ id: String(await newContact(f)) }] } }),
  },
  "POST /crm/v3/objects/{objectType}/merge": {
    ok: async (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, json: { primaryObjectId: String(await newContact(f)), objectIdToMerge: String(await newContact(f)) } }),
    errors: { 400: (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, json: { primaryObjectId: String(f.contact), objectIdToMerge: String(f.contact) } }) },
  },
  "POST /crm/v3/objects/contacts/gdpr-delete": {
    ok: async (f) => ({ token: f.t.pat, json: { objectId: String(await newContact(f)) } }),
    errors: { 404: (f) => ({ token: f.t.pat, json: { objectId: "999999999999" } }) },
  },
  "GET /crm/v3/properties/{objectType}": { ok: (f) => ({ token: f.t.pat, params: { objectType: "contacts" } }) },
  "POST /crm/v3/properties/{objectType}": {
    ok: (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, json: propertyBody(propertyName()) }),
    errors: { 409: (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, json: propertyBody("email") }) },
  },
  "GET /crm/v3/properties/{objectType}/{propertyName}": { ok: (f) => ({ token: f.t.pat, params: { objectType: "contacts", propertyName: "email" } }) },
  "PATCH /crm/v3/properties/{objectType}/{propertyName}": {
    ok: async (f) => ({ token: f.t.pat, params: { objectType: "contacts", propertyName: await customProperty(f) }, json: { label: "Changed" } }),
  },
  "DELETE /crm/v3/properties/{objectType}/{propertyName}": {
    ok: async (f) => ({ token: f.t.pat, params: { objectType: "contacts", propertyName: await customProperty(f) } }),
  },
  "POST /crm/v3/properties/{objectType}/batch/create": {
    ok: (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, json: { inputs: [propertyBody(propertyName())] } }),
    errors: { 409: (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, json: { inputs: [propertyBody("email")] } }) },
  },
  "POST /crm/v3/properties/{objectType}/batch/read": {
    ok: (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, json: { archived: false, inputs: [{ name: "email" }] } }),
    errors: { 207: (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, json: { archived: false, inputs: [{ name: "email" }, { name: "no_such_property" }] } }) },
  },
  "POST /crm/v3/properties/{objectType}/batch/archive": {
    ok: async (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, json: { inputs: [{ name: await customProperty(f) }] } }),
  },
  "GET /crm/v3/properties/{objectType}/groups": { ok: (f) => ({ token: f.t.pat, params: { objectType: "contacts" } }) },
  "POST /crm/v3/properties/{objectType}/groups": {
    ok: (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, json: { name: groupName(), label: "G" } }),
    errors: { 409: (f) => ({ token: f.t.pat, params: { objectType: "contacts" }, json: { name: "contactinformation", label: "G" } }) },
  },
  "GET /crm/v3/properties/{objectType}/groups/{groupName}": { ok: (f) => ({ token: f.t.pat, params: { objectType: "contacts", groupName: "contactinformation" } }) },
  "PATCH /crm/v3/properties/{objectType}/groups/{groupName}": {
    ok: async (f) => ({ token: f.t.pat, params: { objectType: "contacts", groupName: await customGroup(f) }, json: { label: "Changed" } }),
  },
  "DELETE /crm/v3/properties/{objectType}/groups/{groupName}": {
    ok: async (f) => ({ token: f.t.pat, params: { objectType: "contacts", groupName: await customGroup(f) } }),
  },
  "PUT /crm/v4/objects/{objectType}/{objectId}/associations/{toObjectType}/{toObjectId}": {
    ok: (f) => ({ token: f.t.pat, params: { ...crm(f), toObjectType: "companies", toObjectId: f.company }, json: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 279 }] }),
  },
  "PUT /crm/v4/objects/{fromObjectType}/{fromObjectId}/associations/default/{toObjectType}/{toObjectId}": {
    ok: (f) => ({ token: f.t.pat, params: { fromObjectType: "contacts", fromObjectId: f.contact, toObjectType: "companies", toObjectId: f.company } }),
  },
  "GET /crm/v4/objects/{objectType}/{objectId}/associations/{toObjectType}": {
    ok: (f) => ({ token: f.t.pat, params: { ...crm(f), toObjectType: "companies" }, query: { limit: "10" } }),
    errors: { 404: (f) => ({ token: f.t.pat, params: { objectType: "contacts", objectId: 999999999, toObjectType: "companies" } }) },
  },
  "DELETE /crm/v4/objects/{objectType}/{objectId}/associations/{toObjectType}/{toObjectId}": {
    ok: (f) => ({ token: f.t.pat, params: { ...crm(f), toObjectType: "companies", toObjectId: f.company } }),
  },

  // ---------------------------------------------------------------- ecommerce bridge
  "PUT /extensions/ecomm/v2/settings": { ok: (f) => ({ token: dev(f), query: { appId: String(f.t.appId), showProvidedMappings: "false" }, json: settingsBody() }) },
  "GET /extensions/ecomm/v2/settings": { ok: (f) => ({ token: dev(f), query: { appId: String(f.t.appId) } }), errors: { 400: (f) => ({ token: dev(f), query: { appId: "x" } }) } },
  "DELETE /extensions/ecomm/v2/settings": {
    ok: async (f) => {
      await ok(api("PUT", "/extensions/ecomm/v2/settings", { token: f.t.pat, json: settingsBody() }));
      return { token: f.t.pat };
    },
    errors: { 400: (f) => ({ token: dev(f), query: { appId: "x" } }) },
  },
  "PUT /extensions/ecomm/v2/stores": { ok: (f) => ({ token: f.t.oauth, json: { id: uniq("s"), label: "S", adminUri: "https://s.example.com/admin" } }) },
  "GET /extensions/ecomm/v2/stores": { ok: (f) => ({ token: f.t.oauth }) },
  "GET /extensions/ecomm/v2/stores/{storeId}": { ok: (f) => ({ token: f.t.oauth, params: { storeId: f.storeId } }) },
  "DELETE /extensions/ecomm/v2/stores/{storeId}": {
    ok: async (f) => {
      const id = uniq("gone");
      await ok(api("PUT", "/extensions/ecomm/v2/stores", { token: f.t.oauth, json: { id, label: "G", adminUri: "https://g.example.com/admin" } }));
      return { token: f.t.oauth, params: { storeId: id } };
    },
  },
  "POST /extensions/ecomm/v2/stores/{storeId}/import": { ok: (f) => ({ token: f.t.oauth, params: { storeId: f.storeId } }) },
  "POST /extensions/ecomm/v2/imports/page": {
    ok: async (f) => ({
      token: f.t.oauth,
      json: { importStartedAt: await importStarted(f), pageNumber: 1, storeId: f.storeId, objectType: "PRODUCT", messages: [{ externalObjectId: uniq("p"), properties: { title: "T" } }] },
    }),
  },
  "POST /extensions/ecomm/v2/imports/end": {
    ok: async (f) => ({ token: f.t.oauth, json: { importStartedAt: await importStarted(f), pageCount: 1, itemCount: 1, storeId: f.storeId, objectType: "PRODUCT" } }),
  },
  "PUT /extensions/ecomm/v2/sync/messages": {
    ok: (f) => ({ token: f.t.oauth, json: { storeId: f.storeId, objectType: "PRODUCT", messages: [{ action: "UPSERT", externalObjectId: uniq("p"), properties: { title: "T" } }] } }),
    cannot: { 503: QUEUE_REFUSAL },
  },
  "GET /extensions/ecomm/v2/sync/status/{storeId}/{objectType}/{externalObjectId}": {
    ok: (f) => ({ token: f.t.oauth, params: { storeId: f.storeId, objectType: "CONTACT", externalObjectId: f.syncedId } }),
  },
  "GET /extensions/ecomm/v2/sync/errors": { ok: (f) => ({ token: f.t.oauth }), errors: { 400: (f) => ({ token: f.t.oauth, query: { limit: "x" } }) } },
  "GET /extensions/ecomm/v2/sync/errors/portal": { ok: (f) => ({ token: f.t.pat }), errors: { 400: (f) => ({ token: f.t.pat, query: { limit: "x" } }) } },
  "GET /extensions/ecomm/v2/sync/errors/portal/{portalId}": { ok: (f) => ({ token: f.t.pat, params: { portalId: f.t.portalId } }) },
  "GET /extensions/ecomm/v2/sync/errors/app/{appId}": { ok: (f) => ({ token: dev(f), params: appParams(f) }) },

  // ---------------------------------------------------------------- timeline
  "POST /integrations/v1/{appId}/timeline/event-types": { ok: (f) => ({ token: dev(f), params: appParams(f), json: { name: uniq("type") } }) },
  "GET /integrations/v1/{appId}/timeline/event-types": { ok: (f) => ({ token: dev(f), params: appParams(f) }) },
  "GET /integrations/v1/{appId}/timeline/event-types/{eventTypeId}": { ok: (f) => ({ token: dev(f), params: typeParams(f) }) },
  "PUT /integrations/v1/{appId}/timeline/event-types/{eventTypeId}": { ok: (f) => ({ token: dev(f), params: typeParams(f), json: { name: "Webinar 2" } }) },
  "DELETE /integrations/v1/{appId}/timeline/event-types/{eventTypeId}": {
    ok: async (f) => {
      const type = await ok(api("POST", `/integrations/v1/${f.t.appId}/timeline/event-types`, { token: dev(f), json: { name: uniq("gone") } }));
      return { token: dev(f), params: { appId: f.t.appId, eventTypeId: type.json.id } };
    },
  },
  "POST /integrations/v1/{appId}/timeline/event-types/{eventTypeId}/properties": {
    ok: (f) => ({ token: dev(f), params: typeParams(f), json: { name: uniq("p").replace(/-/g, "_"), label: "P", propertyType: "String" } }),
  },
  "GET /integrations/v1/{appId}/timeline/event-types/{eventTypeId}/properties": { ok: (f) => ({ token: dev(f), params: typeParams(f) }) },
  "PUT /integrations/v1/{appId}/timeline/event-types/{eventTypeId}/properties": {
    ok: (f) => ({ token: dev(f), params: typeParams(f), json: { id: f.property, label: "Title 2" } }),
  },
  "DELETE /integrations/v1/{appId}/timeline/event-types/{eventTypeId}/properties/{propertyId}": {
    ok: async (f) => {
      const p = await ok(api("POST", `/integrations/v1/${f.t.appId}/timeline/event-types/${f.eventType}/properties`, { token: dev(f), json: { name: uniq("g").replace(/-/g, "_"), label: "G", propertyType: "String" } }));
      return { token: dev(f), params: { ...typeParams(f), propertyId: p.json.id } };
    },
  },
  "PUT /integrations/v1/{appId}/timeline/event": { ok: (f) => ({ token: f.t.oauth, params: appParams(f), json: { id: uniq("e"), eventTypeId: f.eventType, objectId: f.contact } }) },
  "POST /integrations/v1/{appId}/timeline/event": { ok: (f) => ({ token: f.t.oauth, params: appParams(f), json: { id: uniq("e"), eventTypeId: f.eventType, objectId: f.contact } }) },
  "PUT /integrations/v1/{appId}/timeline/event/batch": {
    ok: (f) => ({ token: f.t.oauth, params: appParams(f), json: { eventWrappers: [{ id: uniq("e"), eventTypeId: f.eventType, objectId: f.contact }] } }),
  },
  "POST /integrations/v1/{appId}/timeline/event/batch": {
    ok: (f) => ({ token: f.t.oauth, params: appParams(f), json: { eventWrappers: [{ id: uniq("e"), eventTypeId: f.eventType, objectId: f.contact }] } }),
  },
  "GET /integrations/v1/{appId}/timeline/event/{eventTypeId}/{eventId}": { ok: (f) => ({ token: f.t.oauth, params: { ...typeParams(f), eventId: f.eventId } }) },
  "POST /tracking/v1/identify": { ok: (f) => ({ token: f.t.pat, json: { utk: uniq("utk"), email: `${uniq("v")}@example.com` } }) },
  "GET /crm/v3/objects/{objectType}/{objectId}/timeline": {
    ok: (f) => ({ token: f.t.pat, params: crm(f), query: { limit: "5" } }),
  },

  // ---------------------------------------------------------------- content
  "GET /content/api/v2/blogs": { ok: (f) => ({ token: f.t.oauth, query: { limit: "5" } }), errors: { 400: (f) => ({ token: f.t.oauth, query: { limit: "0" } }) } },
  "POST /content/api/v2/blogs": { ok: (f) => ({ token: f.t.oauth, json: { name: uniq("blog") } }) },
  "GET /content/api/v2/blogs/{id}": { ok: (f) => ({ token: f.t.oauth, params: { id: f.blog } }) },
  "GET /content/api/v2/blog-authors": { ok: (f) => ({ token: f.t.oauth }), errors: { 400: (f) => ({ token: f.t.oauth, query: { offset: "x" } }) } },
  "POST /content/api/v2/blog-authors": { ok: (f) => ({ token: f.t.oauth, json: { full_name: "Ann" } }) },
  "GET /content/api/v2/blog-authors/{id}": { ok: (f) => ({ token: f.t.oauth, params: { id: f.author } }) },
  "GET /content/api/v2/topics": { ok: (f) => ({ token: f.t.oauth }), errors: { 400: (f) => ({ token: f.t.oauth, query: { limit: "x" } }) } },
  "POST /content/api/v2/topics": {
    ok: (f) => ({ token: f.t.oauth, json: { name: uniq("Topic") } }),
    errors: { 409: (f) => ({ token: f.t.oauth, json: { name: f.topicName } }) },
  },
  "GET /content/api/v2/topics/{id}": { ok: (f) => ({ token: f.t.oauth, params: { id: f.topic } }) },
  "GET /content/api/v2/blog-posts": { ok: (f) => ({ token: f.t.oauth, query: { state: "draft" } }), errors: { 400: (f) => ({ token: f.t.oauth, query: { order_by: "nope" } }) } },
  "POST /content/api/v2/blog-posts": {
    ok: (f) => ({ token: f.t.oauth, json: { name: "P", content_group_id: f.blog } }),
    errors: { 409: (f) => ({ token: f.t.oauth, json: { name: "P", slug: f.postSlug } }) },
  },
  "GET /content/api/v2/blog-posts/{id}": { ok: (f) => ({ token: f.t.oauth, params: { id: f.post } }) },
  "PUT /content/api/v2/blog-posts/{id}": {
    ok: (f) => ({ token: f.t.oauth, params: { id: f.post }, json: { post_summary: "s" } }),
    errors: {
      409: async (f) => {
        const other = await ok(api("POST", `${V2}/blog-posts`, { token: f.t.oauth, json: { name: "Other" } }), 201);
        return { token: f.t.oauth, params: { id: other.json.id }, json: { slug: f.postSlug } };
      },
    },
  },
  "DELETE /content/api/v2/blog-posts/{id}": {
    ok: async (f) => ({ token: f.t.oauth, params: { id: (await ok(api("POST", `${V2}/blog-posts`, { token: f.t.oauth, json: { name: "Gone" } }), 201)).json.id } }),
  },
  "POST /content/api/v2/blog-posts/{id}/publish-action": {
    ok: (f) => ({ token: f.t.oauth, params: { id: f.post }, json: { action: "schedule-publish" } }),
    errors: {
      409: async (f) => {
        const gone = await ok(api("POST", `${V2}/blog-posts`, { token: f.t.oauth, json: { name: "Deleted" } }), 201);
        await ok(api("DELETE", `${V2}/blog-posts/${gone.json.id}`, { token: f.t.oauth }), 204);
        return { token: f.t.oauth, params: { id: gone.json.id }, json: { action: "schedule-publish" } };
      },
    },
  },
  "POST /email/public/v1/smtpapi/tokens": { ok: (f) => ({ token: f.t.oauth, json: { campaignName: "c" } }) },
  "GET /email/public/v1/smtpapi/tokens": { ok: (f) => ({ token: f.t.oauth }) },
  "POST /email/public/v1/smtpapi/tokens/{userName}/password-reset": { ok: (f) => ({ token: f.t.oauth, params: { userName: f.smtpUser } }) },
  "DELETE /email/public/v1/smtpapi/tokens/{userName}": {
    ok: async (f) => ({ token: f.t.oauth, params: { userName: (await ok(api("POST", "/email/public/v1/smtpapi/tokens", { token: f.t.oauth, json: { campaignName: "g" } }), 201)).json.userName } }),
  },

  // ---------------------------------------------------------------- CRM cards
  "POST /extensions/sales-objects/v1/object-types": { ok: (f) => ({ token: dev(f), json: cardBody(f.t, `/${uniq("f")}`, `/${uniq("a")}`) }) },
  "GET /extensions/sales-objects/v1/object-types": {
    ok: (f) => ({ token: dev(f), query: { applicationId: String(f.t.appId) } }),
    errors: { 400: (f) => ({ token: dev(f), query: { applicationId: "x" } }) },
  },
  "GET /extensions/sales-objects/v1/object-types/{objectTypeId}": { ok: (f) => ({ token: dev(f), params: { objectTypeId: f.card } }) },
  "PUT /extensions/sales-objects/v1/object-types/{objectTypeId}": {
    ok: (f) => ({ token: dev(f), params: { objectTypeId: f.card }, json: cardBody(f.t, f.cardFetchPath, f.cardActionBase) }),
  },
  "DELETE /extensions/sales-objects/v1/object-types/{objectTypeId}": {
    ok: async (f) => {
      const card = await ok(api("POST", "/extensions/sales-objects/v1/object-types", { token: dev(f), json: cardBody(f.t, `/${uniq("f")}`, `/${uniq("a")}`) }));
      return { token: dev(f), params: { objectTypeId: card.json.id } };
    },
  },
  "GET /crm/v3/objects/{objectType}/{objectId}/cards": { ok: (f) => ({ token: f.t.oauth, params: crm(f), query: { userId: String(f.t.userId) } }) },
  "POST /crm/v3/objects/{objectType}/{objectId}/cards/{cardId}/actions": {
    ok: async (f) => {
      const uri = `${integratorUrl()}${f.cardActionBase}/${uniq("go")}`;
      await script(f.cardFetchPath, { results: [], secondaryActions: [{ type: "ACTION_HOOK", httpMethod: "POST", uri, label: "Go" }] });
      await script(new URL(uri).pathname, { message: "Done" });
      const view = await ok(api("GET", `/crm/v3/objects/contacts/${f.contact}/cards?userId=${f.t.userId}`, { token: f.t.oauth }));
      const card = view.json.cards.find((c: { cardId: number }) => c.cardId === f.card);
      return { token: f.t.oauth, params: { ...crm(f), cardId: f.card }, json: { userId: f.t.userId, action: card.secondaryActions[0] } };
    },
  },

  // ---------------------------------------------------------------- app webhooks
  "GET /webhooks/v3/{appId}/settings": {
    ok: async () => {
      const t = await hookApp();
      return { token: t.developerKey, params: { appId: t.appId } };
    },
  },
  "PUT /webhooks/v3/{appId}/settings": {
    ok: async () => {
      const t = await developerApp();
      return { token: t.developerKey, params: { appId: t.appId }, json: hookSettings("/hooks") };
    },
  },
  "DELETE /webhooks/v3/{appId}/settings": {
    ok: async () => {
      const t = await hookApp();
      return { token: t.developerKey, params: { appId: t.appId } };
    },
  },
  "GET /webhooks/v3/{appId}/subscriptions": {
    ok: async () => {
      const { t } = await hookSubscription();
      return { token: t.developerKey, params: { appId: t.appId } };
    },
  },
  "POST /webhooks/v3/{appId}/subscriptions": {
    ok: async () => {
      const t = await developerApp();
      return { token: t.developerKey, params: { appId: t.appId }, json: { eventType: "contact.propertyChange", propertyName: "email", active: false } };
    },
    // The app's subscription to deal.creation exists already.
    errors: {
      409: async () => {
        const { t } = await hookSubscription();
        return { token: t.developerKey, params: { appId: t.appId }, json: { eventType: "deal.creation" } };
      },
    },
  },
  "POST /webhooks/v3/{appId}/subscriptions/batch/update": {
    ok: async () => {
      const { t, id } = await hookSubscription();
      return { token: t.developerKey, params: { appId: t.appId }, json: { inputs: [{ id, active: false }] } };
    },
  },
  "GET /webhooks/v3/{appId}/subscriptions/{subscriptionId}": {
    ok: async () => {
      const { t, id } = await hookSubscription();
      return { token: t.developerKey, params: { appId: t.appId, subscriptionId: id } };
    },
  },
  "PATCH /webhooks/v3/{appId}/subscriptions/{subscriptionId}": {
    ok: async () => {
      const { t, id } = await hookSubscription();
      return { token: t.developerKey, params: { appId: t.appId, subscriptionId: id }, json: { active: false } };
    },
  },
  "DELETE /webhooks/v3/{appId}/subscriptions/{subscriptionId}": {
    ok: async () => {
      const { t, id } = await hookSubscription();
      return { token: t.developerKey, params: { appId: t.appId, subscriptionId: id } };
    },
  },
  "GET /webhooks/v3/{appId}/deliveries": {
    ok: async () => {
      const { t } = await deliveredOnce();
      return { token: t.developerKey, params: { appId: t.appId } };
    },
  },
  "GET /webhooks/v3/{appId}/deliveries/{deliveryId}": {
    ok: async () => {
      const { t, id } = await deliveredOnce();
      return { token: t.developerKey, params: { appId: t.appId, deliveryId: id } };
    },
  },
  "POST /webhooks/v3/{appId}/deliveries/{deliveryId}/resend": {
    // The same exhausted delivery for the success and the derived errors (making one takes 11 attempts).
    ok: async () => {
      const { t, id } = await (exhausted ??= exhaustedDelivery());
      return { token: t.developerKey, params: { appId: t.appId, deliveryId: id } };
    },
    errors: {
      409: async () => {
        const { t, id } = await deliveredOnce();
        return { token: t.developerKey, params: { appId: t.appId, deliveryId: id } };
      },
    },
  },
  // ---------------------------------------------------------------- v3 faces: timeline, cards, blog, SMTP
  ...V3_CASES,
  // ---------------------------------------------------------------- owners, settings users, account info
  ...OWNER_CASES,
  ...TESTKIT_CASES,
  ...ASSOCIATION_CASES,
  ...EXTENSION_CASES,

  // ---------------------------------------------------------------- engagements v1
  ...engagementCases(),

  // ---------------------------------------------------------------- pipelines
  ...pipelineCases(),

  // ---------------------------------------------------------------- lists
  ...listCases(),

  // ---------------------------------------------------------------- meta
  "GET /openapi.json": { ok: () => ({}) },
  "GET /healthz": { ok: () => ({}) },
};

/** Legacy engagements v1: each documented error status provoked on purpose, with a field the client names. */
function engagementCases(): Record<string, Case> {
  /** A fresh note through the engagements v1 API, on the fixture's contact: its engagement id. */
  const E1 = "/engagements/v1/engagements";
  const engagement = async (f: Fixtures): Promise<number> => {
    const made = await ok(api("POST", E1, { token: f.t.pat, json: { engagement: { type: "NOTE", timestamp: 1 }, associations: { contactIds: [f.contact] }, metadata: { body: "n" } } }));
    return made.json.engagement.id as number;
  };
  const onEngagement = async (f: Fixtures) => ({ token: f.t.pat, params: { engagementId: await engagement(f) } });
  const noEngagement = (f: Fixtures) => ({ token: f.t.pat, params: { engagementId: 999_999_999 } });
  return {
    "POST /engagements/v1/engagements": {
      ok: (f) => ({ token: f.t.pat, json: { engagement: { type: "TASK", timestamp: 1 }, associations: { contactIds: [f.contact] }, metadata: { subject: "s", status: "NOT_STARTED" } } }),
      errors: { 400: (f) => ({ token: f.t.pat, json: { engagement: { type: "TASK" }, metadata: { status: "SOMEDAY" } } }) },
    },
    "GET /engagements/v1/engagements/paged": {
      ok: (f) => ({ token: f.t.pat, query: { limit: "5" } }),
      errors: { 400: (f) => ({ token: f.t.pat, query: { limit: "many" } }) },
    },
    "GET /engagements/v1/engagements/recent/modified": {
      ok: (f) => ({ token: f.t.pat, query: { count: "5", since: "1" } }),
      errors: { 400: (f) => ({ token: f.t.pat, query: { since: "yesterday" } }) },
    },
    "GET /engagements/v1/engagements/associated/{objectType}/{objectId}/paged": {
      ok: async (f) => {
        await engagement(f);
        return { token: f.t.pat, params: { objectType: "CONTACT", objectId: f.contact }, query: { limit: "5" } };
      },
      errors: {
        400: (f) => ({ token: f.t.pat, params: { objectType: "LEAD", objectId: f.contact } }),
        404: (f) => ({ token: f.t.pat, params: { objectType: "DEAL", objectId: 999_999_999 } }),
      },
    },
    "GET /engagements/v1/engagements/{engagementId}": { ok: onEngagement, errors: { 404: noEngagement } },
    "PATCH /engagements/v1/engagements/{engagementId}": {
      ok: async (f) => ({ ...(await onEngagement(f)), json: { engagement: { timestamp: 2 }, metadata: { body: "changed" } } }),
      errors: {
        400: async (f) => ({ ...(await onEngagement(f)), json: { engagement: { type: "CALL" } } }),
        404: (f) => ({ ...noEngagement(f), json: { metadata: {} } }),
      },
    },
    "DELETE /engagements/v1/engagements/{engagementId}": { ok: onEngagement, errors: { 404: noEngagement } },
    "PUT /engagements/v1/engagements/{engagementId}/associations/{objectType}/{objectId}": {
      ok: async (f) => ({ token: f.t.pat, params: { engagementId: await engagement(f), objectType: "CONTACT", objectId: await newContact(f) } }),
      errors: { 404: async (f) => ({ token: f.t.pat, params: { engagementId: await engagement(f), objectType: "CONTACT", objectId: 999_999_999 } }) },
    },
    "DELETE /engagements/v1/engagements/{engagementId}/associations/{objectType}/{objectId}": {
      ok: async (f) => ({ token: f.t.pat, params: { engagementId: await engagement(f), objectType: "CONTACT", objectId: f.contact } }),
      errors: { 404: (f) => ({ token: f.t.pat, params: { ...noEngagement(f).params, objectType: "CONTACT", objectId: f.contact } }) },
    },
  };
}

/** The pipelines routes: each on a fresh deal pipeline of the fixtures' account (stages "Open" and "Won"). */
function pipelineCases(): Record<string, Case> {
  const PL = "/crm/v3/pipelines";
  const stage = (label: string) => ({ label, displayOrder: 0, metadata: { probability: "0.5" } });
  const body = () => ({ label: uniq("pl"), displayOrder: 1, stages: [stage("Open"), { ...stage("Won"), displayOrder: 1 }] });
  const made = async (f: Fixtures) => (await ok(api("POST", `${PL}/deals`, { token: f.t.pat, json: body() }), 201)).json as { id: string; stages: { id: string }[] };
  const one = async (f: Fixtures) => ({ objectType: "deals", pipelineId: (await made(f)).id });
  const withStage = async (f: Fixtures) => {
    const p = await made(f);
    return { objectType: "deals", pipelineId: p.id, stageId: p.stages[0]!.id };
  };
  /** A stage a deal is in: archiving it is the 400. */
  const used = async (f: Fixtures) => {
    const p = await withStage(f);
    await ok(api("POST", "/crm/v3/objects/deals", { token: f.t.pat, json: { properties: { pipeline: p.pipelineId, dealstage: p.stageId } } }), 201);
    return p;
  };
  return {
    [`GET ${PL}/{objectType}`]: { ok: (f) => ({ token: f.t.pat, params: { objectType: "deals" } }) },
    [`POST ${PL}/{objectType}`]: {
      ok: (f) => ({ token: f.t.pat, params: { objectType: "deals" }, json: body() }),
      errors: { 409: (f) => ({ token: f.t.pat, params: { objectType: "deals" }, json: { ...body(), label: "Sales Pipeline" } }) },
    },
    [`GET ${PL}/{objectType}/{pipelineId}`]: { ok: (f) => ({ token: f.t.pat, params: { objectType: "deals", pipelineId: "default" } }) },
    [`PUT ${PL}/{objectType}/{pipelineId}`]: {
      ok: async (f) => ({ token: f.t.pat, params: await one(f), json: body() }),
      errors: { 409: async (f) => ({ token: f.t.pat, params: await one(f), json: { ...body(), label: "Sales Pipeline" } }) },
    },
    [`PATCH ${PL}/{objectType}/{pipelineId}`]: {
      ok: async (f) => ({ token: f.t.pat, params: await one(f), json: { label: uniq("renamed") } }),
      errors: { 409: async (f) => ({ token: f.t.pat, params: await one(f), json: { label: "Sales Pipeline" } }) },
    },
    [`DELETE ${PL}/{objectType}/{pipelineId}`]: {
      ok: async (f) => ({ token: f.t.pat, params: await one(f) }),
      errors: { 400: async (f) => ({ token: f.t.pat, params: { objectType: "deals", pipelineId: (await used(f)).pipelineId } }) },
    },
    [`GET ${PL}/{objectType}/{pipelineId}/audit`]: { ok: async (f) => ({ token: f.t.pat, params: await one(f) }) },
    [`GET ${PL}/{objectType}/{pipelineId}/stages`]: { ok: (f) => ({ token: f.t.pat, params: { objectType: "tickets", pipelineId: "0" } }) },
    [`POST ${PL}/{objectType}/{pipelineId}/stages`]: {
      ok: async (f) => ({ token: f.t.pat, params: await one(f), json: stage(uniq("s")) }),
      errors: { 409: async (f) => ({ token: f.t.pat, params: await one(f), json: stage("Open") }) },
    },
    [`GET ${PL}/{objectType}/{pipelineId}/stages/{stageId}`]: { ok: (f) => ({ token: f.t.pat, params: { objectType: "deals", pipelineId: "default", stageId: "closedwon" } }) },
    [`PUT ${PL}/{objectType}/{pipelineId}/stages/{stageId}`]: {
      ok: async (f) => ({ token: f.t.pat, params: await withStage(f), json: stage(uniq("s")) }),
      errors: { 409: async (f) => ({ token: f.t.pat, params: await withStage(f), json: stage("Won") }) },
    },
    [`PATCH ${PL}/{objectType}/{pipelineId}/stages/{stageId}`]: {
      ok: async (f) => ({ token: f.t.pat, params: await withStage(f), json: { label: uniq("s") } }),
      errors: { 409: async (f) => ({ token: f.t.pat, params: await withStage(f), json: { label: "Won" } }) },
    },
    [`DELETE ${PL}/{objectType}/{pipelineId}/stages/{stageId}`]: {
      ok: async (f) => ({ token: f.t.pat, params: await withStage(f) }),
      errors: { 400: async (f) => ({ token: f.t.pat, params: await used(f) }) },
    },
    [`GET ${PL}/{objectType}/{pipelineId}/stages/{stageId}/audit`]: { ok: async (f) => ({ token: f.t.pat, params: await withStage(f) }) },
  };
}
