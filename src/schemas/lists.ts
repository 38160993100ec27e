/**
 * @module zod schemas of the lists (docs/reference/lists.md): `/crm/v3/lists` as @hubspot/api-client's
 * ListsApi and MembershipsApi call them, and the legacy `/contacts/v1/lists/{listId}` face over the same lists.
 * A filter branch is the real service's format: an OR branch whose branches are AND branches of PROPERTY
 * filters, each with an `operation` (operationType and operator).
 */
import { z } from "zod";
import type { ObjectType } from "../db/tables/crm";
import { PROCESSING_TYPES } from "../db/tables/lists";
import { TYPE_IDS } from "./crm/associations-v4";

/** The object types a list may hold, by the real service's type id. */
export const LIST_TYPES = ["contacts", "companies", "deals", "tickets"] as const satisfies readonly ObjectType[];
export const LIST_TYPE_IDS = LIST_TYPES.map((t) => TYPE_IDS[t]);
const BY_TYPE_ID = new Map(LIST_TYPES.map((t) => [TYPE_IDS[t], t]));

export const LIST_LIMITS = {
  nameChars: 200,
  /** Filters in one filter branch, all levels together. */
  filters: 25,
  /** Nesting of filter branches below the root. */
  depth: 3,
  /** Record ids in one membership change (the real service's limit is 100,000 a call; D1's statement size is ours). */
  ids: 100,
  /** Memberships per page (the real service's limit is 250). */
  page: 250,
  /** Lists per search page and per getAll. */
  lists: 500,
  /** DYNAMIC lists per object type in an account: what a record's own memberships evaluates, one statement each. */
  dynamic: 100,
  /** Records in one batch read of memberships (each costs its own membership reads). */
  batch: 10,
  /** List folders of an account: a folder is read with the whole tree. */
  folders: 1000,
} as const;

export const objectTypeId = z
  .string()
  .transform((v, ctx) => {
    const t = BY_TYPE_ID.get(v) ?? (LIST_TYPES as readonly string[]).find((n) => n === v);
    if (!t) {
      ctx.addIssue({ code: "custom", message: `objectTypeId must be one of ${LIST_TYPE_IDS.join(", ")}` });
      return z.NEVER;
    }
    return t as (typeof LIST_TYPES)[number];
  });
export const listIdParam = z.string().regex(/^\d{1,15}$/, "listId must be a numeric id").transform(Number);
const recordId = z.string().regex(/^\d{1,15}$/, "must be a numeric record id").transform(Number);
const name = z.string().trim().min(1, "name is required").max(LIST_LIMITS.nameChars, `name is at most ${LIST_LIMITS.nameChars} characters`);

export const listParams = z.object({ listId: listIdParam });
/** A path segment as sent: percent-encoded (a name with a space arrives as `%20`). */
const decoded = z.string().transform((v, ctx) => {
  try {
    return decodeURIComponent(v);
  } catch {
    ctx.addIssue({ code: "custom", message: "listName is not valid percent-encoding" });
    return z.NEVER;
  }
});
export const nameParams = z.object({ objectTypeId, listName: decoded.pipe(name) });
export const recordParams = z.object({ objectTypeId, recordId });

const operator = z.string().min(1).max(60);
const operation = z.union([
  z.object({ operationType: z.literal("STRING"), operator, value: z.string().max(1000), includeObjectsWithNoValueSet: z.boolean().optional() }),
  z.object({ operationType: z.literal("NUMBER"), operator, value: z.union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/)]).transform(String), includeObjectsWithNoValueSet: z.boolean().optional() }),
  z.object({ operationType: z.literal("BOOL"), operator, value: z.boolean(), includeObjectsWithNoValueSet: z.boolean().optional() }),
  z.object({ operationType: z.literal("ALL_PROPERTY"), operator, includeObjectsWithNoValueSet: z.boolean().optional() }),
  z.object({
    operationType: z.enum(["MULTISTRING", "ENUMERATION"]),
    operator,
    values: z.array(z.string().max(1000)).min(1, "values needs at least one value").max(100, "at most 100 values"),
    includeObjectsWithNoValueSet: z.boolean().optional(),
  }),
], { error: "operation.operationType must be STRING, NUMBER, BOOL, ALL_PROPERTY, MULTISTRING or ENUMERATION" });

