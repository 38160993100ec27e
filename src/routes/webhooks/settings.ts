/**
 * @module App webhooks API `/webhooks/v3/{appId}` (docs/reference/webhooks.md): settings and subscriptions, managed
 * with the app's developer key (`?hapikey=`, as the official client sends it, or Bearer). Another app's id
 * is not found (404), as for CRM card types.
 */
import type { AuthRule } from "../../http/auth";
import { requireOwnApp } from "../../lib/principal";
import { json, noContent } from "../../lib/http";
import { loopbackAllowed, outboundResolver } from "../../lib/outbound";
import { route } from "../../http/route";
import * as settings from "../../services/webhooks/settings";
import * as s from "../../schemas/webhooks/settings";

export const developer: AuthRule = { kinds: ["developer"] };
export const tag = "Webhooks";
export const base = "/webhooks/v3/:appId";

export const webhookRoutes = [
  route({
    method: "GET",
    path: `${base}/settings`,
    summary: "Read the app's webhook settings",
    tag,
    auth: developer,
    params: s.appParams,
    responses: { 200: { description: "The settings", schema: s.settingsResponse }, 404: { description: "The app has no settings" } },
    handler: async ({ control, principal, params }) => {
      requireOwnApp(principal, params.appId);
      return json(settings.presentSettings(await settings.getSettings(control, params.appId)));
    },
  }),
  route({
    method: "PUT",
    path: `${base}/settings`,
    summary: "Create or replace the app's webhook settings (target URL and throttling)",
    tag,
    auth: developer,
    params: s.appParams,
    body: s.settingsBody,
    responses: { 200: { description: "The stored settings", schema: s.settingsResponse }, 400: { description: "A field is invalid, or the target URL is refused by the outbound guard" } },
    handler: async ({ control, principal, params, body, env, now }) => {
      requireOwnApp(principal, params.appId);
      await settings.checkTargetUrl(body.targetUrl, loopbackAllowed(env), outboundResolver(env));
      const row = await settings.putSettings(control, params.appId, { targetUrl: body.targetUrl, ...body.throttling }, now);
      return json(settings.presentSettings(row));
    },
  }),
  route({
    method: "DELETE",
    path: `${base}/settings`,
    summary: "Delete the app's webhook settings; subscriptions are kept (and deliver nothing until new settings exist)",
    tag,
    auth: developer,
    params: s.appParams,
    responses: { 204: { description: "Deleted" }, 404: { description: "The app has no settings" } },
    handler: async ({ control, principal, params }) => {
      requireOwnApp(principal, params.appId);
      await settings.deleteSettings(control, params.appId);
      return noContent();
    },
  }),
  route({
    method: "GET",
    path: `${base}/subscriptions`,
    summary: "List the app's subscriptions",
    tag,
    auth: developer,
    params: s.appParams,
    responses: { 200: { description: "`{results: [...]}`, oldest first", schema: s.subscriptionList } },
    handler: async ({ control, principal, params }) => {
      requireOwnApp(principal, params.appId);
      return json({ results: (await settings.listSubscriptions(control, params.appId)).map(settings.presentSubscription) });
    },
  }),
  route({
    method: "POST",
    path: `${base}/subscriptions`,
    summary: "Subscribe the app to an event type (propertyChange needs propertyName)",
    tag,
    auth: developer,
    params: s.appParams,
    body: s.createSubscriptionBody,
    responses: { 201: { description: "The new subscription", schema: s.subscriptionResponse }, 400: { description: "Unknown eventType, propertyName missing, or the 1,000 subscriptions limit" }, 409: { description: "The app already has a subscription to this event type and property" } },
    handler: async ({ control, principal, params, body, now }) => {
      requireOwnApp(principal, params.appId);
      return json(settings.presentSubscription(await settings.createSubscription(control, params.appId, body, now)), 201);
    },
  }),
  route({
    method: "POST",
    path: `${base}/subscriptions/batch/update`,
    summary: "Activate or pause several subscriptions; unknown ids are reported (207)",
    tag,
    auth: developer,
    params: s.appParams,
    body: s.batchUpdateBody,
    responses: {
      200: { description: "Every subscription updated", schema: s.batchUpdateResponse },
      207: { description: "Some ids were not found: `errors` names them", schema: s.batchUpdateResponse },
    },
    handler: async ({ control, principal, params, body, now }) => {
      requireOwnApp(principal, params.appId);
      const startedAt = new Date(now).toISOString();
      const results: ReturnType<typeof settings.presentSubscription>[] = [];
      const missing: number[] = [];
      for (const input of body.inputs) {
        try {
          results.push(settings.presentSubscription(await settings.setActive(control, params.appId, input.id, input.active, now)));
        } catch {
          missing.push(input.id);
        }
      }
      // A developer's call: real time (no account's clock).
      const out = { status: "COMPLETE" as const, results, startedAt, completedAt: new Date().toISOString() };
      if (!missing.length) return json(out);
      const errors = missing.map((id) => ({
        status: "error",
        category: "OBJECT_NOT_FOUND",
        message: `Failed to find subscriptions by id \`${id}\``,
        context: { ids: [String(id)] },
      }));
      return json({ ...out, numErrors: errors.length, errors }, 207);
    },
  }),
  route({
    method: "GET",
    path: `${base}/subscriptions/:subscriptionId`,
    summary: "Read a subscription",
    tag,
    auth: developer,
    params: s.subscriptionParams,
    responses: { 200: { description: "The subscription", schema: s.subscriptionResponse } },
    handler: async ({ control, principal, params }) => {
      requireOwnApp(principal, params.appId);
      return json(settings.presentSubscription(await settings.getSubscription(control, params.appId, params.subscriptionId)));
    },
  }),
  route({
    method: "PATCH",
    path: `${base}/subscriptions/:subscriptionId`,
    summary: "Activate or pause a subscription",
    tag,
    auth: developer,
    params: s.subscriptionParams,
    body: s.patchSubscriptionBody,
    responses: { 200: { description: "The updated subscription", schema: s.subscriptionResponse } },
    handler: async ({ control, principal, params, body, now }) => {
      requireOwnApp(principal, params.appId);
      return json(settings.presentSubscription(await settings.setActive(control, params.appId, params.subscriptionId, body.active, now)));
    },
  }),
  route({
    method: "DELETE",
    path: `${base}/subscriptions/:subscriptionId`,
    summary: "Delete a subscription",
    tag,
    auth: developer,
    params: s.subscriptionParams,
    responses: { 204: { description: "Deleted" } },
    handler: async ({ control, principal, params }) => {
      requireOwnApp(principal, params.appId);
      await settings.deleteSubscription(control, params.appId, params.subscriptionId);
      return noContent();
    },
  }),
];
