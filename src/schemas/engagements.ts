/**
 * @module zod schemas of the legacy engagements v1 API (`/engagements/v1/engagements`,
 * docs/reference/engagements.md), and the mapping it shares with its service: which v3 activity type
 * each v1 engagement type is, and which v3 property each metadata field is. An engagement is the v3
 * activity itself (the same `crm_objects` row), so the mapping is the whole of the v1 face's storage.
 */
import { z } from "zod";
import type { ActivityType } from "../db/tables/crm";

/** The v1 types a client may create or update, and the v3 activity type each one is stored as. */
export const WRITABLE_TYPES = {
  NOTE: "notes",
  TASK: "tasks",
  CALL: "calls",
  MEETING: "meetings",
  EMAIL: "emails",
  INCOMING_EMAIL: "emails",
  FORWARDED_EMAIL: "emails",
} as const satisfies Record<string, ActivityType>;
export type WritableType = keyof typeof WRITABLE_TYPES;
const WRITABLE = Object.keys(WRITABLE_TYPES) as [WritableType, ...WritableType[]];

/**
 * Every v1 type a read may answer. Communications and postal mail have no documented v1 type: the real
 * service shows engagement types it does not document for writing ("creating or editing them is not
 * supported"), and so does this one, under these names.
 */
export type EngagementType = WritableType | "COMMUNICATION" | "POSTAL_MAIL";

/** The v3 type → the v1 type (emails: their `hs_email_direction`, which is one of the three email types). */
export const V1_TYPE_OF: Record<ActivityType, EngagementType> = {
  notes: "NOTE",
  tasks: "TASK",
  calls: "CALL",
  meetings: "MEETING",
  emails: "EMAIL",
  communications: "COMMUNICATION",
  postal_mail: "POSTAL_MAIL",
};

/**
 * How a metadata field is stored in its v3 property: `text` as it is; `number` as its decimal string;
 * `time` (epoch milliseconds in v1) as the ISO 8601 time v3 datetime properties answer; `list` (of epoch
 * milliseconds, the task's reminders) joined with `;`, as the v3 property holds several values.
 */
export type FieldKind = "text" | "number" | "time" | "list";

/** One metadata field: its v1 key, its v3 property and how it is stored. */
export type MetadataField = readonly [key: string, property: string, kind: FieldKind];

/**
 * The metadata of each v1 type, field by field (docs/reference/engagements.md "Mapping"). Email addresses
 * (`from`, `to`, `cc`, `bcc`) are not in this table: together they are the JSON of `hs_email_headers`, as
 * on the real service.
 */
export const METADATA_FIELDS: Record<ActivityType, readonly MetadataField[]> = {
  notes: [["body", "hs_note_body", "text"]],
  tasks: [
    ["subject", "hs_task_subject", "text"],
    ["body", "hs_task_body", "text"],
    ["status", "hs_task_status", "text"],
    ["priority", "hs_task_priority", "text"],
    ["taskType", "hs_task_type", "text"],
    ["forObjectType", "hs_task_for_object_type", "text"],
    ["reminders", "hs_task_reminders", "list"],
    ["completionDate", "hs_task_completion_date", "time"],
  ],
  calls: [
    ["title", "hs_call_title", "text"],
    ["body", "hs_call_body", "text"],
    ["toNumber", "hs_call_to_number", "text"],
    ["fromNumber", "hs_call_from_number", "text"],
    ["status", "hs_call_status", "text"],
    ["durationMilliseconds", "hs_call_duration", "number"],
    ["recordingUrl", "hs_call_recording_url", "text"],
    ["disposition", "hs_call_disposition", "text"],
    ["externalId", "hs_call_external_id", "text"],
    ["externalAccountId", "hs_call_external_account_id", "text"],
  ],
  meetings: [
    ["title", "hs_meeting_title", "text"],
    ["body", "hs_meeting_body", "text"],
    ["startTime", "hs_meeting_start_time", "time"],
    ["endTime", "hs_meeting_end_time", "time"],
    ["internalMeetingNotes", "hs_internal_meeting_notes", "text"],
    ["meetingOutcome", "hs_meeting_outcome", "text"],
  ],
  emails: [
    ["subject", "hs_email_subject", "text"],
    ["html", "hs_email_html", "text"],
    ["text", "hs_email_text", "text"],
  ],
  communications: [
    ["body", "hs_communication_body", "text"],
    ["channelType", "hs_communication_channel_type", "text"],
    ["loggedFrom", "hs_communication_logged_from", "text"],
  ],
  postal_mail: [["body", "hs_postal_mail_body", "text"]],
};

