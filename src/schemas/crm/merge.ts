/** @module zod schemas of the v3 merge (`/crm/v3/objects/{objectType}/merge`) and the contacts' GDPR delete. */
import { z } from "zod";

/** The object types the merge takes, as the official client calls it: a `merge` on each of their BasicApi. */
export const MERGE_TYPES = ["contacts", "companies", "deals", "tickets"] as const;
export type MergeType = (typeof MERGE_TYPES)[number];

export const mergeParams = z.object({
  objectType: z.enum(MERGE_TYPES, { error: `objectType must be one of ${MERGE_TYPES.join(", ")} (the types that merge)` }),
});

/** A record id: the official client's models carry ids as strings; a JSON number is taken too. */
const recordId = z
  .union([z.string(), z.number()])
  .transform(String)
  .pipe(z.string().regex(/^\d{1,15}$/, "must be a numeric record id"))
  .transform(Number);

/** `PublicMergeInput` of @hubspot/api-client. */
export const mergeBody = z.object({ primaryObjectId: recordId, objectIdToMerge: recordId });

/** `PublicGdprDeleteInput` of @hubspot/api-client: the contact's id, or its email with `idProperty: "email"`. */
export const gdprDeleteBody = z.object({
  objectId: z.union([z.string(), z.number()]).transform(String).pipe(z.string().min(1).max(300)),
  idProperty: z.string().min(1).max(100).optional(),
});
