/** @module zod schemas of `POST /crm/v3/objects/{objectType}/batch/*` (docs/reference/crm.md "Batch"). */
import { z } from "zod";
import { ARCHIVED_PARAM, ASKED_PROPERTIES_DOC, askedProperties, createBody, objectResponse, propertiesInput } from "./objects";

/** At most 100 inputs per batch (the real service's limit). */
export const MAX_BATCH = 100;
const inputs = <T extends z.ZodType>(item: T) =>
  z.array(item).min(1, "inputs must name at least one record").max(MAX_BATCH, `at most ${MAX_BATCH} inputs per batch`);

/** Record ids arrive as strings (the client's type) or numbers; an email when idProperty says so. */
const recordId = z.union([z.string().min(1).max(254), z.number().int().nonnegative()]).transform(String);
const idProperty = z.string().min(1).max(100).optional().meta({ description: "hs_object_id (default), email on contacts, or a custom property with hasUniqueValue" });
const historyParam = z.array(z.string()).optional().meta({ description: "Accepted; no history is kept" });

export const batchCreateBody = z.object({ inputs: inputs(createBody) });
export const batchReadBody = z.object({
  inputs: inputs(z.object({ id: recordId })),
  idProperty,
  properties: askedProperties.optional().meta({ description: ASKED_PROPERTIES_DOC }),
  propertiesWithHistory: historyParam,
});
export const batchReadQuery = z.object({
  archived: ARCHIVED_PARAM,
});
export const batchUpdateBody = z.object({ inputs: inputs(z.object({ id: recordId, idProperty, properties: propertiesInput })) });
export const batchUpsertBody = z.object({
  inputs: inputs(
    z.object({
      id: recordId,
      idProperty: z.string({ error: "idProperty is required: a unique property (email on contacts, or a custom property with hasUniqueValue)" }).min(1).max(100),
      properties: propertiesInput,
    }),
  ),
});
export const batchArchiveBody = z.object({ inputs: inputs(z.object({ id: recordId })) });

const standardError = z.object({
  status: z.literal("error"),
  category: z.string(),
  message: z.string(),
  context: z.record(z.string(), z.array(z.string())),
  errors: z.array(z.unknown()),
  links: z.record(z.string(), z.string()),
});

export const batchResponse = <T extends z.ZodType>(result: T) =>
  z.object({
    status: z.literal("COMPLETE"),
    results: z.array(result),
    startedAt: z.string(),
    completedAt: z.string(),
    numErrors: z.number().optional(),
    errors: z.array(standardError).optional(),
  });

export const batchObjectsResponse = batchResponse(objectResponse);
export const batchUpsertResponse = batchResponse(objectResponse.extend({ new: z.boolean() }));
