/**
 * @module zod schemas of the web app's list pages and deals board (docs/reference/web.md "Lists", "Deals
 * board"). A list's whole state is in its URL query, so a list can be shared and works without script:
 * `q`, `sort` and `dir`, the shown columns `col` (repeated), the filters as aligned repeated fields
 * `fp` (property), `fo` (operator), `fv` (value) and `fh` (high value, for BETWEEN), and the cursor `after`.
 */
import { z } from "zod";
import { OPERATORS, SEARCH_LIMITS } from "./crm/search";
import { SEARCH_MAX_LENGTH } from "./web";

/** At most this many filters, ANDed: the v3 search's limit for one filter group. */
export const MAX_LIST_FILTERS = SEARCH_LIMITS.filtersPerGroup;
/** At most this many chosen columns beside the name. */
export const MAX_LIST_COLUMNS = 12;
/** Values of an IN / NOT_IN filter, comma-separated in `fv`: the search's limit. */
export const MAX_IN_VALUES = 100;

/** A query field given once is a string, given several times an array (lib/http.ts queryObject): always an array here. */
const many = <T extends z.ZodType>(item: T, max: number, name: string) =>
  z.preprocess((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]), z.array(item).max(max, `at most ${max} ${name}`));

const propertyName = z.string().max(200, "a property name has at most 200 characters").regex(/^[A-Za-z0-9_.-]*$/, "a property name has letters, digits, _, . and - only");

/**
 * The cursor of the next page: the last shown record's id, and, on a sorted list, its sort value
 * (`<id>.<base64url of the JSON value>`), so the next page starts right after it (keyset paging: the
 * 400th page costs what the first does).
 */
export const LIST_CURSOR = /^\d{1,15}(\.[A-Za-z0-9_-]{0,700})?$/;

export const listPageQuery = z
  .object({
    q: z.string().max(SEARCH_MAX_LENGTH, `q must be at most ${SEARCH_MAX_LENGTH} characters`).optional(),
    after: z.string().regex(LIST_CURSOR, "after must be a record id or a list cursor").optional(),
    sort: propertyName.optional(),
    dir: z.enum(["asc", "desc"], { error: "dir must be asc or desc" }).optional(),
    col: many(propertyName, MAX_LIST_COLUMNS, "columns"),
    fp: many(propertyName, MAX_LIST_FILTERS + 1, "filters"),
    fo: many(z.enum(["", ...OPERATORS], { error: `fo (a filter's operator) must be one of ${OPERATORS.join(", ")}` }), MAX_LIST_FILTERS + 1, "filters"),
    fv: many(z.string().max(1000, "a filter value has at most 1000 characters"), MAX_LIST_FILTERS + 1, "filter values"),
    fh: many(z.string().max(1000, "a filter value has at most 1000 characters"), MAX_LIST_FILTERS + 1, "filter values"),
  })
  .transform((v, ctx) => {
    // A row whose property is empty is the form's blank "add a filter" row: left out.
    const filters = v.fp.flatMap((p, i) => {
      if (!p) return [];
      const operator = v.fo[i];
      if (!operator) {
        ctx.addIssue({ code: "custom", path: ["fo", i], message: `filter ${i + 1} (${p}) needs an operator` });
        return [];
      }
      const value = v.fv[i] ?? "";
      const values = operator === "IN" || operator === "NOT_IN" ? value.split(",").map((x) => x.trim()).filter(Boolean) : undefined;
      if (values && values.length > MAX_IN_VALUES) ctx.addIssue({ code: "custom", path: ["fv", i], message: `at most ${MAX_IN_VALUES} values` });
      return [{ propertyName: p, operator, value: values || value === "" ? undefined : value, highValue: v.fh[i] || undefined, values }];
    });
    if (filters.length > MAX_LIST_FILTERS) ctx.addIssue({ code: "custom", path: ["fp"], message: `at most ${MAX_LIST_FILTERS} filters` });
    // Without sort the list is in id order and dir is left alone (the form sends both fields every time).
    return { q: v.q?.trim() ?? "", after: v.after, sort: v.sort || undefined, dir: v.dir ?? "asc", columns: [...new Set(v.col.filter(Boolean))], filters };
  });
export type ListPageQuery = z.output<typeof listPageQuery>;

/** `/app/deals/board?pipeline=<id>`: the pipeline shown; the account's first when left out. */
export const boardQuery = z.object({
  pipeline: z.string().max(100, "pipeline must be a pipeline id").regex(/^[A-Za-z0-9_.:-]*$/, "pipeline must be a pipeline id").optional(),
});

export const moveParams = z.object({ objectId: z.string().max(100) });

/**
 * The board's move form. Every field is optional here so that the handler, not the body check, speaks
 * first: a signed-out post goes to sign-in, a wrong CSRF token is a 403, another account's deal a 404.
 */
export const moveBody = z.object({
  csrf: z.string().max(200).optional(),
  dealstage: z.string().max(100).optional(),
  /** The board to go back to. */
  pipeline: z.string().max(100).optional(),
});
