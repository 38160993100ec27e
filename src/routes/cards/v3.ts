/**
 * @module CRM cards v3 `/crm/v3/extensions/cards-dev/{appId}[/{cardId}]` (the successor of the v1 record-type
 * API, over the same record types; services/cards/v3.ts maps them) and the public sample response. The app's
 * developer key only, as in v1 and as the official client sends it; another app's key gets 404.
 */
import type { AuthRule } from "../../http/auth";
import { requireOwnApp } from "../../lib/principal";
import { json, noContent } from "../../lib/http";
import { loopbackAllowed } from "../../lib/outbound";
import { route } from "../../http/route";
import * as cardTypes from "../../services/cards/types";
import * as v3 from "../../services/cards/v3";
import * as s from "../../schemas/cards/v3";

const developer: AuthRule = { kinds: ["developer"] };
const tag = "CRM cards v3";
const base = "/crm/v3/extensions/cards-dev";

/**
 * An example of the v3 card payload a data fetch may answer. Its action lists are empty on purpose:
 * @hubspot/api-client 14.0.1 cannot deserialize an action (its action types are unions without a
 * deserializer), so a sample with actions would make `getCardsSampleResponse()` throw (docs/reference/cards.md).
 */
const SAMPLE = {
  responseVersion: "v3",
  cardLabel: "Tickets",
  allItemsLinkUrl: "https://www.example.com/tickets",
  totalCount: 1,
  topLevelActions: {
    settings: { type: "IFRAME", width: 640, height: 480, url: "https://www.example.com/settings", label: "Settings", propertyNamesIncluded: [] },
    secondary: [],
  },
  sections: [
    {
      id: "123",
      title: "Ticket #123",
      linkUrl: "https://www.example.com/tickets/123",
      tokens: [
        { name: "created", label: "Created", dataType: "DATE", value: "2024-01-15" },
        { name: "priority", label: "Priority", dataType: "STRING", value: "High" },
      ],
      actions: [],
    },
  ],
};

export const cardV3Routes = [
  // Before `/:appId`, which would otherwise take "sample-response" as an app id.
  route({
    method: "GET",
    path: `${base}/sample-response`,
    summary: "An example of the card payload a data fetch answers (no credential)",
    tag,
    auth: { kinds: [] },
    responses: { 200: { description: "The sample payload", schema: s.sampleResponse } },
    handler: () => json(SAMPLE),
  }),
  route({
    method: "POST",
    path: `${base}/:appId`,
    summary: "Define a card (a v1 record type; at most 25 per app)",
    tag,
    auth: developer,
    params: s.appParams,
    body: s.createCardBody,
    responses: { 201: { description: "The card", schema: s.cardResponse } },
    handler: async ({ control, env, principal, params, body, now }) => {
      requireOwnApp(principal, params.appId);
      return json(await v3.createCard(control, params.appId, body, loopbackAllowed(env), now), 201);
    },
  }),
  route({
    method: "GET",
    path: `${base}/:appId`,
    summary: "List the app's cards",
    tag,
    auth: developer,
    params: s.appParams,
    responses: { 200: { description: "The cards, oldest first", schema: s.cardList } },
    handler: async ({ control, principal, params }) => {
      requireOwnApp(principal, params.appId);
      return json({ results: await v3.listCards(control, params.appId) });
    },
  }),
  route({
    method: "GET",
    path: `${base}/:appId/:cardId`,
    summary: "Read a card",
    tag,
    auth: developer,
    params: s.cardParams,
    responses: { 200: { description: "The card", schema: s.cardResponse } },
    handler: async ({ control, principal, params }) => {
      requireOwnApp(principal, params.appId);
      return json(v3.presentCard(await cardTypes.getCardType(control, params.appId, params.cardId)));
    },
  }),
  route({
    method: "PATCH",
    path: `${base}/:appId/:cardId`,
    summary: "Change parts of a card (the result is checked as a whole)",
    tag,
    auth: developer,
    params: s.cardParams,
    body: s.patchCardBody,
    responses: { 200: { description: "The card", schema: s.cardResponse } },
    handler: async ({ control, env, principal, params, body, now }) => {
      requireOwnApp(principal, params.appId);
      return json(await v3.updateCard(control, params.appId, params.cardId, body, loopbackAllowed(env), now));
    },
  }),
  route({
    method: "DELETE",
    path: `${base}/:appId/:cardId`,
    summary: "Delete a card",
    tag,
    auth: developer,
    params: s.cardParams,
    responses: { 204: { description: "Deleted" } },
    handler: async ({ control, principal, params }) => {
      requireOwnApp(principal, params.appId);
      await cardTypes.deleteCardType(control, params.appId, params.cardId);
      return noContent();
    },
  }),
];
