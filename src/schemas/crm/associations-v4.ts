/** @module zod schemas of associations v4 (docs/reference/crm.md "Associations v4"). */
import { z } from "zod";
import { isBuiltInType, isCustomType, OBJECT_TYPES, type BuiltInObjectType, type ObjectType } from "../../db/tables/crm";

import { idParam } from "./objects";

/** The real service's object type ids, as v4 answers report them. */
export const TYPE_IDS: Record<BuiltInObjectType, string> = {
  contacts: "0-1",
  companies: "0-2",
  deals: "0-3",
  tickets: "0-5",
  products: "0-7",
  line_items: "0-8",
  notes: "0-46",
  tasks: "0-27",
  calls: "0-48",
  meetings: "0-47",
  emails: "0-49",
  communications: "0-18",
  postal_mail: "0-116",
  leads: "0-136",
};


/** A type's object type id: a custom type's stored key is its id already. */
export const typeIdOf = (type: ObjectType): string => (isCustomType(type) ? type : TYPE_IDS[type]);

export const BY_TYPE_ID = new Map(Object.entries(TYPE_IDS).map(([name, id]) => [id, name as ObjectType]));

/** An object type by name (`contacts`) or by the real service's type id (`0-1`). */
export const objectType = z
  .string()
  .transform((v) => BY_TYPE_ID.get(v) ?? v)
  .refine((t) => isBuiltInType(t) || isCustomType(t), { error: `object type must be one of ${OBJECT_TYPES.join(", ")} (or its id, e.g. 0-1), or a custom object type of the account` })
  .transform((t) => t as ObjectType);

export const fromParams = z.object({ objectType, objectId: idParam });
export const pageParams = fromParams.extend({ toObjectType: objectType });
export const pairParams = pageParams.extend({ toObjectId: idParam });
export const defaultParams = z.object({ fromObjectType: objectType, fromObjectId: idParam, toObjectType: objectType, toObjectId: idParam });

export const specsBody = z
  .array(
    z.object({
      associationCategory: z.enum(["HUBSPOT_DEFINED", "USER_DEFINED"], { error: "associationCategory must be HUBSPOT_DEFINED or USER_DEFINED" }),
      associationTypeId: z.number().int(),
    }),
  )
  .min(1, "at least one association type")
  .max(10);

export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500, "limit is at most 500").default(500),
  after: z.string().regex(/^\d{1,15}$/, "after must be a cursor from paging.next.after").transform(Number).optional(),
});

export const labelsResponse = z.object({
  fromObjectTypeId: z.string(),
  fromObjectId: z.number(),
  toObjectTypeId: z.string(),
  toObjectId: z.number(),
  labels: z.array(z.string()),
});

export const defaultResponse = z.object({
  status: z.literal("COMPLETE"),
  results: z.array(
    z.object({
      from: z.object({ id: z.string() }),
      to: z.object({ id: z.string() }),
      associationSpec: z.object({ associationCategory: z.enum(["HUBSPOT_DEFINED", "USER_DEFINED"]), associationTypeId: z.number() }),
    }),
  ),
  startedAt: z.string(),
  completedAt: z.string(),
});

export const pageResponse = z.object({
  results: z.array(
    z.object({
      toObjectId: z.number(),
      associationTypes: z.array(z.object({ category: z.enum(["HUBSPOT_DEFINED", "USER_DEFINED"]), typeId: z.number(), label: z.string().nullable() })),
    }),
  ),
  paging: z.object({ next: z.object({ after: z.string(), link: z.string() }) }).optional().meta({ description: "Absent on the last page" }),
});
