/** @module zod schemas of the ecommerce bridge `/extensions/ecomm/v2` (docs/reference/ecomm.md). */
import { z } from "zod";
import { DATA_TYPES, ECOMM_OBJECT_TYPES, SYNC_ERROR_STATUSES, type EcommObjectType } from "../db/tables/ecomm";

import { propertyName } from "./crm/objects";

/** The properties each object type must map before `enabled` can be true. */
export const REQUIRED_MAPPINGS: Record<EcommObjectType, string[]> = {
  CONTACT: ["email"],
  PRODUCT: [],
  DEAL: ["dealstage"],
  LINE_ITEM: ["hs_assoc__deal_id", "hs_assoc__product_id"],
};

/**
 * Sync error types: the real service's v2 list is documented only in part, so this is its full v1 list (a
 * superset), plus v2's INVALID_ASSOCIATION and our own ERROR_INVALID_NUMBER_PROPERTY.
 */
export const SYNC_ERROR_TYPES = [
  "UNKNOWN_ERROR",
  "INACTIVE_PORTAL",
  "NO_SYNC_SETTINGS",
  "SETTINGS_NOT_ENABLED",
  "BAD_SETTINGS",
  "EMPTY_MESSAGE",
  "NO_MAPPINGS_DEFINED",
  "MISSING_REQUIRED_PROPERTY",
  "NO_PROPERTIES_DEFINED",
  "NO_DEFINED_PROPERTIES",
  "INVALID_ASSOCIATION",
  "INVALID_ASSOCIATION_PROPERTY",
  "MISSING_ASSOCIATED_OBJECT",
  "INVALID_DEAL_STAGE",
  "INVALID_EMAIL_ADDRESS",
  "PORTAL_NOT_SYNC_ENABLED",
  "CREATE_FAIL_NO_INFO",
  "UPDATE_FAIL_NO_INFO",
  "DELETE_FAIL_NO_INFO",
  "INVALID_ENUM_PROPERTY",
  "ERROR_INVALID_DATE_PROPERTY",
  "ERROR_INVALID_NUMBER_PROPERTY",
] as const;
export type SyncErrorType = (typeof SYNC_ERROR_TYPES)[number];


export const ecommObjectType = z.enum(ECOMM_OBJECT_TYPES, { error: `objectType must be one of ${ECOMM_OBJECT_TYPES.join(", ")}` });

/** Path segments arrive percent-encoded (itty-router does not decode); a malformed escape is a 400. */
const decoded = z.string().transform((s, ctx) => {
  try {
    return decodeURIComponent(s);
  } catch {
    ctx.addIssue({ code: "custom", message: "is not a valid percent-encoded path segment" });
    return z.NEVER;
  }
});

const numericId = z.string().regex(/^\d{1,15}$/, "must be a numeric id").transform(Number);

// ---------------------------------------------------------------------------------------------- settings

/** A property mapping. `hubspotPropertyName` is the legacy spelling real clients send. */
const mappingInput = z
  .object({
    externalPropertyName: z.string().min(1).max(200),
    servicePropertyName: propertyName.optional(),
    hubspotPropertyName: propertyName.optional(),
    dataType: z.enum(DATA_TYPES, { error: `dataType must be one of ${DATA_TYPES.join(", ")}` }).default("STRING"),
  })
  .refine((m) => m.servicePropertyName ?? m.hubspotPropertyName, {
    message: "servicePropertyName is required",
    path: ["servicePropertyName"],
  })
  .transform((m) => ({
    externalPropertyName: m.externalPropertyName,
    servicePropertyName: (m.servicePropertyName ?? m.hubspotPropertyName)!,
    dataType: m.dataType,
  }));

const typeMappings = z.object({ properties: z.array(mappingInput).max(200) });

const mappingsInput = z
  .object({
    CONTACT: typeMappings.optional(),
    PRODUCT: typeMappings.optional(),
    DEAL: typeMappings.optional(),
    LINE_ITEM: typeMappings.optional(),
  })
  .strict();

