// @ts-check
/**
 * @module The demo account of `npm run dev`, seeded through the public API and the operator
 * API only — the paths integrators and operators use, never D1 — so the demo also proves those paths work.
 * It exercises every capability: the ecommerce bridge (app-level settings with mappings, a store, products,
 * contacts, deals in several stages and line items through `PUT /sync/messages` and the real queue), the
 * timeline (event types with properties, Markdown and formatDate templates, an iframe), a CRM card answered
 * by the demo integrator (integrator.mjs), a published blog post and an SMTP API token. One timeline event,
 * the card and the blog post are made through the v3 faces of those APIs.
 * Used by scripts/dev.mjs and by test/node/demo.test.ts, against any base URL and operator token.
 */
import { cardDefinition, DEMO_SUBSCRIPTIONS, TIMELINE_PAGE_PATH, webhookSettings } from "./integrator.mjs";

const DAY = 86_400_000;
export const DEMO_PASSWORD = "demo-password";
export const STORE_ID = "demo-shop";

/**
 * @typedef {import("./seed.d.mts").Demo} Demo
 * @typedef {import("./seed.d.mts").SeedOptions} SeedOptions
 */

/**
 * A JSON call with a bearer token. A 429 is waited out (Retry-After) and retried: seeding makes many
 * calls with one credential and must not trip the account's rate limit.
 * @param {string} baseUrl
 * @param {string} method
 * @param {string} path
 * @param {string} token
 * @param {unknown} [body]
 * @returns {Promise<any>}
 */
