/** @module zod schemas of custom object schemas `/crm-object-schemas/v3/schemas` (docs/reference/schemas.md). */
import { z } from "zod";
import { booleanQuery } from "../lib/paging";
import { FIELD_TYPES, PROPERTY_TYPES } from "./crm/properties";

/** A schema's name: as a property's, it becomes part of the type's fully qualified name `p<portalId>_<name>`. */
const schemaName = z.string().regex(/^[a-z][a-z0-9_]{0,99}$/, "name: lower-case letters, digits and _, starting with a letter, at most 100");
const propertyName = z.string().regex(/^[a-z][a-z0-9_]{0,99}$/, "name: lower-case letters, digits and _, starting with a letter, at most 100");
const names = z.array(z.string().min(1).max(100)).max(100);

export const labelsInput = z.object({ singular: z.string().trim().min(1, "labels.singular is required").max(255), plural: z.string().trim().min(1, "labels.plural is required").max(255) });

/** A property of a schema (ObjectTypePropertyCreate of @hubspot/api-client). */
export const schemaPropertyInput = z.object({
  name: propertyName,
  label: z.string().trim().min(1, "label is required").max(255),
  type: z.enum(PROPERTY_TYPES, { error: `type must be one of ${PROPERTY_TYPES.join(", ")}` }),
  fieldType: z.enum(FIELD_TYPES, { error: `fieldType must be one of ${FIELD_TYPES.join(", ")}` }),
  groupName: z.string().min(1).max(100).optional(),
  description: z.string().max(1000).optional(),
  options: z.array(z.object({ label: z.string().min(1).max(255), value: z.string().min(1).max(255), description: z.string().max(1000).optional(), displayOrder: z.number().int().optional(), hidden: z.boolean().optional() })).max(1000).optional(),
  displayOrder: z.number().int().optional(),
  hidden: z.boolean().optional(),
  formField: z.boolean().optional(),
  hasUniqueValue: z.literal(false, { error: "hasUniqueValue: unique custom properties are not supported" }).optional(),
  // Sent by clients; accepted and not applied.
  optionSortStrategy: z.string().max(50).optional(),
  showCurrencySymbol: z.boolean().optional(),
  referencedObjectType: z.string().max(100).optional(),
  textDisplayHint: z.string().max(50).optional(),
  numberDisplayHint: z.string().max(50).optional(),
  searchableInGlobalSearch: z.boolean().optional(),
});

/** ObjectSchemaEgg. */
export const createSchemaBody = z.object({
  name: schemaName,
  labels: labelsInput,
  description: z.string().max(1000).optional(),
  primaryDisplayProperty: z.string().min(1).max(100).optional(),
  secondaryDisplayProperties: names.optional(),
  requiredProperties: names,
  searchableProperties: names.optional(),
  properties: z.array(schemaPropertyInput).min(1, "properties: at least one").max(100),
  associatedObjects: z.array(z.string().min(1).max(110)).max(20),
});

/** ObjectTypeDefinitionPatch. */
export const updateSchemaBody = z.object({
  labels: labelsInput.optional(),
  description: z.string().max(1000).optional(),
  clearDescription: z.boolean().optional(),
  primaryDisplayProperty: z.string().min(1).max(100).optional(),
  secondaryDisplayProperties: names.optional(),
  requiredProperties: names.optional(),
  searchableProperties: names.optional(),
  // Accepted and not applied: archived schemas are restorable until purged.
  restorable: z.boolean().optional(),
});

/** AssociationDefinitionEgg. */
export const associationBody = z.object({
  fromObjectTypeId: z.string().min(1).max(110),
  toObjectTypeId: z.string().min(1).max(110),
  name: z.string().regex(/^[A-Za-z0-9_]{1,100}$/, "name: letters, digits and _").optional(),
});

export const schemaParams = z.object({ objectType: z.string().min(1).max(110) });
export const associationParams = schemaParams.extend({ associationIdentifier: z.string().regex(/^\d{1,15}$/, "associationIdentifier must be a numeric id") });
export const archivedQuery = z.object({ archived: booleanQuery("archived").default(false).meta({ description: "true: the archived schemas only" }) });
export const batchReadBody = z.object({
  // At most 99: with the account's id, one statement's bound values stay within D1's 100.
  inputs: z.array(z.string().min(1).max(110)).max(99, "at most 99 inputs"),
  // Accepted (the client's ObjectSchemaBatchReadRequest); schemas are read whole.
  properties: z.array(z.string()).max(1000).optional(),
  propertiesWithHistory: z.array(z.string()).max(1000).optional(),
  idProperty: z.string().max(100).optional(),
  archived: z.boolean().optional(),
});

export const associationResponse = z.object({ id: z.string(), fromObjectTypeId: z.string(), toObjectTypeId: z.string(), name: z.string().optional(), createdAt: z.string(), updatedAt: z.string() });
export const schemaResponse = z.object({
  id: z.string(),
  objectTypeId: z.string(),
  fullyQualifiedName: z.string(),
  name: z.string(),
  labels: z.object({ singular: z.string(), plural: z.string() }),
  description: z.string().optional(),
  primaryDisplayProperty: z.string().optional(),
  secondaryDisplayProperties: z.array(z.string()),
  requiredProperties: z.array(z.string()),
  searchableProperties: z.array(z.string()),
  properties: z.array(z.record(z.string(), z.unknown())),
  associations: z.array(associationResponse),
  archived: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const definitionResponse = schemaResponse.omit({ properties: true, associations: true }).extend({ portalId: z.number() });
export const schemaListResponse = z.object({ results: z.array(schemaResponse) });
export const batchResponse = schemaListResponse.extend({ status: z.literal("COMPLETE"), startedAt: z.string(), completedAt: z.string() });
