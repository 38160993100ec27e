/**
 * @module The subscription types crm-edge emits (docs/reference/webhooks.md): each CRM object type's creation,
 * deletion, propertyChange (one property per subscription, no wildcard), merge and associationChange, and the generic
 * `object.*` types with an `objectTypeId`, through which the real service offers activities and leads.
 */
import { ACTIVITY_TYPES, type ObjectType } from "../../db/tables/crm";
import { TYPE_IDS } from "../crm/associations-v4";

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

/**
 * `contact.privacyDeletion`: a contact deleted for privacy compliance (`POST /crm/v3/objects/contacts/gdpr-delete`),
 * a subscription type of contacts only on the real service.
 */
export const PRIVACY_DELETION = "contact.privacyDeletion";

/**
 * The object types with an `associationChange` subscription type on the real service: every classic type
 * but products (its subscription types table gives products none).
 */
export const ASSOCIATION_EVENT_OBJECTS = ["contact", "company", "deal", "ticket", "line_item"] as const;
export const associationChangeOf = (object: string) => `${object}.associationChange`;

export const EVENT_TYPES = [
  ...Object.values(EVENT_OBJECT as Record<string, string>).flatMap((o) => EVENT_KINDS.map((k) => `${o}.${k}`)),
  ...ASSOCIATION_EVENT_OBJECTS.map(associationChangeOf),
  PRIVACY_DELETION,
];

/**
 * The generic subscription types (`objectTypeId` says of which object type) that crm-edge emits. The real
 * service also has `object.merge` and `object.restore`; activities and leads are never merged here, and no
 * type is restored.
 */
export const GENERIC_EVENT_TYPES = ["object.creation", "object.deletion", "object.propertyChange", "object.associationChange"] as const;
export const isGeneric = (eventType: string) => eventType.startsWith("object.");

/** The object types whose events come only through generic subscriptions: activities and leads. */
export const GENERIC_OBJECT_TYPES = [...ACTIVITY_TYPES, "leads"] as const satisfies readonly ObjectType[];
/** Their `objectTypeId`s (`0-46` notes, `0-27` tasks, …), as the CRM API names them too. */
export const GENERIC_TYPE_IDS: ReadonlyMap<string, ObjectType> = new Map(GENERIC_OBJECT_TYPES.map((t) => [TYPE_IDS[t], t]));

/**
 * How a generic subscription is stored (webhook_subscriptions.event_type) and matched: the event type and
 * the object type id in one key, `object.creation/0-46`. One column keeps "one subscription per event type
 * and property" a single comparison, and the targets read unchanged. Classic types are stored as they are.
 */
export const subscriptionKey = (eventType: string, objectTypeId?: string | null) => (objectTypeId ? `${eventType}/${objectTypeId}` : eventType);
export function parseSubscriptionKey(key: string): { eventType: string; objectTypeId?: string } {
  const at = key.indexOf("/");
  return at < 0 ? { eventType: key } : { eventType: key.slice(0, at), objectTypeId: key.slice(at + 1) };
}

export const isPropertyChange = (eventType: string) => parseSubscriptionKey(eventType).eventType.endsWith(".propertyChange");

/** Where a change came from, as `changeSource` says: `CRM` is a signed-in user in the web app, as the real service names its own UI. */
export type ChangeSource = "API" | "INTEGRATION" | "CRM";
