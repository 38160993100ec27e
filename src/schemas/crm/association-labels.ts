/**
 * @module zod schemas of association labels, limits and the association batch APIs (docs/reference/crm.md
 * "Association labels", "Association limits", "Associations batch").
 */
import { z } from "zod";
import { batchResponse } from "./batch";
import { objectType } from "./associations-v4";

export const pairParams = z.object({ fromObjectType: objectType, toObjectType: objectType });
export const labelParams = pairParams.extend({ associationTypeId: z.coerce.number().int().positive("associationTypeId must be a type id") });

const text = (field: string) => z.string().trim().min(1, `${field} must not be empty`).max(100, `${field} is at most 100 characters`);

export const createLabelBody = z.object({
  name: z.string().regex(/^[A-Za-z0-9_]{1,100}$/, "name must be 1 to 100 letters, digits or underscores"),
  label: text("label"),
  inverseLabel: text("inverseLabel").optional(),
});
export const updateLabelBody = z.object({
  associationTypeId: z.number().int().positive(),
  label: text("label"),
  inverseLabel: text("inverseLabel").optional(),
});

const category = z.enum(["HUBSPOT_DEFINED", "USER_DEFINED"], { error: "category must be HUBSPOT_DEFINED or USER_DEFINED" });
const typeWithLabel = z.object({ category, typeId: z.number(), label: z.string().nullable() });
export const labelsResponse = z.object({ results: z.array(typeWithLabel) });

/** The real service caps batch reads of associations at 1000 ids; its other batch writes here at 100. */
export const MAX_READ = 1000;
export const MAX_WRITE = 100;
const inputs = <T extends z.ZodType>(item: T, max: number) =>
  z.array(item).min(1, "inputs must name at least one association").max(max, `at most ${max} inputs per batch`);

/** Record ids as the client sends them (strings), or numbers. */
const id = z.union([z.string().regex(/^\d{1,15}$/, "id must be a record id"), z.number().int().positive()]).transform(Number);
const objectId = z.object({ id });
const spec = z.object({ associationCategory: category, associationTypeId: z.number().int() });

export const readBody = z.object({
  inputs: inputs(z.object({ id, after: z.string().regex(/^\d{1,15}$/, "after must be a cursor from paging.next.after").transform(Number).optional() }), MAX_READ),
});
export const v3ReadBody = z.object({ inputs: inputs(objectId, MAX_READ) });
export const createBody = z.object({ inputs: inputs(z.object({ from: objectId, to: objectId, types: z.array(spec).min(1, "at least one association type").max(10) }), MAX_WRITE) });
export const defaultBody = z.object({ inputs: inputs(z.object({ from: objectId, to: objectId }), MAX_WRITE) });
export const archiveBody = z.object({ inputs: inputs(z.object({ from: objectId, to: z.array(objectId).min(1).max(MAX_WRITE) }), MAX_WRITE) });
export const v3PairsBody = z.object({ inputs: inputs(z.object({ from: objectId, to: objectId, type: z.string().max(100).optional() }), MAX_WRITE) });

const paging = z.object({ next: z.object({ after: z.string(), link: z.string().optional() }) }).optional();
export const readResponse = batchResponse(
  z.object({ from: z.object({ id: z.string() }), to: z.array(z.object({ toObjectId: z.number(), associationTypes: z.array(typeWithLabel) })), paging }),
);
export const v3ReadResponse = batchResponse(z.object({ from: z.object({ id: z.string() }), to: z.array(z.object({ id: z.string(), type: z.string() })), paging }));
export const createResponse = batchResponse(
  z.object({ fromObjectTypeId: z.string(), fromObjectId: z.number(), toObjectTypeId: z.string(), toObjectId: z.number(), labels: z.array(z.string()) }),
);
export const defaultResponse = batchResponse(
  z.object({ from: z.object({ id: z.string() }), to: z.object({ id: z.string() }), associationSpec: z.object({ associationCategory: category, associationTypeId: z.number() }) }),
);
export const v3CreateResponse = batchResponse(z.object({ from: z.object({ id: z.string() }), to: z.object({ id: z.string() }), type: z.string() }));
export const v3TypesResponse = z.object({ results: z.array(z.object({ id: z.string(), name: z.string() })) });

const limit = z.object({ category, typeId: z.number().int(), maxToObjectIds: z.number().int().min(1, "maxToObjectIds must be at least 1").max(10000, "maxToObjectIds is at most 10000") });
export const limitsBody = z.object({ inputs: inputs(limit, MAX_WRITE) });
export const purgeBody = z.object({ inputs: inputs(z.object({ category, typeId: z.number().int() }), MAX_WRITE) });
const configuration = typeWithLabel.extend({ userEnforcedMaxToObjectIds: z.number().optional() });
export const configurationsResponse = z.object({ results: z.array(configuration) });
export const limitsResponse = batchResponse(configuration);
export const limitsUpdateResponse = batchResponse(z.object({ category, typeId: z.number(), userEnforcedMaxToObjectIds: z.number().optional() }));