export const propertyFilter = z.object({
  filterType: z.literal("PROPERTY", { error: "filterType must be PROPERTY (the only filter type evaluated here)" }),
  property: z.string().min(1).max(100),
  operation,
});
export type PropertyFilter = z.output<typeof propertyFilter>;

export interface FilterBranch {
  filterBranchType: "OR" | "AND";
  filterBranchOperator?: string;
  filters: PropertyFilter[];
  filterBranches: FilterBranch[];
}

export const filterBranch: z.ZodType<FilterBranch> = z.lazy(() =>
  z.object({
    filterBranchType: z.enum(["OR", "AND"], { error: "filterBranchType must be OR or AND" }),
    filterBranchOperator: z.string().max(10).optional(),
    filters: z.array(propertyFilter).max(LIST_LIMITS.filters).default([]),
    filterBranches: z.array(filterBranch).max(LIST_LIMITS.filters).default([]),
  }),
) as z.ZodType<FilterBranch>;

/** Depth and filter count of a branch, checked after parsing (a recursive schema cannot count). */
export function branchSize(b: FilterBranch, depth = 0): { filters: number; depth: number } {
  return b.filterBranches.reduce(
    (acc, c) => {
      const s = branchSize(c, depth + 1);
      return { filters: acc.filters + s.filters, depth: Math.max(acc.depth, s.depth) };
    },
    { filters: b.filters.length, depth },
  );
}

const checkedBranch = filterBranch.superRefine((b, ctx) => {
  const size = branchSize(b);
  if (size.filters > LIST_LIMITS.filters) ctx.addIssue({ code: "custom", message: `at most ${LIST_LIMITS.filters} filters in a filter branch (${size.filters} given)` });
  if (size.depth > LIST_LIMITS.depth) ctx.addIssue({ code: "custom", message: `filter branches nest at most ${LIST_LIMITS.depth} levels` });
});

export const createBody = z
  .object({
    name,
    objectTypeId,
    processingType: z.enum(PROCESSING_TYPES, { error: `processingType must be one of ${PROCESSING_TYPES.join(", ")}` }),
    filterBranch: checkedBranch.optional(),
    listFolderId: z.number().int().optional(),
    customProperties: z.record(z.string(), z.string()).optional(),
  })
  .superRefine((b, ctx) => {
    if (b.processingType === "MANUAL" && b.filterBranch) ctx.addIssue({ code: "custom", path: ["filterBranch"], message: "a MANUAL list takes no filterBranch" });
    if (b.processingType !== "MANUAL" && !b.filterBranch) ctx.addIssue({ code: "custom", path: ["filterBranch"], message: `a ${b.processingType} list needs a filterBranch` });
  });
export type CreateBody = z.output<typeof createBody>;

export const filtersBody = z.object({ filterBranch: checkedBranch });
export const includeQuery = z.object({ includeFilters: z.enum(["true", "false"]).transform((v) => v === "true").optional() });
export const renameQuery = includeQuery.extend({ listName: name });
export const filtersQuery = z.object({ enrollObjectsInWorkflows: z.enum(["true", "false"]).optional() });
const manyIds = z.union([listIdParam, z.array(listIdParam, { error: "listIds are numeric ids" }).max(LIST_LIMITS.lists, `at most ${LIST_LIMITS.lists} listIds`)]).transform((v) => (Array.isArray(v) ? v : [v]));
export const getAllQuery = includeQuery.extend({ listIds: manyIds.optional() });