/** Settings with their mapping rules; unknown top-level fields real clients send, such as `importOnInstall`, are dropped. */
export const settingsBody = z
  .object({
    enabled: z.boolean(),
    webhookUri: z.string().min(1).max(2048).nullable().optional(),
    mappings: mappingsInput,
  })
  .superRefine((s, ctx) => {
    for (const type of ECOMM_OBJECT_TYPES) {
      const props = s.mappings[type]?.properties ?? [];
      const seenExternal = new Set<string>();
      const seenService = new Set<string>();
      let avatars = 0;
      props.forEach((p, i) => {
        const at = ["mappings", type, "properties", i];
        if (seenExternal.has(p.externalPropertyName)) {
          ctx.addIssue({ code: "custom", path: [...at, "externalPropertyName"], message: `${p.externalPropertyName} is mapped twice` });
        }
        if (seenService.has(p.servicePropertyName)) {
          ctx.addIssue({ code: "custom", path: [...at, "servicePropertyName"], message: `${p.servicePropertyName} is mapped twice` });
        }
        seenExternal.add(p.externalPropertyName);
        seenService.add(p.servicePropertyName);
        if (p.dataType === "AVATAR_IMAGE") {
          avatars += 1;
          if (type !== "PRODUCT") {
            ctx.addIssue({ code: "custom", path: [...at, "dataType"], message: "AVATAR_IMAGE is allowed only on PRODUCT mappings" });
          } else if (avatars > 1) {
            ctx.addIssue({ code: "custom", path: [...at, "dataType"], message: "at most one PRODUCT mapping may be AVATAR_IMAGE" });
          }
        }
      });
      if (s.enabled) {
        const missing = REQUIRED_MAPPINGS[type].filter((name) => !seenService.has(name));
        if (missing.length) {
          ctx.addIssue({
            code: "custom",
            path: ["mappings", type],
            message: `enabled is true but the required ${type} properties ${missing.join(", ")} are not mapped`,
          });
        }
      }
    }
  });
export type SettingsInput = z.output<typeof settingsBody>;

export const settingsQuery = z.object({
  appId: numericId.optional(),
  // Accepted and ignored (the hubspot3 client always sends it).
  showProvidedMappings: z.union([z.string(), z.array(z.string())]).optional().meta({ description: "Accepted and ignored (hubspot3 always sends it)" }),
});

const mappingOut = z.object({ externalPropertyName: z.string(), servicePropertyName: z.string(), dataType: z.enum(DATA_TYPES) });
export const settingsResponse = z.object({
  enabled: z.boolean(),
  webhookUri: z.string().nullable(),
  mappings: z.partialRecord(ecommObjectType, z.object({ properties: z.array(mappingOut) })),
});

// ------------------------------------------------------------------------------------------------ stores

/** Store ids appear in paths, so they are limited to characters a path segment carries unencoded. */
export const storeIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9!$&'()*+,;=:@._~-]{1,100}$/, "store ids are 1 to 100 letters, digits or - . _ ~ ! $ & ' ( ) * + , ; = : @");

export const storeBody = z.object({
  id: storeIdSchema,
  label: z.string().trim().min(1, "label is required").max(255),
  adminUri: z.url({ protocol: /^https?$/, error: "adminUri must be an absolute http(s) URI" }).max(2048).nullable().optional(),
});
export const storeParams = z.object({ storeId: decoded.pipe(storeIdSchema) });
export const storeResponse = z.object({ id: z.string(), label: z.string(), adminUri: z.string().optional() });
export const storeListResponse = z.object({ results: z.array(storeResponse) });

export const importResponse = z.object({
  storeId: z.string(),
  importStartedAt: z.number(),
  outcome: z.enum(["DELIVERED", "REJECTED", "FAILED"]),
  httpStatus: z.number().nullable(),
  detail: z.string().nullable(),
  counts: z.record(z.string(), z.number()).nullable(),
});

// -------------------------------------------------------------------------------------------------- sync

/** At most 100 ASCII characters (printable, so every id fits a status path once encoded). */
const externalId = z
  .string({ error: "externalObjectId must be a string" })
  .regex(/^[\x20-\x7e]{1,100}$/, "externalObjectId must be 1 to 100 printable ASCII characters");

/** Epoch ms as a number or a numeric string. */
const epochMs = z.union(
  [
    z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    z
      .string()
      .regex(/^\d{1,16}$/)
      .transform(Number)
      .pipe(z.number().max(Number.MAX_SAFE_INTEGER)),
  ],
  { error: "changedAt must be epoch milliseconds, as a number or a numeric string" },
);

const propertyValue = z.union([z.string().max(65_536), z.number(), z.boolean(), z.null()], {
  error: "property values are strings, numbers, booleans or null",
});

