/** Contract cases (see contract-cases.ts) of the v3 faces: timeline v3, CRM cards v3, blog posts v3, SMTP tokens v3. */
import type { Case } from "./contract-cases";
import { api, ok, uniq, type Fixtures } from "./contract-fixtures";
import { integratorUrl } from "./helpers";

const dev = (f: Fixtures) => f.t.developerKey;
const TL = "/integrators/timeline/v3";
const tpl = (f: Fixtures) => ({ appId: f.t.appId, eventTemplateId: f.eventType });
const event = (f: Fixtures) => ({ eventTemplateId: f.eventType, eventId: f.eventId });
const tokenName = () => uniq("tok").replace(/-/g, "_");
const newToken = async (f: Fixtures) =>
  (await ok(api("POST", `${TL}/${f.t.appId}/event-templates/${f.eventType}/tokens`, { token: dev(f), json: { name: tokenName(), label: "T", type: "string" } }))).json.name as string;
const newTemplate = async (f: Fixtures) =>
  (await ok(api("POST", `${TL}/${f.t.appId}/event-templates`, { token: dev(f), json: { name: uniq("tpl"), objectType: "contacts", tokens: [] } }), 201)).json.id as string;

const CARDS = "/crm/v3/extensions/cards-dev";
const v3Card = () => ({
  title: "Orders",
  fetch: { targetUrl: `${integratorUrl()}/${uniq("f")}`, objectTypes: [{ name: "contacts", propertiesToSend: [] }] },
  display: { properties: [] },
  actions: { baseUrls: [`${integratorUrl()}/${uniq("a")}`] },
});
const newCard = async (f: Fixtures) => (await ok(api("POST", `${CARDS}/${f.t.appId}`, { token: dev(f), json: v3Card() }), 201)).json.id as string;

const POSTS = "/cms/v3/blogs/posts";
const newPost = async (f: Fixtures) => (await ok(api("POST", POSTS, { token: f.t.oauth, json: { name: uniq("p") } }), 201)).json.id as string;
const SMTP = "/marketing/v3/transactional/smtp-tokens";
const newSmtp = async (f: Fixtures) => (await ok(api("POST", SMTP, { token: f.t.oauth, json: { createContact: false, campaignName: "c" } }), 201)).json.id as string;

/** A fresh custom object schema of the fixtures' account (one property `title`, associated with contacts). */
const schemaBody = () => ({
  name: uniq("thing").replace(/-/g, "_").toLowerCase(),
  labels: { singular: "Thing", plural: "Things" },
  primaryDisplayProperty: "title",
  requiredProperties: ["title"],
  properties: [{ name: "title", label: "Title", type: "string", fieldType: "text" }],
  associatedObjects: ["contacts"],
});
const newSchema = async (f: Fixtures) => (await ok(api("POST", "/crm-object-schemas/v3/schemas", { token: f.t.pat, json: schemaBody() }), 201)).json as { objectTypeId: string; associations: { id: string }[] };
const archivedSchema = async (f: Fixtures) => {
  const { objectTypeId } = await newSchema(f);
  await ok(api("DELETE", `/crm-object-schemas/v3/schemas/${objectTypeId}`, { token: f.t.pat }), 204);
  return objectTypeId;
};

function schemaCases(): Record<string, Case> {
  const out: Record<string, Case> = {};
  for (const S of ["/crm-object-schemas/v3/schemas", "/crm/v3/schemas"]) {
    Object.assign(out, {
      [`GET ${S}`]: { ok: (f: Fixtures) => ({ token: f.t.pat }), errors: { 400: (f: Fixtures) => ({ token: f.t.pat, query: { archived: "maybe" } }) } },
      [`POST ${S}`]: { ok: (f: Fixtures) => ({ token: f.t.pat, json: schemaBody() }) },
      [`POST ${S}/batch/read`]: { ok: async (f: Fixtures) => ({ token: f.t.pat, json: { inputs: [(await newSchema(f)).objectTypeId] } }) },
      [`GET ${S}/{objectType}`]: { ok: async (f: Fixtures) => ({ token: f.t.pat, params: { objectType: (await newSchema(f)).objectTypeId } }) },
      [`PATCH ${S}/{objectType}`]: { ok: async (f: Fixtures) => ({ token: f.t.pat, params: { objectType: (await newSchema(f)).objectTypeId }, json: { labels: { singular: "T", plural: "Ts" } } }) },
      [`DELETE ${S}/{objectType}`]: { ok: async (f: Fixtures) => ({ token: f.t.pat, params: { objectType: (await newSchema(f)).objectTypeId } }) },
      [`DELETE ${S}/{objectType}/purge`]: { ok: async (f: Fixtures) => ({ token: f.t.pat, params: { objectType: await archivedSchema(f) } }) },
      [`POST ${S}/{objectType}/associations`]: {
        ok: async (f: Fixtures) => {
          const { objectTypeId } = await newSchema(f);
          return { token: f.t.pat, params: { objectType: objectTypeId }, json: { fromObjectTypeId: objectTypeId, toObjectTypeId: "0-2" } };
        },
      },
      [`DELETE ${S}/{objectType}/associations/{associationIdentifier}`]: {
        ok: async (f: Fixtures) => {
          const made = await newSchema(f);
          return { token: f.t.pat, params: { objectType: made.objectTypeId, associationIdentifier: made.associations[0]!.id } };
        },
      },
    });
  }
  return out;
}