export async function call(baseUrl, method, path, token, body) {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status === 429 && attempt < 10) {
      await sleep(1000 * Number(res.headers.get("retry-after") ?? 1));
      continue;
    }
    if (!res.ok) throw new Error(`${method} ${path} -> ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  }
}

const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/** Ecommerce mappings: the shop's field names on the left, CRM properties on the right. */
const MAPPINGS = {
  CONTACT: {
    properties: [
      { externalPropertyName: "customer_email", servicePropertyName: "email", dataType: "STRING" },
      { externalPropertyName: "first_name", servicePropertyName: "firstname", dataType: "STRING" },
      { externalPropertyName: "last_name", servicePropertyName: "lastname", dataType: "STRING" },
    ],
  },
  PRODUCT: {
    properties: [
      { externalPropertyName: "title", servicePropertyName: "name", dataType: "STRING" },
      { externalPropertyName: "price", servicePropertyName: "price", dataType: "NUMBER" },
      { externalPropertyName: "sku", servicePropertyName: "hs_sku", dataType: "STRING" },
    ],
  },
  DEAL: {
    properties: [
      { externalPropertyName: "name", servicePropertyName: "dealname", dataType: "STRING" },
      { externalPropertyName: "stage", servicePropertyName: "dealstage", dataType: "STRING" },
      { externalPropertyName: "total", servicePropertyName: "amount", dataType: "NUMBER" },
      { externalPropertyName: "currency", servicePropertyName: "deal_currency_code", dataType: "STRING" },
      { externalPropertyName: "closed_at", servicePropertyName: "closedate", dataType: "DATETIME" },
    ],
  },
  LINE_ITEM: {
    properties: [
      { externalPropertyName: "deal_id", servicePropertyName: "hs_assoc__deal_id", dataType: "STRING" },
      { externalPropertyName: "product_id", servicePropertyName: "hs_assoc__product_id", dataType: "STRING" },
      { externalPropertyName: "title", servicePropertyName: "name", dataType: "STRING" },
      { externalPropertyName: "qty", servicePropertyName: "quantity", dataType: "NUMBER" },
      { externalPropertyName: "unit_price", servicePropertyName: "price", dataType: "NUMBER" },
    ],
  },
};

/**
 * What the shop syncs. `order-1003` entered checkout_pending two days ago, so the abandonment cron moves
 * it to checkout_abandoned the next time it runs (a deal moves after 24 hours in checkout_pending).
 * `p-gift-card`'s price is not a number: it stays a sync error, so the store overview shows what an error
 * looks like.
 * @param {number} now
 */
function shopData(now) {
  const at = (/** @type {number} */ daysAgo) => now - daysAgo * DAY;
  return {
    PRODUCT: [
      { externalObjectId: "p-kettle", action: "UPSERT", changedAt: at(30), properties: { title: "Copper kettle", price: "89.90", sku: "KT-100" } },
      { externalObjectId: "p-mugs", action: "UPSERT", changedAt: at(30), properties: { title: "Stoneware mugs (set of 4)", price: "39.00", sku: "MG-400" } },
      { externalObjectId: "p-grinder", action: "UPSERT", changedAt: at(30), properties: { title: "Burr coffee grinder", price: "159.00", sku: "GR-210" } },
      { externalObjectId: "p-gift-card", action: "UPSERT", changedAt: at(1), properties: { title: "Gift card", price: "twenty", sku: "GC-020" } },
    ],
    CONTACT: [
      // Ada already exists (created through the CRM API): email is unique, so the shop's customer is linked to her.
      { externalObjectId: "c-ada", action: "UPSERT", changedAt: at(20), properties: { customer_email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" } },
      { externalObjectId: "c-grace", action: "UPSERT", changedAt: at(20), properties: { customer_email: "grace@example.com", first_name: "Grace", last_name: "Hopper" } },
    ],
    DEAL: [
      { externalObjectId: "order-1001", action: "UPSERT", changedAt: at(10), properties: { name: "Order #1001", stage: "shipped", currency: "EUR", total: "128.90", closed_at: at(10) }, associations: { CONTACT: ["c-ada"] } },
      { externalObjectId: "order-1002", action: "UPSERT", changedAt: at(3), properties: { name: "Order #1002", stage: "processed", currency: "EUR", total: "159.00", closed_at: at(3) }, associations: { CONTACT: ["c-grace"] } },
      { externalObjectId: "order-1003", action: "UPSERT", changedAt: at(2), properties: { name: "Order #1003 (checkout)", stage: "checkout_pending", currency: "EUR", total: "89.90" }, associations: { CONTACT: ["c-grace"] } },
      { externalObjectId: "order-1004", action: "UPSERT", changedAt: at(0.1), properties: { name: "Order #1004", stage: "checkout_completed", currency: "EUR", total: "78.00", closed_at: at(0.1) }, associations: { CONTACT: ["c-ada"] } },
    ],
    LINE_ITEM: [
      { externalObjectId: "li-1001-1", action: "UPSERT", changedAt: at(10), properties: { deal_id: "order-1001", product_id: "p-kettle", title: "Copper kettle", qty: 1, unit_price: "89.90" } },
      { externalObjectId: "li-1001-2", action: "UPSERT", changedAt: at(10), properties: { deal_id: "order-1001", product_id: "p-mugs", title: "Stoneware mugs (set of 4)", qty: 1, unit_price: "39.00" } },
      { externalObjectId: "li-1002-1", action: "UPSERT", changedAt: at(3), properties: { deal_id: "order-1002", product_id: "p-grinder", title: "Burr coffee grinder", qty: 1, unit_price: "159.00" } },
      { externalObjectId: "li-1003-1", action: "UPSERT", changedAt: at(2), properties: { deal_id: "order-1003", product_id: "p-kettle", title: "Copper kettle", qty: 1, unit_price: "89.90" } },
      { externalObjectId: "li-1004-1", action: "UPSERT", changedAt: at(0.1), properties: { deal_id: "order-1004", product_id: "p-mugs", title: "Stoneware mugs (set of 4)", qty: 2, unit_price: "39.00" } },
    ],
  };
}

/**
 * Polls the sync status of each object until the queue consumer has processed it: the status then
 * holds a CRM record id, or an open sync error. Returns the CRM ids by external id.
 * @param {string} baseUrl
 * @param {string} token
 * @param {string} objectType
 * @param {string[]} ids
 * @param {number} timeoutMs
 */
async function waitProcessed(baseUrl, token, objectType, ids, timeoutMs) {
  /** @type {Record<string, number | null>} */
  const done = {};
  const end = Date.now() + timeoutMs;
  while (Object.keys(done).length < ids.length) {
    for (const id of ids.filter((x) => !(x in done))) {
      const res = await fetch(`${baseUrl}/extensions/ecomm/v2/sync/status/${STORE_ID}/${objectType}/${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${token}` } });
      if (res.ok) {
        const s = await res.json();
        if (s.serviceId !== null || s.numErrors > 0) done[id] = s.serviceId;
      } else if (res.status !== 404 && res.status !== 429) throw new Error(`sync status ${objectType} ${id} -> ${res.status} ${await res.text()}`);
    }
    if (Object.keys(done).length === ids.length) break;
    if (Date.now() > end) throw new Error(`the sync queue did not process ${objectType} ${ids.filter((x) => !(x in done)).join(", ")} in ${timeoutMs} ms`);
    await sleep(500);
  }
  return done;
}

/**
 * Seeds a new demo account and returns its credentials and the ids the summary links to.
 * @param {SeedOptions} o
 * @returns {Promise<Demo>}
 */
export async function seedDemo(o) {
  const { baseUrl, adminToken, integratorUrl } = o;
  const log = o.log ?? (() => {});
  const now = o.now ?? Date.now();
  const syncTimeoutMs = o.syncTimeoutMs ?? 60_000;
  const admin = (/** @type {string} */ method, /** @type {string} */ path, /** @type {unknown} */ body) => call(baseUrl, method, path, adminToken, body);

  log("demo: account, app, install, private app and user (operator API)");
  // A local demo is a developer's test account, as the real service labels one (GET /account-info/v3/details).
  const account = await admin("POST", "/admin/v1/accounts", { name: "Demo account", addons: ["transactional-email"], rateLimit: o.rateLimit, accountType: "DEVELOPER_TEST" });
  const portalId = account.portalId;
  const app = await admin("POST", "/admin/v1/apps", { name: "Demo shop app", redirectUris: [`${baseUrl}/oauth-callback`] });
  const pat = await admin("POST", `/admin/v1/accounts/${portalId}/private-apps`, { name: "Demo private app" });
  const install = await admin("POST", `/admin/v1/accounts/${portalId}/installs`, { appId: app.appId });
  const user = await admin("POST", `/admin/v1/accounts/${portalId}/users`, { email: o.userEmail ?? "demo@example.com", password: DEMO_PASSWORD, firstName: "Demo", lastName: "User" });
  const devKey = app.developerKey;
  // The integrator verifies every signed call (card requests, webhooks) with the app's secret from now on.
  o.onSecret?.(app.clientSecret);
  const oauth = install.access_token;
  const api = (/** @type {string} */ method, /** @type {string} */ path, /** @type {string} */ token, /** @type {unknown} */ body) => call(baseUrl, method, path, token, body);

  log("demo: contacts and a company (CRM API)");
  /** @type {Record<string, number>} */
  const contacts = {};
  for (const [first, last, email, city, lifecyclestage] of [["Ada", "Lovelace", "ada@example.com", "London", "customer"], ["Alan", "Turing", "alan@example.com", "Manchester", "lead"]]) {
    const c = await api("POST", "/crm/v3/objects/contacts", pat.token, { properties: { firstname: first, lastname: last, email, city, lifecyclestage } });
    contacts[first.toLowerCase()] = Number(c.id);
  }
  const company = await api("POST", "/crm/v3/objects/companies", pat.token, { properties: { name: "Analytical Engines Ltd", domain: "engines.example" } });
  for (const id of Object.values(contacts)) await api("PUT", `/crm/v3/objects/contacts/${id}/associations/companies/${company.id}`, pat.token);

  log("demo: a note, a task and a logged call on Ada's timeline (CRM API, with their associations)");
  // Each made as an integration makes them: one POST per activity, associated with Ada by the activity →
  // contact association type (notes 202, tasks 204, calls 194).
  const onAda = (/** @type {number} */ typeId) => [{ to: { id: String(contacts.ada) }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: typeId }] }];
  await api("POST", "/crm/v3/objects/notes", pat.token, {
    properties: { hs_timestamp: new Date(now - 6 * DAY).toISOString(), hs_note_body: "<p>Asked about <strong>bulk pricing</strong> for the analytical engine's punch cards.</p>" },
    associations: onAda(202),
  });
  await api("POST", "/crm/v3/objects/tasks", pat.token, {
    properties: { hs_timestamp: new Date(now + 2 * DAY).toISOString(), hs_task_subject: "Send Ada the bulk price list", hs_task_status: "NOT_STARTED", hs_task_priority: "HIGH", hs_task_type: "EMAIL" },
    associations: onAda(204),
  });
  await api("POST", "/crm/v3/objects/calls", pat.token, {
    properties: { hs_timestamp: new Date(now - 3 * DAY).toISOString(), hs_call_title: "Follow-up on the order", hs_call_direction: "OUTBOUND", hs_call_duration: "420000", hs_call_status: "COMPLETED", hs_call_body: "Confirmed the delivery address." },
    associations: onAda(194),
  });

  log("demo: ecommerce settings, a store, and the shop's records through the sync queue");
  await api("PUT", `/extensions/ecomm/v2/settings?appId=${app.appId}`, devKey, { enabled: true, webhookUri: null, mappings: MAPPINGS });
  await api("PUT", "/extensions/ecomm/v2/stores", oauth, { id: STORE_ID, label: "Demo coffee shop", adminUri: "https://shop.example.com/admin" });
  const shop = shopData(now);
  /** @type {Record<string, Record<string, number | null>>} */
  const synced = {};
  // Line items name their deal and product: they go once those are processed, so none waits for a retry.
  for (const group of [["PRODUCT", "CONTACT", "DEAL"], ["LINE_ITEM"]]) {
    for (const type of group) {
      await api("PUT", "/extensions/ecomm/v2/sync/messages", oauth, { storeId: STORE_ID, objectType: type, messages: shop[/** @type {keyof typeof shop} */ (type)] });
    }
    for (const type of group) {
      synced[type] = await waitProcessed(baseUrl, oauth, type, shop[/** @type {keyof typeof shop} */ (type)].map((m) => m.externalObjectId), syncTimeoutMs);
    }
  }
  const dealId = Number(synced.DEAL?.["order-1001"]);
  const pendingDealId = Number(synced.DEAL?.["order-1003"]);

  log("demo: timeline event types and events");
  const webinar = await api("POST", `/integrations/v1/${app.appId}/timeline/event-types`, devKey, {
    name: "Webinar attended",
    objectType: "CONTACT",
    headerTemplate: "Attended **{{webinarName}}**",
    detailTemplate:
      "Joined on {{formatDate attendedAt format=\"long\"}} and stayed **{{minutes}} minutes**.\n\n" +
      "{{#if extraData.questions}}Questions asked:\n\n{{#each extraData.questions}}- {{this}}\n{{/each}}{{/if}}",
  });
  for (const [name, label, propertyType] of [["webinarName", "Webinar", "String"], ["attendedAt", "Attended at", "Date"], ["minutes", "Minutes", "Numeric"]]) {
    await api("POST", `/integrations/v1/${app.appId}/timeline/event-types/${webinar.id}/properties`, devKey, { name, label, propertyType });
  }
  const shipment = await api("POST", `/integrations/v1/${app.appId}/timeline/event-types`, devKey, {
    name: "Shipment update",
    objectType: "DEAL",
    headerTemplate: "Parcel {{status}} with **{{carrier}}**",
    detailTemplate: "Tracking number `{{tracking}}`, updated {{formatDate updatedAt format=\"full\"}}.",
  });
  for (const [name, label, propertyType] of [["carrier", "Carrier", "String"], ["status", "Status", "String"], ["tracking", "Tracking number", "String"], ["updatedAt", "Updated", "Date"]]) {
    await api("POST", `/integrations/v1/${app.appId}/timeline/event-types/${shipment.id}/properties`, devKey, { name, label, propertyType });
  }
  const event = (/** @type {Record<string, unknown>} */ e) => api("PUT", `/integrations/v1/${app.appId}/timeline/event`, oauth, e);
  await event({
    id: "webinar-edge-2026",
    eventTypeId: webinar.id,
    objectId: contacts.ada,
    timestamp: now - 5 * DAY,
    webinarName: "CRM at the edge",
    attendedAt: now - 5 * DAY,
    minutes: 47,
    extraData: { questions: ["Does the sync keep the order of updates?", "Can cards call our own API?"] },
    timelineIFrame: { linkLabel: "Watch the recording", iframeLabel: "Webinar recording", iframeUri: `${integratorUrl}${TIMELINE_PAGE_PATH}`, width: 640, height: 400 },
  });
  // Through the v3 face (/integrators/timeline/v3): the same event store, token values as strings.
  await api("POST", "/integrators/timeline/v3/events", oauth, {
    eventTemplateId: String(webinar.id),
    id: "webinar-intro-2026",
    objectId: String(contacts.ada),
    timestamp: new Date(now - 12 * DAY).toISOString(),
    tokens: { webinarName: "Getting started with crm-edge", attendedAt: String(now - 12 * DAY), minutes: "30" },
  });
  await event({ id: "ship-1001-1", eventTypeId: shipment.id, objectId: dealId, timestamp: now - 9 * DAY, carrier: "Parcel Express", status: "picked up", tracking: "PX-40021-DE", updatedAt: now - 9 * DAY });
  await event({ id: "ship-1001-2", eventTypeId: shipment.id, objectId: dealId, timestamp: now - 8 * DAY, carrier: "Parcel Express", status: "delivered", tracking: "PX-40021-DE", updatedAt: now - 8 * DAY });

  log("demo: CRM card answered by the demo integrator (defined through the v3 face)");
  const def = cardDefinition(integratorUrl, app.appId);
  const card = await api("POST", `/crm/v3/extensions/cards-dev/${app.appId}`, devKey, {
    title: def.title,
    fetch: {
      targetUrl: def.dataFetchUri,
      objectTypes: [
        { name: "contacts", propertiesToSend: def.associatedHubSpotObjectTypeProperties.CONTACT },
        { name: "deals", propertiesToSend: [] },
      ],
    },
    display: { properties: def.propertyDefinitions.map((p) => ({ options: [], ...p })) },
    actions: { baseUrls: def.baseUris },
  });

  log("demo: a published blog post and an SMTP API token");
  const slug = "welcome-to-crm-edge";
  // Its author (a v2 blog author) is named on the public page and the blog's index.
  const author = await api("POST", "/content/api/v2/blog-authors", oauth, { full_name: "Grace Hopper", email: "grace@example.com" });
  const post = await api("POST", "/cms/v3/blogs/posts", oauth, {
    name: "Welcome to crm-edge",
    slug,
    blogAuthorId: author.id,
    postSummary: "What this demo account shows.",
    postBody:
      "<p>This post was created and published through the blog posts API v3 (<code>/cms/v3/blogs/posts</code>); " +
      "the v2 API (<code>/content/api/v2/blog-posts</code>) shows the same post.</p>" +
      "<p>Sign in to the web app to see contacts with timelines and CRM cards, deals synced by the ecommerce bridge, and the store overview.</p>",
  });
  await api("POST", "/cms/v3/blogs/posts/schedule", oauth, { id: post.id, publishDate: new Date(now).toISOString() });
  const smtp = await api("POST", "/email/public/v1/smtpapi/tokens", oauth, { campaignName: "Demo order confirmations", createdBy: user.email });
  // Sent mail for /app/mail: one message as an SMTP relay records it with the token, one transactional send.
  await admin("POST", "/admin/v1/smtp/messages", {
    userName: smtp.userName,
    password: smtp.password,
    from: "orders@demo-coffee.example",
    to: ["ada@example.com"],
    subject: "Your order #1001 has shipped",
    text: "Hello Ada,\n\nyour order #1001 is on its way with Parcel Express.\n",
  });
  await api("POST", "/marketing/v3/transactional/single-email/send", oauth, {
    emailId: 1001,
    message: { to: "grace@example.com", from: "orders@demo-coffee.example", sendId: "demo-welcome-grace" },
    contactProperties: { firstname: "Grace" },
  });

  log("demo: a colleague, sales deals across the Sales Pipeline's stages, and an association label");
  // Made last, so the ids of the records above stay the same from one demo to the next. They give the web
  // app's deals board several stages with owners and amounts, and the record pages a labelled association.
  await admin("POST", `/admin/v1/accounts/${portalId}/users`, { email: "margaret@example.com", password: DEMO_PASSWORD, firstName: "Margaret", lastName: "Hamilton" });
  const owners = /** @type {{ results: { id: string, email: string }[] }} */ (await api("GET", "/crm/v3/owners", pat.token)).results;
  const ownerOf = (/** @type {string} */ email) => owners.find((o) => o.email === email)?.id ?? "";
  const onCompany = [{ to: { id: String(company.id) }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 341 }] }];
  for (const [dealname, dealstage, amount, days, owner] of [
    ["Punch card supply, 2027", "appointmentscheduled", "4800", 40, "demo@example.com"],
    ["Engine No. 2", "qualifiedtobuy", "25000", 60, "margaret@example.com"],
    ["Service plan for the difference engine", "presentationscheduled", "12000", 30, "demo@example.com"],
    ["Brass gears, spare set", "contractsent", "1850", 14, "margaret@example.com"],
    ["Installation in Manchester", "closedwon", "6400", -5, "demo@example.com"],
  ]) {
    await api("POST", "/crm/v3/objects/deals", pat.token, {
      properties: { dealname, pipeline: "default", dealstage, amount, deal_currency_code: "EUR", closedate: new Date(now + Number(days) * DAY).toISOString(), hubspot_owner_id: ownerOf(String(owner)) },
      associations: onCompany,
    });
  }
  const label = await api("POST", "/crm/v4/associations/contacts/companies/labels", pat.token, { label: "Decision maker", name: "decision_maker" });
  const decisionMaker = label.results?.find((/** @type {{ category: string }} */ r) => r.category === "USER_DEFINED")?.typeId;
  if (decisionMaker) await api("PUT", `/crm/v4/objects/contacts/${contacts.ada}/associations/companies/${company.id}`, pat.token, [{ associationCategory: "USER_DEFINED", associationTypeId: decisionMaker }]);

  log("demo: app webhooks for contact changes and deal stages, delivered to the demo integrator");
  await api("PUT", `/webhooks/v3/${app.appId}/settings`, devKey, webhookSettings(integratorUrl));
  for (const s of DEMO_SUBSCRIPTIONS) await api("POST", `/webhooks/v3/${app.appId}/subscriptions`, devKey, s);
  // One change after subscribing, so the integrator's log shows a delivery right away.
  if (contacts.alan) await api("PATCH", `/crm/v3/objects/contacts/${contacts.alan}`, pat.token, { properties: { city: "Wilmslow" } });

  return {
    portalId,
    appId: app.appId,
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    developerKey: devKey,
    privateAppToken: pat.token,
    oauthAccessToken: oauth,
    oauthRefreshToken: install.refresh_token,
    userId: user.userId,
    userEmail: user.email,
    userPassword: DEMO_PASSWORD,
    storeId: STORE_ID,
    contactId: contacts.ada ?? 0,
    dealId,
    pendingDealId,
    cardTypeId: Number(card.id),
    blogPath: `/_blog/${portalId}/${slug}`,
    smtpUserName: smtp.userName,
    smtpPassword: smtp.password,
  };
}

/**
 * Whether a saved demo still exists in this database (its private-app token still works): seeding runs
 * only when it does not.
 * @param {string} baseUrl
 * @param {Demo} demo
 */
export async function demoExists(baseUrl, demo) {
  const res = await fetch(`${baseUrl}/crm/v3/objects/contacts?limit=1`, { headers: { authorization: `Bearer ${demo.privateAppToken}` } });
  return res.ok;
}

/**
 * A fresh OAuth access token from the stored refresh token (`POST /oauth/v1/token`, grant_type
 * refresh_token): the one saved at seeding expires after 30 minutes. Updates `demo` in place.
 * @param {string} baseUrl
 * @param {Demo} demo
 */
export async function refreshAccessToken(baseUrl, demo) {
  const res = await fetch(`${baseUrl}/oauth/v1/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "refresh_token", client_id: demo.clientId, client_secret: demo.clientSecret, refresh_token: demo.oauthRefreshToken }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST /oauth/v1/token -> ${res.status} ${text}`);
  const tokens = JSON.parse(text);
  demo.oauthAccessToken = tokens.access_token;
  if (tokens.refresh_token) demo.oauthRefreshToken = tokens.refresh_token;
  return demo;
}

/**
 * Points the demo card at the integrator's current address (a run may use another port than the one
 * that seeded it). PUT merges (docs/reference/cards.md).
 * @param {string} baseUrl
 * @param {Demo} demo
 * @param {string} integratorUrl
 */
export async function pointCardAt(baseUrl, demo, integratorUrl) {
  const { baseUris, dataFetchUri } = cardDefinition(integratorUrl, demo.appId);
  await call(baseUrl, "PUT", `/extensions/sales-objects/v1/object-types/${demo.cardTypeId}`, demo.developerKey, { baseUris, dataFetchUri });
  await call(baseUrl, "PUT", `/webhooks/v3/${demo.appId}/settings`, demo.developerKey, webhookSettings(integratorUrl));
}

/**
 * The shell variables the docs' examples use (README.md, docs/README.md), by name: `npm run dev` prints them
 * as `export` lines, and test/node/docs-examples.test.ts runs the examples with exactly these set.
 * @param {string} baseUrl
 * @param {Demo} demo
 * @param {string} adminToken
 * @returns {Record<string, string>}
 */
export function demoEnv(baseUrl, demo, adminToken) {
  return {
    BASE: baseUrl,
    PRIVATE_APP_TOKEN: demo.privateAppToken,
    TOKEN: demo.oauthAccessToken,
    DEVELOPER_KEY: demo.developerKey,
    ADMIN_TOKEN: adminToken,
    PORTAL_ID: String(demo.portalId),
    APP_ID: String(demo.appId),
    CLIENT_ID: demo.clientId,
    CLIENT_SECRET: demo.clientSecret,
    USER_ID: String(demo.userId),
    USER_EMAIL: demo.userEmail,
    USER_PASSWORD: demo.userPassword,
  };
}

/**
 * What `npm run dev` prints last: what to open, the credentials, and what to try. Short on purpose: the
 * rest (the client secret, the refresh token, ids) is in the demo file it names.
 * @param {string} baseUrl
 * @param {Demo} demo
 * @param {{ adminToken: string, demoFile: string, logFile?: string, integratorUrl: string, pendingAbandoned?: boolean, smtp?: { host: string, port: number } }} o
 */
export function summary(baseUrl, demo, o) {
  const authorize = `${baseUrl}/oauth/authorize?client_id=${demo.clientId}&redirect_uri=${encodeURIComponent(`${baseUrl}/oauth-callback`)}&scope=crm.objects.contacts.read`;
  return `
crm-edge is running at ${baseUrl} with a demo account (portal ${demo.portalId}).

Open (sign in as ${demo.userEmail} / ${demo.userPassword}):
  ${baseUrl}/app/contacts/${demo.contactId}    a contact: timeline and the "Shop orders" card
  ${baseUrl}/app/deals/${demo.dealId}    a synced order: stage, line items, shipments
  ${baseUrl}/app/stores    the store overview and its sync error
  ${baseUrl}/app/mail    the account's sent mail (SMTP and the transactional send)
  ${baseUrl}/_blog/${demo.portalId}    the public blog: its index of published posts
  ${baseUrl}${demo.blogPath}    the public blog post
  ${baseUrl}/docs    the API reference
  ${authorize}
      OAuth consent for the demo app; the redirect page shows the code and the curl to exchange it

Credentials: paste these lines into your shell; the examples of README.md and docs/ use them
(the OAuth access token lasts 30 minutes and is fresh on every start; \`eval "$(npm run -s token)"\` gives a
fresh one; all of it is also in ${o.demoFile}):
${Object.entries(demoEnv(baseUrl, demo, o.adminToken)).map(([k, v]) => `  export ${k}='${v}'`).join("\n")}

App webhooks: the demo app is subscribed to contact changes and deal stages, and the demo integrator logs each signed delivery
to the log file below. Change a contact, then read the service's delivery log:
  curl -fsS -X PATCH "$BASE/crm/v3/objects/contacts/${demo.contactId}" -H "Authorization: Bearer $PRIVATE_APP_TOKEN" \\
    -H 'Content-Type: application/json' -d '{"properties":{"city":"Paris"}}'
  curl -fsS "$BASE/webhooks/v3/$APP_ID/deliveries?hapikey=$DEVELOPER_KEY"

${o.smtp ? `SMTP: ${o.smtp.host}:${o.smtp.port} (loopback, AUTH PLAIN or LOGIN, no TLS) accepts mail sent with the demo's SMTP API token
  user ${demo.smtpUserName}, password ${demo.smtpPassword}; it shows in ${baseUrl}/app/mail (docs/how-to/send-mail.md).

` : ""}Try:
  curl -fsS "$BASE/contacts/v1/lists/all/contacts/all?count=10" -H "Authorization: Bearer $PRIVATE_APP_TOKEN"
  curl -fsS "$BASE/cdn-cgi/local/scheduled"   # runs the crons${o.pendingAbandoned ? ` (order ${demo.pendingDealId} is already checkout_abandoned)` : `: order ${demo.pendingDealId} becomes checkout_abandoned`}
  Walkthroughs for every API: docs/README.md
${o.logFile ? `
Logs (wrangler, requests, the demo integrator): ${o.logFile}. Stop with Ctrl-C.
` : ""}`;
}
