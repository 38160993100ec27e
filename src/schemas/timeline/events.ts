/** @module zod schemas of the timeline API (docs/reference/timeline.md) and the rendered record timeline. */
import { z } from "zod";
import { PROPERTY_TYPES, TIMELINE_OBJECT_TYPES } from "../../db/tables/timeline";
import { idParam } from "../crm/objects";

export const MAX_PROPERTIES_PER_TYPE = 500;


/** Numeric ids arrive as numbers or numeric strings (the docs' examples send `"applicationId": "123"`). */
export const numericId = z
  .union([z.number().int().positive().max(Number.MAX_SAFE_INTEGER), z.string().regex(/^\d{1,15}$/, "must be a numeric id")])
  .transform(Number);

/** The HTML form rule for emails: clients' test data such as `a@b.c` must pass. */
const emailField = z.email({ pattern: z.regexes.html5Email, error: "must be a valid email address" }).max(254);

export const appParams = z.object({ appId: idParam });
export const eventTypeParams = appParams.extend({ eventTypeId: idParam });
export const propertyParams = eventTypeParams.extend({ propertyId: idParam });
/** Event ids are any string, so they arrive percent-encoded; the router leaves them encoded. */
const eventIdParam = z
  .string()
  .transform((raw, ctx) => {
    try {
      return decodeURIComponent(raw);
    } catch {
      ctx.addIssue({ code: "custom", message: "eventId is not a valid percent-encoded string" });
      return z.NEVER;
    }
  })
  .pipe(z.string().min(1).max(512));
export const eventParams = eventTypeParams.extend({ eventId: eventIdParam });

// ---------------------------------------------------------------------------------------------------------
// Event types

const objectType = z
  .string()
  .transform((s) => s.toUpperCase())
  .pipe(z.enum(TIMELINE_OBJECT_TYPES, { error: `objectType must be one of ${TIMELINE_OBJECT_TYPES.join(", ")}` }));
const templateText = z.string().max(65_536).nullable().optional();
const typeName = z.string().trim().min(1, "name is required").max(255);

/** Unknown fields real clients send (e.g. `url`, `id`) are accepted and ignored. */
export const createEventTypeBody = z.object({
  name: typeName,
  applicationId: numericId.optional(),
  objectType: objectType.default("CONTACT"),
  headerTemplate: templateText,
  detailTemplate: templateText,
});

export const updateEventTypeBody = z.object({
  name: typeName.optional(),
  applicationId: numericId.optional(),
  objectType: objectType.optional(),
  headerTemplate: templateText,
  detailTemplate: templateText,
});

export const eventTypeResponse = z.object({
  id: z.number().int(),
  name: z.string(),
  headerTemplate: z.string().nullable(),
  detailTemplate: z.string().nullable(),
  applicationId: z.number().int(),
  objectType: z.enum(TIMELINE_OBJECT_TYPES),
  /** Contact event types can be used in lists and workflows; company and deal types cannot. */
  usableInLists: z.boolean(),
});
export const eventTypeList = z.array(eventTypeResponse);

// ---------------------------------------------------------------------------------------------------------
// Properties

/** Top-level keys of an event: a property with one of these names could never be sent. */
export const EVENT_FIELDS = ["id", "eventTypeId", "email", "objectId", "utk", "timestamp", "extraData", "timelineIFrame", "objectType"];
/** Reserved property names: they are helpers of the template language (Handlebars). */
export const RESERVED_NAMES = ["log", "lookup"];
/** Record properties the system maintains; stamping onto them would corrupt identity or audit fields. */
export const UNSTAMPABLE = ["email", "hs_object_id", "createdate", "lastmodifieddate"];

const propertyName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_-]{0,99}$/, "a property name starts with a letter or _ and has letters, digits, _ or - (at most 100)")
  .refine((n) => !RESERVED_NAMES.includes(n.toLowerCase()), { error: "log and lookup are reserved property names" })
  .refine((n) => !EVENT_FIELDS.includes(n), { error: `a property cannot be named like an event field (${EVENT_FIELDS.join(", ")})` });

const recordProperty = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,100}$/, "objectProperty must be a CRM property name")
  .refine((n) => !UNSTAMPABLE.includes(n), { error: `objectProperty cannot be ${UNSTAMPABLE.join(", ")}` })
  .nullable()
  .optional();

const option = z.object({ label: z.string().min(1).max(255), value: z.string().min(1).max(255) });
const options = z
  .array(option)
  .max(1000)
  .nullable()
  .optional()
  .refine((list) => !list || new Set(list.map((o) => o.value)).size === list.length, { error: "option values must be unique" });

const propertyFields = {
  label: z.string().min(1).max(255),
  propertyType: z.enum(PROPERTY_TYPES, { error: `propertyType must be one of ${PROPERTY_TYPES.join(", ")}` }),
  options,
  objectProperty: recordProperty,
  /** The legacy name of objectProperty; either is accepted. */
  contactProperty: recordProperty,
};

