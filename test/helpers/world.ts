/**
 * A populated pair of accounts for the generated suites (isolation, authentication matrix, fuzz): account
 * A owns one resource of every kind, through the real API and the real queue consumer; account B has its
 * own app, user and a few resources to mix ids with. `ownParam` names A's value for a route's path parameter.
 */
import { env } from "cloudflare:test";
import { makeDb } from "../../src/db/client";
import type { RouteDef } from "../../src/http/route";
import { openDelivery } from "../../src/services/webhooks/log";
import { defineCard, minted } from "../cards/helpers";
import { integratorUrl } from "./integrator";
import { createAuthor, createPost, createTopic, TOKENS, V2 } from "../blog/helpers";
import { accountSettings, appSettings, store } from "../ecomm/helpers";
import { deliver, qmsg, storeGen } from "../ecomm/queue-helpers";
import { createProp, createType, putEvent } from "../timeline/helpers";
import { admin, call, tenant, unique, type Tenant } from "./api";
import { signIn } from "../web/helpers";

export interface World {
  /** The owner of every resource below. */
  a: Tenant;
  /** Another account with its own app, private app, user, and the transactional email add-on. */
  b: Tenant;
  /** OAuth token of A's app installed in B's account: the same app, another account. */
  shared: string;
  /** B's user signed in to the web app: session cookie and its CSRF token. */
  bSession: { cookie: string; csrf: string };
  /** Every string of A's data (names, properties, labels) and A's secrets: none may reach B. */
  forbidden: string[];
  ids: {
    contact: number;
    /** A's contact's email, and a visitor token tied to that contact (for the legacy v1 contact reads). */
    contactEmail: string;
    utk: string;
    company: number;
    /** A's deal, in the built-in pipeline's first stage (the web app's board moves deals). */
    deal: number;
    /** A's note on A's contact (activities are CRM objects of their own type). */
    note: number;
    bContact: number;
    /** A contact of B's with an email (a v1 contact write that would take its email is refused with a 409). */
    bEmailContact: number;
    bEmail: string;
    bCompany: number;
    /** A's USER_DEFINED contact → company association label (its type id), held by A's contact and company. */
    associationLabel: number;
    /** The name of a custom contact property A defined (/crm/v3/properties). */
    crmProperty: string;
    crmPropertyGroup: string;
    store: string;
    bStore: string;
    syncedExt: string;
    eventType: number;
    property: number;
    bEventType: number;
    bProperty: number;
    eventId: string;
    blog: number;
    author: number;
    topic: number;
    post: number;
    postPath: string;
    smtpUser: string;
    card: number;
    cardFetchPath: string;
    cardActionBase: string;
    /**
     * An action hook of A's card with a genuine actionToken for A's user on A's contact (minted with the
     * app's secret, as the card view would: viewing would call the integrator, which the suites watch).
     */
    cardAction: Record<string, unknown>;
    /** A's app's webhook subscription (paused, so the suites' writes emit nothing) and a delivery of it. */
    subscription: number;
    delivery: number;
    /** A's user's owner id, and a team of A's (the operator makes teams). */
    owner: number;
    team: number;
    /** A's note on A's contact, made through the engagements v1 API (its id is the engagement's). */
    engagement: number;
    /** A deal pipeline A created (/crm/v3/pipelines) and one of its stages. */
    pipeline: string;
    pipelineStage: string;
    /** A's custom object schema (its objectTypeId `2-<n>` and fully qualified name), an association definition of it, and a record of it. */
    schema: string;
    schemaName: string;
    schemaAssociation: string;
    customRecord: number;
    /** A manual contact list of A's holding A's contact, and its name. */
    list: string;
    listName: string;
    /** A list folder of A's (holding A's list), and another, empty. */
    listFolder: string;
    emptyListFolder: string;
  };
}