/** The email fields kept together as the JSON of `hs_email_headers`. */
export const EMAIL_HEADER_KEYS = ["from", "to", "cc", "bcc"] as const;

/** The engagement fields stored in properties: `timestamp` and `ownerId`. */
export const ENGAGEMENT_FIELDS = { timestamp: "hs_timestamp", ownerId: "hubspot_owner_id" } as const;

// The real service limits a note's body to 65,536 characters; every text field here takes as much.
const text = z.string().max(65_536);
const ms = z.number().int().min(0).max(253_402_300_799_999);
const valueOf: Record<FieldKind, z.ZodType> = {
  text,
  number: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  time: ms,
  list: z.array(ms).max(100),
};
const address = z.object({ email: z.string().max(254).optional(), firstName: z.string().max(200).optional(), lastName: z.string().max(200).optional() });
const addresses = z.array(address).max(100);

/**
 * The metadata a write of one v3 type takes: its fields, each optional (a create may leave any out, as the
 * real service does) and null to clear it. Unknown keys are refused and named, so a misspelt field is never
 * silently dropped.
 */
export function metadataSchema(type: ActivityType) {
  const shape: Record<string, z.ZodType> = Object.fromEntries(METADATA_FIELDS[type].map(([key, , kind]) => [key, valueOf[kind].nullable().optional()]));
  if (type === "emails") Object.assign(shape, { from: address.nullable().optional(), to: addresses.nullable().optional(), cc: addresses.nullable().optional(), bcc: addresses.nullable().optional() });
  const known = Object.keys(shape).join(", ");
  return z.strictObject(shape, { error: (issue) => (issue.code === "unrecognized_keys" ? `${issue.keys.join(", ")}: not a metadata field of this engagement type (known: ${known})` : undefined) });
}

const id = z.number().int().min(1).max(999_999_999_999_999);
const ids = z.array(id).max(100);

/**
 * The `engagement` object of a write. Only `type`, `timestamp`, `ownerId` and `active` are read; the
 * read-only fields a client echoes from a read (`id`, `portalId`, `createdAt`, ...) are ignored, as the
 * real service ignores them.
 */
const engagementFields = {
  timestamp: ms.optional().meta({ description: "When the activity happened (epoch ms): hs_timestamp. Default on create: now" }),
  ownerId: id.nullable().optional().meta({ description: "hubspot_owner_id; null clears it" }),
  active: z.boolean().optional().meta({ description: "Accepted and not stored: a task is active until it is COMPLETED, anything else always is" }),
};

export const associationsInput = z
  .object({
    contactIds: ids.optional(),
    companyIds: ids.optional(),
    dealIds: ids.optional(),
    ticketIds: ids.optional(),
    ownerIds: ids.optional().meta({ description: "Accepted and not kept: the owner is engagement.ownerId" }),
  })
  .meta({ description: "The records to associate the new engagement with; each must be a live record of the account" });

const attachments = z.array(z.object({ id })).max(100).meta({ description: "File ids, kept in hs_attachment_ids" });

export const createBody = z.object({
  engagement: z.object({ type: z.enum(WRITABLE, { error: `engagement.type must be one of ${WRITABLE.join(", ")}` }), ...engagementFields }),
  associations: associationsInput.optional(),
  attachments: attachments.optional(),
  metadata: z.record(z.string(), z.unknown()).optional().meta({ description: "The type's fields (docs/reference/engagements.md \"Mapping\")" }),
});

