/**
 * @module The signed-in web app (docs/reference/web.md): the start page, record lists with search,
 * record pages with their timeline events and CRM cards, and the store overview of the ecommerce bridge.
 * Pages need a session (signed-out visitors go to /login and come back); everything is scoped to the
 * session's account. The JSON endpoints the record page's script calls are in routes/web/api.ts.
 */
import type { AuthRule } from "../../http/auth";
import { pageSession } from "../../http/app-session";
import { ApiError } from "../../lib/errors";
import { route } from "../../http/route";
import { installedCards } from "../../services/cards/view";
import { isCardRecordType } from "../../schemas/cards/view";
import { storeCounts, storeRecordsPage } from "../../services/ecomm/store-records";
import { stageNames, type StageName } from "../../services/pipelines/read";
import { associationsOf, getObject } from "../../services/crm/records";
import { findContacts, mergesOf } from "../../services/contacts-v1/contacts";
import { storeOverview } from "../../services/ecomm/overview";
import { findStore, listStores } from "../../services/ecomm/stores";
import { TIMELINE_TYPE } from "../../services/timeline/events";
import { decodeCursor, recordTimeline } from "../../services/timeline/feed";
import { accountCustomTypes, customPageType, displayName, isPageType, isRecordType, namedRecords, ownersOf, recordCounts, typeLabel } from "../../services/web/records";
import { ACTIVITY_TYPES, isCustomType, type ObjectType } from "../../db/tables/crm";
import { recordActivities } from "../../services/web/activities";
import { activitiesHtml, activitiesOnFirstPage } from "../../views/activities";
import { ECOMM_OBJECT_TYPES } from "../../db/tables/ecomm";
import { appPage, notFoundPage } from "../../views/layout";
import { homeBody, recordBody, type TimelineEntry } from "../../views/records";
import { storePageBody, storesBody } from "../../views/stores";
import { mailBody } from "../../views/mail";
import { pageSentEmails } from "../../services/smtp/mail";
import { webApiRoutes } from "./api";
import { boardRoutes } from "./board";
import { listRoutes } from "./lists";
import { associationRoutes } from "./associations";
import { activityRoutes } from "./activities";
import { ownerChoicesOf, recordWork } from "../../services/web/record-work";
import { activityForms } from "../../views/activity-forms";
import { formRoutes } from "./forms";
import { typeProperties } from "../../services/web/properties";
import { propertiesSection, recordActions } from "../../views/properties";
import * as s from "../../schemas/web";

const session: AuthRule = { kinds: ["session"] };
const tag = "Web app";
const page = { 200: { description: "HTML page" }, 302: { description: "Not signed in: to /login?next=..." } };

/** Timeline entries per page of the record page (the API's default). */
const TIMELINE_PAGE = 20;
/** Associated records named per type on a record page. */
const ASSOCIATIONS_SHOWN = 25;
/** Sent mail per page of /app/mail. */
const MAIL_PAGE = 25;
/** Activities are on the timeline, not among the associations (their names would be "Note #id"); custom records are among them. */
const ASSOCIATION_TYPES = { except: ACTIVITY_TYPES };

/** A deal's or ticket's stage, named from its pipeline (null when it has none or the stage is not the account's). */
function stageOf(type: string, p: Record<string, string>, stages: Map<string, StageName> | null): StageName | null {
  const id = type === "deals" ? p.dealstage : type === "tickets" ? p.hs_pipeline_stage : undefined;
  return (id && stages?.get(id)) || null;
}

