/** @module zod schemas of the CRM objects API `/crm/v3/objects/{objectType}`. */
import { z } from "zod";
import { isBuiltInType, isCustomType, OBJECT_TYPES, type ObjectType } from "../../db/tables/crm";
import { booleanQuery } from "../../lib/paging";


/**
 * What a stored property's name may be. Every write (v3 objects, v1 contacts, sync mappings) takes only
 * such names, so no record's JSON holds another.
 */
export const PROPERTY_NAME = { pattern: /^[A-Za-z0-9_.-]+$/, max: 100 } as const;
export const isPropertyName = (name: string) => name.length >= 1 && name.length <= PROPERTY_NAME.max && PROPERTY_NAME.pattern.test(name);


/**
 * A built-in type, or a custom one as its stored key `2-<n>`: the router has already turned the account's
 * custom type names into that key (src/services/crm/object-types.ts).
 */
export const objectTypeParam = z
  .string()
  .refine((t) => isBuiltInType(t) || isCustomType(t), { error: `objectType must be one of ${OBJECT_TYPES.join(", ")}, or a custom object type of the account` })
  .transform((t) => t as ObjectType)
  .meta({ examples: ["contacts", "2-1"] });
export const typeParams = z.object({ objectType: objectTypeParam });
export const idParam = z.string().regex(/^\d{1,15}$/, "must be a numeric id").transform(Number);
export const objectParams = typeParams.extend({ objectId: idParam });
/** A record named by id, or by the property `idProperty` names (email on contacts); decoded. */
export const recordParams = typeParams.extend({
  objectId: z
    .string()
    .min(1)
    .max(300)
    .transform((raw, ctx) => {
      try {
        return decodeURIComponent(raw);
      } catch {
        ctx.addIssue({ code: "custom", message: "objectId is not a valid percent-encoded string" });
        return z.NEVER;
      }
    }),
});
const idProperty = z.string().min(1).max(100).optional().meta({ description: "hs_object_id (default), email on contacts, or a property with hasUniqueValue: objectId is then that value" });
export const idPropertyQuery = z.object({ idProperty });
export const associationParams = objectParams.extend({ toObjectType: objectTypeParam, toObjectId: idParam });

/** A stored property's name, as every write takes it (PROPERTY_NAME). */
export const propertyName = z.string().min(1).max(PROPERTY_NAME.max).regex(PROPERTY_NAME.pattern, "property names are letters, digits, _ . -");
/** Properties are strings (numbers and booleans are accepted and stored as their string form). */
export const propertiesInput = z
  .record(propertyName, z.union([z.string().max(65_536), z.number(), z.boolean()]).transform(String))
  .refine((p) => Object.keys(p).length <= 200, "at most 200 properties");

/**
 * One association of a create, as @hubspot/api-client sends it. Labels (USER_DEFINED,
 * INTEGRATOR_DEFINED) do not exist here, so only HUBSPOT_DEFINED ids are accepted; which ids, per pair, is
 * judged by the handler (src/services/crm/association-types.ts).
 */
const associationInput = z.object({
  to: z.object({ id: z.union([z.string(), z.number()]).transform(String).pipe(z.string().regex(/^\d{1,15}$/, "to.id must be a numeric id")) }),
  types: z
    .array(z.object({ associationCategory: z.literal("HUBSPOT_DEFINED", { error: "only HUBSPOT_DEFINED association types exist here" }), associationTypeId: z.number().int() }))
    .min(1)
    .max(10),
});

export const createBody = z.object({ properties: propertiesInput, associations: z.array(associationInput).max(100).optional() });
export const updateBody = z.object({ properties: propertiesInput });

/**
 * `associations=companies,deals` or `associations=companies&associations=deals`: the official SDK
 * (@hubspot/api-client) repeats the parameter, other clients join with commas; the real API takes both.
 */
const typeList = z
  .union([z.string(), z.array(z.string()).max(100)])
  .transform((v) => (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(",")).map((t) => t.trim()).filter(Boolean))
  .pipe(z.array(objectTypeParam).max(100));

/** The property names a read (get, list, batch read, search) may ask for. */
export const askedProperties = z.array(z.string().max(200, "a property name is at most 200 characters")).max(1000, "at most 1000 properties");
export const ASKED_PROPERTIES_DOC =
  "Properties to return; default: the type's default properties. hs_object_id, createdate and lastmodifieddate always come back; an asked property the record lacks is null";

/**
 * `properties` as @hubspot/api-client sends it (the parameter repeated) or as a comma-separated list;
 * without it, the type's default properties (services/crm/properties.ts).
 */
const propertyList = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : [v]).flatMap((p) => p.split(",")).map((p) => p.trim()).filter(Boolean))
  .pipe(askedProperties);

/** `archived` of the get, the list and the batch read. */
export const ARCHIVED_PARAM = booleanQuery("archived")
  .default(false)
  .meta({ description: "true: only archived records (each with archivedAt); false (default): only live ones. A contact merged into another is neither" });

/**
 * Sent by @hubspot/api-client on every read. `properties` picks what comes back; `archived=true` reads only
 * archived records, as the real API's "only results that have been archived"; `propertiesWithHistory` is
 * accepted and not applied: no history is kept (docs/reference/crm.md).
 */
const readParams = {
  properties: propertyList.optional().meta({ description: `${ASKED_PROPERTIES_DOC} (the parameter repeated, or comma-separated)` }),
  propertiesWithHistory: z.union([z.string(), z.array(z.string())]).optional().meta({ description: "Accepted; no history is kept" }),
  archived: ARCHIVED_PARAM,
};

export const getQuery = z.object({ associations: typeList.optional(), idProperty, ...readParams });
export const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(10),
  after: z.string().regex(/^\d{1,15}$/, "after must be a cursor from paging.next.after").transform(Number).optional(),
  associations: typeList.optional(),
  ...readParams,
});

export const objectResponse = z.object({
  id: z.string(),
  // A read answers each asked (or default) property, null when the record has none.
  properties: z.record(z.string(), z.string().nullable()),
  createdAt: z.string(),
  updatedAt: z.string(),
  archived: z.boolean(),
  archivedAt: z.string().optional().meta({ description: "When the record was archived; only on archived records" }),
  associations: z.record(z.string(), z.object({ results: z.array(z.object({ id: z.string(), type: z.string() })) })).optional(),
});
export const listResponse = z.object({
  results: z.array(objectResponse),
  paging: z.object({ next: z.object({ after: z.string(), link: z.string() }) }).optional(),
});
