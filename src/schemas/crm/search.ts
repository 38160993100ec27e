/** @module zod schemas of `POST /crm/v3/objects/{objectType}/search` and its documented limits (docs/reference/crm.md). */
import { z } from "zod";

import { ASKED_PROPERTIES_DOC, askedProperties } from "./objects";

export const OPERATORS = ["EQ", "NEQ", "LT", "LTE", "GT", "GTE", "BETWEEN", "IN", "NOT_IN", "HAS_PROPERTY", "NOT_HAS_PROPERTY", "CONTAINS_TOKEN", "NOT_CONTAINS_TOKEN"] as const;
export type Operator = (typeof OPERATORS)[number];

/** At most this many results per query, whatever the paging (the real service's limit). */
export const MAX_TOTAL = 10_000;


export const SEARCH_LIMITS = { groups: 5, filtersPerGroup: 6, filters: 18, pageSize: 200, bodyChars: 3000 } as const;

/** Filter values are strings; numbers and booleans are taken as their string form. */
const value = z.union([z.string().max(SEARCH_LIMITS.bodyChars), z.number(), z.boolean()]).transform(String);

const filter = z.object({
  propertyName: z.string().min(1).max(200),
  operator: z.enum(OPERATORS, { error: `operator must be one of ${OPERATORS.join(", ")}` }),
  value: value.optional(),
  highValue: value.optional(),
  values: z.array(value).max(100, "at most 100 values").optional(),
});

const group = z.object({
  filters: z.array(filter).max(SEARCH_LIMITS.filtersPerGroup, `at most ${SEARCH_LIMITS.filtersPerGroup} filters per filter group`),
});

/** `{propertyName, direction}`, or the string form clients also send: `"prop"` ascending, `"-prop"` descending. */
const sort = z.union([
  z.string().min(1).max(201),
  z.object({ propertyName: z.string().min(1).max(200), direction: z.enum(["ASCENDING", "DESCENDING"]).default("ASCENDING") }),
]);

const count = (min: number, max: number, name: string, tooMany: string) =>
  z.union([z.number(), z.string().regex(/^\d{1,6}$/).transform(Number)], { error: `${name} must be a number (a numeric string)` }).pipe(
    z.number().int().min(min).max(max, tooMany),
  );

export const searchBody = z
  .object({
    filterGroups: z.array(group).max(SEARCH_LIMITS.groups, `at most ${SEARCH_LIMITS.groups} filterGroups`).optional(),
    sorts: z.array(sort).max(1, "only one sort is allowed").optional(),
    query: z.string().max(SEARCH_LIMITS.bodyChars).optional(),
    properties: askedProperties.optional().meta({ description: ASKED_PROPERTIES_DOC }),
    limit: count(1, SEARCH_LIMITS.pageSize, "limit", `limit is at most ${SEARCH_LIMITS.pageSize}`).optional().meta({ description: "10 when left out" }),
    after: count(0, MAX_TOTAL - 1, "after", `a search answers at most ${MAX_TOTAL} results; after must be below ${MAX_TOTAL}`)
      .optional()
      .meta({ description: `paging.next.after of the previous page; results past ${MAX_TOTAL} cannot be paged to` }),
  })
  // No defaults above: the body measured here is the one sent, less spaces and unknown fields.
  .superRefine((b, ctx) => {
    const total = (b.filterGroups ?? []).reduce((n, g) => n + g.filters.length, 0);
    if (total > SEARCH_LIMITS.filters) {
      ctx.addIssue({ code: "custom", path: ["filterGroups"], message: `at most ${SEARCH_LIMITS.filters} filters in all (${total} given)` });
    }
    const chars = JSON.stringify(b).length;
    if (chars > SEARCH_LIMITS.bodyChars) {
      ctx.addIssue({ code: "custom", path: [], message: `the search body is at most ${SEARCH_LIMITS.bodyChars} characters (${chars} given)` });
    }
  });

export const searchResult = z.object({
  id: z.string(),
  properties: z.record(z.string(), z.string().nullable()),
  createdAt: z.string(),
  updatedAt: z.string(),
  archived: z.boolean(),
});

export const searchResponse = z.object({
  total: z.number(),
  results: z.array(searchResult),
  paging: z.object({ next: z.object({ after: z.string() }) }).optional().meta({ description: "Absent on the last page" }),
});
