/**
 * @module The subscription types crm-edge emits (docs/reference/webhooks.md): each CRM object type's creation,
 * deletion, propertyChange (one property per subscription, no wildcard) and merge.
 */
import type { ObjectType } from "../../db/tables/crm";

/**
 * The CRM object type of the API (`contacts`) → its name in event types (`contact`). Activities and leads
 * have no classic subscription types on the real service.
 */
export const EVENT_OBJECT: Partial<Record<ObjectType, string>> = {
  contacts: "contact",
  companies: "company",
  deals: "deal",
  tickets: "ticket",
  products: "product",
  line_items: "line_item",
};

export const EVENT_KINDS = ["creation", "deletion", "propertyChange", "merge"] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export const EVENT_TYPES = Object.values(EVENT_OBJECT as Record<string, string>).flatMap((o) => EVENT_KINDS.map((k) => `${o}.${k}`));

export const isPropertyChange = (eventType: string) => eventType.endsWith(".propertyChange");

/** Where a change came from, as `changeSource` says. */
export type ChangeSource = "API" | "INTEGRATION";
