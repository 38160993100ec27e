/**
 * @module Keys of the sync apply path: an object's link key, store and email keys, and the associations a
 * message names (the v2 `associations` map, else the v1 `hs_assoc__*` properties). The settings
 * that govern a message are chosen in settings.ts (`governingSettings`).
 */
import type { EcommObjectType } from "../../db/tables/ecomm";
import type { SyncQueueMessage } from "./sync-message";
import { ASSOC_PROPERTY } from "./model";
import { splitIds } from "./translate";

export interface LinkKey {
  portalId: number;
  storeId: string;
  objectType: EcommObjectType;
  externalId: string;
}

export const keyOf = (m: SyncQueueMessage): LinkKey => ({
  portalId: m.portalId,
  storeId: m.storeId,
  objectType: m.objectType,
  externalId: m.message.externalObjectId,
});
export const keyString = (k: LinkKey) => JSON.stringify([k.portalId, k.storeId, k.objectType, k.externalId]);

export const storeKey = (portalId: number, storeId: string) => JSON.stringify([portalId, storeId]);
export const emailKey = (portalId: number, email: string) => `${portalId}|${email}`;

/** Associations of a message, whatever the case of the type keys. */
export function associationsOf(m: SyncQueueMessage): Partial<Record<EcommObjectType, string[]>> {
  const out: Partial<Record<EcommObjectType, string[]>> = {};
  for (const [type, ids] of Object.entries(m.message.associations ?? {})) {
    const t = type.toUpperCase();
    if (t === "CONTACT" || t === "PRODUCT" || t === "DEAL" || t === "LINE_ITEM") out[t] = ids.filter(Boolean);
  }
  return out;
}

/** The associations a message names: the v2 `associations` map first, else the v1 `hs_assoc__*` properties. */
export function targetsOf(m: SyncQueueMessage, assocProps: Record<string, string | null>) {
  const assoc = associationsOf(m);
  const pick = (type: EcommObjectType, property: string) =>
    assoc[type] ?? (property in assocProps ? splitIds(assocProps[property]) : undefined);
  return {
    contacts: m.objectType === "DEAL" ? pick("CONTACT", ASSOC_PROPERTY.dealContacts) : undefined,
    deals: m.objectType === "LINE_ITEM" ? pick("DEAL", ASSOC_PROPERTY.lineItemDeal) : undefined,
    products: m.objectType === "LINE_ITEM" ? pick("PRODUCT", ASSOC_PROPERTY.lineItemProduct) : undefined,
  };
}
