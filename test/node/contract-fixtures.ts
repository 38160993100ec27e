/**
 * Fixtures of the OpenAPI contract test, made through the Worker's own API over HTTP: one
 * account owning a resource of every kind, a private app with too few scopes (403), and an account whose
 * rate limit is 1 request per 10 s (429).
 */
import { inject } from "vitest";
import { admin, fetchAgainIfClosed, integratorUrl, tenant, workerUrl, type NodeTenant } from "./helpers";

export const adminToken = () => inject("adminToken");

export interface Fixtures {
  t: NodeTenant;
  /** A private app of t's account with only crm.objects.contacts.read: refused by every other scope. */
  lowPat: string;
  /** Credentials of an account limited to 1 request per 10 s. */
  limited: { oauth: string; pat: string };
  contact: number;
  company: number;
  storeId: string;
  syncedId: string;
  eventType: number;
  property: number;
  eventId: string;
  blog: number;
  author: number;
  topicName: string;
  topic: number;
  post: number;
  postSlug: string;
  smtpUser: string;
  card: number;
  cardFetchPath: string;
  cardActionBase: string;
  session: { cookie: string; csrf: string };
}

export const uniq = (p: string) => `${p}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- fixture answers are read loosely
}

/** A JSON (or form) request to the Worker, no redirects followed. */
export async function api(method: string, path: string, opts: { token?: string; json?: unknown; form?: Record<string, string>; cookie?: string; headers?: Record<string, string> } = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.cookie) headers.cookie = opts.cookie;
  let body: string | undefined;
  if (opts.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(opts.json);
  } else if (opts.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(opts.form).toString();
  }
  const res = await fetchAgainIfClosed(`${workerUrl()}${path}`, { method, headers, body, redirect: "manual" });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export async function ok(res: Promise<Reply>, status = 200): Promise<Reply> {
  const r = await res;
  if (r.status !== status) throw new Error(`fixture set-up failed: ${r.status} ${r.text.slice(0, 500)}`);
  return r;
}

/** Registers an answer of the local integrator for `path`. */
export async function script(path: string, body: unknown) {
  const res = await fetch(`${integratorUrl()}/__script`, { method: "POST", body: JSON.stringify({ path, body: JSON.stringify(body) }) });
  if (res.status !== 204) throw new Error(`script failed: ${res.status}`);
}

const map = (externalPropertyName: string, servicePropertyName: string) => ({ externalPropertyName, servicePropertyName, dataType: "STRING" });

export const settingsBody = () => ({
  enabled: true,
  webhookUri: `${integratorUrl()}/${uniq("webhook")}`,
  // enabled needs every object type's required properties mapped (CONTACT email, DEAL dealstage, LINE_ITEM its deal and product).
  mappings: {
    CONTACT: { properties: [map("customer_email", "email")] },
    PRODUCT: { properties: [map("title", "name")] },
    DEAL: { properties: [map("stage", "dealstage")] },
    LINE_ITEM: { properties: [map("deal_id", "hs_assoc__deal_id"), map("product_id", "hs_assoc__product_id")] },
  },
});

export const cardBody = (t: NodeTenant, fetchPath: string, actionBase: string) => ({
  applicationId: t.appId,
  baseUris: [`${integratorUrl()}${actionBase}`],
  dataFetchUri: `${integratorUrl()}${fetchPath}`,
  title: "Tickets",
  propertyDefinitions: [],
  associatedHubSpotObjectTypes: ["CONTACT"],
  associatedHubSpotObjectTypeProperties: {},
});

/** Signs t's user in; the session cookie and the CSRF token the web app puts in its pages. */
export async function signIn(t: NodeTenant): Promise<{ cookie: string; csrf: string }> {
  const res = await api("POST", "/login", { form: { email: t.userEmail, password: t.userPassword }, headers: { origin: workerUrl() } });
  if (res.status !== 303) throw new Error(`sign-in failed: ${res.status} ${res.text}`);
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0]!;
  const page = await api("GET", "/app", { cookie });
  const csrf = /name="csrf-token" content="([^"]+)"/.exec(page.text)?.[1];
  if (!csrf) throw new Error("no CSRF token on /app");
  return { cookie, csrf };
}

/** A new account with t's app installed: tokens nobody else uses. */
export async function freshInstall(t: NodeTenant): Promise<{ access_token: string; refresh_token: string }> {
  const acct = await admin("POST", "/admin/v1/accounts", { name: uniq("spare") });
  return admin("POST", `/admin/v1/accounts/${acct.portalId}/installs`, { appId: t.appId });
}

export async function buildFixtures(): Promise<Fixtures> {
  const t = await tenant({ addons: ["transactional-email"] });
  const lowPat = (await admin("POST", `/admin/v1/accounts/${t.portalId}/private-apps`, { name: "low", scopes: ["crm.objects.contacts.read"] })).token as string;

  const lim = await admin("POST", "/admin/v1/accounts", { name: uniq("limited"), rateLimit: 1 });
  const limInstall = await admin("POST", `/admin/v1/accounts/${lim.portalId}/installs`, { appId: t.appId });
  const limPat = (await admin("POST", `/admin/v1/accounts/${lim.portalId}/private-apps`, { name: "pa" })).token as string;

  const contact = Number((await ok(api("POST", "/crm/v3/objects/contacts", { token: t.pat, json: { properties: { email: `${uniq("c")}@example.com` } } }), 201)).json.id);
  const company = Number((await ok(api("POST", "/crm/v3/objects/companies", { token: t.pat, json: { properties: { name: "Acme" } } }), 201)).json.id);

  await ok(api("PUT", `/extensions/ecomm/v2/settings?appId=${t.appId}`, { token: t.developerKey, json: settingsBody() }));
  const storeId = uniq("store");
  await ok(api("PUT", "/extensions/ecomm/v2/stores", { token: t.oauth, json: { id: storeId, label: "Shop", adminUri: "https://shop.example.com/admin" } }));
  const syncedId = uniq("ext");
  await ok(
    api("PUT", "/extensions/ecomm/v2/sync/messages", {
      token: t.oauth,
      json: { storeId, objectType: "CONTACT", messages: [{ action: "UPSERT", externalObjectId: syncedId, properties: { customer_email: `${uniq("s")}@example.com` } }] },
    }),
    204,
  );

  const types = `/integrations/v1/${t.appId}/timeline/event-types`;
  const eventType = (await ok(api("POST", types, { token: t.developerKey, json: { name: "Webinar", headerTemplate: "{{title}}" } }))).json.id as number;
  const property = (await ok(api("POST", `${types}/${eventType}/properties`, { token: t.developerKey, json: { name: "title", label: "Title", propertyType: "String" } }))).json.id as number;
  const eventId = uniq("event");
  await ok(api("PUT", `/integrations/v1/${t.appId}/timeline/event`, { token: t.oauth, json: { id: eventId, eventTypeId: eventType, objectId: contact, title: "Hi" } }), 204);

  const V2 = "/content/api/v2";
  const blog = (await ok(api("POST", `${V2}/blogs`, { token: t.oauth, json: { name: uniq("blog") } }), 201)).json.id as number;
  const author = (await ok(api("POST", `${V2}/blog-authors`, { token: t.oauth, json: { full_name: "Levi", email: "levi@example.com" } }), 201)).json.id as number;
  const topicName = uniq("Topic");
  const topic = (await ok(api("POST", `${V2}/topics`, { token: t.oauth, json: { name: topicName } }), 201)).json.id as number;
  const postSlug = `blog/${uniq("post")}`;
  const post = (await ok(api("POST", `${V2}/blog-posts`, { token: t.oauth, json: { name: "Post", slug: postSlug, post_body: "<p>Hi</p>" } }), 201)).json.id as number;
  const smtpUser = (await ok(api("POST", "/email/public/v1/smtpapi/tokens", { token: t.oauth, json: { campaignName: "c" } }), 201)).json.userName as string;

  const cardFetchPath = `/${uniq("fetch")}`;
  const cardActionBase = `/${uniq("actions")}`;
  const card = (await ok(api("POST", "/extensions/sales-objects/v1/object-types", { token: t.developerKey, json: cardBody(t, cardFetchPath, cardActionBase) }))).json.id as number;

  return {
    t,
    lowPat,
    limited: { oauth: limInstall.access_token, pat: limPat },
    contact,
    company,
    storeId,
    syncedId,
    eventType,
    property,
    eventId,
    blog,
    author,
    topicName,
    topic,
    post,
    postSlug,
    smtpUser,
    card,
    cardFetchPath,
    cardActionBase,
    session: await signIn(t),
  };
}
