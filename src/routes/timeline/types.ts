/**
 * @module Timeline setup `/integrations/v1/{appId}/timeline/event-types[/...]` (docs/reference/timeline.md):
 * event types and their properties, authenticated by the app's developer key (as `hapikey` or Bearer) or
 * by an OAuth access token of an install of that app (see `setup` below).
 * Creates and updates answer 200 with the stored object, lists are bare arrays, deletes 204, as the real
 * service answers. The `userId` query parameter old clients send is accepted and ignored.
 */
import type { AuthRule } from "../../http/auth";
import { requireOwnApp } from "../../lib/principal";
import { badRequest } from "../../lib/errors";
import { json, noContent } from "../../lib/http";
import { route } from "../../http/route";
import * as types from "../../services/timeline/types";
import * as s from "../../schemas/timeline/events";

/**
 * The API's authentication rules say event-type setup "was originally defined with a developer key in
 * `hapikey`; current use is a private app token or OAuth". The endpoints' own documentation still describes
 * the developer key, so it keeps working; an OAuth access token of an install of the path's app is accepted
 * beside it. Event types belong to the app, not to an account, so such a token acts for its app here:
 * `requireOwnApp` gives another app's token (like another app's developer key) a 404, and the change
 * applies to every account the app is installed in, as it does with the developer key.
 * Scope `timeline` (the real service's scope to "manage custom events on CRM records"), the one timeline
 * event writes need too; a developer key carries no scopes (scopes are checked on OAuth and private-app tokens).
 * Private-app tokens stay refused (403): a private app belongs to one account and has no link to a
 * developer app id, so nothing ties it to the `{appId}` of the path.
 * Hardening over the legacy rules: deleting or replacing (PUT) a type that has events in other accounts
 * takes the developer key, so one install's token cannot wipe or rewrite every account's events
 * (types.requireOnlyOwnEvents, docs/reference/timeline.md).
 */
const setup: AuthRule = { kinds: ["developer", "oauth"], scopes: ["timeline"] };
const tag = "Timeline setup";
const base = "/integrations/v1/:appId/timeline/event-types";

/** A body's applicationId, when sent, must be the app of the path. */
function checkApplicationId(given: number | undefined, appId: number) {
  if (given !== undefined && given !== appId) {
    throw badRequest(`applicationId ${given} does not match the app ${appId} of the path`, {
      errors: [{ message: "applicationId does not match the path", code: "INVALID_APPLICATION_ID", in: "body", context: { propertyName: ["applicationId"] } }],
    });
  }
}

