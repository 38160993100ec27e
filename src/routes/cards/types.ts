/**
 * @module CRM card record types `/extensions/sales-objects/v1/object-types` (docs/reference/cards.md
 * "Record types"), managed with the owning app's developer key. A record type of another app is not found
 * (404).
 */
import type { AuthRule } from "../../http/auth";
import { requireOwnApp } from "../../lib/principal";
import { forbidden } from "../../lib/errors";
import { json, noContent, validate } from "../../lib/http";
import { loopbackAllowed } from "../../lib/outbound";
import type { Principal } from "../../lib/principal";
import { route } from "../../http/route";
import * as cardTypes from "../../services/cards/types";
import * as s from "../../schemas/cards/types";

const developer: AuthRule = { kinds: ["developer"] };
const tag = "CRM cards";
const base = "/extensions/sales-objects/v1/object-types";

/** The app the developer key belongs to; `applicationId` given in the request must be that app (else 404). */
function keyApp(p: Principal, applicationId?: number): number {
  if (p.kind !== "developer") throw forbidden("This endpoint requires the app's developer API key.");
  if (applicationId !== undefined) requireOwnApp(p, applicationId);
  return p.appId;
}

/** PUT body merged into the stored definition; the whole result is validated again. */
function merge(current: cardTypes.CardTypeRow, patch: s.UpdateBody): s.Definition {
  return validate(
    s.definition,
    {
      baseUris: patch.baseUris ?? current.baseUris,
      dataFetchUri: patch.dataFetchUri ?? current.dataFetchUri,
      title: patch.title ?? current.title,
      propertyDefinitions: patch.propertyDefinitions ?? current.propertyDefinitions,
      associatedHubSpotObjectTypes: patch.associatedHubSpotObjectTypes ?? current.objectTypes,
      associatedHubSpotObjectTypeProperties: patch.associatedHubSpotObjectTypeProperties ?? current.objectTypeProperties,
    },
    "body",
  );
}

export const cardTypeRoutes = [
  route({
    method: "POST",
    path: base,
    summary: "Define a CRM card record type (at most 25 per app)",
    tag,
    auth: developer,
    body: s.createBody,
    responses: { 200: { description: "The saved record type with its id", schema: s.recordTypeResponse } },
    handler: async ({ control: db, principal, body, env, now }) => {
      const appId = keyApp(principal, body.applicationId);
      cardTypes.checkUris(body, loopbackAllowed(env));
      return json(cardTypes.present(await cardTypes.createCardType(db, appId, body, now)));
    },
  }),
  route({
    method: "GET",
    path: base,
    summary: "List the app's CRM card record types",
    tag,
    auth: developer,
    query: s.listQuery,
    responses: { 200: { description: "`{results: [...]}`, oldest first", schema: s.listResponse } },
    handler: async ({ control: db, principal, query }) => {
      const appId = keyApp(principal, query.applicationId);
      return json({ results: (await cardTypes.listCardTypes(db, appId)).map(cardTypes.present) });
    },
  }),
  route({
    method: "GET",
    path: `${base}/:objectTypeId`,
    summary: "Read a CRM card record type",
    tag,
    auth: developer,
    params: s.itemParams,
    query: s.itemQuery,
    responses: { 200: { description: "The record type", schema: s.recordTypeResponse } },
    handler: async ({ control: db, principal, params, query }) => {
      const appId = keyApp(principal, query.applicationId);
      return json(cardTypes.present(await cardTypes.getCardType(db, appId, params.objectTypeId)));
    },
  }),
  route({
    method: "PUT",
    path: `${base}/:objectTypeId`,
    summary: "Update a CRM card record type (fields left out keep their value)",
    tag,
    auth: developer,
    params: s.itemParams,
    body: s.updateBody,
    responses: { 200: { description: "The updated record type", schema: s.recordTypeResponse } },
    handler: async ({ control: db, principal, params, body, env, now }) => {
      const appId = keyApp(principal, body.applicationId);
      const merged = merge(await cardTypes.getCardType(db, appId, params.objectTypeId), body);
      cardTypes.checkUris(merged, loopbackAllowed(env));
      return json(cardTypes.present(await cardTypes.updateCardType(db, appId, params.objectTypeId, merged, now)));
    },
  }),
  route({
    method: "DELETE",
    path: `${base}/:objectTypeId`,
    summary: "Delete a CRM card record type",
    tag,
    auth: developer,
    params: s.itemParams,
    query: s.itemQuery,
    responses: { 204: { description: "Deleted" } },
    handler: async ({ control: db, principal, params, query }) => {
      const appId = keyApp(principal, query.applicationId);
      await cardTypes.deleteCardType(db, appId, params.objectTypeId);
      return noContent();
    },
  }),
];
