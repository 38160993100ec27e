/** @module zod schemas of the app webhooks API `/webhooks/v3/{appId}` (docs/reference/webhooks.md). */
import { z } from "zod";
import { DELIVERY_STATUSES } from "../../db/tables/webhooks";
import { CUSTOM_TYPE } from "../../db/tables/crm";
import { EVENT_TYPES, GENERIC_EVENT_TYPES, GENERIC_TYPE_IDS, isGeneric, isPropertyChange } from "./event-types";

const numericId = z.union([z.number(), z.string().regex(/^\d{1,15}$/, "must be a numeric id").transform(Number)]).pipe(z.number().int().positive());

export const appParams = z.object({ appId: numericId });
export const subscriptionParams = z.object({ appId: numericId, subscriptionId: numericId });
export const deliveryParams = z.object({ appId: numericId, deliveryId: numericId });

const absoluteUrl = z
  .string({ error: "targetUrl must be a string" })
  .max(2048)
  .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), "targetUrl must be an absolute http(s) URL");

export const settingsBody = z.object({
  targetUrl: absoluteUrl,
  throttling: z.object({
    maxConcurrentRequests: z.number({ error: "maxConcurrentRequests must be a positive integer" }).int("maxConcurrentRequests must be a positive integer").positive("maxConcurrentRequests must be a positive integer").max(1000),
    period: z.enum(["SECONDLY", "ROLLING_MINUTE"]).optional(),
  }),
});
export type SettingsBody = z.output<typeof settingsBody>;

export const settingsResponse = z.object({
  targetUrl: z.string(),
  throttling: z.object({ maxConcurrentRequests: z.number().int(), period: z.string().optional() }),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const ALL_EVENT_TYPES = [...EVENT_TYPES, ...GENERIC_EVENT_TYPES];
const eventType = z.enum(ALL_EVENT_TYPES as [string, ...string[]], { error: `eventType must be one of ${ALL_EVENT_TYPES.join(", ")}` });
const propertyName = z.string().min(1).max(200);
const TYPE_ID_LIST = [...GENERIC_TYPE_IDS].map(([id, type]) => `${id} (${type})`).join(", ");

/**
 * A generic `object.*` type names its object type by `objectTypeId` (the official client's
 * SubscriptionCreateRequest carries it); a classic type (`contact.creation`) names it in the type and takes none.
 */
export const createSubscriptionBody = z
  .object({ eventType, propertyName: propertyName.optional(), active: z.boolean().optional(), objectTypeId: z.string().max(20).optional() })
  .superRefine((b, ctx) => {
    if (isPropertyChange(b.eventType) && !b.propertyName) ctx.addIssue({ code: "custom", path: ["propertyName"], message: "propertyName is required for a propertyChange subscription" });
    if (!isPropertyChange(b.eventType) && b.propertyName) ctx.addIssue({ code: "custom", path: ["propertyName"], message: "propertyName is only allowed on a propertyChange subscription" });
    if (isGeneric(b.eventType) && !b.objectTypeId) ctx.addIssue({ code: "custom", path: ["objectTypeId"], message: `objectTypeId is required for ${b.eventType}: one of ${TYPE_ID_LIST}` });
    else if (isGeneric(b.eventType) && !GENERIC_TYPE_IDS.has(b.objectTypeId!) && !CUSTOM_TYPE.test(b.objectTypeId!))
      ctx.addIssue({ code: "custom", path: ["objectTypeId"], message: `objectTypeId must be one of ${TYPE_ID_LIST}, or a custom object type id (2-<n>); other object types have their own event types (contact.creation, …)` });
    if (!isGeneric(b.eventType) && b.objectTypeId !== undefined) ctx.addIssue({ code: "custom", path: ["objectTypeId"], message: "objectTypeId is only allowed on an object.* subscription" });
  });

export const patchSubscriptionBody = z.object({ active: z.boolean() });

export const subscriptionResponse = z.object({
  id: z.string(),
  eventType: z.string(),
  objectTypeId: z.string().optional(),
  propertyName: z.string().optional(),
  active: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const subscriptionList = z.object({ results: z.array(subscriptionResponse) });

export const batchUpdateBody = z.object({
  inputs: z.array(z.object({ id: numericId, active: z.boolean() })).min(1).max(100),
});
export const batchUpdateResponse = z.object({
  status: z.literal("COMPLETE"),
  results: z.array(subscriptionResponse),
  startedAt: z.string(),
  completedAt: z.string(),
  numErrors: z.number().int().optional(),
  errors: z.array(z.object({ status: z.string(), category: z.string(), message: z.string(), context: z.record(z.string(), z.array(z.string())) })).optional(),
});

export const deliveriesQuery = z.object({
  limit: z.union([z.number(), z.string().regex(/^\d+$/, "limit must be a number").transform(Number)]).pipe(z.number().int().min(1).max(100)).default(20),
  /** `paging.next.before` of the previous page (opaque; a delivery id is read as "below that id"). */
  before: z.string().min(1).max(200).optional(),
  status: z.enum(DELIVERY_STATUSES).optional(),
});

export const deliveryResponse = z.object({
  id: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  eventCount: z.number().int(),
  eventIds: z.array(z.number().int()),
  attempts: z.array(z.object({ attemptNumber: z.number().int(), statusCode: z.number().int().nullable(), durationMs: z.number().int(), error: z.string().nullable(), at: z.string() })),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const deliveryList = z.object({
  results: z.array(deliveryResponse),
  paging: z.object({ next: z.object({ before: z.string() }) }).optional(),
  /** Databases of the app's log that could not be read for this page (their deliveries are missing from it). */
  unavailableShards: z.array(z.string()).optional(),
});
