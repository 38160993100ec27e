/**
 * @module The webhook queue's message (versioned): one delivery, i.e. up to 100 events of one app, and the
 * attempt it is at. Retries send the same events again with `attempt` + 1 (docs/reference/webhooks.md "Retries").
 */
import { z } from "zod";

export const WEBHOOK_MESSAGE_VERSION = 1;
/** Events per POST, as the real service ("up to 100 events"). */
export const MAX_EVENTS_PER_DELIVERY = 100;

/** An event as delivered, without `attemptNumber` (added per attempt). Ids and times are JSON numbers. */
export const webhookEvent = z.object({
  eventId: z.number().int(),
  subscriptionId: z.number().int(),
  portalId: z.number().int(),
  appId: z.number().int(),
  occurredAt: z.number().int(),
  subscriptionType: z.string(),
  objectId: z.number().int(),
  changeSource: z.string(),
  /** Generic `object.*` events only (activities, leads): the object type id, `0-46`. Optional, so messages queued before it existed still parse. */
  objectTypeId: z.string().optional(),
  propertyName: z.string().optional(),
  propertyValue: z.string().optional(),
  primaryObjectId: z.number().int().optional(),
  mergedObjectIds: z.array(z.number().int()).optional(),
  /** `*.merge` only; optional, so messages queued before they existed still parse. */
  newObjectId: z.number().int().optional(),
  numberOfPropertiesMoved: z.number().int().optional(),
  /** `*.associationChange` only (`CONTACT_TO_COMPANY`); optional, so messages queued before it existed still parse. */
  associationType: z.string().optional(),
  fromObjectId: z.number().int().optional(),
  toObjectId: z.number().int().optional(),
  associationRemoved: z.boolean().optional(),
  isPrimaryAssociation: z.boolean().optional(),
});
export type WebhookEvent = z.infer<typeof webhookEvent>;

export const webhookQueueMessage = z.object({
  v: z.literal(WEBHOOK_MESSAGE_VERSION),
  appId: z.number().int(),
  /**
   * The account whose events these are (one per delivery): its delivery log holds the row. Absent on a
   * message of a delivery of the control plane's older log (opened before the log was stored with the
   * accounts), whose attempts are recorded there.
   */
  portalId: z.number().int().optional(),
  /** The delivery log row, once the first attempt made it; null before. */
  deliveryId: z.number().int().nullable(),
  /** attemptNumber of the next POST: 0 first, + 1 per retry. */
  attempt: z.number().int().min(0),
  events: z.array(webhookEvent).min(1).max(MAX_EVENTS_PER_DELIVERY),
});
export type WebhookQueueMessage = z.infer<typeof webhookQueueMessage>;

/** The body of one attempt: the events with their attemptNumber, fields in the documented order. */
export function deliveryBody(events: WebhookEvent[], attempt: number): string {
  return JSON.stringify(
    events.map((e) => ({
      eventId: e.eventId,
      subscriptionId: e.subscriptionId,
      portalId: e.portalId,
      appId: e.appId,
      occurredAt: e.occurredAt,
      subscriptionType: e.subscriptionType,
      attemptNumber: attempt,
      objectId: e.objectId,
      ...(e.objectTypeId !== undefined ? { objectTypeId: e.objectTypeId } : {}),
      changeSource: e.changeSource,
      ...(e.propertyName !== undefined ? { propertyName: e.propertyName, propertyValue: e.propertyValue ?? "" } : {}),
      ...(e.primaryObjectId !== undefined ? { primaryObjectId: e.primaryObjectId, mergedObjectIds: e.mergedObjectIds ?? [] } : {}),
      ...(e.newObjectId !== undefined ? { newObjectId: e.newObjectId } : {}),
      ...(e.numberOfPropertiesMoved !== undefined ? { numberOfPropertiesMoved: e.numberOfPropertiesMoved } : {}),
      ...(e.associationType !== undefined
        ? { associationType: e.associationType, fromObjectId: e.fromObjectId, toObjectId: e.toObjectId, associationRemoved: e.associationRemoved ?? false, isPrimaryAssociation: e.isPrimaryAssociation ?? false }
        : {}),
    })),
  );
}
