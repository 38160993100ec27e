/** @module zod schemas of `/crm/v3/properties/{objectType}` (docs/reference/crm.md "Properties"). */
import { z } from "zod";

import { typeParams } from "./objects";

export const PROPERTY_TYPES = ["string", "number", "date", "datetime", "enumeration", "bool"] as const;

export const FIELD_TYPES = ["textarea", "text", "date", "file", "number", "select", "radio", "checkbox", "booleancheckbox", "calculation_equation"] as const;


/** A property's internal name: lower-case letters, digits and underscores, starting with a letter. */
const name = z.string().regex(/^[a-z][a-z0-9_]{0,99}$/, "name: lower-case letters, digits and _, starting with a letter, at most 100");
export const propertyParams = typeParams.extend({ propertyName: z.string().min(1).max(100) });

const option = z.object({
  label: z.string().min(1).max(255),
  value: z.string().min(1).max(255),
  description: z.string().max(1000).optional(),
  displayOrder: z.number().int().optional(),
  hidden: z.boolean().optional(),
});

const fields = {
  label: z.string().trim().min(1, "label is required").max(255),
  type: z.enum(PROPERTY_TYPES, { error: `type must be one of ${PROPERTY_TYPES.join(", ")}` }),
  fieldType: z.enum(FIELD_TYPES, { error: `fieldType must be one of ${FIELD_TYPES.join(", ")}` }),
  groupName: z.string().min(1, "groupName is required").max(100),
  description: z.string().max(1000).optional(),
  options: z.array(option).max(1000).optional(),
  displayOrder: z.number().int().optional(),
  hidden: z.boolean().optional(),
  formField: z.boolean().optional(),
};

export const createPropertyBody = z.object({
  name,
  ...fields,
  // A unique property's values are held by one record each (src/services/crm/unique.ts); fixed at creation.
  hasUniqueValue: z.boolean({ error: "hasUniqueValue must be a boolean" }).optional(),
  // Sent by clients; accepted and not applied (no calculated or external-option properties here).
  externalOptions: z.boolean().optional(),
  referencedObjectType: z.string().optional(),
});
export const updatePropertyBody = z.object({
  label: fields.label.optional(),
  type: fields.type.optional(),
  fieldType: fields.fieldType.optional(),
  groupName: fields.groupName.optional(),
  description: fields.description,
  options: fields.options,
  displayOrder: fields.displayOrder,
  hidden: fields.hidden,
  formField: fields.formField,
});

export const propertyResponse = z.object({
  name: z.string(),
  label: z.string(),
  type: z.string(),
  fieldType: z.string(),
  groupName: z.string(),
  description: z.string(),
  options: z.array(z.object({ label: z.string(), value: z.string(), description: z.string(), displayOrder: z.number(), hidden: z.boolean() })),
  displayOrder: z.number(),
  hidden: z.boolean(),
  formField: z.boolean(),
  hasUniqueValue: z.boolean(),
  hubspotDefined: z.boolean(),
  calculated: z.boolean(),
  externalOptions: z.boolean(),
  archived: z.boolean(),
  modificationMetadata: z.object({ archivable: z.boolean(), readOnlyDefinition: z.boolean(), readOnlyValue: z.boolean() }),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
export const propertyListResponse = z.object({ results: z.array(propertyResponse) });

/** A property group's internal name: as a property's. */
export const groupParams = typeParams.extend({ groupName: z.string().min(1).max(100) });
const groupFields = {
  label: z.string().trim().min(1, "label is required").max(255),
  displayOrder: z.number().int().optional(),
};
export const createGroupBody = z.object({
  name: z.string().regex(/^[a-z][a-z0-9_]{0,99}$/, "name: lower-case letters, digits and _, starting with a letter, at most 100"),
  ...groupFields,
});
export const updateGroupBody = z.object({ label: groupFields.label.optional(), displayOrder: groupFields.displayOrder });
export const groupResponse = z.object({ name: z.string(), label: z.string(), displayOrder: z.number(), archived: z.boolean() });
export const groupListResponse = z.object({ results: z.array(groupResponse) });

/** `POST /crm/v3/properties/{objectType}/batch/*`: at most 100 inputs, as the record batches. */
const batchInputs = <T extends z.ZodType>(item: T) => z.array(item).min(1, "inputs must name at least one property").max(100, "at most 100 inputs per batch");
const propertyName = z.object({ name: z.string().min(1, "name is required").max(100) });
export const batchCreatePropertiesBody = z.object({ inputs: batchInputs(createPropertyBody) });
export const batchReadPropertiesBody = z.object({
  inputs: batchInputs(propertyName),
  archived: z.boolean().optional().meta({ description: "Archived properties are deleted here, so true reads none" }),
  // Sent by newer clients; accepted and not applied (no sensitive-data properties here).
  dataSensitivity: z.string().optional(),
});
export const batchArchivePropertiesBody = z.object({ inputs: batchInputs(propertyName) });
const propertyError = z.object({
  status: z.literal("error"),
  category: z.string(),
  message: z.string(),
  context: z.record(z.string(), z.array(z.string())),
  errors: z.array(z.unknown()),
  links: z.record(z.string(), z.string()),
});
export const batchPropertiesResponse = z.object({
  status: z.literal("COMPLETE"),
  results: z.array(propertyResponse),
  startedAt: z.string(),
  completedAt: z.string(),
  numErrors: z.number().optional(),
  errors: z.array(propertyError).optional(),
});
