/** @module zod schemas of the legacy v1 contacts API (docs/reference/contacts-v1.md). */
import { z } from "zod";
import { propertyName } from "./crm/objects";

const vid = z.string().regex(/^\d{1,15}$/, "vid must be a contact vid").transform(Number);
export const vidParams = z.object({ vid });
/** The router leaves path parameters percent-encoded; clients encode `@` (as %40) or not. */
const decoded = (max: number) =>
  z
    .string()
    .min(1)
    .max(max * 3)
    .transform((v) => {
      try {
        return decodeURIComponent(v);
      } catch {
        return v;
      }
    })
    .pipe(z.string().min(1).max(max));
export const emailParams = z.object({ email: decoded(254) });
export const utkParams = z.object({ utk: decoded(200) });

/** `count`: default 20, capped at 100 (the real service's maximum; larger values are clamped, not refused). */
export const countParam = z
  .string()
  .regex(/^\d+$/, "count must be a non-negative integer")
  .transform((v) => Math.min(Math.max(Number(v), 1), 100))
  .default(20);

/** A repeated (or single) query parameter as a list. */
const repeated = (max: number) =>
  z
    .union([z.string(), z.array(z.string())])
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .pipe(z.array(z.string().min(1).max(254)).min(1).max(max));
const vidList = z.array(z.string().regex(/^\d{1,15}$/, "vid must be a contact vid").transform(Number));

export const propertyParam = repeated(200).optional();
/** Airbyte sends "True"; any casing of true counts. */
const flag = (fallback: boolean) =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined ? fallback : v.toLowerCase() === "true"));

const profileOptions = {
  property: propertyParam,
  formSubmissionMode: z.enum(["all", "none", "newest", "oldest"], { error: "formSubmissionMode must be all, none, newest or oldest" }).optional(),
};

/** Reads of one contact: history and list memberships by default, as the real profile. */
export const profileQuery = z.object({
  ...profileOptions,
  propertyMode: z.enum(["value_only", "value_and_history"], { error: "propertyMode must be value_only or value_and_history" }).default("value_and_history"),
  showListMemberships: flag(true),
});

/** Batch reads: values only and no list memberships unless asked (the shape the real service answers). */
const batchOptions = {
  ...profileOptions,
  propertyMode: z.enum(["value_only", "value_and_history"], { error: "propertyMode must be value_only or value_and_history" }).default("value_only"),
  showListMemberships: flag(false),
};
export const vidsBatchQuery = z.object({ ...batchOptions, vid: repeated(100).pipe(vidList) });
export const emailsBatchQuery = z.object({ ...batchOptions, email: repeated(100) });

/** `[{property, value}]`; a number or boolean value is stored as its string, null clears like "". */
const propertyList = z
  .array(
    z.object({
      property: propertyName,
      value: z.union([z.string().max(65_536), z.number(), z.boolean(), z.null()]).transform((v) => (v === null ? "" : String(v))),
    }),
  )
  .max(200, "at most 200 properties")
  .transform((list) => Object.fromEntries(list.map((p) => [p.property, p.value])));

export const propertiesBody = z.object({ properties: propertyList.prefault([]) });

/** One contact of `POST /contacts/v1/contact/batch`: keyed by `vid` or `email` (vid wins when both are given). */
const batchEntry = z
  .object({
    vid: z.number().int().positive().optional(),
    email: z.string().min(1).max(254).optional(),
    properties: propertyList.prefault([]),
  })
  .refine((e) => e.vid !== undefined || e.email !== undefined, "each contact needs a vid or an email");
export const batchBody = z.array(batchEntry).max(1000, "at most 1000 contacts per batch");

export const mergeBody = z.object({
  vidToMerge: z.union([z.number().int().positive(), z.string().regex(/^\d{1,15}$/, "vidToMerge must be a contact vid").transform(Number)]),
});