export const searchBody = z.object({
  query: z.string().max(LIST_LIMITS.nameChars).optional(),
  listIds: z.array(z.string().regex(/^\d{1,15}$/, "listIds are numeric ids").transform(Number)).max(LIST_LIMITS.lists).optional(),
  processingTypes: z.array(z.enum(PROCESSING_TYPES)).max(3).optional(),
  offset: z.number().int().min(0).max(100_000).default(0),
  count: z.number().int().min(1).max(LIST_LIMITS.lists).default(20),
  additionalProperties: z.array(z.string().max(100)).max(50).optional(),
  sort: z.string().max(100).optional(),
});

export const memberIds = z
  .array(z.string().regex(/^\d{1,15}$/, "record ids are numeric").transform(Number), { error: "the body is a JSON array of record ids" })
  .max(LIST_LIMITS.ids, `at most ${LIST_LIMITS.ids} record ids a call`);
export const addAndRemoveBody = z.object({ recordIdsToAdd: memberIds.default([]), recordIdsToRemove: memberIds.default([]) });

const cursor = z.string().regex(/^\d{1,15}$/, "a cursor from paging").transform(Number);
export const pageQuery = z.object({
  after: cursor.optional(),
  before: cursor.optional(),
  limit: z.string().regex(/^\d{1,4}$/).transform(Number).pipe(z.number().int().min(1).max(LIST_LIMITS.page, `limit is at most ${LIST_LIMITS.page}`)).default(100),
});

const joinCursor = z
  .string()
  .regex(/^\d{1,15}_\d{1,15}$/, "a cursor from paging")
  .transform((v) => {
    const [at, id] = v.split("_").map(Number) as [number, number];
    return { at, id };
  });
export const joinQuery = pageQuery.extend({ after: joinCursor.optional(), before: joinCursor.optional() });
export const addFromParams = z.object({ listId: listIdParam, sourceListId: listIdParam });
export const membershipsBatchBody = z.object({
  inputs: z
    .array(z.object({ objectTypeId, recordId }))
    .min(1, "inputs needs at least one record")
    .max(LIST_LIMITS.batch, `at most ${LIST_LIMITS.batch} records a call`),
});
export const legacyQuery = z.object({ legacyListId: z.string({ error: "legacyListId is required" }).regex(/^\d{1,15}$/, "legacyListId must be a numeric id").transform(Number) });
export const legacyBody = z
  .array(z.string().regex(/^\d{1,15}$/, "legacy list ids are numeric"), { error: "the body is a JSON array of legacy list ids" })
  .min(1, "name at least one legacy list id")
  .max(LIST_LIMITS.lists, `at most ${LIST_LIMITS.lists} ids a call`);

