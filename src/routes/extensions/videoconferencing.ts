/**
 * @module Video conferencing extension settings `/crm/v3/extensions/videoconferencing/settings/{appId}`
 * (docs/reference/extensions.md), managed with the app's developer key (`?hapikey=`, as the official client
 * sends it, or Bearer). Another app's id is not found (404), as for webhook settings and CRM cards.
 */
import type { AuthRule } from "../../http/auth";
import { requireOwnApp } from "../../lib/principal";
import { json, noContent } from "../../lib/http";
import { loopbackAllowed } from "../../lib/outbound";
import { route } from "../../http/route";
import * as ext from "../../services/extensions/settings";
import * as s from "../../schemas/extensions";

const developer: AuthRule = { kinds: ["developer"] };
const tag = "Extensions";
const path = "/crm/v3/extensions/videoconferencing/settings/:appId";

export const videoconferencingRoutes = [
  route({
    method: "GET",
    path,
    summary: "Read the app's video conferencing settings",
    tag,
    auth: developer,
    params: s.appParams,
    responses: { 200: { description: "The settings", schema: s.videoResponse }, 404: { description: "The app has no video conferencing settings" } },
    handler: async ({ control, principal, params }) => {
      requireOwnApp(principal, params.appId);
      return json(ext.presentPlain(await ext.getSettings(control, params.appId, "videoconferencing")));
    },
  }),
  route({
    method: "PUT",
    path,
    summary: "Create or replace the app's video conferencing settings (the meeting webhooks' URLs)",
    tag,
    auth: developer,
    params: s.appParams,
    body: s.videoSettings,
    responses: { 200: { description: "The stored settings", schema: s.videoResponse }, 400: { description: "A URL is missing, malformed, or refused by the outbound guard" } },
    handler: async ({ control, principal, params, body, env, now }) => {
      requireOwnApp(principal, params.appId);
      ext.checkUrls("videoconferencing", body, loopbackAllowed(env));
      return json(ext.presentPlain(await ext.putSettings(control, params.appId, "videoconferencing", body, now)));
    },
  }),
  route({
    method: "DELETE",
    path,
    summary: "Delete the app's video conferencing settings",
    tag,
    auth: developer,
    params: s.appParams,
    responses: { 204: { description: "Deleted" }, 404: { description: "The app has no video conferencing settings" } },
    handler: async ({ control, principal, params }) => {
      requireOwnApp(principal, params.appId);
      await ext.deleteSettings(control, params.appId, "videoconferencing");
      return noContent();
    },
  }),
];