export const V3_CASES: Record<string, Case> = {
  ...schemaCases(),
  "POST /integrators/timeline/v3/{appId}/event-templates": { ok: (f) => ({ token: dev(f), params: { appId: f.t.appId }, json: { name: uniq("tpl"), objectType: "contacts", tokens: [] } }) },
  "GET /integrators/timeline/v3/{appId}/event-templates": { ok: (f) => ({ token: dev(f), params: { appId: f.t.appId } }) },
  "GET /integrators/timeline/v3/{appId}/event-templates/{eventTemplateId}": { ok: (f) => ({ token: dev(f), params: tpl(f) }) },
  "PUT /integrators/timeline/v3/{appId}/event-templates/{eventTemplateId}": {
    ok: async (f) => ({ token: dev(f), params: { appId: f.t.appId, eventTemplateId: await newTemplate(f) }, json: { name: "Renamed", tokens: [] } }),
  },
  "DELETE /integrators/timeline/v3/{appId}/event-templates/{eventTemplateId}": { ok: async (f) => ({ token: dev(f), params: { appId: f.t.appId, eventTemplateId: await newTemplate(f) } }) },
  "POST /integrators/timeline/v3/{appId}/event-templates/{eventTemplateId}/tokens": {
    ok: (f) => ({ token: dev(f), params: tpl(f), json: { name: tokenName(), label: "T", type: "string" } }),
    errors: { 409: (f) => ({ token: dev(f), params: tpl(f), json: { name: "title", label: "Again", type: "string" } }) },
  },
  "PUT /integrators/timeline/v3/{appId}/event-templates/{eventTemplateId}/tokens/{tokenName}": {
    ok: async (f) => ({ token: dev(f), params: { ...tpl(f), tokenName: await newToken(f) }, json: { label: "Renamed" } }),
    errors: { 404: (f) => ({ token: dev(f), params: { ...tpl(f), tokenName: "no_such_token" }, json: { label: "x" } }) },
  },
  "DELETE /integrators/timeline/v3/{appId}/event-templates/{eventTemplateId}/tokens/{tokenName}": {
    ok: async (f) => ({ token: dev(f), params: { ...tpl(f), tokenName: await newToken(f) } }),
    errors: { 404: (f) => ({ token: dev(f), params: { ...tpl(f), tokenName: "no_such_token" } }) },
  },
  "POST /integrators/timeline/v3/events": {
    ok: (f) => ({ token: f.t.oauth, json: { eventTemplateId: String(f.eventType), objectId: String(f.contact), tokens: { title: "v3" } } }),
    errors: {
      404: (f) => ({ token: f.t.oauth, json: { eventTemplateId: "999999999", objectId: String(f.contact), tokens: {} } }),
      409: (f) => ({ token: f.t.oauth, json: { eventTemplateId: String(f.eventType), id: f.eventId, objectId: String(f.contact), tokens: {} } }),
    },
  },
  "POST /integrators/timeline/v3/events/batch/create": {
    ok: (f) => ({ token: f.t.oauth, json: { inputs: [{ eventTemplateId: String(f.eventType), objectId: String(f.contact), tokens: {} }] } }),
  },
  "GET /integrators/timeline/v3/events/{eventTemplateId}/{eventId}": { ok: (f) => ({ token: f.t.oauth, params: event(f) }) },
  "GET /integrators/timeline/v3/events/{eventTemplateId}/{eventId}/detail": { ok: (f) => ({ token: f.t.oauth, params: event(f) }) },
  "GET /integrators/timeline/v3/events/{eventTemplateId}/{eventId}/render": {
    ok: (f) => ({ token: f.t.oauth, params: event(f), query: { detail: "false" } }),
  },

  "GET /crm/v3/extensions/cards-dev/sample-response": { ok: () => ({}) },
  "POST /crm/v3/extensions/cards-dev/{appId}": { ok: (f) => ({ token: dev(f), params: { appId: f.t.appId }, json: v3Card() }) },
  "GET /crm/v3/extensions/cards-dev/{appId}": { ok: (f) => ({ token: dev(f), params: { appId: f.t.appId } }) },
  "GET /crm/v3/extensions/cards-dev/{appId}/{cardId}": { ok: (f) => ({ token: dev(f), params: { appId: f.t.appId, cardId: f.card } }) },
  "PATCH /crm/v3/extensions/cards-dev/{appId}/{cardId}": { ok: async (f) => ({ token: dev(f), params: { appId: f.t.appId, cardId: await newCard(f) }, json: { title: "Renamed" } }) },
  "DELETE /crm/v3/extensions/cards-dev/{appId}/{cardId}": { ok: async (f) => ({ token: dev(f), params: { appId: f.t.appId, cardId: await newCard(f) } }) },

  "GET /cms/v3/blogs/posts": {
    ok: (f) => ({ token: f.t.oauth, query: { limit: "2", sort: "-createdAt" } }),
    errors: { 400: (f) => ({ token: f.t.oauth, query: { limit: "0" } }) },
  },
  "POST /cms/v3/blogs/posts": {
    ok: (f) => ({ token: f.t.oauth, json: { name: uniq("p"), postBody: "<p>v3</p>" } }),
    errors: { 409: (f) => ({ token: f.t.oauth, json: { name: "Dup", slug: f.postSlug } }) },
  },
  "POST /cms/v3/blogs/posts/schedule": {
    ok: async (f) => ({ token: f.t.oauth, json: { id: await newPost(f), publishDate: new Date(Date.now() + 86_400_000).toISOString() } }),
    errors: { 404: (f) => ({ token: f.t.oauth, json: { id: "999999999", publishDate: new Date().toISOString() } }) },
  },
  "GET /cms/v3/blogs/posts/{id}": { ok: (f) => ({ token: f.t.oauth, params: { id: f.post } }) },
  "PATCH /cms/v3/blogs/posts/{id}": {
    ok: async (f) => ({ token: f.t.oauth, params: { id: await newPost(f) }, json: { postSummary: "s" } }),
    errors: { 409: async (f) => ({ token: f.t.oauth, params: { id: await newPost(f) }, json: { slug: f.postSlug } }) },
  },
  "DELETE /cms/v3/blogs/posts/{id}": { ok: async (f) => ({ token: f.t.oauth, params: { id: await newPost(f) } }) },
  "GET /cms/v3/blogs/posts/{id}/draft": { ok: (f) => ({ token: f.t.oauth, params: { id: f.post } }) },
  "PATCH /cms/v3/blogs/posts/{id}/draft": { ok: async (f) => ({ token: f.t.oauth, params: { id: await newPost(f) }, json: { name: "Draft" } }) },
  "POST /cms/v3/blogs/posts/{id}/draft/push-live": {
    ok: async (f) => ({ token: f.t.oauth, params: { id: await newPost(f) } }),
    errors: {
      409: async (f) => {
        const id = await newPost(f);
        await ok(api("PATCH", `${POSTS}/${id}/draft`, { token: f.t.oauth, json: { slug: f.postSlug } }));
        return { token: f.t.oauth, params: { id } };
      },
    },
  },
  "POST /cms/v3/blogs/posts/{id}/draft/reset": { ok: async (f) => ({ token: f.t.oauth, params: { id: await newPost(f) } }) },

  "POST /marketing/v3/transactional/smtp-tokens": { ok: (f) => ({ token: f.t.oauth, json: { createContact: true, campaignName: "c" } }) },
  "GET /marketing/v3/transactional/smtp-tokens": {
    ok: (f) => ({ token: f.t.oauth, query: { limit: "1" } }),
    errors: { 400: (f) => ({ token: f.t.oauth, query: { limit: "0" } }) },
  },
  "GET /marketing/v3/transactional/smtp-tokens/{tokenId}": { ok: (f) => ({ token: f.t.oauth, params: { tokenId: f.smtpUser } }) },
  "POST /marketing/v3/transactional/smtp-tokens/{tokenId}/password-reset": { ok: async (f) => ({ token: f.t.oauth, params: { tokenId: await newSmtp(f) } }) },
  "DELETE /marketing/v3/transactional/smtp-tokens/{tokenId}": { ok: async (f) => ({ token: f.t.oauth, params: { tokenId: await newSmtp(f) } }) },
  "POST /marketing/v3/transactional/single-email/send": {
    ok: (f) => ({ token: f.t.oauth, json: { emailId: 1, message: { to: "buyer@example.com", sendId: uniq("send") } } }),
  },
};