export async function buildWorld(): Promise<World> {
  const forbidden: string[] = [];
  const mark = (what: string) => {
    const v = `A-${what}-${crypto.randomUUID()}`;
    forbidden.push(v);
    return v;
  };
  const ok = async (res: Awaited<ReturnType<typeof call>>, status = 200) => {
    if (res.status !== status) throw new Error(`fixture set-up failed: ${res.status} ${res.text}`);
    return res.json;
  };
  // A and B live on different shards: the suites' guarantees must hold across databases.
  const a = await tenant({ addons: ["transactional-email"], rateLimit: 100_000, shard: "SHARD_1" });
  const b = await tenant({ addons: ["transactional-email"], rateLimit: 100_000, shard: "SHARD_2" });
  forbidden.push(a.oauth, a.refresh, a.pat, a.developerKey, a.clientSecret, a.userEmail);
  const shared = (await admin("POST", `/admin/v1/accounts/${b.portalId}/installs`, { appId: a.appId })).access_token as string;

  // CRM records
  const email = `${mark("email").toLowerCase()}@owner.example`;
  forbidden.push(email);
  const contact = Number((await ok(await call("POST", "/crm/v3/objects/contacts", { token: a.pat, body: { properties: { email, firstname: mark("firstname") } } }), 201)).id);
  const company = Number((await ok(await call("POST", "/crm/v3/objects/companies", { token: a.pat, body: { properties: { name: mark("company") } } }), 201)).id);
  const deal = Number((await ok(await call("POST", "/crm/v3/objects/deals", { token: a.pat, body: { properties: { dealname: mark("deal"), dealstage: "appointmentscheduled" } } }), 201)).id);
  const noteBody = mark("note-body");
  const note = Number(
    (
      await ok(
        await call("POST", "/crm/v3/objects/notes", {
          token: a.pat,
          body: { properties: { hs_timestamp: "2026-01-01T00:00:00.000Z", hs_note_body: noteBody }, associations: [{ to: { id: String(contact) }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 202 }] }] },
        }),
        201,
      )
    ).id,
  );
  const bContact = Number((await ok(await call("POST", "/crm/v3/objects/contacts", { token: b.pat, body: { properties: { firstname: "b" } } }), 201)).id);
  const bCompany = Number((await ok(await call("POST", "/crm/v3/objects/companies", { token: b.pat, body: { properties: { name: "b" } } }), 201)).id);
  const utk = mark("utk");
  await ok(await call("POST", "/tracking/v1/identify", { token: a.pat, body: { utk, email } }));
  const bEmail = `${unique("b")}@b.example`;
  const bEmailContact = Number((await ok(await call("POST", "/crm/v3/objects/contacts", { token: b.pat, body: { properties: { email: bEmail } } }), 201)).id);
  const crmProperty = `a_${unique("prop").toLowerCase()}`;
  const propertyBody = { name: crmProperty, label: mark("crm-property"), type: "string", fieldType: "text", groupName: "contactinformation" };
  await ok(await call("POST", "/crm/v3/properties/contacts", { token: a.pat, body: propertyBody }), 201);
  const crmPropertyGroup = `g_${unique("group").toLowerCase().replace(/[^a-z0-9_]/g, "_")}`;
  await ok(await call("POST", "/crm/v3/properties/contacts/groups", { token: a.pat, body: { name: crmPropertyGroup, label: mark("crm-property-group") } }), 201);
  const engagementBody = { engagement: { type: "NOTE", timestamp: 1 }, associations: { contactIds: [contact] }, metadata: { body: mark("engagement") } };
  const engagement = (await ok(await call("POST", "/engagements/v1/engagements", { token: a.pat, body: engagementBody }))).engagement.id as number;

  // Ecommerce bridge: a store, a synced object and a sync error, through the real consumer.
  await appSettings(a);
  await accountSettings(a);
  const storeId = unique("a-store");
  await store(a.oauth, storeId, mark("store"));
  const bStore = unique("b-store");
  await store(b.oauth, bStore, "b");
  const origin = { portalId: a.portalId, appId: a.appId, storeId, storeGen: await storeGen(a.portalId, storeId) };
  const syncedExt = unique("a-ext"); // an id B names in its own request (echoed back as B's input)
  const bad = mark("bad-email");
  await deliver([
    qmsg(origin, "CONTACT", { externalObjectId: syncedExt, properties: { customer_email: `${unique("s")}@owner.example`, firstname: mark("synced") } }),
    qmsg(origin, "CONTACT", { externalObjectId: unique("bad"), properties: { customer_email: bad } }),
  ]);

  // Timeline: event types and properties (developer key), an event (OAuth).
  const type = await createType(a, { name: mark("event-type"), headerTemplate: "{{title}}" });
  const property = await createProp(a, type.id, { name: "title", label: mark("property"), propertyType: "String" });
  const bType = await createType(b, { name: "b" });
  const bProperty = await createProp(b, bType.id, { name: "title", label: "b", propertyType: "String" });
  const eventId = unique("a-event");
  await ok(await putEvent(a, { id: eventId, eventTypeId: type.id, objectId: contact, title: mark("event-title") }), 204);

  // Content: a blog, an author, a topic and a draft post; an SMTP token.
  const blog = (await ok(await call("POST", `${V2}/blogs`, { token: a.oauth, body: { name: mark("blog") } }), 201)).id as number;
  const author = (await createAuthor(a, { full_name: mark("author") })).id as number;
  const topic = (await createTopic(a, { name: mark("topic") })).id as number;
  const post = await createPost(a, { name: mark("post"), post_body: `<p>${mark("post-body")}</p>` });
  const smtp = await ok(await call("POST", TOKENS, { token: a.oauth, body: { campaignName: mark("campaign") } }), 201);
  forbidden.push(smtp.password);

  // A CRM card of A's app, served by the local integrator.
  const card = await defineCard(a, { title: mark("card") });
  const cardAction = await minted(a, card.id, contact, { type: "ACTION_HOOK", httpMethod: "POST", uri: `${integratorUrl()}${card.actionBase}/go`, label: "Go" });

  // App webhooks: settings and a paused subscription (through the API), and one delivery in the log.
  const hookAuth = `hapikey=${encodeURIComponent(a.developerKey)}`;
  await ok(await call("PUT", `/webhooks/v3/${a.appId}/settings?${hookAuth}`, { body: { targetUrl: `${integratorUrl()}/world-hooks`, throttling: { maxConcurrentRequests: 1 } } }));
  const subscription = Number((await ok(await call("POST", `/webhooks/v3/${a.appId}/subscriptions?${hookAuth}`, { body: { eventType: "contact.creation", active: false } }), 201)).id);
  // App extension settings of A's app: video conferencing and calling, with URLs B must never see.
  const ext = (method: string, path: string, body: unknown) => call(method, `/crm/v3/extensions/${path}?${hookAuth}`, { body });
  await ok(await ext("PUT", `videoconferencing/settings/${a.appId}`, { createMeetingUrl: `https://meet.example.com/${mark("meet")}` }));
  await ok(await ext("POST", `calling/${a.appId}/settings`, { name: mark("dialer"), url: `https://dial.example.com/${mark("dial")}` }));
  await ok(await ext("POST", `calling/${a.appId}/settings/recording`, { urlToRetrieveAuthedRecording: `https://dial.example.com/${mark("rec")}/%s` }));
  await ok(await ext("POST", `calling/${a.appId}/settings/channel-connection`, { url: `https://dial.example.com/${mark("channel")}`, isReady: true }));
  // The delivery log is stored with the account (its shard): A's delivery is on SHARD_1.
  const delivery = await openDelivery(makeDb(env.SHARD_1), a.appId, [
    { eventId: 1, subscriptionId: subscription, portalId: a.portalId, appId: a.appId, occurredAt: Date.now(), subscriptionType: "contact.creation", objectId: contact, changeSource: "API" },
  ], Date.now());

  // Owners and teams: A's user is an owner; A has a team whose name B must never see.
  const owner = Number((await ok(await call("GET", `/crm/v3/owners/${a.userId}?idProperty=userId`, { token: a.pat }))).id);
  const team = (await admin("POST", `/admin/v1/accounts/${a.portalId}/teams`, { name: mark("team") })).teamId as number;
  // Pipelines: a deal pipeline of A's with a stage.
  const madePipeline = await ok(
    await call("POST", "/crm/v3/pipelines/deals", { token: a.pat, body: { label: mark("pipeline"), displayOrder: 5, stages: [{ label: mark("stage"), displayOrder: 0, metadata: { probability: "0.5" } }, { label: "Second", displayOrder: 1, metadata: { probability: "0.7" } }] } }),
    201,
  );
  // Lists: a manual contact list of A's with A's contact in it.
  const listName = mark("list");
  const madeList = (await ok(await call("POST", "/crm/v3/lists", { token: a.pat, body: { name: listName, objectTypeId: "0-1", processingType: "MANUAL" } }))).list;
  await ok(await call("PUT", `/crm/v3/lists/${madeList.listId}/memberships/add`, { token: a.pat, body: [String(contact)] }));
  const listFolder = String((await ok(await call("POST", "/crm/v3/lists/folders", { token: a.pat, body: { name: mark("folder") } }))).folder.id);
  const emptyListFolder = String((await ok(await call("POST", "/crm/v3/lists/folders", { token: a.pat, body: { name: mark("folder") } }))).folder.id);
  await call("PUT", "/crm/v3/lists/folders/move-list", { token: a.pat, body: { listId: madeList.listId, newFolderId: listFolder } });

  // Custom objects: a schema of A's (its labels and its record's name are A's data) and a record of it.
  const madeSchema = await ok(
    await call("POST", "/crm-object-schemas/v3/schemas", {
      token: a.pat,
      body: {
        name: "isolated_thing",
        labels: { singular: mark("schema-one"), plural: mark("schema-many") },
        primaryDisplayProperty: "title",
        requiredProperties: ["title"],
        properties: [{ name: "title", label: "Title", type: "string", fieldType: "text" }],
        associatedObjects: ["contacts"],
      },
    }),
    201,
  );
  const customRecord = Number((await ok(await call("POST", `/crm/v3/objects/${madeSchema.objectTypeId}`, { token: a.pat, body: { properties: { title: mark("custom-record") } } }), 201)).id);

  // Association labels: A's contact and company hold a label of A's (type ids are numbered per account).
  const labelled = await ok(
    await call("POST", "/crm/v4/associations/contacts/companies/labels", { token: a.pat, body: { name: "world_label", label: mark("association-label"), inverseLabel: mark("association-inverse") } }),
  );
  const associationLabel = Number(labelled.results[0].typeId);
  await ok(
    await call("PUT", `/crm/v4/objects/contacts/${contact}/associations/companies/${company}`, { token: a.pat, body: [{ associationCategory: "USER_DEFINED", associationTypeId: associationLabel }] }),
    201,
  );
  // And a limit on that label (the pair holds one, so it stays within it).
  await ok(
    await call("POST", "/crm/v4/associations/definitions/configurations/contacts/companies/batch/create", {
      token: a.pat,
      body: { inputs: [{ category: "USER_DEFINED", typeId: associationLabel, maxToObjectIds: 5 }] },
    }),
    201,
  );

  const bSession = await signIn(b);
  return {
    a,
    b,
    shared,
    bSession,
    forbidden,
    ids: {
      contact,
      contactEmail: email,
      utk,
      company,
      deal,
      note,
      bContact,
      bEmailContact,
      bEmail,
      bCompany,
      associationLabel,
      crmProperty,
      crmPropertyGroup,
      store: storeId,
      bStore,
      syncedExt,
      eventType: type.id,
      property: property.id,
      bEventType: bType.id,
      bProperty: bProperty.id,
      eventId,
      blog,
      author,
      topic,
      post: post.id,
      postPath: new URL(post.url).pathname,
      smtpUser: smtp.userName,
      card: card.id,
      cardFetchPath: card.fetchPath,
      cardActionBase: card.actionBase,
      cardAction,
      subscription,
      delivery,
      owner,
      team,
      engagement,
      pipeline: madePipeline.id as string,
      pipelineStage: madePipeline.stages[0].id as string,
      schema: madeSchema.objectTypeId as string,
      schemaName: madeSchema.fullyQualifiedName as string,
      schemaAssociation: madeSchema.associations[0].id as string,
      customRecord,
      list: madeList.listId as string,
      listName,
      listFolder,
      emptyListFolder,
    },
  };
}

