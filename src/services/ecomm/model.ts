/**
 * @module Fixed facts of the ecommerce bridge: object types and their CRM types, required properties
 * (spec 2.2), the ecommerce pipeline (spec 3), sync error types (reference §3.6) and the sunset dates (spec 9.2).
 */
import type { ObjectType } from "../../db/tables/crm";
import type { EcommObjectType } from "../../db/tables/ecomm";

export const CRM_TYPE: Record<EcommObjectType, ObjectType> = {
  CONTACT: "contacts",
  PRODUCT: "products",
  DEAL: "deals",
  LINE_ITEM: "line_items",
};


/** v1-style association properties (reference §3.4): they name associated objects and are never stored. */
export const ASSOC_PROPERTY = {
  dealContacts: "hs_assoc__contact_ids",
  lineItemDeal: "hs_assoc__deal_id",
  lineItemProduct: "hs_assoc__product_id",
} as const;

export const PIPELINE_ID = "ecommerce";
export const PIPELINE_LABEL = "Ecommerce Pipeline";

/** spec 3: the six stages, in display order. */
export const PIPELINE_STAGES = [
  { stageId: "checkout_abandoned", label: "Checkout Abandoned" },
  { stageId: "checkout_pending", label: "Checkout Pending" },
  { stageId: "checkout_completed", label: "Checkout Completed" },
  { stageId: "processed", label: "Processed" },
  { stageId: "shipped", label: "Shipped" },
  { stageId: "cancelled", label: "Cancelled" },
] as const;

/** spec 3, spec 8: checkout_pending becomes checkout_abandoned after 24 hours. */
export const ABANDON_AFTER_MS = 24 * 60 * 60 * 1000;


/**
 * spec 9.2: the bridge is retired but keeps working. RFC 9745 `Deprecation` (structured date: no new
 * developers from 14 July 2022) and RFC 8594 `Sunset` (1 December 2022) go on every bridge response.
 */
export const SUNSET_HEADERS: Record<string, string> = {
  deprecation: `@${Date.UTC(2022, 6, 14) / 1000}`,
  sunset: "Thu, 01 Dec 2022 00:00:00 GMT",
};
