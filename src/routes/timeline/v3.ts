/**
 * @module Timeline v3 `/integrators/timeline/v3/...`: the successor of the v1 timeline API over the same
 * store (services/timeline/v3.ts maps it). Templates and tokens take the app's developer key, as the real
 * service and the official client do; events take an OAuth access token of an install of the app, with the
 * `timeline` scope, like v1 event writes. Success codes are the ones @hubspot/api-client 14.0.1 accepts.
 */
import type { AuthRule } from "../../http/auth";
import { installOf } from "../../http/auth";
import { requireOwnApp } from "../../lib/principal";
import { html, json, noContent } from "../../lib/http";
import { route } from "../../http/route";
import { getEvent } from "../../services/timeline/events";
import { deleteEventType, getEventType } from "../../services/timeline/types";
import * as v3 from "../../services/timeline/v3";
import * as s from "../../schemas/timeline/v3";
import { completedAt } from "../../services/testkit/clock";

const developer: AuthRule = { kinds: ["developer"] };
const eventWriter: AuthRule = { kinds: ["oauth"], scopes: ["timeline"] };
const tag = "Timeline v3";
const templates = "/integrators/timeline/v3/:appId/event-templates";
const events = "/integrators/timeline/v3/events";

const templateRoutes = [
  route({
    method: "POST",
    path: templates,
    summary: "Create an event template (a v1 event type) with its tokens",
    tag,
    auth: developer,
    params: s.appParams,
    body: s.createTemplateBody,
    responses: { 201: { description: "The template", schema: s.templateResponse } },
    handler: async ({ control, principal, params, body, now }) => {
      requireOwnApp(principal, params.appId);
      return json(await v3.createTemplate(control, params.appId, body, now), 201);
    },
  }),
  route({
    method: "GET",
    path: templates,
    summary: "List the app's event templates (no paging)",
    tag,
    auth: developer,
    params: s.appParams,
    responses: { 200: { description: "The templates", schema: s.templateList } },
    handler: async ({ control, principal, params }) => {
      requireOwnApp(principal, params.appId);
      return json({ results: await v3.listTemplates(control, params.appId) });
    },
  }),
  route({
    method: "GET",
    path: `${templates}/:eventTemplateId`,
    summary: "Read an event template",
    tag,
    auth: developer,
    params: s.templateParams,
    responses: { 200: { description: "The template", schema: s.templateResponse } },
    handler: async ({ control, principal, params }) => {
      requireOwnApp(principal, params.appId);
      return json(await v3.readTemplate(control, params.appId, params.eventTemplateId));
    },
  }),
  route({
    method: "PUT",
    path: `${templates}/:eventTemplateId`,
    summary: "Update an event template; its tokens become the list sent",
    tag,
    auth: developer,
    params: s.templateParams,
    body: s.updateTemplateBody,
    responses: { 200: { description: "The template", schema: s.templateResponse } },
    handler: async ({ control, principal, params, body, now }) => {
      requireOwnApp(principal, params.appId);
      return json(await v3.updateTemplate(control, params.appId, params.eventTemplateId, body, now));
    },
  }),
  route({
    method: "DELETE",
    path: `${templates}/:eventTemplateId`,
    summary: "Delete an event template with its tokens and events (every account's)",
    tag,
    auth: developer,
    params: s.templateParams,
    responses: { 204: { description: "Deleted" } },
    handler: async ({ env, control, principal, params }) => {
      requireOwnApp(principal, params.appId);
      await deleteEventType(env, control, params.appId, params.eventTemplateId);
      return noContent();
    },
  }),
  route({
    method: "POST",
    path: `${templates}/:eventTemplateId/tokens`,
    summary: "Add a token (a v1 property) to an event template",
    tag,
    auth: developer,
    params: s.templateParams,
    body: s.tokenBody,
    responses: { 200: { description: "The token", schema: s.tokenResponse }, 409: { description: "The template already has a token with that name" } },
    handler: async ({ control, principal, params, body, now }) => {
      requireOwnApp(principal, params.appId);
      return json(await v3.createToken(control, params.appId, params.eventTemplateId, body, now));
    },
  }),
  route({
    method: "PUT",
    path: `${templates}/:eventTemplateId/tokens/:tokenName`,
    summary: "Update a token's label, options or CRM property",
    tag,
    auth: developer,
    params: s.tokenParams,
    body: s.tokenUpdateBody,
    responses: { 200: { description: "The token", schema: s.tokenResponse } },
    handler: async ({ control, principal, params, body }) => {
      requireOwnApp(principal, params.appId);
      return json(await v3.updateToken(control, params.appId, params.eventTemplateId, params.tokenName, body));
    },
  }),
  route({
    method: "DELETE",
    path: `${templates}/:eventTemplateId/tokens/:tokenName`,
    summary: "Delete a token; stored events keep their values",
    tag,
    auth: developer,
    params: s.tokenParams,
    responses: { 204: { description: "Deleted" } },
    handler: async ({ control, principal, params }) => {
      requireOwnApp(principal, params.appId);
      await v3.deleteToken(control, params.appId, params.eventTemplateId, params.tokenName);
      return noContent();
    },
  }),
];

