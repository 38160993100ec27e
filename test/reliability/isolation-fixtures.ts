/**
 * Fixtures of the generated isolation suite (isolation.test.ts): account A owns one of every resource; the
 * table maps each route that takes an id to the requests another account (B) makes on A's ids. Every
 * route of `allRoutes` whose path takes an id must have an entry here, or the suite fails.
 */
import { integratorUrl } from "../helpers/integrator";
import type { World } from "../helpers/world";
import { TYPES } from "../cards/helpers";
import { TOKENS, V2 } from "../blog/helpers";
import { BRIDGE, settingsBody } from "../ecomm/helpers";
import { eventPath, typesPath } from "../timeline/helpers";

/** Path parameters that name a kind of object rather than one object: they are not ids. */
export const ENUM_PARAMS = new Set(["objectType", "toObjectType", "fromObjectType"]);

/** One request B makes on A's ids. */
export interface Target {
  path: string;
  body?: unknown;
  /** The status the route documents for it; 404 when left out. */
  status?: number;
  /** Credentials to send instead of those the route's auth rule gives (see credentialsFor). */
  tokens?: Cred[];
}

export interface Cred {
  name: string;
  bearer?: string;
  hapikey?: string;
  /** A signed-in web session: cookie and the CSRF token its pages carry. */
  cookie?: string;
  csrf?: string;
}

export type Fixture = (w: World) => Target[];

/** B's credentials of every kind the route accepts. */
export function credentialsFor(kinds: readonly string[], w: World): Cred[] {
  if (kinds.length === 0) return [{ name: "anonymous" }, { name: "B's OAuth token", bearer: w.b.oauth }];
  if (kinds.includes("session")) return [{ name: "B's signed-in session", cookie: w.bSession.cookie, csrf: w.bSession.csrf }];
  if (kinds.includes("admin")) {
    return [
      { name: "B's private-app token", bearer: w.b.pat },
      { name: "B's OAuth token", bearer: w.b.oauth },
      { name: "B's developer key", bearer: w.b.developerKey },
    ];
  }
  const out: Cred[] = [];
  if (kinds.includes("private_app")) out.push({ name: "B's private-app token", bearer: w.b.pat });
  if (kinds.includes("oauth")) out.push({ name: "B's OAuth token", bearer: w.b.oauth }, { name: "A's app installed in B", bearer: w.shared });
  if (kinds.includes("developer")) out.push({ name: "B's developer key", bearer: w.b.developerKey }, { name: "B's developer key as hapikey", hapikey: w.b.developerKey });
  return out;
}

const accountOnly = (w: World): Cred[] => [
  { name: "B's private-app token", bearer: w.b.pat },
  { name: "B's OAuth token", bearer: w.b.oauth },
];

/**
 * Routes of one app that take its developer key or an OAuth token of it (timeline setup, app
 * sync errors): B's credentials minus A's app installed in B. That token *is* A's app: on A's app path it
 * acts for the app, not for another tenant (event types are the app's, shared by its installs; its
 * app errors are its own account's, checked below with status 200 and none of A's data).
 */
const otherApps = (w: World): Cred[] => credentialsFor(["developer", "oauth"], w).filter((c) => c.bearer !== w.shared);
/** Developer-key-only routes (the v3 setup faces): B's developer key on A's app. */
const otherDevKeys = (w: World): Cred[] => credentialsFor(["developer"], w);
const aAppInB = (w: World): Cred[] => [{ name: "A's app installed in B", bearer: w.shared }];

const enc = encodeURIComponent;
const TL3 = "/integrators/timeline/v3";
const CARDS3 = "/crm/v3/extensions/cards-dev";
const POSTS3 = "/cms/v3/blogs/posts";
const SMTP3 = "/marketing/v3/transactional/smtp-tokens";
const C1 = "/contacts/v1/contact";

/**
 * Route (`METHOD path` as in the route table) → B's requests on A's ids. Several targets mix ids: one of
 * A's with B's own, so a check that looks at only one of them is caught too.
 */