// Folders: 0 is the root folder.
const folderId = z.string().regex(/^\d{1,15}$/, "a folder id is a number (0: the root folder)").transform(Number);
export const folderParams = z.object({ folderId });
export const folderQuery = z.object({ folderId: folderId.optional() });
export const moveFolderParams = z.object({ folderId, newParentFolderId: folderId });
export const createFolderBody = z.object({ name, parentFolderId: folderId.optional() });
export const renameFolderQuery = z.object({ newFolderName: name });
export const moveListBody = z.object({ listId: listIdParam, newFolderId: folderId });
const folderObject = z.object({
  id: z.number(),
  parentFolderId: z.number(),
  name: z.string(),
  // The child folders have this same shape, to any depth (described once, not recursively).
  childNodes: z.array(z.looseObject({ id: z.number(), childNodes: z.array(z.unknown()), childLists: z.array(z.number()) })),
  childLists: z.array(z.number()),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
export const folderResponse = z.object({ folder: folderObject });

// Answers (what the client parses).
export const listObject = z.object({
  listId: z.string(),
  listVersion: z.number(),
  name: z.string(),
  objectTypeId: z.string(),
  processingType: z.string(),
  processingStatus: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  filtersUpdatedAt: z.string(),
  deletedAt: z.string().optional(),
  size: z.number().optional(),
  filterBranch: z.unknown().optional(),
});
export const listResponse = z.object({ list: listObject });
export const listsResponse = z.object({ lists: z.array(listObject) });
export const searchResponse = z.object({ lists: z.array(listObject), offset: z.number(), hasMore: z.boolean(), total: z.number() });
export const updateResponse = z.object({ updatedList: listObject });
export const membershipsUpdate = z.object({ recordIdsRemoved: z.array(z.string()), recordsIdsAdded: z.array(z.string()), recordIdsMissing: z.array(z.string()) });
export const memberPage = z.object({
  results: z.array(z.object({ recordId: z.string(), membershipTimestamp: z.string() })),
  paging: z.object({ next: z.object({ after: z.string() }).optional(), prev: z.object({ before: z.string() }).optional() }).optional(),
  total: z.number().optional(),
});
export const joinPage = z.object({
  results: z.array(z.object({ recordId: z.string(), membershipTimestamp: z.string() })),
  paging: z.object({ next: z.object({ after: z.string() }).optional(), prev: z.object({ before: z.string() }).optional() }).optional(),
});
const membership = z.object({ listId: z.string(), listVersion: z.number(), firstAddedTimestamp: z.string(), lastAddedTimestamp: z.string() });
export const membershipsBatch = z.object({
  status: z.literal("COMPLETE"),
  results: z.array(z.object({ objectTypeId: z.string(), recordId: z.string(), recordListMemberships: z.array(membership) })),
  startedAt: z.string(),
  completedAt: z.string(),
});
export const legacyOne = z.object({ legacyListId: z.string(), listId: z.string() });
export const legacyMany = z.object({ legacyListIdsToIdsMapping: z.array(legacyOne), missingLegacyListIds: z.array(z.string()) });
export const recordMemberships = z.object({
  results: z.array(z.object({ listId: z.string(), listVersion: z.number(), firstAddedTimestamp: z.string(), lastAddedTimestamp: z.string() })),
  total: z.number(),
});

// The legacy v1 face.
export const v1ListParams = z.object({ listId: listIdParam });
const countParam = (max: number, dflt: number) => z.string().regex(/^\d{1,5}$/, "must be a number").transform(Number).pipe(z.number().int().min(1).max(max, `count is at most ${max}`)).default(dflt);
export const v1ListsQuery = z.object({ offset: z.string().regex(/^\d{1,9}$/, "offset must be a number").transform(Number).default(0), count: countParam(250, 20) });
export const v1CreateBody = z.object({
  name,
  dynamic: z.boolean().default(false),
  filters: z.array(z.array(z.unknown())).max(0, "v1 filters are not evaluated here; create a DYNAMIC list with POST /crm/v3/lists").optional(),
}).refine((b) => !b.dynamic, { path: ["dynamic"], message: "v1 dynamic lists are created with POST /crm/v3/lists (processingType DYNAMIC) here" });
export const v1MembersBody = z.object({
  vids: z.array(z.number().int().min(0)).max(LIST_LIMITS.ids, `at most ${LIST_LIMITS.ids} vids`).default([]),
  emails: z.array(z.string().max(254)).max(LIST_LIMITS.ids, `at most ${LIST_LIMITS.ids} emails`).default([]),
});
export const v1List = z.object({
  listId: z.number(),
  name: z.string(),
  portalId: z.number(),
  dynamic: z.boolean(),
  listType: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  deleteable: z.boolean(),
  archived: z.boolean(),
  internal: z.boolean(),
  metaData: z.object({ processing: z.string(), size: z.number().optional().meta({ description: "On a single list's answer" }), error: z.string(), lastProcessingStateChangeAt: z.number(), lastSizeChangeAt: z.number() }),
  filters: z.array(z.unknown()),
});
export const v1ListsResponse = z.object({ lists: z.array(v1List), offset: z.number(), "has-more": z.boolean() });
export const v1MembersResponse = z.object({ updated: z.array(z.number()), discarded: z.array(z.number()), invalidVids: z.array(z.number()), invalidEmails: z.array(z.string()) });
export const v1ContactsResponse = z.object({ contacts: z.array(z.unknown()), "has-more": z.boolean(), "vid-offset": z.number() });

export const isListType = (t: string): t is (typeof LIST_TYPES)[number] => (LIST_TYPES as readonly string[]).includes(t);
