/**
 * @module The v3 face of CRM card definitions (`/crm/v3/extensions/cards-dev/{appId}`) over the v1 record
 * types: same rows, same ids (strings in v3). The mapping is here, once:
 *
 * | v3 | v1 |
 * |---|---|
 * | `fetch.targetUrl` | `dataFetchUri` |
 * | `actions.baseUrls` | `baseUris` |
 * | `fetch.objectTypes[].name` (`contacts` …) | `associatedHubSpotObjectTypes` (`CONTACT` …) |
 * | `fetch.objectTypes[].propertiesToSend` | `associatedHubSpotObjectTypeProperties[TYPE]` |
 * | `display.properties` (`options: []` when not STATUS) | `propertyDefinitions` (no `options` when not STATUS) |
 *
 * Writes go through the v1 service and its checks (outbound guard on every URL, 25 per app, the scope rule),
 * and a v3 card is fetched and signed on record views as any v1 record type is.
 */
import { z } from "zod";
import type { Db } from "../../db/client";
import type { CardObjectType } from "../../db/tables/cards";
import { validate } from "../../lib/http";
import { createCardBody, type CardV3, type CardV3Patch } from "../../schemas/cards/v3";
import type { Definition } from "../../schemas/cards/types";
import * as cardTypes from "./types";

type V3Type = CardV3["fetch"]["objectTypes"][number]["name"];
const V1_TYPE: Record<V3Type, CardObjectType> = { contacts: "CONTACT", companies: "COMPANY", deals: "DEAL", tickets: "TICKET" };
const V3_TYPE: Record<CardObjectType, V3Type> = { CONTACT: "contacts", COMPANY: "companies", DEAL: "deals", TICKET: "tickets" };

export function toDefinition(card: CardV3): Definition {
  const props: Definition["associatedHubSpotObjectTypeProperties"] = {};
  for (const o of card.fetch.objectTypes) if (o.propertiesToSend.length) props[V1_TYPE[o.name]] = o.propertiesToSend;
  return {
    title: card.title,
    dataFetchUri: card.fetch.targetUrl,
    baseUris: card.actions.baseUrls,
    associatedHubSpotObjectTypes: card.fetch.objectTypes.map((o) => V1_TYPE[o.name]),
    associatedHubSpotObjectTypeProperties: props,
    propertyDefinitions: card.display.properties.map(({ options, ...p }) => (p.dataType === "STATUS" ? { ...p, options } : p)),
  };
}

export function fromRow(row: cardTypes.CardTypeRow): CardV3 {
  return {
    title: row.title,
    fetch: {
      targetUrl: row.dataFetchUri,
      objectTypes: row.objectTypes.map((t) => ({ name: V3_TYPE[t], propertiesToSend: row.objectTypeProperties[t] ?? [] })),
      cardType: "EXTERNAL",
    },
    display: { properties: row.propertyDefinitions.map((p) => ({ ...p, options: p.options ?? [] })) },
    actions: { baseUrls: row.baseUris },
  };
}

/** The stored card with a PATCH over it: parts replace, except `fetch`, whose fields replace one by one. */
export function merged(row: cardTypes.CardTypeRow, patch: CardV3Patch): unknown {
  const current = fromRow(row);
  return {
    title: patch.title ?? current.title,
    fetch: { ...current.fetch, ...Object.fromEntries(Object.entries(patch.fetch ?? {}).filter(([, v]) => v !== undefined)) },
    display: patch.display ?? current.display,
    actions: patch.actions ?? current.actions,
  };
}

/**
 * The v3 card. Changes are not journaled, so the audit history is what the row knows: its creation and,
 * when it changed since, its last update (docs/reference/cards.md).
 */
export function presentCard(row: cardTypes.CardTypeRow) {
  const entry = (actionType: "CREATE" | "UPDATE", changedAt: number) => ({ actionType, applicationId: row.appId, authSource: "APP" as const, changedAt, objectTypeId: row.id, initiatingUserId: 0 });
  return {
    id: String(row.id),
    ...fromRow(row),
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
    auditHistory: row.updatedAt > row.createdAt ? [entry("CREATE", row.createdAt), entry("UPDATE", row.updatedAt)] : [entry("CREATE", row.createdAt)],
  };
}

export async function createCard(db: Db, appId: number, card: CardV3, allowLoopback: boolean, now: number) {
  checkUrls(card, allowLoopback);
  return presentCard(await cardTypes.createCardType(db, appId, toDefinition(card), now));
}

/** The outbound guard's rules on every URL the service will call, named the v3 way in errors. */
export function checkUrls(card: CardV3, allowLoopback: boolean) {
  const { base, fetch } = cardTypes.uriRules(allowLoopback);
  validate(z.object({ fetch: z.object({ targetUrl: fetch }), actions: z.object({ baseUrls: z.array(base) }) }), card, "body");
}

/** A PATCH: merged into the stored card, the whole checked again as a create would be, written through v1. */
export async function updateCard(db: Db, appId: number, id: number, patch: CardV3Patch, allowLoopback: boolean, now: number) {
  const card = validate(createCardBody, merged(await cardTypes.getCardType(db, appId, id), patch), "body");
  checkUrls(card, allowLoopback);
  return presentCard(await cardTypes.updateCardType(db, appId, id, toDefinition(card), now));
}

export const listCards = async (db: Db, appId: number) => (await cardTypes.listCardTypes(db, appId)).map(presentCard);