type Stamp = { objectProperty?: string | null; contactProperty?: string | null };
const sameStamp = (p: Stamp) =>
  p.objectProperty === undefined || p.contactProperty === undefined || p.objectProperty === p.contactProperty;
const stampOf = (p: Stamp) => (p.objectProperty !== undefined ? p.objectProperty : p.contactProperty);

export const createPropertyBody = z
  .object({ name: propertyName, ...propertyFields })
  .refine(sameStamp, { error: "objectProperty and contactProperty differ", path: ["objectProperty"] })
  .transform((p) => ({
    name: p.name,
    label: p.label,
    propertyType: p.propertyType,
    options: p.options ?? [],
    objectProperty: stampOf(p) ?? null,
  }));

/** As in the real service, the property to update is named by `id` in the body, not the path. */
export const updatePropertyBody = z
  .object({
    id: numericId,
    eventTypeId: numericId.optional(),
    name: z.string().optional(),
    label: propertyFields.label.optional(),
    propertyType: propertyFields.propertyType.optional(),
    options,
    objectProperty: recordProperty,
    contactProperty: recordProperty,
  })
  .refine(sameStamp, { error: "objectProperty and contactProperty differ", path: ["objectProperty"] })
  .transform((p) => ({
    id: p.id,
    eventTypeId: p.eventTypeId,
    name: p.name,
    label: p.label,
    propertyType: p.propertyType,
    options: p.options === undefined ? undefined : (p.options ?? []),
    objectProperty: stampOf(p),
  }));

export const propertyResponse = z.object({
  id: z.number().int(),
  name: z.string(),
  label: z.string(),
  propertyType: z.enum(PROPERTY_TYPES),
  eventTypeId: z.number().int(),
  options: z.array(option),
  objectProperty: z.string().nullable(),
  contactProperty: z.string().nullable(),
});
export const propertyList = z.array(propertyResponse);

// ---------------------------------------------------------------------------------------------------------
// Events

export const iframeSchema = z.object({
  linkLabel: z.string().min(1).max(255),
  iframeLabel: z.string().min(1).max(255),
  iframeUri: z.url({ protocol: /^https?$/, error: "iframeUri must be an http(s) URI" }).max(2048),
  width: z.number().int().min(1).max(10_000),
  height: z.number().int().min(1).max(10_000),
});

const epochMs = z
  .union([z.number().int(), z.string().regex(/^-?\d{1,15}$/, "timestamp must be epoch milliseconds")])
  .transform(Number)
  .refine((n) => Math.abs(n) <= 8.64e15, "timestamp out of range");

/**
 * One event. Custom property values are top-level keys, so unknown keys are kept here and sorted out
 * against the event type's properties by the service (keys that are not properties are ignored).
 */
export const eventBody = z.looseObject({
  id: z.string().min(1, "id is required").max(512),
  eventTypeId: numericId,
  email: emailField.nullable().optional(),
  objectId: numericId.nullable().optional(),
  utk: z.string().min(1).max(256).nullable().optional(),
  timestamp: epochMs.nullable().optional(),
  extraData: z.unknown().optional(),
  timelineIFrame: iframeSchema.nullable().optional(),
});
export type EventInput = z.infer<typeof eventBody>;

/** Up to 100 events per batch, the real service's documented limit. */
export const MAX_BATCH_EVENTS = 100;
export const batchBody = z.object({
  eventWrappers: z.array(eventBody).min(1, "eventWrappers must hold at least one event").max(MAX_BATCH_EVENTS, `at most ${MAX_BATCH_EVENTS} events per batch`),
});

export const eventResponse = z
  .object({
    id: z.string(),
    eventTypeId: z.number().int(),
    objectId: z.number().int().nullable(),
    email: z.string().optional(),
    utk: z.string().optional(),
    timestamp: z.number().int(),
    extraData: z.unknown().optional(),
    timelineIFrame: iframeSchema.optional(),
  })
  .catchall(z.string());

// ---------------------------------------------------------------------------------------------------------
// Visitor identification and rendered timelines

export const identifyBody = z.object({ utk: z.string().min(1).max(256), email: emailField });
export const identifyResponse = z.object({ utk: z.string(), vid: z.number().int() });

export const TIMELINE_RECORD_TYPES = ["contacts", "companies", "deals"] as const;
export const timelineParams = z.object({
  objectType: z.enum(TIMELINE_RECORD_TYPES, { error: `objectType must be one of ${TIMELINE_RECORD_TYPES.join(", ")}` }),
  objectId: idParam,
});
export const timelineQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  after: z.string().regex(/^-?\d{1,16}\.\d{1,15}$/, "after must be a cursor from paging.next.after").optional(),
});
export const timelineResponse = z.object({
  results: z.array(
    z.object({
      id: z.string(),
      eventTypeId: z.number().int(),
      eventTypeName: z.string(),
      timestamp: z.number().int(),
      headerHtml: z.string(),
      detailHtml: z.string(),
      timelineIFrame: iframeSchema.optional(),
    }),
  ),
  paging: z.object({ next: z.object({ after: z.string(), link: z.string() }) }).optional(),
});