/** A's value for the path parameter `name` of route `r` (a valid, existing resource of A). */
export function ownParam(r: Pick<RouteDef, "method" | "path">, name: string, w: World): string | undefined {
  const ids = w.ids;
  const byPrefix: [string, number][] = [["/blogs/posts/", ids.post], ["/blogs/", ids.blog], ["/blog-authors/", ids.author], ["/topics/", ids.topic], ["/blog-posts/", ids.post]];
  switch (name) {
    case "objectType":
    case "fromObjectType":
      if (r.path.startsWith("/crm/v3/pipelines/")) return "deals";
      if (r.path.includes("/schemas/")) return ids.schema;
      return r.path.includes("/sync/status/") ? "CONTACT" : "contacts";
    case "associationTypeId":
      return String(ids.associationLabel);
    case "pipelineId":
      return ids.pipeline;
    case "listId":
    case "sourceListId":
      return ids.list;
    case "listName":
      return encodeURIComponent(ids.listName);
    case "folderId":
      return r.method === "DELETE" ? ids.emptyListFolder : ids.listFolder;
    case "newParentFolderId":
      // The root: moving A's folder there changes nothing, so it stays for the other routes.
      return "0";
    case "recordId":
      if (r.path.startsWith("/crm/v3/lists/")) return String(ids.contact);
      break;
    case "stageId":
      return ids.pipelineStage;
    case "toObjectType":
      return "companies";
    case "objectId":
    case "fromObjectId":
      return String(ids.contact);
    case "propertyName":
      return ids.crmProperty;
    case "groupName":
      return ids.crmPropertyGroup;
    case "toObjectId":
      return String(ids.company);
    case "storeId":
      return ids.store;
    case "externalObjectId":
      return encodeURIComponent(ids.syncedExt);
    case "appId":
      return String(w.a.appId);
    case "portalId":
      return String(w.a.portalId);
    case "privateAppId":
      return String(w.a.privateAppId);
    case "userId":
      return String(w.a.userId);
    case "ownerId":
      return String(ids.owner);
    case "associationIdentifier":
      return ids.schemaAssociation;
    case "teamId":
      return String(ids.team);
    case "eventTypeId":
    case "eventTemplateId":
      return String(ids.eventType);
    case "tokenName":
      return "title"; // the name of A's event type property (its v3 token)
    case "tokenId":
      return encodeURIComponent(ids.smtpUser);
    case "eventId":
      return encodeURIComponent(ids.eventId);
    case "propertyId":
      return String(ids.property);
    case "userName":
      return encodeURIComponent(ids.smtpUser);
    case "subscriptionId":
      return String(ids.subscription);
    case "deliveryId":
      return String(ids.delivery);
    case "cardId":
    case "objectTypeId":
      if (r.path.startsWith("/crm/v3/lists/")) return "0-1";
      return String(ids.card);
    case "token":
      return r.path.includes("refresh") ? w.a.refresh : w.a.oauth;
    case "vid":
      return String(ids.contact);
    case "email":
      return encodeURIComponent(ids.contactEmail);
    case "utk":
      return encodeURIComponent(ids.utk);
    case "engagementId":
      return String(ids.engagement);
    case "name":
      // A shard's name; a snapshot's (test kit: the world's account is STANDARD, so those routes answer 409).
      if (r.path.includes("/snapshots/")) return "snapshot";
      return r.path.startsWith("/admin/v1/shards/") ? "SHARD_1" : undefined;
    case "id":
      return byPrefix.find(([p]) => r.path.includes(p))?.[1]?.toString();
  }
  return undefined;
}