/** A partial update: what is given is written, the rest is left; associations are not changed here (as on the real service). */
export const updateBody = z.object({
  engagement: z.object({ type: z.enum(WRITABLE, { error: `engagement.type must be one of ${WRITABLE.join(", ")}` }).optional(), ...engagementFields }).optional(),
  associations: z.record(z.string(), z.unknown()).optional().meta({ description: "Ignored: associations change through the association routes" }),
  attachments: attachments.optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export const engagementParams = z.object({ engagementId: z.string().regex(/^\d{1,15}$/, "engagementId must be a numeric id").transform(Number) });

/** The v1 names of the record types (`CONTACT`), in any case; the v3 names (`contacts`) are taken too. */
const RECORD_TYPES = { CONTACT: "contacts", COMPANY: "companies", DEAL: "deals", TICKET: "tickets" } as const;
export type RecordType = (typeof RECORD_TYPES)[keyof typeof RECORD_TYPES];
export const recordTypeParam = z
  .string()
  .max(20)
  .transform((v, ctx) => {
    const upper = v.toUpperCase();
    const found = (RECORD_TYPES as Record<string, RecordType>)[upper] ?? Object.values(RECORD_TYPES).find((t) => t === v.toLowerCase());
    if (!found) {
      ctx.addIssue({ code: "custom", message: `objectType must be one of ${Object.keys(RECORD_TYPES).join(", ")}` });
      return z.NEVER;
    }
    return found;
  });
const recordId = z.string().regex(/^\d{1,15}$/, "objectId must be a numeric id").transform(Number);
export const associatedParams = z.object({ objectType: recordTypeParam, objectId: recordId });
export const associationParams = engagementParams.extend({ objectType: recordTypeParam, objectId: recordId });

/** A page size: larger values are clamped to `max`, as the real service's legacy pages do; not a number is a 400. */
const pageSize = (name: string, fallback: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, `${name} must be a positive integer`)
    .transform((v) => Math.min(Math.max(Number(v), 1), max))
    .default(fallback);
const offset = z.string().regex(/^\d{1,15}$/, "offset must be the offset of the previous page").transform(Number).optional();

export const PAGED_MAX = 250;
export const ASSOCIATED_MAX = 100;
export const RECENT_MAX = 100;
export const pagedQuery = z.object({ limit: pageSize("limit", 100, PAGED_MAX).meta({ description: "Default 100, at most 250" }), offset });
export const associatedQuery = z.object({ limit: pageSize("limit", 10, ASSOCIATED_MAX).meta({ description: "Default 10, at most 100" }), offset });
export const recentQuery = z.object({
  count: pageSize("count", 20, RECENT_MAX).meta({ description: "Default 20, at most 100" }),
  offset,
  since: z.string().regex(/^\d{1,15}$/, "since must be a time in epoch milliseconds").transform(Number).optional().meta({ description: "Only engagements modified at or after this time (epoch ms)" }),
});

const addressOut = z.object({ email: z.string().optional(), firstName: z.string().optional(), lastName: z.string().optional() });
export const engagementResponse = z
  .object({
    engagement: z.object({
      id: z.number(),
      portalId: z.number(),
      active: z.boolean(),
      createdAt: z.number(),
      lastUpdated: z.number(),
      type: z.string(),
      timestamp: z.number(),
      ownerId: z.number().optional(),
    }),
    associations: z.object({ contactIds: z.array(z.number()), companyIds: z.array(z.number()), dealIds: z.array(z.number()), ownerIds: z.array(z.number()), ticketIds: z.array(z.number()) }),
    attachments: z.array(z.object({ id: z.number() })),
    metadata: z
      .record(z.string(), z.union([z.string(), z.number(), z.array(z.number()), addressOut, z.array(addressOut)]))
      .meta({ description: "The type's fields that have a value (docs/reference/engagements.md \"Mapping\")" }),
  })
  .meta({ id: "Engagement" });
export type EngagementOut = z.infer<typeof engagementResponse>;

export const pageResponse = z.object({ results: z.array(engagementResponse), hasMore: z.boolean(), offset: z.number() });
export const recentResponse = pageResponse.extend({ total: z.number() });