export const FIXTURES: Record<string, Fixture> = {
  // The web app: B's signed-in user on A's record and A's card.
  // The store page: one store's synced records of A, seen by B.
  "GET /app/stores/:storeId": (w) => [{ path: `/app/stores/${w.ids.store}` }, { path: `/app/stores/${w.ids.store}?type=CONTACT` }],
  // B's session, with B's own CSRF token, on A's deal: the 404 page, nothing moved.
  "POST /app/deals/:objectId/move": (w) => [{ path: `/app/deals/${w.ids.deal}/move`, body: { csrf: w.bSession.csrf, dealstage: "closedwon" } }],
  "GET /app/:objectType/:objectId": (w) => [{ path: `/app/contacts/${w.ids.contact}` }, { path: `/app/companies/${w.ids.company}` }],
  // The record page's forms: A's record (404), and B's own record naming A's company or A's note (404), nothing written.
  "GET /app/:objectType/:objectId/associate": (w) => [{ path: `/app/contacts/${w.ids.contact}/associate?type=companies` }],
  "POST /app/:objectType/:objectId/associations": (w) => [{ path: `/app/contacts/${w.ids.contact}/associations` }],
  "POST /app/:objectType/:objectId/associations/:toObjectType/:toObjectId/remove": (w) => [
    { path: `/app/contacts/${w.ids.contact}/associations/companies/${w.ids.company}/remove` },
    { path: `/app/contacts/${w.ids.bContact}/associations/companies/${w.ids.company}/remove` },
  ],
  "POST /app/:objectType/:objectId/activities": (w) => [{ path: `/app/contacts/${w.ids.contact}/activities` }],
  "POST /app/:objectType/:objectId/activities/:activityId/complete": (w) => [
    { path: `/app/contacts/${w.ids.contact}/activities/${w.ids.note}/complete` },
    { path: `/app/contacts/${w.ids.bContact}/activities/${w.ids.note}/complete` },
  ],
  "GET /app/:objectType/:objectId/activities/:activityId/edit": (w) => [
    { path: `/app/contacts/${w.ids.contact}/activities/${w.ids.note}/edit` },
    { path: `/app/contacts/${w.ids.bContact}/activities/${w.ids.note}/edit` },
  ],
  "POST /app/:objectType/:objectId/activities/:activityId": (w) => [
    { path: `/app/contacts/${w.ids.contact}/activities/${w.ids.note}`, body: { kind: "notes", hs_note_body: "B" } },
    { path: `/app/contacts/${w.ids.bContact}/activities/${w.ids.note}`, body: { kind: "notes", hs_note_body: "B" } },
  ],
  "POST /app/:objectType/:objectId/activities/:activityId/delete": (w) => [
    { path: `/app/contacts/${w.ids.contact}/activities/${w.ids.note}/delete` },
    { path: `/app/contacts/${w.ids.bContact}/activities/${w.ids.note}/delete` },
  ],
  // The record forms: B's session with B's own CSRF token (sent as the header) on A's records.
  "GET /app/:objectType/:objectId/edit": (w) => [{ path: `/app/contacts/${w.ids.contact}/edit` }, { path: `/app/companies/${w.ids.company}/edit?property=name` }],
  "POST /app/:objectType/:objectId": (w) => [{ path: `/app/contacts/${w.ids.contact}`, body: { "p:firstname": "B" } }, { path: `/app/companies/${w.ids.company}`, body: { "p:name": "B" } }],
  "GET /app/:objectType/:objectId/delete": (w) => [{ path: `/app/contacts/${w.ids.contact}/delete` }],
  "POST /app/:objectType/:objectId/delete": (w) => [{ path: `/app/contacts/${w.ids.contact}/delete`, body: {} }, { path: `/app/companies/${w.ids.company}/delete`, body: {} }],
  // (A's app is also installed in B's account, so its card on B's own records is B's to see: not a target.)
  "GET /app/api/cards/:objectType/:objectId/:cardId": (w) => [{ path: `/app/api/cards/contacts/${w.ids.contact}/${w.ids.card}` }],
  // A's action with A's genuine token: on A's record (404), and replayed on B's own record, where A's app
  // is installed too (the card is shown there, but the token was not made for that record and user: 400).
  "POST /app/api/cards/:objectType/:objectId/:cardId/actions": (w) => [
    { path: `/app/api/cards/contacts/${w.ids.contact}/${w.ids.card}/actions`, body: { action: w.ids.cardAction } },
    { path: `/app/api/cards/contacts/${w.ids.bContact}/${w.ids.card}/actions`, body: { action: w.ids.cardAction }, status: 400 },
  ],
  // Operator routes: account credentials of any kind never reach them.
  "POST /admin/v1/accounts/:portalId/private-apps": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/private-apps`, body: { name: "x" }, status: 401 }],
  "POST /admin/v1/accounts/:portalId/installs": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/installs`, body: { appId: w.b.appId }, status: 401 }],
  "DELETE /admin/v1/accounts/:portalId/installs/:appId": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/installs/${w.a.appId}`, status: 401 }],
  "POST /admin/v1/accounts/:portalId/users": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/users`, body: { email: "b@example.com", password: "long enough" }, status: 401 }],
  "GET /admin/v1/accounts/:portalId/usage": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/usage`, status: 401 }],
  "GET /admin/v1/accounts/:portalId/emails": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/emails`, status: 401 }],
  "GET /admin/v1/accounts/:portalId": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}`, status: 401 }],
  "POST /admin/v1/accounts/:portalId/companion": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/companion`, body: { shard: "SHARD_2" }, status: 401 }],
  "POST /admin/v1/accounts/:portalId/move": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/move`, body: { shard: "SHARD_2" }, status: 401 }],
  "PATCH /admin/v1/apps/:appId": (w) => [{ path: `/admin/v1/apps/${w.a.appId}`, body: { scopes: ["oauth"] }, status: 401 }],
  "PATCH /admin/v1/shards/:name": () => [{ path: "/admin/v1/shards/SHARD_1", body: { open: false }, status: 401 }],
  "PATCH /admin/v1/accounts/:portalId": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}`, body: { status: "suspended" }, status: 401 }],
  "DELETE /admin/v1/accounts/:portalId": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}`, status: 401 }],
  "GET /admin/v1/accounts/:portalId/export": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/export`, status: 401 }],
  "DELETE /admin/v1/accounts/:portalId/private-apps/:privateAppId": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/private-apps/${w.a.privateAppId}`, status: 401 }],
  "POST /admin/v1/accounts/:portalId/private-apps/:privateAppId/rotate": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/private-apps/${w.a.privateAppId}/rotate`, status: 401 }],
  "POST /admin/v1/apps/:appId/rotate-secret": (w) => [{ path: `/admin/v1/apps/${w.a.appId}/rotate-secret`, body: {}, status: 401 }],
  "DELETE /admin/v1/accounts/:portalId/users/:userId": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/users/${w.a.userId}`, status: 401 }],
  "POST /admin/v1/accounts/:portalId/users/:userId/password": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/users/${w.a.userId}/password`, body: { password: "long enough" }, status: 401 }],
  "POST /admin/v1/accounts/:portalId/teams": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/teams`, body: { name: "b's team" }, status: 401 }],
  "DELETE /admin/v1/accounts/:portalId/teams/:teamId": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/teams/${w.ids.team}`, status: 401 }],
  "PUT /admin/v1/accounts/:portalId/faults": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/faults`, body: { rules: [{ respond: { status: 500 } }] }, status: 401 }],
  "GET /admin/v1/accounts/:portalId/faults": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/faults`, status: 401 }],
  "DELETE /admin/v1/accounts/:portalId/faults": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/faults`, status: 401 }],
  "POST /admin/v1/accounts/:portalId/snapshots": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/snapshots`, body: { name: "b" }, status: 401 }],
  "GET /admin/v1/accounts/:portalId/snapshots": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/snapshots`, status: 401 }],
  "DELETE /admin/v1/accounts/:portalId/snapshots/:name": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/snapshots/b`, status: 401 }],
  "POST /admin/v1/accounts/:portalId/snapshots/:name/restore": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/snapshots/b/restore`, status: 401 }],
  "POST /admin/v1/accounts/:portalId/reset": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/reset`, status: 401 }],
  "GET /admin/v1/accounts/:portalId/quirks": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/quirks`, status: 401 }],
  "PATCH /admin/v1/accounts/:portalId/quirks": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/quirks`, body: { searchLagMs: 1000 }, status: 401 }],
  "GET /admin/v1/accounts/:portalId/clock": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/clock`, status: 401 }],
  "POST /admin/v1/accounts/:portalId/clock": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/clock`, body: { advanceSeconds: 60 }, status: 401 }],
  "DELETE /admin/v1/accounts/:portalId/clock": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/clock`, status: 401 }],
  "POST /admin/v1/apps/:appId/webhooks/test-events": (w) => [{ path: `/admin/v1/apps/${w.a.appId}/webhooks/test-events`, body: { portalId: w.a.portalId, subscriptionType: "contact.creation" }, status: 401 }],
  "GET /admin/v1/apps/:appId/webhooks": (w) => [{ path: `/admin/v1/apps/${w.a.appId}/webhooks`, status: 401 }],
  "PATCH /admin/v1/apps/:appId/webhooks": (w) => [{ path: `/admin/v1/apps/${w.a.appId}/webhooks`, body: { held: true }, status: 401 }],
  "POST /admin/v1/accounts/:portalId/fixtures": (w) => [
    { path: `/admin/v1/accounts/${w.a.portalId}/fixtures`, body: { records: { contacts: [{ ref: "b", properties: { firstname: "B" } }] } }, status: 401 },
  ],
  "POST /admin/v1/accounts/:portalId/import": (w) => [{ path: `/admin/v1/accounts/${w.a.portalId}/import`, body: { portalId: w.b.portalId }, status: 401 }],
  // Owners and settings users: A's owner and user, by id and by email, are unknown to B.
  "GET /crm/v3/owners/:ownerId": (w) => [
    { path: `/crm/v3/owners/${w.ids.owner}` },
    { path: `/crm/v3/owners/${w.a.userId}?idProperty=userId` },
    { path: `/crm/v3/owners/${w.ids.owner}?archived=true` },
  ],
  "GET /settings/v3/users/:userId": (w) => [{ path: `/settings/v3/users/${w.a.userId}` }, { path: `/settings/v3/users/${encodeURIComponent(w.a.userEmail)}?idProperty=EMAIL` }],
  "PUT /settings/v3/users/:userId": (w) => [
    { path: `/settings/v3/users/${w.a.userId}`, body: { firstName: "b" } },
    // B's own user with A's team: a 400, A's team is unknown in B.
    { path: `/settings/v3/users/${w.b.userId}`, body: { primaryTeamId: String(w.ids.team) }, status: 400 },
  ],
  "DELETE /settings/v3/users/:userId": (w) => [{ path: `/settings/v3/users/${w.a.userId}` }, { path: `/settings/v3/users/${encodeURIComponent(w.a.userEmail)}?idProperty=EMAIL` }],

  // OAuth token introspection: the token is the capability. A token of another kind is not one.
  "GET /oauth/v1/access-tokens/:token": (w) => [{ path: `/oauth/v1/access-tokens/${w.a.refresh}` }, { path: `/oauth/v1/access-tokens/${w.a.pat}` }, { path: `/oauth/v1/access-tokens/${w.a.developerKey}` }],
  "GET /oauth/v1/refresh-tokens/:token": (w) => [{ path: `/oauth/v1/refresh-tokens/${w.a.oauth}` }, { path: `/oauth/v1/refresh-tokens/${w.a.pat}` }],
  "DELETE /oauth/v1/refresh-tokens/:token": (w) => [{ path: `/oauth/v1/refresh-tokens/${w.a.oauth}` }, { path: `/oauth/v1/refresh-tokens/${w.a.pat}` }],

  // CRM records.
  "GET /crm/v3/objects/:objectType/:objectId": (w) => [
    { path: `/crm/v3/objects/contacts/${w.ids.contact}` },
    { path: `/crm/v3/objects/companies/${w.ids.company}` },
    { path: `/crm/v3/objects/notes/${w.ids.note}?properties=hs_note_body` },
    { path: `/crm/v3/objects/contacts/${enc(w.ids.contactEmail)}?idProperty=email` },
  ],
  "PATCH /crm/v3/objects/:objectType/:objectId": (w) => [
    { path: `/crm/v3/objects/notes/${w.ids.note}`, body: { properties: { hs_note_body: "B was here" } } },
    { path: `/crm/v3/objects/contacts/${w.ids.contact}`, body: { properties: { firstname: "B was here" } } },
    { path: `/crm/v3/objects/contacts/${enc(w.ids.contactEmail)}?idProperty=email`, body: { properties: { firstname: "B was here" } } },
    // B's own record given A's owner: a 400, A's owner is not an owner of B.
    { path: `/crm/v3/objects/contacts/${w.ids.bContact}`, body: { properties: { hubspot_owner_id: String(w.ids.owner) } }, status: 400 },
  ],
  // CRM v3 properties and associations v4: A's custom property, A's records (mixed with B's).
  "GET /crm/v3/properties/:objectType/:propertyName": (w) => [{ path: `/crm/v3/properties/contacts/${w.ids.crmProperty}` }],
  "PATCH /crm/v3/properties/:objectType/:propertyName": (w) => [{ path: `/crm/v3/properties/contacts/${w.ids.crmProperty}`, body: { label: "B was here" } }],
  "DELETE /crm/v3/properties/:objectType/:propertyName": (w) => [{ path: `/crm/v3/properties/contacts/${w.ids.crmProperty}` }],
  "GET /crm/v3/properties/:objectType/groups/:groupName": (w) => [{ path: `/crm/v3/properties/contacts/groups/${w.ids.crmPropertyGroup}` }],
  "PATCH /crm/v3/properties/:objectType/groups/:groupName": (w) => [{ path: `/crm/v3/properties/contacts/groups/${w.ids.crmPropertyGroup}`, body: { label: "B was here" } }],
  "DELETE /crm/v3/properties/:objectType/groups/:groupName": (w) => [{ path: `/crm/v3/properties/contacts/groups/${w.ids.crmPropertyGroup}` }],
  "PUT /crm/v4/objects/:objectType/:objectId/associations/:toObjectType/:toObjectId": (w) =>
    [
      `${w.ids.contact}/associations/companies/${w.ids.company}`,
      `${w.ids.bContact}/associations/companies/${w.ids.company}`,
      `${w.ids.contact}/associations/companies/${w.ids.bCompany}`,
    ].map((p) => ({ path: `/crm/v4/objects/contacts/${p}`, body: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 279 }] })),
  "PUT /crm/v4/objects/:fromObjectType/:fromObjectId/associations/default/:toObjectType/:toObjectId": (w) => [
    { path: `/crm/v4/objects/contacts/${w.ids.contact}/associations/default/companies/${w.ids.company}` },
    { path: `/crm/v4/objects/contacts/${w.ids.bContact}/associations/default/companies/${w.ids.company}` },
    { path: `/crm/v4/objects/contacts/${w.ids.contact}/associations/default/companies/${w.ids.bCompany}` },
  ],
  "GET /crm/v4/objects/:objectType/:objectId/associations/:toObjectType": (w) => [
    { path: `/crm/v4/objects/contacts/${w.ids.contact}/associations/companies` },
    { path: `/crm/v4/objects/notes/${w.ids.note}/associations/contacts` },
  ],
  "DELETE /crm/v4/objects/:objectType/:objectId/associations/:toObjectType/:toObjectId": (w) => [
    { path: `/crm/v4/objects/contacts/${w.ids.contact}/associations/companies/${w.ids.company}` },
    { path: `/crm/v4/objects/contacts/${w.ids.bContact}/associations/companies/${w.ids.company}` },
    { path: `/crm/v4/objects/contacts/${w.ids.contact}/associations/companies/${w.ids.bCompany}` },
  ],
  // Association labels: A's label id, under both path forms (B has none, so in B's account it names nothing).
  "DELETE /crm/v4/associations/:fromObjectType/:toObjectType/labels/:associationTypeId": (w) => [
    { path: `/crm/v4/associations/contacts/companies/labels/${w.ids.associationLabel}` },
    { path: `/crm/v4/associations/companies/contacts/labels/${w.ids.associationLabel + 1}` },
  ],
  "DELETE /crm/associations/v4/:fromObjectType/:toObjectType/labels/:associationTypeId": (w) => [{ path: `/crm/associations/v4/contacts/companies/labels/${w.ids.associationLabel}` }],
  "DELETE /crm/v3/objects/:objectType/:objectId": (w) => [{ path: `/crm/v3/objects/contacts/${w.ids.contact}` }, { path: `/crm/v3/objects/notes/${w.ids.note}` }],
  "PUT /crm/v3/objects/:objectType/:objectId/associations/:toObjectType/:toObjectId": (w) => [
    { path: `/crm/v3/objects/contacts/${w.ids.bContact}/associations/notes/${w.ids.note}` },
    { path: `/crm/v3/objects/contacts/${w.ids.contact}/associations/companies/${w.ids.company}` },
    { path: `/crm/v3/objects/contacts/${w.ids.bContact}/associations/companies/${w.ids.company}` },
    { path: `/crm/v3/objects/contacts/${w.ids.contact}/associations/companies/${w.ids.bCompany}` },
  ],
  "DELETE /crm/v3/objects/:objectType/:objectId/associations/:toObjectType/:toObjectId": (w) => [
    { path: `/crm/v3/objects/contacts/${w.ids.contact}/associations/companies/${w.ids.company}` },
    { path: `/crm/v3/objects/contacts/${w.ids.bContact}/associations/companies/${w.ids.company}` },
    { path: `/crm/v3/objects/contacts/${w.ids.contact}/associations/companies/${w.ids.bCompany}` },
  ],
  "GET /crm/v3/objects/:objectType/:objectId/timeline": (w) => [{ path: `/crm/v3/objects/contacts/${w.ids.contact}/timeline` }],
  "GET /crm/v3/objects/:objectType/:objectId/cards": (w) => [
    { path: `/crm/v3/objects/contacts/${w.ids.contact}/cards?userId=${w.b.userId}` },
    // A's user on B's record: userId must be a user of the caller's account (400, docs/reference/cards.md).
    { path: `/crm/v3/objects/contacts/${w.ids.bContact}/cards?userId=${w.a.userId}`, status: 400 },
  ],
  "POST /crm/v3/objects/:objectType/:objectId/cards/:cardId/actions": (w) => [
    { path: `/crm/v3/objects/contacts/${w.ids.contact}/cards/${w.ids.card}/actions`, body: { userId: w.b.userId, action: w.ids.cardAction } },
    // A's genuine token replayed by B on B's own record (A's app is installed in B): not offered there, 400.
    { path: `/crm/v3/objects/contacts/${w.ids.bContact}/cards/${w.ids.card}/actions`, body: { userId: w.b.userId, action: w.ids.cardAction }, status: 400 },
  ],

  // Legacy v1 contacts: A's vid, email and visitor token.
  "GET /contacts/v1/contact/vid/:vid/profile": (w) => [{ path: `${C1}/vid/${w.ids.contact}/profile` }],
  "GET /contacts/v1/contact/email/:email/profile": (w) => [{ path: `${C1}/email/${enc(w.ids.contactEmail)}/profile` }],
  "GET /contacts/v1/contact/utk/:utk/profile": (w) => [{ path: `${C1}/utk/${enc(w.ids.utk)}/profile` }],
  "POST /contacts/v1/contact/vid/:vid/profile": (w) => [{ path: `${C1}/vid/${w.ids.contact}/profile`, body: { properties: [{ property: "firstname", value: "B was here" }] } }],
  "POST /contacts/v1/contact/email/:email/profile": (w) => [{ path: `${C1}/email/${enc(w.ids.contactEmail)}/profile`, body: { properties: [{ property: "firstname", value: "B was here" }] } }],
  // A's email is not B's contact, so B would create one; the body also gives it B's other contact's email,
  // so that create is the 409 naming B's contact. Had the lookup found A's contact, it would be updated (200).
  "POST /contacts/v1/contact/createOrUpdate/email/:email": (w) => [
    { path: `${C1}/createOrUpdate/email/${enc(w.ids.contactEmail)}`, body: { properties: [{ property: "email", value: w.ids.bEmail }] }, status: 409 },
  ],
  "DELETE /contacts/v1/contact/vid/:vid": (w) => [{ path: `${C1}/vid/${w.ids.contact}` }],
  // The recorded 400s: A's contact is not a valid contact of B's, as either side of the merge.
  "POST /contacts/v1/contact/merge-vids/:vid": (w) => [
    { path: `${C1}/merge-vids/${w.ids.contact}`, body: { vidToMerge: w.ids.bContact }, status: 400 },
    { path: `${C1}/merge-vids/${w.ids.bContact}`, body: { vidToMerge: w.ids.contact }, status: 400 },
  ],

  // Ecommerce bridge.
  "GET /extensions/ecomm/v2/stores/:storeId": (w) => [{ path: `${BRIDGE}/stores/${w.ids.store}` }],
  "DELETE /extensions/ecomm/v2/stores/:storeId": (w) => [{ path: `${BRIDGE}/stores/${w.ids.store}` }],
  "POST /extensions/ecomm/v2/stores/:storeId/import": (w) => [{ path: `${BRIDGE}/stores/${w.ids.store}/import` }],
  "GET /extensions/ecomm/v2/sync/status/:storeId/:objectType/:externalObjectId": (w) => [
    { path: `${BRIDGE}/sync/status/${w.ids.store}/CONTACT/${enc(w.ids.syncedExt)}` },
    { path: `${BRIDGE}/sync/status/${w.ids.bStore}/CONTACT/${enc(w.ids.syncedExt)}` },
  ],
  "GET /extensions/ecomm/v2/sync/errors/portal/:portalId": (w) => [{ path: `${BRIDGE}/sync/errors/portal/${w.a.portalId}` }],
  "GET /extensions/ecomm/v2/sync/errors/app/:appId": (w) => [
    { path: `${BRIDGE}/sync/errors/app/${w.a.appId}`, tokens: otherApps(w) },
    // A's app's token for B's account: its own install's errors only, none of A's account (only the developer key reads every account's errors).
    { path: `${BRIDGE}/sync/errors/app/${w.a.appId}?includeResolved=true`, status: 200, tokens: aAppInB(w) },
  ],

  // Timeline setup (developer key or OAuth token of the app): A's app in the path (every credential but A's
  // app installed in B, see otherApps), or B's own app with A's event type or property (every credential).
  "POST /integrations/v1/:appId/timeline/event-types": (w) => [{ path: typesPath(w.a.appId), body: { name: "B's type" }, tokens: otherApps(w) }],
  "GET /integrations/v1/:appId/timeline/event-types": (w) => [{ path: typesPath(w.a.appId), tokens: otherApps(w) }],
  "GET /integrations/v1/:appId/timeline/event-types/:eventTypeId": (w) => [
    { path: `${typesPath(w.a.appId)}/${w.ids.eventType}`, tokens: otherApps(w) },
    { path: `${typesPath(w.b.appId)}/${w.ids.eventType}` },
  ],
  "PUT /integrations/v1/:appId/timeline/event-types/:eventTypeId": (w) => [
    { path: `${typesPath(w.a.appId)}/${w.ids.eventType}`, body: { name: "renamed by B" }, tokens: otherApps(w) },
    { path: `${typesPath(w.b.appId)}/${w.ids.eventType}`, body: { name: "renamed by B" } },
  ],
  "DELETE /integrations/v1/:appId/timeline/event-types/:eventTypeId": (w) => [
    { path: `${typesPath(w.a.appId)}/${w.ids.eventType}`, tokens: otherApps(w) },
    { path: `${typesPath(w.b.appId)}/${w.ids.eventType}` },
  ],
  "POST /integrations/v1/:appId/timeline/event-types/:eventTypeId/properties": (w) => [
    { path: `${typesPath(w.a.appId)}/${w.ids.eventType}/properties`, body: { name: "added", label: "by B", propertyType: "String" }, tokens: otherApps(w) },
    { path: `${typesPath(w.b.appId)}/${w.ids.eventType}/properties`, body: { name: "added", label: "by B", propertyType: "String" } },
  ],
  "GET /integrations/v1/:appId/timeline/event-types/:eventTypeId/properties": (w) => [
    { path: `${typesPath(w.a.appId)}/${w.ids.eventType}/properties`, tokens: otherApps(w) },
    { path: `${typesPath(w.b.appId)}/${w.ids.eventType}/properties` },
  ],
  "PUT /integrations/v1/:appId/timeline/event-types/:eventTypeId/properties": (w) => [
    { path: `${typesPath(w.a.appId)}/${w.ids.eventType}/properties`, body: { id: w.ids.property, label: "by B" }, tokens: otherApps(w) },
    { path: `${typesPath(w.b.appId)}/${w.ids.eventType}/properties`, body: { id: w.ids.property, label: "by B" } },
    // B's own app and event type, A's property id in the body.
    { path: `${typesPath(w.b.appId)}/${w.ids.bEventType}/properties`, body: { id: w.ids.property, label: "by B" } },
  ],
  "DELETE /integrations/v1/:appId/timeline/event-types/:eventTypeId/properties/:propertyId": (w) => [
    { path: `${typesPath(w.a.appId)}/${w.ids.eventType}/properties/${w.ids.property}`, tokens: otherApps(w) },
    { path: `${typesPath(w.b.appId)}/${w.ids.eventType}/properties/${w.ids.property}` },
    { path: `${typesPath(w.b.appId)}/${w.ids.bEventType}/properties/${w.ids.property}` },
  ],

  // Timeline events (OAuth): B's own app is not A's app (404); A's app installed in B reaches the
  // event type but not A's records or events.
  ...Object.fromEntries(
    ["PUT", "POST"].flatMap((m) => [
      [`${m} /integrations/v1/:appId/timeline/event`, (w: World) => [
        { path: eventPath(w.a.appId), body: { id: "by-b", eventTypeId: w.ids.eventType, objectId: w.ids.contact, title: "x" } },
        // B's own app in the path, A's event type in the body.
        { path: eventPath(w.b.appId), body: { id: "by-b", eventTypeId: w.ids.eventType, objectId: w.ids.bContact }, tokens: [{ name: "B's OAuth token", bearer: w.b.oauth }] },
      ]],
      [`${m} /integrations/v1/:appId/timeline/event/batch`, (w: World) => [
        { path: `${eventPath(w.a.appId)}/batch`, body: { eventWrappers: [{ id: "by-b", eventTypeId: w.ids.eventType, objectId: w.ids.contact, title: "x" }] } },
      ]],
    ]),
  ) as Record<string, Fixture>,
  "GET /integrations/v1/:appId/timeline/event/:eventTypeId/:eventId": (w) => [{ path: `${eventPath(w.a.appId)}/${w.ids.eventType}/${enc(w.ids.eventId)}` }],

  // Timeline v3: the same event types, properties and events as v1, the same refusals.
  "POST /integrators/timeline/v3/:appId/event-templates": (w) => [{ path: `${TL3}/${w.a.appId}/event-templates`, body: { name: "B's template", objectType: "contacts", tokens: [] }, tokens: otherDevKeys(w) }],
  "GET /integrators/timeline/v3/:appId/event-templates": (w) => [{ path: `${TL3}/${w.a.appId}/event-templates`, tokens: otherDevKeys(w) }],
  ...Object.fromEntries(
    (["GET", "PUT", "DELETE"] as const).map((m) => [
      `${m} /integrators/timeline/v3/:appId/event-templates/:eventTemplateId`,
      (w: World) => [
        { path: `${TL3}/${w.a.appId}/event-templates/${w.ids.eventType}`, body: m === "PUT" ? { id: String(w.ids.eventType), name: "renamed by B", tokens: [] } : undefined, tokens: otherDevKeys(w) },
        { path: `${TL3}/${w.b.appId}/event-templates/${w.ids.eventType}`, body: m === "PUT" ? { id: String(w.ids.eventType), name: "renamed by B", tokens: [] } : undefined },
      ],
    ]),
  ) as Record<string, Fixture>,
  "POST /integrators/timeline/v3/:appId/event-templates/:eventTemplateId/tokens": (w) => [
    { path: `${TL3}/${w.a.appId}/event-templates/${w.ids.eventType}/tokens`, body: { name: "added", label: "by B", type: "string" }, tokens: otherDevKeys(w) },
    { path: `${TL3}/${w.b.appId}/event-templates/${w.ids.eventType}/tokens`, body: { name: "added", label: "by B", type: "string" } },
  ],
  ...Object.fromEntries(
    (["PUT", "DELETE"] as const).map((m) => [
      `${m} /integrators/timeline/v3/:appId/event-templates/:eventTemplateId/tokens/:tokenName`,
      (w: World) => [
        { path: `${TL3}/${w.a.appId}/event-templates/${w.ids.eventType}/tokens/title`, body: m === "PUT" ? { label: "by B" } : undefined, tokens: otherDevKeys(w) },
        { path: `${TL3}/${w.b.appId}/event-templates/${w.ids.eventType}/tokens/title`, body: m === "PUT" ? { label: "by B" } : undefined },
      ],
    ]),
  ) as Record<string, Fixture>,
  ...Object.fromEntries(
    ["", "/detail", "/render"].map((tail) => [
      `GET /integrators/timeline/v3/events/:eventTemplateId/:eventId${tail}`,
      (w: World) => [{ path: `${TL3}/events/${w.ids.eventType}/${enc(w.ids.eventId)}${tail}` }],
    ]),
  ) as Record<string, Fixture>,

  // CRM cards v3: the v1 record types of A's app.
  "POST /crm/v3/extensions/cards-dev/:appId": (w) => [
    {
      path: `${CARDS3}/${w.a.appId}`,
      body: { title: "B's card", fetch: { targetUrl: `${integratorUrl()}/b`, objectTypes: [{ name: "contacts", propertiesToSend: [] }] }, display: { properties: [] }, actions: { baseUrls: [integratorUrl()] } },
      tokens: otherDevKeys(w),
    },
  ],
  "GET /crm/v3/extensions/cards-dev/:appId": (w) => [{ path: `${CARDS3}/${w.a.appId}`, tokens: otherDevKeys(w) }],
  ...Object.fromEntries(
    (["GET", "PATCH", "DELETE"] as const).map((m) => [
      `${m} /crm/v3/extensions/cards-dev/:appId/:cardId`,
      (w: World) => [
        { path: `${CARDS3}/${w.a.appId}/${w.ids.card}`, body: m === "PATCH" ? { title: "renamed by B" } : undefined, tokens: otherDevKeys(w) },
        { path: `${CARDS3}/${w.b.appId}/${w.ids.card}`, body: m === "PATCH" ? { title: "renamed by B" } : undefined },
      ],
    ]),
  ) as Record<string, Fixture>,

  // Blog posts v3 and SMTP tokens v3: the v2 posts and v1 tokens.
  "GET /cms/v3/blogs/posts/:id": (w) => [{ path: `${POSTS3}/${w.ids.post}` }],
  "PATCH /cms/v3/blogs/posts/:id": (w) => [{ path: `${POSTS3}/${w.ids.post}`, body: { name: "renamed by B" } }],
  "DELETE /cms/v3/blogs/posts/:id": (w) => [{ path: `${POSTS3}/${w.ids.post}` }],
  "GET /cms/v3/blogs/posts/:id/draft": (w) => [{ path: `${POSTS3}/${w.ids.post}/draft` }],
  "PATCH /cms/v3/blogs/posts/:id/draft": (w) => [{ path: `${POSTS3}/${w.ids.post}/draft`, body: { name: "renamed by B" } }],
  "POST /cms/v3/blogs/posts/:id/draft/push-live": (w) => [{ path: `${POSTS3}/${w.ids.post}/draft/push-live` }],
  "POST /cms/v3/blogs/posts/:id/draft/reset": (w) => [{ path: `${POSTS3}/${w.ids.post}/draft/reset` }],
  "GET /marketing/v3/transactional/smtp-tokens/:tokenId": (w) => [{ path: `${SMTP3}/${enc(w.ids.smtpUser)}` }],
  "DELETE /marketing/v3/transactional/smtp-tokens/:tokenId": (w) => [{ path: `${SMTP3}/${enc(w.ids.smtpUser)}` }],
  "POST /marketing/v3/transactional/smtp-tokens/:tokenId/password-reset": (w) => [{ path: `${SMTP3}/${enc(w.ids.smtpUser)}/password-reset` }],

  // Content.
  "GET /content/api/v2/blogs/:id": (w) => [{ path: `${V2}/blogs/${w.ids.blog}` }],
  "GET /content/api/v2/blog-authors/:id": (w) => [{ path: `${V2}/blog-authors/${w.ids.author}` }],
  "GET /content/api/v2/topics/:id": (w) => [{ path: `${V2}/topics/${w.ids.topic}` }],
  "GET /content/api/v2/blog-posts/:id": (w) => [{ path: `${V2}/blog-posts/${w.ids.post}` }],
  "PUT /content/api/v2/blog-posts/:id": (w) => [{ path: `${V2}/blog-posts/${w.ids.post}`, body: { name: "renamed by B" } }],
  "DELETE /content/api/v2/blog-posts/:id": (w) => [{ path: `${V2}/blog-posts/${w.ids.post}` }],
  "POST /content/api/v2/blog-posts/:id/publish-action": (w) => [{ path: `${V2}/blog-posts/${w.ids.post}/publish-action`, body: { action: "schedule-publish" } }],
  // Public pages: A's draft has no page, whoever asks.
  "GET /_blog/:portalId/*": (w) => [{ path: w.ids.postPath }],
  // A's index is public (200), and lists published posts only: A's draft is not on it.
  "GET /_blog/:portalId": (w) => [{ path: `/_blog/${w.a.portalId}`, status: 200 }],

  // SMTP API tokens (B has the add-on too, so the add-on check passes and the token lookup is what refuses).
  "POST /email/public/v1/smtpapi/tokens/:userName/password-reset": (w) => [{ path: `${TOKENS}/${enc(w.ids.smtpUser)}/password-reset` }],
  "DELETE /email/public/v1/smtpapi/tokens/:userName": (w) => [{ path: `${TOKENS}/${enc(w.ids.smtpUser)}` }],

  // CRM card record types (developer key), with and without an applicationId.
  "GET /extensions/sales-objects/v1/object-types/:objectTypeId": (w) => [
    { path: `${TYPES}/${w.ids.card}` },
    { path: `${TYPES}/${w.ids.card}?applicationId=${w.b.appId}` },
    { path: `${TYPES}/${w.ids.card}?applicationId=${w.a.appId}` },
  ],
  "PUT /extensions/sales-objects/v1/object-types/:objectTypeId": (w) => [
    { path: `${TYPES}/${w.ids.card}`, body: { title: "renamed by B" } },
    { path: `${TYPES}/${w.ids.card}`, body: { applicationId: w.a.appId, title: "renamed by B" } },
  ],
  "DELETE /extensions/sales-objects/v1/object-types/:objectTypeId": (w) => [
    { path: `${TYPES}/${w.ids.card}` },
    { path: `${TYPES}/${w.ids.card}?applicationId=${w.a.appId}` },
  ],

  // App webhooks (developer key): A's app in the path, or B's own app with A's subscription or delivery.
  ...webhookFixtures(),
  // App extension settings (developer key): A's app in the path.
  ...extensionFixtures(),
  // Legacy engagements v1: A's note (an engagement) and A's records, mixed with B's.
  ...engagementFixtures(),
  // Pipelines: A's pipeline and stage, under both types' paths (stage ids are per account, so B's own
  // built-in pipeline holding A's stage id is a 404 too).
  ...Object.fromEntries(
    ["/crm-object-schemas/v3/schemas", "/crm/v3/schemas"].map((S) => [`DELETE ${S}/:objectType/associations/:associationIdentifier`, (w: World) => [{ path: `${S}/${w.ids.schema}/associations/${w.ids.schemaAssociation}` }]]),
  ),
  ...pipelineFixtures(),
  // Lists: A's list through both faces, A's list name, and A's contact's memberships (B's own view of
  // that id is an empty answer: it is not a record of B's).
  ...listFixtures(),
};

function listFixtures(): Record<string, Fixture> {
  const L = "/crm/v3/lists";
  const V1 = "/contacts/v1/lists";
  const on = (suffix: string, body?: unknown): Fixture => (w) => [{ path: `${L}/${w.ids.list}${suffix}`, body }];
  const onV1 = (suffix: string, body?: unknown): Fixture => (w) => [{ path: `${V1}/${w.ids.list}${suffix}`, body }];
  return {
    "GET /crm/v3/lists/:listId": on(""),
    "DELETE /crm/v3/lists/:listId": on(""),
    "PUT /crm/v3/lists/:listId/restore": on("/restore"),
    "PUT /crm/v3/lists/:listId/update-list-name": on("/update-list-name?listName=B%20was%20here"),
    "PUT /crm/v3/lists/:listId/update-list-filters": on("/update-list-filters", { filterBranch: { filterBranchType: "OR", filters: [], filterBranches: [] } }),
    "GET /crm/v3/lists/:listId/memberships": on("/memberships"),
    "PUT /crm/v3/lists/:listId/memberships/add": (w) => [{ path: `${L}/${w.ids.list}/memberships/add`, body: [String(w.ids.bContact)] }],
    "PUT /crm/v3/lists/:listId/memberships/remove": (w) => [{ path: `${L}/${w.ids.list}/memberships/remove`, body: [String(w.ids.contact)] }],
    "PUT /crm/v3/lists/:listId/memberships/add-and-remove": (w) => [
      { path: `${L}/${w.ids.list}/memberships/add-and-remove`, body: { recordIdsToAdd: [String(w.ids.bContact)], recordIdsToRemove: [String(w.ids.contact)] } },
    ],
    "DELETE /crm/v3/lists/:listId/memberships": on("/memberships"),
    "GET /crm/v3/lists/:listId/memberships/join-order": on("/memberships/join-order"),
    // Folders: ids are each account's own, so B's request names its own folder of that number (B has none:
    // 404), never A's.
    "PUT /crm/v3/lists/folders/:folderId/move/:newParentFolderId": (w) => [{ path: `${L}/folders/${w.ids.listFolder}/move/0` }],
    "PUT /crm/v3/lists/folders/:folderId/rename": (w) => [{ path: `${L}/folders/${w.ids.listFolder}/rename?newFolderName=B` }],
    "DELETE /crm/v3/lists/folders/:folderId": (w) => [{ path: `${L}/folders/${w.ids.emptyListFolder}` }],
    // B copying A's list into its own, and A's list as the target of B's copy: both name A's list.
    "PUT /crm/v3/lists/:listId/memberships/add-from/:sourceListId": (w) => [
      { path: `${L}/${w.ids.list}/memberships/add-from/${w.ids.list}` },
    ],
    "GET /crm/v3/lists/object-type-id/:objectTypeId/name/:listName": (w) => [{ path: `${L}/object-type-id/0-1/name/${enc(w.ids.listName)}` }],
    "GET /crm/v3/lists/records/:objectTypeId/:recordId/memberships": (w) => [{ path: `${L}/records/0-1/${w.ids.contact}/memberships`, status: 200 }],
    "GET /contacts/v1/lists/:listId": onV1(""),
    "DELETE /contacts/v1/lists/:listId": onV1(""),
    "GET /contacts/v1/lists/:listId/contacts/all": onV1("/contacts/all"),
    "POST /contacts/v1/lists/:listId/add": (w) => [{ path: `${V1}/${w.ids.list}/add`, body: { vids: [w.ids.bContact] } }],
    "POST /contacts/v1/lists/:listId/remove": (w) => [{ path: `${V1}/${w.ids.list}/remove`, body: { vids: [w.ids.contact] } }],
  };
}

function webhookFixtures(): Record<string, Fixture> {
  const W = "/webhooks/v3";
  const settings = { targetUrl: "https://b.example.com/hooks", throttling: { maxConcurrentRequests: 5 } };
  const onApp = (suffix: string, body?: unknown): Fixture => (w) => [{ path: `${W}/${w.a.appId}${suffix}`, body }];
  const onSub = (suffix: string, body?: unknown): Fixture => (w) => [
    { path: `${W}/${w.a.appId}/subscriptions/${w.ids.subscription}${suffix}`, body },
    { path: `${W}/${w.b.appId}/subscriptions/${w.ids.subscription}${suffix}`, body },
  ];
  const onDelivery = (suffix: string): Fixture => (w) => [
    { path: `${W}/${w.a.appId}/deliveries/${w.ids.delivery}${suffix}` },
    { path: `${W}/${w.b.appId}/deliveries/${w.ids.delivery}${suffix}` },
  ];
  return {
    "GET /webhooks/v3/:appId/settings": onApp("/settings"),
    "PUT /webhooks/v3/:appId/settings": onApp("/settings", settings),
    "DELETE /webhooks/v3/:appId/settings": onApp("/settings"),
    "GET /webhooks/v3/:appId/subscriptions": onApp("/subscriptions"),
    "POST /webhooks/v3/:appId/subscriptions": onApp("/subscriptions", { eventType: "contact.creation" }),
    "POST /webhooks/v3/:appId/subscriptions/batch/update": (w) => [
      { path: `${W}/${w.a.appId}/subscriptions/batch/update`, body: { inputs: [{ id: w.ids.subscription, active: true }] } },
      // B's own app naming A's subscription: reported as not found (207), nothing changed.
      { path: `${W}/${w.b.appId}/subscriptions/batch/update`, body: { inputs: [{ id: w.ids.subscription, active: true }] }, status: 207 },
    ],
    "GET /webhooks/v3/:appId/subscriptions/:subscriptionId": onSub(""),
    "PATCH /webhooks/v3/:appId/subscriptions/:subscriptionId": onSub("", { active: true }),
    "DELETE /webhooks/v3/:appId/subscriptions/:subscriptionId": onSub(""),
    "GET /webhooks/v3/:appId/deliveries": onApp("/deliveries"),
    "GET /webhooks/v3/:appId/deliveries/:deliveryId": onDelivery(""),
    "POST /webhooks/v3/:appId/deliveries/:deliveryId/resend": onDelivery("/resend"),
  };
}

function extensionFixtures(): Record<string, Fixture> {
  const C = "/crm/v3/extensions/calling";
  const onApp = (path: (appId: number) => string, body?: unknown): Fixture => (w) => [{ path: path(w.a.appId), body }];
  const calling = (suffix: string) => (appId: number) => `${C}/${appId}/settings${suffix}`;
  const video = (appId: number) => `/crm/v3/extensions/videoconferencing/settings/${appId}`;
  const bodies: Record<string, unknown> = {
    "": { name: "B's dialer", url: "https://b.example.com/dial" },
    "/recording": { urlToRetrieveAuthedRecording: "https://b.example.com/rec/%s" },
    "/channel-connection": { url: "https://b.example.com/channel", isReady: true },
  };
  const out: Record<string, Fixture> = {
    "GET /crm/v3/extensions/videoconferencing/settings/:appId": onApp(video),
    "PUT /crm/v3/extensions/videoconferencing/settings/:appId": onApp(video, { createMeetingUrl: "https://b.example.com/meet" }),
    "DELETE /crm/v3/extensions/videoconferencing/settings/:appId": onApp(video),
  };
  for (const [suffix, body] of Object.entries(bodies)) {
    out[`POST ${C}/:appId/settings${suffix}`] = onApp(calling(suffix), body);
    out[`GET ${C}/:appId/settings${suffix}`] = onApp(calling(suffix));
    out[`PATCH ${C}/:appId/settings${suffix}`] = onApp(calling(suffix), body);
    if (suffix !== "/recording") out[`DELETE ${C}/:appId/settings${suffix}`] = onApp(calling(suffix));
  }
  return out;
}

function engagementFixtures(): Record<string, Fixture> {
  const E1 = "/engagements/v1/engagements";
  return {
    "GET /engagements/v1/engagements/:engagementId": (w) => [{ path: `${E1}/${w.ids.engagement}` }],
    "PATCH /engagements/v1/engagements/:engagementId": (w) => [{ path: `${E1}/${w.ids.engagement}`, body: { metadata: { body: "B was here" } } }],
    "DELETE /engagements/v1/engagements/:engagementId": (w) => [{ path: `${E1}/${w.ids.engagement}` }],
    "GET /engagements/v1/engagements/associated/:objectType/:objectId/paged": (w) => [{ path: `${E1}/associated/CONTACT/${w.ids.contact}/paged` }],
    "PUT /engagements/v1/engagements/:engagementId/associations/:objectType/:objectId": (w) => [
      { path: `${E1}/${w.ids.engagement}/associations/CONTACT/${w.ids.bContact}` },
      { path: `${E1}/${w.ids.engagement}/associations/COMPANY/${w.ids.company}` },
    ],
    "DELETE /engagements/v1/engagements/:engagementId/associations/:objectType/:objectId": (w) => [
      { path: `${E1}/${w.ids.engagement}/associations/CONTACT/${w.ids.contact}` },
      { path: `${E1}/${w.ids.engagement}/associations/CONTACT/${w.ids.bContact}` },
    ],
  };
}
/** Routes without an id in the path that take one in the query or body (the same rule applies). */
export const BODY_ID_FIXTURES: Record<string, Fixture> = {
  // A's list id as a legacy id: B's mapping finds nothing (GET 404; the batch answers it missing, 200); A's
  // contact's memberships in B: none (200).
  // A's folder by number, and A's list moved by B: unknown in B (404).
  "GET /crm/v3/lists/folders": (w) => [{ path: `/crm/v3/lists/folders?folderId=${w.ids.listFolder}` }],
  "PUT /crm/v3/lists/folders/move-list": (w) => [{ path: "/crm/v3/lists/folders/move-list", body: { listId: String(w.ids.list), newFolderId: "0" } }],
  "POST /crm/v3/lists/folders": (w) => [{ path: "/crm/v3/lists/folders", body: { name: "B", parentFolderId: String(w.ids.listFolder) } }],
  "GET /crm/v3/lists/idmapping": (w) => [{ path: `/crm/v3/lists/idmapping?legacyListId=${w.ids.list}` }],
  "POST /crm/v3/lists/idmapping": (w) => [{ path: "/crm/v3/lists/idmapping", body: [String(w.ids.list)], status: 200 }],
  "POST /crm/v3/lists/records/memberships/batch/read": (w) => [
    { path: "/crm/v3/lists/records/memberships/batch/read", body: { inputs: [{ objectTypeId: "0-1", recordId: String(w.ids.contact) }] }, status: 200 },
  ],
  // Owners and settings users: A's owner as a record's owner is a 400; A's email finds no owner in B; A's team is unknown in B.
  "POST /crm/v3/objects/:objectType": (w) => [
    { path: "/crm/v3/objects/deals", body: { properties: { dealname: "b", hubspot_owner_id: String(w.ids.owner) } }, status: 400 },
    // A's custom object type, by its id and its fully qualified name: no such type in B.
    { path: `/crm/v3/objects/${w.ids.schema}`, body: { properties: { title: "B was here" } } },
    { path: `/crm/v3/objects/${w.ids.schemaName}`, body: { properties: { title: "B was here" } } },
  ],
  ...customObjectFixtures(),
  "GET /crm/v3/owners": (w) => [{ path: `/crm/v3/owners?email=${enc(w.a.userEmail)}`, status: 200 }],
  "POST /settings/v3/users": (w) => [{ path: "/settings/v3/users", body: { email: "b-new@example.com", primaryTeamId: String(w.ids.team) }, status: 400 }],
  // CRM v3 batches: A's ids are reported as not found (207, no data) and archive ignores them (204).
  "POST /crm/v3/objects/:objectType/batch/read": (w) => [{ path: "/crm/v3/objects/contacts/batch/read", body: { inputs: [{ id: String(w.ids.contact) }] }, status: 207 }],
  "POST /crm/v3/objects/:objectType/batch/update": (w) => [
    { path: "/crm/v3/objects/contacts/batch/update", body: { inputs: [{ id: String(w.ids.contact), properties: { firstname: "B was here" } }] }, status: 207 },
  ],
  "POST /crm/v3/objects/:objectType/batch/archive": (w) => [{ path: "/crm/v3/objects/contacts/batch/archive", body: { inputs: [{ id: String(w.ids.contact) }] }, status: 204 }],
  // The merge: A's record on either side is refused as an unknown one (400 naming the field), never merged.
  "POST /crm/v3/objects/:objectType/merge": (w) => [
    { path: "/crm/v3/objects/contacts/merge", body: { primaryObjectId: String(w.ids.bContact), objectIdToMerge: String(w.ids.contact) }, status: 400 },
    { path: "/crm/v3/objects/contacts/merge", body: { primaryObjectId: String(w.ids.contact), objectIdToMerge: String(w.ids.bContact) }, status: 400 },
    { path: "/crm/v3/objects/companies/merge", body: { primaryObjectId: String(w.ids.company), objectIdToMerge: String(w.ids.bCompany) }, status: 400 },
  ],
  // The GDPR delete: A's contact, by id or email, is not found in B.
  "POST /crm/v3/objects/contacts/gdpr-delete": (w) => [
    { path: "/crm/v3/objects/contacts/gdpr-delete", body: { objectId: String(w.ids.contact) } },
    { path: "/crm/v3/objects/contacts/gdpr-delete", body: { objectId: w.ids.contactEmail, idProperty: "email" } },
  ],
  // Property batches: A's custom property is no property of B (207 on read, ignored by archive).
  "POST /crm/v3/properties/:objectType/batch/read": (w) => [{ path: "/crm/v3/properties/contacts/batch/read", body: { archived: false, inputs: [{ name: w.ids.crmProperty }] }, status: 207 }],
  "POST /crm/v3/properties/:objectType/batch/archive": (w) => [{ path: "/crm/v3/properties/contacts/batch/archive", body: { inputs: [{ name: w.ids.crmProperty }] }, status: 204 }],
  // Legacy v1 contacts: A's ids in the query are left out of the map; in a batch write, a 400.
  "GET /contacts/v1/contact/vids/batch": (w) => [{ path: `${C1}/vids/batch?vid=${w.ids.contact}&vid=${w.ids.bContact}`, status: 200 }],
  "GET /contacts/v1/contact/emails/batch": (w) => [{ path: `${C1}/emails/batch?email=${enc(w.ids.contactEmail)}`, status: 200 }],
  "POST /contacts/v1/contact/batch": (w) => [
    { path: `${C1}/batch`, body: [{ vid: w.ids.contact, properties: [{ property: "firstname", value: "B was here" }] }], status: 400 },
  ],
  // A sync for a store the caller's account does not have is a 400 of the whole request.
  "PUT /extensions/ecomm/v2/sync/messages": (w) => [
    { path: `${BRIDGE}/sync/messages`, body: { storeId: w.ids.store, objectType: "CONTACT", messages: [{ externalObjectId: "x", action: "UPSERT", properties: {} }] }, status: 400 },
  ],
  // An import of a store the caller's account does not have is a 400 of the request.
  "POST /extensions/ecomm/v2/imports/page": (w) => [
    { path: `${BRIDGE}/imports/page`, body: { importStartedAt: 1, pageNumber: 1, storeId: w.ids.store, objectType: "PRODUCT", messages: [{ externalObjectId: "x" }] }, status: 400 },
  ],
  "POST /extensions/ecomm/v2/imports/end": (w) => [
    { path: `${BRIDGE}/imports/end`, body: { importStartedAt: 1, pageCount: 0, itemCount: 0, storeId: w.ids.store, objectType: "PRODUCT" }, status: 400 },
  ],
  "GET /extensions/ecomm/v2/settings": (w) => [
    { path: `${BRIDGE}/settings?appId=${w.a.appId}`, tokens: [...accountOnly(w), { name: "B's developer key", bearer: w.b.developerKey }] },
  ],
  "PUT /extensions/ecomm/v2/settings": (w) => [
    { path: `${BRIDGE}/settings?appId=${w.a.appId}`, body: settingsBody({ enabled: false }), tokens: [{ name: "B's developer key", bearer: w.b.developerKey }] },
  ],
  "DELETE /extensions/ecomm/v2/settings": (w) => [{ path: `${BRIDGE}/settings?appId=${w.a.appId}`, tokens: [{ name: "B's developer key", bearer: w.b.developerKey }] }],
  "GET /extensions/sales-objects/v1/object-types": (w) => [{ path: `${TYPES}?applicationId=${w.a.appId}` }],
  "POST /extensions/sales-objects/v1/object-types": (w) => [
    {
      path: TYPES,
      body: {
        applicationId: w.a.appId,
        baseUris: [`${integratorUrl()}/b`],
        dataFetchUri: `${integratorUrl()}/b/fetch`,
        title: "B's card",
        propertyDefinitions: [],
        associatedHubSpotObjectTypes: ["CONTACT"],
        associatedHubSpotObjectTypeProperties: {},
      },
    },
  ],
  // Engagements v1: a create associated with A's contact is a 400 naming it.
  "POST /engagements/v1/engagements": (w) => [{ path: "/engagements/v1/engagements", body: { engagement: { type: "NOTE" }, associations: { contactIds: [w.ids.contact] } }, status: 400 }],
};

/** Custom objects: A's schema (by id and by fully qualified name) and its records are unknown to B. */
function customObjectFixtures(): Record<string, Fixture> {
  const out: Record<string, Fixture> = {
    "GET /crm/v3/objects/:objectType": (w) => [{ path: `/crm/v3/objects/${w.ids.schema}` }, { path: `/crm/v3/objects/${w.ids.schemaName}` }],
    "POST /crm/v3/objects/:objectType/search": (w) => [{ path: `/crm/v3/objects/${w.ids.schema}/search`, body: {} }],
    "GET /crm/v3/properties/:objectType": (w) => [{ path: `/crm/v3/properties/${w.ids.schema}` }],
    "PUT /crm/v3/objects/:objectType/:objectId/associations/:toObjectType/:toObjectId": (w) => [
      { path: `/crm/v3/objects/contacts/${w.ids.bContact}/associations/${w.ids.schema}/${w.ids.customRecord}` },
    ],
  };
  for (const S of ["/crm-object-schemas/v3/schemas", "/crm/v3/schemas"]) {
    Object.assign(out, {
      [`GET ${S}/:objectType`]: (w: World) => [{ path: `${S}/${w.ids.schema}` }, { path: `${S}/${w.ids.schemaName}` }, { path: `${S}/isolated_thing` }],
      [`PATCH ${S}/:objectType`]: (w: World) => [{ path: `${S}/${w.ids.schema}`, body: { labels: { singular: "B was here", plural: "B was here" } } }],
      [`DELETE ${S}/:objectType`]: (w: World) => [{ path: `${S}/${w.ids.schema}` }],
      [`DELETE ${S}/:objectType/purge`]: (w: World) => [{ path: `${S}/${w.ids.schema}/purge` }],
      [`POST ${S}/:objectType/associations`]: (w: World) => [{ path: `${S}/${w.ids.schema}/associations`, body: { fromObjectTypeId: w.ids.schema, toObjectTypeId: "0-2" } }],
      [`POST ${S}/batch/read`]: (w: World) => [{ path: `${S}/batch/read`, body: { inputs: [w.ids.schema, w.ids.schemaName] }, status: 200 }],
    });
  }
  return out;
}

/** The pipelines routes' targets: every one on A's pipeline and stage, and A's stage under B's own built-in pipeline. */
function pipelineFixtures(): Record<string, Fixture> {
  const P = "/crm/v3/pipelines/deals";
  const stageBody = { label: "B was here", displayOrder: 0, metadata: { probability: "0.5" } };
  const pipelineBody = { label: "B was here", displayOrder: 0, stages: [stageBody] };
  return {
    "GET /crm/v3/pipelines/:objectType/:pipelineId": (w) => [{ path: `${P}/${w.ids.pipeline}` }],
    "PUT /crm/v3/pipelines/:objectType/:pipelineId": (w) => [{ path: `${P}/${w.ids.pipeline}`, body: pipelineBody }],
    "PATCH /crm/v3/pipelines/:objectType/:pipelineId": (w) => [{ path: `${P}/${w.ids.pipeline}`, body: { label: "B was here" } }],
    "DELETE /crm/v3/pipelines/:objectType/:pipelineId": (w) => [{ path: `${P}/${w.ids.pipeline}` }],
    "GET /crm/v3/pipelines/:objectType/:pipelineId/audit": (w) => [{ path: `${P}/${w.ids.pipeline}/audit` }],
    "GET /crm/v3/pipelines/:objectType/:pipelineId/stages": (w) => [{ path: `${P}/${w.ids.pipeline}/stages` }],
    "POST /crm/v3/pipelines/:objectType/:pipelineId/stages": (w) => [{ path: `${P}/${w.ids.pipeline}/stages`, body: stageBody }],
    "GET /crm/v3/pipelines/:objectType/:pipelineId/stages/:stageId": (w) => [{ path: `${P}/${w.ids.pipeline}/stages/${w.ids.pipelineStage}` }, { path: `${P}/default/stages/${w.ids.pipelineStage}` }],
    "PUT /crm/v3/pipelines/:objectType/:pipelineId/stages/:stageId": (w) => [
      { path: `${P}/${w.ids.pipeline}/stages/${w.ids.pipelineStage}`, body: stageBody },
      { path: `${P}/default/stages/${w.ids.pipelineStage}`, body: stageBody },
    ],
    "PATCH /crm/v3/pipelines/:objectType/:pipelineId/stages/:stageId": (w) => [{ path: `${P}/${w.ids.pipeline}/stages/${w.ids.pipelineStage}`, body: { label: "B was here" } }],
    "DELETE /crm/v3/pipelines/:objectType/:pipelineId/stages/:stageId": (w) => [{ path: `${P}/${w.ids.pipeline}/stages/${w.ids.pipelineStage}` }, { path: `${P}/default/stages/${w.ids.pipelineStage}` }],
    "GET /crm/v3/pipelines/:objectType/:pipelineId/stages/:stageId/audit": (w) => [
      { path: `${P}/${w.ids.pipeline}/stages/${w.ids.pipelineStage}/audit` },
      { path: `${P}/%7BpipelineId%7D/stages/${w.ids.pipelineStage}/audit` },
    ],
  };
}
