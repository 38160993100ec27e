/**
 * @module Calling extension settings `/crm/v3/extensions/calling/{appId}/settings` (docs/reference/extensions.md):
 * the calling widget's settings, its recording URL format and its channel connection, each a document of the
 * app managed with its developer key (`?hapikey=` or Bearer). Another app's id is not found (404).
 */
import type { z } from "zod";
import type { AuthRule } from "../../http/auth";
import type { ExtensionKind } from "../../db/tables/extensions";
import { requireOwnApp } from "../../lib/principal";
import { json, noContent } from "../../lib/http";
import { loopbackAllowed } from "../../lib/outbound";
import { route } from "../../http/route";
import * as ext from "../../services/extensions/settings";
import * as s from "../../schemas/extensions";

const developer: AuthRule = { kinds: ["developer"] };
const tag = "Extensions";
const base = "/crm/v3/extensions/calling/:appId/settings";

interface Doc {
  kind: ExtensionKind;
  path: string;
  label: string;
  create: z.ZodType<Record<string, unknown>>;
  patch: z.ZodType<Record<string, unknown>>;
  response: z.ZodType;
  present: (row: ext.SettingsRow) => Record<string, unknown>;
  /** Fields a new document starts with unless the request sets them. */
  defaults?: Record<string, unknown>;
}

const calling: Doc = { kind: "calling", path: base, label: "calling settings", create: s.callingCreate, patch: s.callingPatch, response: s.callingResponse, present: ext.presentCalling, defaults: ext.CALLING_DEFAULTS };
const recording: Doc = { kind: "calling-recording", path: `${base}/recording`, label: "recording settings", create: s.recordingCreate, patch: s.recordingPatch, response: s.recordingResponse, present: ext.presentPlain };
const channel: Doc = { kind: "calling-channel-connection", path: `${base}/channel-connection`, label: "channel connection settings", create: s.channelCreate, patch: s.channelPatch, response: s.channelResponse, present: ext.presentChannel };

const createRoute = (d: Doc) =>
  route({
    method: "POST",
    path: d.path,
    summary: `Create the app's ${d.label}`,
    tag,
    auth: developer,
    params: s.appParams,
    body: d.create,
    responses: {
      200: { description: "The stored settings", schema: d.response },
      400: { description: "A required field is missing, or a URL is malformed or refused by the outbound guard" },
      409: { description: `The app has ${d.label} already (PATCH changes them)` },
    },
    handler: async ({ control, principal, params, body, env, now }) => {
      requireOwnApp(principal, params.appId);
      ext.checkUrls(d.kind, body, loopbackAllowed(env));
      return json(d.present(await ext.createSettings(control, params.appId, d.kind, { ...d.defaults, ...body }, now)));
    },
  });

const getRoute = (d: Doc) =>
  route({
    method: "GET",
    path: d.path,
    summary: `Read the app's ${d.label}`,
    tag,
    auth: developer,
    params: s.appParams,
    responses: { 200: { description: "The settings", schema: d.response }, 404: { description: `The app has no ${d.label}` } },
    handler: async ({ control, principal, params }) => {
      requireOwnApp(principal, params.appId);
      return json(d.present(await ext.getSettings(control, params.appId, d.kind)));
    },
  });

const patchRoute = (d: Doc) =>
  route({
    method: "PATCH",
    path: d.path,
    summary: `Change some of the app's ${d.label}`,
    tag,
    auth: developer,
    params: s.appParams,
    body: d.patch,
    responses: {
      200: { description: "The updated settings", schema: d.response },
      400: { description: "A field is malformed, or a URL is refused by the outbound guard" },
      404: { description: `The app has no ${d.label}` },
    },
    handler: async ({ control, principal, params, body, env, now }) => {
      requireOwnApp(principal, params.appId);
      const allow = loopbackAllowed(env);
      return json(d.present(await ext.patchSettings(control, params.appId, d.kind, body, now, (doc) => ext.checkUrls(d.kind, doc, allow))));
    },
  });

const deleteRoute = (d: Doc) =>
  route({
    method: "DELETE",
    path: d.path,
    summary: `Delete the app's ${d.label}`,
    tag,
    auth: developer,
    params: s.appParams,
    responses: { 204: { description: "Deleted" }, 404: { description: `The app has no ${d.label}` } },
    handler: async ({ control, principal, params }) => {
      requireOwnApp(principal, params.appId);
      await ext.deleteSettings(control, params.appId, d.kind);
      return noContent();
    },
  });

// The recording settings have no DELETE in the official client (RecordingSettingsApi: register, get, update).
export const callingRoutes = [
  createRoute(calling),
  getRoute(calling),
  patchRoute(calling),
  deleteRoute(calling),
  createRoute(recording),
  getRoute(recording),
  patchRoute(recording),
  createRoute(channel),
  getRoute(channel),
  patchRoute(channel),
  deleteRoute(channel),
];