export const syncMessage = z.object({
  externalObjectId: externalId,
  action: z.enum(["UPSERT", "DELETE"], { error: "action must be UPSERT or DELETE" }),
  changedAt: epochMs.optional(),
  properties: z.record(z.string().min(1).max(200), propertyValue).optional(),
  associations: z
    .record(
      z.string().min(1).max(50),
      z.array(z.union([z.string(), z.number()]).transform(String).pipe(externalId)).max(1000),
    )
    .optional(),
});
export type SyncMessageInput = z.output<typeof syncMessage>;

export const syncBody = z.object({
  objectType: ecommObjectType,
  storeId: z.string().min(1).max(100),
  messages: z.array(syncMessage).min(1, "messages must hold 1 to 200 messages").max(200, "messages must hold 1 to 200 messages"),
});

// ------------------------------------------------------------------------------------------------ imports

const importStartedAt = z
  .number({ error: "importStartedAt must be the epoch milliseconds of the import webhook" })
  .int()
  .min(0)
  .max(Number.MAX_SAFE_INTEGER);
const count = (field: string) => z.number({ error: `${field} must be a non-negative integer` }).int().min(0).max(100_000_000);

/** An import carries the store's existing records: UPSERT only (v1 import pages had no action at all). */
const importMessage = syncMessage.extend({
  action: z.literal("UPSERT", { error: "an import page carries only UPSERT messages" }).default("UPSERT"),
});

/** An import page as clients send it, `{importStartedAt, pageNumber, messages, storeId, objectType}`; 500 per page, the bridge v1's limit. */
export const importPageBody = z.object({
  importStartedAt,
  pageNumber: z.number({ error: "pageNumber must be a positive integer" }).int().min(1).max(1_000_000),
  storeId: z.string().min(1).max(100),
  objectType: ecommObjectType,
  messages: z.array(importMessage).min(1, "messages must hold 1 to 500 messages").max(500, "messages must hold 1 to 500 messages"),
});

/** The end of an import as clients send it: `{importStartedAt, pageCount, itemCount, storeId, objectType}`. */
export const importEndBody = z.object({
  importStartedAt,
  pageCount: count("pageCount"),
  itemCount: count("itemCount"),
  storeId: z.string().min(1).max(100),
  objectType: ecommObjectType,
});

// ------------------------------------------------------------------------------------------ status, errors

export const statusParams = z.object({
  storeId: decoded.pipe(storeIdSchema),
  objectType: ecommObjectType,
  externalObjectId: decoded.pipe(externalId),
});

export const syncErrorResponse = z.object({
  portalId: z.number(),
  storeId: z.string(),
  objectType: ecommObjectType,
  externalObjectId: z.string(),
  changedAt: z.string(),
  erroredAt: z.string(),
  type: z.string(),
  details: z.string(),
  status: z.enum(SYNC_ERROR_STATUSES),
});

export const statusResponse = z.object({
  storeId: z.string(),
  objectType: ecommObjectType,
  externalObjectId: z.string(),
  serviceId: z.number().nullable(),
  lastProcessedAt: z.string().nullable(),
  errors: z.array(syncErrorResponse),
  numErrors: z.number(),
});

export const errorsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(100),
  /** A 1-based record offset, not a page number, as in the real service (clients advance it by `limit`). */
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  objectType: ecommObjectType.optional(),
  errorType: z.enum(SYNC_ERROR_TYPES, { error: "errorType is not a known sync error type" }).optional(),
  includeResolved: z.enum(["true", "false"]).default("false").transform((v) => v === "true"),
});
export type ErrorsQuery = z.output<typeof errorsQuery>;

/**
 * `/sync/errors/app/{appId}` also takes `after`, the cursor of its `paging.next.link`: with the developer key
 * the listing reads the shards of the app's installs, a window of them per request, and the cursor names the
 * window's first shard and the position in it (src/services/ecomm/app-errors.ts).
 */
export const appErrorsQuery = errorsQuery.extend({ after: z.string().max(400).optional() });

export const errorsListResponse = z.object({
  results: z.array(syncErrorResponse),
  paging: z.object({ next: z.object({ page: z.string(), link: z.string() }) }).optional(),
  unavailableShards: z
    .array(z.string())
    .optional()
    .meta({ description: "Developer key on /sync/errors/app/{appId} only: shards that failed to answer; their errors are missing from this page, the others are listed" }),
});

export const portalParams = z.object({ portalId: numericId });
export const appParams = z.object({ appId: numericId });

export type { EcommObjectType };
