/**
 * @module Fixed facts of the ecommerce bridge: object types and their CRM types, the v1 association
 * properties, the ecommerce pipeline and its abandonment time, and the sunset dates. Required mappings and
 * sync error types are in src/schemas/ecomm.ts.
 */
import type { ObjectType } from "../../db/tables/crm";
import type { EcommObjectType } from "../../db/tables/ecomm";

export const CRM_TYPE: Record<EcommObjectType, ObjectType> = {
  CONTACT: "contacts",
  PRODUCT: "products",
  DEAL: "deals",
  LINE_ITEM: "line_items",
};


/** v1-style association properties (the bridge's v1 had no `associations` map): they name associated objects, never stored. */
export const ASSOC_PROPERTY = {
  dealContacts: "hs_assoc__contact_ids",
  lineItemDeal: "hs_assoc__deal_id",
  lineItemProduct: "hs_assoc__product_id",
} as const;

export const PIPELINE_ID = "ecommerce";
export const PIPELINE_LABEL = "Ecommerce Pipeline";

/**
 * The ecommerce pipeline's six stages, in display order: every deal the bridge syncs has one. The
 * pipelines API answers each with its win probability and whether it closes the deal (a completed,
 * processed or shipped order is won, a cancelled one lost).
 */
export const PIPELINE_STAGES = [
  { stageId: "checkout_abandoned", label: "Checkout Abandoned", probability: "0.1", isClosed: false },
  { stageId: "checkout_pending", label: "Checkout Pending", probability: "0.5", isClosed: false },
  { stageId: "checkout_completed", label: "Checkout Completed", probability: "1.0", isClosed: true },
  { stageId: "processed", label: "Processed", probability: "1.0", isClosed: true },
  { stageId: "shipped", label: "Shipped", probability: "1.0", isClosed: true },
  { stageId: "cancelled", label: "Cancelled", probability: "0.0", isClosed: true },
] as const;

/** A deal still in checkout_pending 24 hours after it entered it becomes checkout_abandoned. */
export const ABANDON_AFTER_MS = 24 * 60 * 60 * 1000;


/**
 * The real bridge is retired; this one keeps working. RFC 9745 `Deprecation` (structured date: no new
 * developers from 14 July 2022) and RFC 8594 `Sunset` (1 December 2022) go on every bridge response.
 */
export const SUNSET_HEADERS: Record<string, string> = {
  deprecation: `@${Date.UTC(2022, 6, 14) / 1000}`,
  sunset: "Thu, 01 Dec 2022 00:00:00 GMT",
};