const pageRoutes = [
  route({
    method: "GET",
    path: "/app",
    summary: "Start page of the web app",
    tag,
    auth: session,
    hidden: true,
    responses: page,
    handler: async ({ db, control, request, url, now }) => {
      const user = await pageSession(control, request, url, now);
      if (user instanceof Response) return user;
      const [counts, stores, customTypes] = await Promise.all([recordCounts(db, user.portalId), listStores(db, user.portalId), accountCustomTypes(db, user.portalId)]);
      return appPage({ title: "Start", section: "home", user, body: homeBody(counts, stores.length, customTypes) });
    },
  }),
  route({
    method: "GET",
    path: "/app/stores",
    summary: "Ecommerce bridge stores: synced record counts and open sync errors",
    tag,
    auth: session,
    hidden: true,
    responses: page,
    handler: async ({ db, control, request, url, now }) => {
      const user = await pageSession(control, request, url, now);
      if (user instanceof Response) return user;
      return appPage({ title: "Stores", section: "stores", user, body: storesBody(await storeOverview(db, user.portalId)), scripts: ["app.js"] });
    },
  }),
  route({
    method: "GET",
    path: "/app/mail",
    summary: "The account's sent mail (SMTP API tokens and the transactional send), newest first",
    tag,
    auth: session,
    query: s.mailQuery,
    hidden: true,
    responses: page,
    handler: async ({ db, control, request, url, now, query }) => {
      const user = await pageSession(control, request, url, now);
      if (user instanceof Response) return user;
      const { rows, next } = await pageSentEmails(db, user.portalId, { after: query.after, limit: MAIL_PAGE });
      return appPage({ title: "Sent mail", section: "mail", user, body: mailBody({ rows, after: query.after ?? 0, next }) });
    },
  }),
  route({
    method: "GET",
    path: "/app/stores/:storeId",
    summary: "One store's synced records of one type, paged, each linked to its CRM record",
    tag,
    auth: session,
    params: s.storeParams,
    query: s.storeQuery,
    hidden: true,
    responses: { ...page, 404: { description: "No such store in the account" } },
    handler: async ({ db, control, request, url, now, params, query }) => {
      const user = await pageSession(control, request, url, now);
      if (user instanceof Response) return user;
      // Another account's store is the same 404 as a missing one.
      const store = await findStore(db, user.portalId, params.storeId);
      if (!store) return notFoundPage(user, "stores", `There is no store ${params.storeId}.`);
      const counts = await storeCounts(db, user.portalId, store.storeId);
      const type = query.type ?? ECOMM_OBJECT_TYPES.find((t) => counts[t] > 0) ?? "CONTACT";
      const { rows, hasMore } = await storeRecordsPage(db, user.portalId, store.storeId, type, query.after);
      return appPage({
        title: store.label,
        section: "stores",
        user,
        body: storePageBody({ store: { id: store.storeId, label: store.label }, counts, type, rows, after: query.after, hasMore }),
        scripts: ["app.js"],
      });
    },
  }),
  // Before the list and record pages: `/app/{type}/new` is not a record id.
  ...formRoutes,
  route({
    method: "GET",
    path: "/app/:objectType/:objectId",
    summary: "A record: properties, associations, timeline and CRM cards",
    tag,
    auth: session,
    params: s.recordParams,
    query: s.recordQuery,
    hidden: true,
    responses: { ...page, 404: { description: "Unknown type, or no such record in the account" } },
    handler: async ({ db, companion, control, request, url, now, params, query }) => {
      const user = await pageSession(control, request, url, now);
      if (user instanceof Response) return user;
      if (!/^\d{1,15}$/.test(params.objectId)) return notFoundPage(user, "home", "There is no such record.");
      const type = isRecordType(params.objectType) ? params.objectType : await customPageType(db, user.portalId, params.objectType);
      if (!type) return notFoundPage(user, "home", "There is no such record.");
      // Products and line items have no list: their pages sit under the Stores section; custom types under home.
      const section = isPageType(type) ? type : isCustomType(type) ? "home" : "stores";
      const id = Number(params.objectId);
      // Another account's id is the same 404 as a missing one: nothing about it is shown.
      const record = await getObject(db, user.portalId, type, id).catch((err: unknown) => {
        if (err instanceof ApiError && err.category === "OBJECT_NOT_FOUND") return null;
        throw err;
      });
      if (!record) {
        // A contact merged into another shows the survivor, as the v1 reads answer it.
        const survivor = type === "contacts" ? (await findContacts(db, user.portalId, { vids: [id] }))[0]?.row : undefined;
        if (survivor && survivor.id !== id) return new Response(null, { status: 302, headers: { location: `/app/contacts/${survivor.id}` } });
        return notFoundPage(user, section, `${typeLabel(type).one} ${id} was not found.`);
      }
      const timelineType = TIMELINE_TYPE[type];
      // The type's definitions also carry the account's owners (hubspot_owner_id's options), which the task form offers.
      const propsRead = typeProperties({ db, control }, user.portalId, type);
      const [assoc, timeline, activities, cards, stages, merges, owners, work, props] = await Promise.all([
        associationsOf(db, user.portalId, [id], ASSOCIATION_TYPES),
        timelineType ? recordTimeline(companion, control, user.portalId, timelineType, id, TIMELINE_PAGE, query.after ? decodeCursor(query.after) : undefined) : null,
        // The list types' pages show activities (products and line items have none), on the first page
        // only: the older pages turn the events' cursor, which the activities do not share.
        isPageType(type) && !query.after ? recordActivities(db, user.portalId, id) : null,
        isCardRecordType(type) ? installedCards(control, user.portalId, type) : [],
        type === "deals" || type === "tickets" ? stageNames(db, user.portalId, type) : null,
        type === "contacts" ? mergesOf(db, user.portalId, [id]) : null,
        ownersOf(control, user.portalId, [record]),
        // The forms that work on the record (routes/web/associations.ts, activities.ts): contacts, companies, deals, tickets.
        isPageType(type) ? recordWork(db, control, user, type, id, propsRead.then((p) => ownerChoicesOf(p.defs))) : null,
        propsRead,
      ]);
      const groups = Object.entries(assoc.get(id) ?? {}) as [ObjectType, number[]][];
      // Associated custom records are named by their schema's primary display property: its facts are read
      // once, and only when the record has such associations.
      if (groups.some(([t]) => isCustomType(t))) await accountCustomTypes(db, user.portalId);
      const names = await namedRecords(db, user.portalId, groups.flatMap(([, ids]) => ids.slice(0, ASSOCIATIONS_SHOWN)));
      const associations = groups.map(([t, ids]) => ({
        type: t,
        total: ids.length,
        records: ids.slice(0, ASSOCIATIONS_SHOWN).flatMap((x) => names.get(x) ?? []),
      }));
      const entries = (timeline?.results ?? []) as unknown as TimelineEntry[];
      let olderLink: string | null = null;
      if (timeline?.next) olderLink = `/app/${type}/${id}?after=${encodeURIComponent(timeline.next)}#timeline-h`;
      return appPage({
        title: `${displayName(record)} · ${typeLabel(type).one}`,
        section,
        user,
        body: recordBody({
          stage: stageOf(type, record.properties, stages),
          actionsHtml: recordActions(type, id),
          account: props.account,
          propertiesHtml: propertiesSection({ type, record, props, csrf: user.csrfToken, owners, stages }),
          type,
          record,
          associations,
          timeline: timeline ? { entries, next: timeline.next } : null,
          olderLink,
          activitiesHtml: activities
            ? (work ? activityForms(work.activities) : "") + (await activitiesHtml(activities.rows, activities.hasMore, work?.activities))
            : isPageType(type)
              ? activitiesOnFirstPage(`/app/${type}/${id}`)
              : null,
          cards: cards.map((c) => ({ cardId: c.id, title: c.title })),
          mergedVids: (merges?.get(id) ?? []).map((m) => m.mergedVid),
          owners,
          associationWork: work?.associations,
        }),
        scripts: ["record.js", "time-zone.js", "inline-edit.js"],
        // The iframe modal may open only what this page offers: the cards' baseUris and the timeline's iframes.
        frames: {
          baseUris: cards.flatMap((c) => c.baseUris),
          uris: entries.flatMap((t) => (t.timelineIFrame ? [t.timelineIFrame.iframeUri] : [])),
        },
      });
    },
  }),
];

/**
 * The web app's routes, registered in one line. `/app/deals/board` precedes `/app/:objectType/:objectId`;
 * `/app/stores` and `/app/mail` precede the lists' `/app/:objectType`.
 */
export const webRoutes = [...boardRoutes, ...pageRoutes, ...listRoutes, ...associationRoutes, ...activityRoutes, ...webApiRoutes];