export const timelineSetupRoutes = [
  route({
    method: "POST",
    path: base,
    summary: "Create a timeline event type",
    tag,
    auth: setup,
    params: s.appParams,
    body: s.createEventTypeBody,
    responses: { 200: { description: "The saved event type", schema: s.eventTypeResponse } },
    handler: async ({ control: db, principal, params, body, now }) => {
      requireOwnApp(principal, params.appId);
      checkApplicationId(body.applicationId, params.appId);
      const row = await types.createEventType(db, params.appId, body, now);
      return json(types.presentEventType(row));
    },
  }),
  route({
    method: "GET",
    path: base,
    summary: "List the app's event types (a bare array)",
    tag,
    auth: setup,
    params: s.appParams,
    responses: { 200: { description: "Event types", schema: s.eventTypeList } },
    handler: async ({ control: db, principal, params }) => {
      requireOwnApp(principal, params.appId);
      return json((await types.listEventTypes(db, params.appId)).map(types.presentEventType));
    },
  }),
  route({
    method: "GET",
    path: `${base}/:eventTypeId`,
    summary: "Read an event type",
    tag,
    auth: setup,
    params: s.eventTypeParams,
    responses: { 200: { description: "The event type", schema: s.eventTypeResponse } },
    handler: async ({ control: db, principal, params }) => {
      requireOwnApp(principal, params.appId);
      return json(types.presentEventType(await types.getEventType(db, params.appId, params.eventTypeId)));
    },
  }),
  route({
    method: "PUT",
    path: `${base}/:eventTypeId`,
    summary: "Update an event type (fields left out keep their value; null clears a template)",
    tag,
    auth: setup,
    params: s.eventTypeParams,
    body: s.updateEventTypeBody,
    responses: {
      200: { description: "The updated event type", schema: s.eventTypeResponse },
      403: { description: "An install's OAuth token, while other accounts hold events of the type: use the app's developer key" },
    },
    handler: async ({ control: db, principal, params, body, now }) => {
      requireOwnApp(principal, params.appId);
      checkApplicationId(body.applicationId, params.appId);
      await types.getEventType(db, params.appId, params.eventTypeId);
      await types.requireOnlyOwnEvents(db, principal, params.eventTypeId, "replace");
      const row = await types.updateEventType(db, params.appId, params.eventTypeId, body, now);
      return json(types.presentEventType(row));
    },
  }),
  route({
    method: "DELETE",
    path: `${base}/:eventTypeId`,
    summary: "Delete an event type with its properties and events",
    tag,
    auth: setup,
    params: s.eventTypeParams,
    responses: {
      204: { description: "Deleted" },
      403: { description: "An install's OAuth token, while other accounts hold events of the type: use the app's developer key" },
    },
    handler: async ({ control: db, env, principal, params, now }) => {
      requireOwnApp(principal, params.appId);
      await types.getEventType(db, params.appId, params.eventTypeId);
      await types.requireOnlyOwnEvents(db, principal, params.eventTypeId, "delete");
      await types.deleteEventType(env, db, params.appId, params.eventTypeId, now);
      return noContent();
    },
  }),
  route({
    method: "POST",
    path: `${base}/:eventTypeId/properties`,
    summary: "Add a property to an event type",
    tag,
    auth: setup,
    params: s.eventTypeParams,
    body: s.createPropertyBody,
    responses: { 200: { description: "The saved property", schema: s.propertyResponse } },
    handler: async ({ control: db, principal, params, body, now }) => {
      requireOwnApp(principal, params.appId);
      const row = await types.createProperty(db, params.appId, params.eventTypeId, body, now);
      return json(types.presentProperty(row));
    },
  }),
  route({
    method: "GET",
    path: `${base}/:eventTypeId/properties`,
    summary: "List an event type's properties (a bare array)",
    tag,
    auth: setup,
    params: s.eventTypeParams,
    responses: { 200: { description: "Properties", schema: s.propertyList } },
    handler: async ({ control: db, principal, params }) => {
      requireOwnApp(principal, params.appId);
      await types.getEventType(db, params.appId, params.eventTypeId);
      return json((await types.listProperties(db, params.eventTypeId)).map(types.presentProperty));
    },
  }),
  route({
    method: "PUT",
    path: `${base}/:eventTypeId/properties`,
    summary: "Update a property named by the id in the body (its name cannot change)",
    tag,
    auth: setup,
    params: s.eventTypeParams,
    body: s.updatePropertyBody,
    responses: { 200: { description: "The updated property", schema: s.propertyResponse } },
    handler: async ({ control: db, principal, params, body }) => {
      requireOwnApp(principal, params.appId);
      if (body.eventTypeId !== undefined && body.eventTypeId !== params.eventTypeId) {
        throw badRequest(`eventTypeId ${body.eventTypeId} does not match the event type ${params.eventTypeId} of the path`, {
          errors: [{ message: "eventTypeId does not match the path", code: "INVALID_EVENT_TYPE_ID", in: "body", context: { propertyName: ["eventTypeId"] } }],
        });
      }
      const row = await types.updateProperty(db, params.appId, params.eventTypeId, body.id, body);
      return json(types.presentProperty(row));
    },
  }),
  route({
    method: "DELETE",
    path: `${base}/:eventTypeId/properties/:propertyId`,
    summary: "Delete a property",
    tag,
    auth: setup,
    params: s.propertyParams,
    responses: { 204: { description: "Deleted" } },
    handler: async ({ control: db, principal, params }) => {
      requireOwnApp(principal, params.appId);
      await types.deleteProperty(db, params.appId, params.eventTypeId, params.propertyId);
      return noContent();
    },
  }),
];