const eventRoutes = [
  route({
    method: "POST",
    path: events,
    summary: "Create an event (a v1 event); an id already stored is a 409: events are immutable",
    tag,
    auth: eventWriter,
    body: s.eventV3Body,
    responses: {
      201: { description: "The event", schema: s.eventV3Response },
      404: { description: "No such template for the token's app, or no such record" },
      409: { description: "An event with this id exists for the template" },
    },
    handler: async ({ db, companion, control, principal, body, now }) => {
      const { portalId, appId } = installOf(principal);
      const { results, refused } = await v3.createEvents(db, companion, control, portalId, appId, [body], now);
      if (refused[0]) throw refused[0].error;
      return json(results[0], 201);
    },
  }),
  route({
    method: "POST",
    path: `${events}/batch/create`,
    summary: "Create up to 100 events: 201, or 207 with errors for the events that were refused",
    tag,
    auth: eventWriter,
    body: s.batchEventsBody,
    responses: {
      201: { description: "Every event was created", schema: s.batchResponse },
      207: { description: "Some events were refused (errors, numErrors); the others were created", schema: s.batchResponse },
    },
    handler: async ({ db, companion, control, principal, body, now }) => {
      const { portalId, appId } = installOf(principal);
      const startedAt = new Date(now).toISOString();
      const { results, refused } = await v3.createEvents(db, companion, control, portalId, appId, body.inputs, now);
      const out: Record<string, unknown> = { status: "COMPLETE", results, startedAt, completedAt: completedAt(now) };
      if (!refused.length) return json(out, 201);
      out.numErrors = refused.length;
      out.errors = refused.map(({ index, error }) => ({
        status: "error",
        category: error.category,
        message: `inputs.${index}: ${error.message}`,
        context: { index: [String(index)] },
        errors: error.init.errors ?? [],
        links: {},
      }));
      return json(out, 207);
    },
  }),
  route({
    method: "GET",
    path: `${events}/:eventTemplateId/:eventId`,
    summary: "Read an event (v1 or v3)",
    tag,
    auth: eventWriter,
    params: s.eventParams,
    responses: { 200: { description: "The event", schema: s.eventV3Response } },
    handler: async ({ companion, control, principal, params }) => {
      const { portalId, appId } = installOf(principal);
      await getEventType(control, appId, params.eventTemplateId);
      return json(v3.presentEventV3(await getEvent(companion, portalId, params.eventTemplateId, params.eventId)));
    },
  }),
  route({
    method: "GET",
    path: `${events}/:eventTemplateId/:eventId/detail`,
    summary: "An event's detail template, rendered",
    tag,
    auth: eventWriter,
    params: s.eventParams,
    responses: { 200: { description: "The rendered detail", schema: s.detailResponse } },
    handler: async ({ companion, control, principal, params }) => {
      const { portalId, appId } = installOf(principal);
      await getEventType(control, appId, params.eventTemplateId);
      const rendered = await v3.renderStored(control, appId, await getEvent(companion, portalId, params.eventTemplateId, params.eventId));
      return json({ details: rendered.detailHtml });
    },
  }),
  route({
    method: "GET",
    path: `${events}/:eventTemplateId/:eventId/render`,
    summary: "An event rendered as HTML: the header, or the detail with detail=true",
    tag,
    auth: eventWriter,
    params: s.eventParams,
    query: s.renderQuery,
    responses: { 200: { description: "The rendered HTML", html: true } },
    handler: async ({ companion, control, principal, params, query }) => {
      const { portalId, appId } = installOf(principal);
      await getEventType(control, appId, params.eventTemplateId);
      const rendered = await v3.renderStored(control, appId, await getEvent(companion, portalId, params.eventTemplateId, params.eventId));
      return html(query.detail === "true" ? rendered.detailHtml : rendered.headerHtml);
    },
  }),
];

export const timelineV3Routes = [...templateRoutes, ...eventRoutes];