/** Paging of the recent lists: both offsets come from the previous page's `time-offset` / `vid-offset`. */
export const recentQuery = z
  .object({
    count: countParam,
    timeOffset: z.string().regex(/^\d{1,15}$/, "timeOffset must be a time-offset from the previous page").transform(Number).optional(),
    vidOffset: z.string().regex(/^\d{1,15}$/, "vidOffset must be a vid-offset from the previous page").transform(Number).optional(),
    property: propertyParam,
    showListMemberships: flag(false),
  })
  .refine((q) => (q.timeOffset === undefined) === (q.vidOffset === undefined), "timeOffset and vidOffset go together");

/** Query of the all-contacts list. */
export const listQueryBase = z.object({
  count: countParam,
  // Only vidOffset pages; offset= and vid-offset= are ignored (the first page comes back), like the real service.
  vidOffset: z.string().regex(/^\d{1,15}$/, "vidOffset must be a contact vid").transform(Number).optional(),
  showListMemberships: flag(false),
  property: z
    .union([z.string(), z.array(z.string())])
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .pipe(z.array(z.string().min(1).max(100)).max(200))
    .optional(),
  // Documented options; accepted and answered as the defaults (value_only: no versions[]; no form submissions kept).
  propertyMode: z.union([z.string(), z.array(z.string())]).optional().meta({ description: "Accepted; answered as value_only" }),
  formSubmissionMode: z.union([z.string(), z.array(z.string())]).optional().meta({ description: "Accepted; no form submissions are kept" }),
});

export const searchQuery = z.object({
  q: z.string().min(1, "q is required").max(500),
  count: countParam,
  // Real clients send `offset=` (empty) for the first page.
  offset: z
    .string()
    .regex(/^\d{0,9}$/, "offset must be a non-negative integer")
    .transform((v) => (v === "" ? 0 : Number(v)))
    .pipe(z.number().max(10_000, "offset may be at most 10000"))
    .default(0),
  property: propertyParam,
});

const identity = z.object({ type: z.string(), value: z.string(), timestamp: z.number(), "is-primary": z.boolean().optional(), "is-secondary": z.boolean().optional() });
const identityProfile = z.object({ vid: z.number(), "saved-at-timestamp": z.number(), "deleted-changed-timestamp": z.number(), identities: z.array(identity) });
const versionSchema = z.object({ value: z.string(), "source-type": z.string(), "source-id": z.null(), "source-label": z.null(), "source-vids": z.array(z.number()).optional(), timestamp: z.number(), selected: z.boolean() });
const mergeAudit = z.object({
  "canonical-vid": z.number(),
  "vid-to-merge": z.number(),
  timestamp: z.number(),
  "entity-id": z.string(),
  "num-properties-moved": z.number(),
  merged_from_email: versionSchema.optional(),
  merged_to_email: versionSchema.optional(),
  "first-name": z.string(),
});
const head = {
  vid: z.number(),
  "canonical-vid": z.number(),
  "merged-vids": z.array(z.number()),
  "portal-id": z.number(),
  "is-contact": z.boolean(),
  "profile-token": z.string(),
  "profile-url": z.string(),
  "form-submissions": z.array(z.unknown()),
  "identity-profiles": z.array(identityProfile),
  "merge-audits": z.array(mergeAudit),
  "list-memberships": z.array(z.unknown()).optional(),
};
export const profileResponse = z.object({
  ...head,
  properties: z.record(z.string(), z.object({ value: z.string(), versions: z.array(versionSchema).optional() })),
});
export const listEntry = z.object({ addedAt: z.number(), ...head, properties: z.record(z.string(), z.object({ value: z.string() })) });
export const batchResponse = z.record(z.string(), profileResponse);
export const createOrUpdateResponse = z.object({ vid: z.number(), isNew: z.boolean() });
export const deleteResponse = z.object({ vid: z.number(), deleted: z.boolean(), reason: z.string() });
export const recentResponse = z.object({ contacts: z.array(listEntry), "has-more": z.boolean(), "time-offset": z.number(), "vid-offset": z.number() });
export const searchResponse = z.object({ query: z.string(), offset: z.number(), "has-more": z.boolean(), total: z.number(), contacts: z.array(profileResponse) });
export const listResponse = z.object({ contacts: z.array(listEntry), "has-more": z.boolean(), "vid-offset": z.number() });
