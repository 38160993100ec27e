/**
 * @module Timeline events `/integrations/v1/{appId}/timeline/event[...]` (docs/reference/timeline.md), visitor
 * identification, and the rendered timeline of a record. Event writes take only an OAuth access token of an
 * install of that app with the `timeline` scope: developer keys and private-app tokens get 403 (an event
 * needs a token the customer account granted; the developer key only sets up event types), and another
 * app's token gets 404, as for any resource of an app that is not the caller's.
 */
import type { AuthRule } from "../../http/auth";
import { portalOf, requireScopes } from "../../http/auth";
import { requireOwnApp } from "../../lib/principal";
import { json, noContent } from "../../lib/http";
import { route } from "../../http/route";
import { getObject, scopeFor } from "../../services/crm/records";
import { getEvent, presentEvent, identifyVisitor, TIMELINE_TYPE, writeEvents } from "../../services/timeline/events";
import { decodeCursor, recordTimeline } from "../../services/timeline/feed";
import { getEventType } from "../../services/timeline/types";
import { timelineSetupRoutes } from "./types";
import * as s from "../../schemas/timeline/events";

const eventWriter: AuthRule = { kinds: ["oauth"], scopes: ["timeline"] };
const tag = "Timeline events";
const base = "/integrations/v1/:appId/timeline/event";

const single = (method: "PUT" | "POST") =>
  route({
    method,
    path: base,
    summary: method === "PUT" ? "Create or update an event (idempotent on its id)" : "Create or update an event (the POST form of the same request, idempotent on its id)",
    tag,
    auth: eventWriter,
    params: s.appParams,
    body: s.eventBody,
    responses: { 204: { description: "Stored" } },
    handler: async ({ db, companion, control, principal, params, body, now }) => {
      requireOwnApp(principal, params.appId);
      await writeEvents(db, companion, control, portalOf(principal), params.appId, [body], now);
      return noContent();
    },
  });

const batch = (method: "PUT" | "POST") =>
  route({
    method,
    path: `${base}/batch`,
    summary: "Create or update up to 100 events; all are validated before any is written",
    tag,
    auth: eventWriter,
    params: s.appParams,
    body: s.batchBody,
    responses: { 204: { description: "Stored" } },
    handler: async ({ db, companion, control, principal, params, body, now }) => {
      requireOwnApp(principal, params.appId);
      await writeEvents(db, companion, control, portalOf(principal), params.appId, body.eventWrappers, now, (i) => `eventWrappers.${i}.`);
      return noContent();
    },
  });

export const timelineRoutes = [
  ...timelineSetupRoutes,
  single("PUT"),
  single("POST"),
  batch("PUT"),
  batch("POST"),
  route({
    method: "GET",
    path: `${base}/:eventTypeId/:eventId`,
    summary: "Read a stored event",
    tag,
    auth: eventWriter,
    params: s.eventParams,
    responses: { 200: { description: "The event", schema: s.eventResponse } },
    handler: async ({ companion, control, principal, params }) => {
      requireOwnApp(principal, params.appId);
      await getEventType(control, params.appId, params.eventTypeId);
      return json(presentEvent(await getEvent(companion, portalOf(principal), params.eventTypeId, params.eventId)));
    },
  }),
  route({
    method: "POST",
    path: "/tracking/v1/identify",
    summary: "Tie a visitor token (utk) to the contact with an email, creating the contact if needed",
    tag,
    auth: { kinds: ["oauth", "private_app"], scopes: ["crm.objects.contacts.write"] },
    body: s.identifyBody,
    responses: { 200: { description: "The token and its contact", schema: s.identifyResponse } },
    handler: async ({ db, companion, principal, body, now }) => json(await identifyVisitor(db, companion, portalOf(principal), body.utk, body.email, now)),
  }),
  route({
    method: "GET",
    path: "/crm/v3/objects/:objectType/:objectId/timeline",
    summary: "A record's timeline events, newest first, rendered to HTML",
    tag,
    auth: { kinds: ["oauth", "private_app"] },
    params: s.timelineParams,
    query: s.timelineQuery,
    responses: { 200: { description: "A page of rendered events", schema: s.timelineResponse } },
    handler: async ({ db, companion, control, principal, params, query, url }) => {
      requireScopes(principal, [scopeFor(params.objectType, "read")]);
      const portalId = portalOf(principal);
      await getObject(db, portalId, params.objectType, params.objectId);
      const type = TIMELINE_TYPE[params.objectType]!;
      const after = query.after ? decodeCursor(query.after) : undefined;
      const page = await recordTimeline(companion, control, portalId, type, params.objectId, query.limit, after);
      const body: Record<string, unknown> = { results: page.results };
      if (page.next) {
        const next = new URL(url);
        next.searchParams.set("after", page.next);
        body.paging = { next: { after: page.next, link: next.toString() } };
      }
      return json(body);
    },
  }),
];
