/**
 * @module zod schemas of blog posts v3 (`/cms/v3/blogs/posts`): camelCase names for the v2 post fields, with
 * the v2 rules (each v3 field is checked by its v2 schema), ISO dates and string ids. services/blog/v3.ts
 * maps them onto the v2 post.
 */
import { z } from "zod";
import { POST_STATES } from "../../db/tables/content";
import { afterCursor, booleanQuery, pagingSchema } from "../../lib/paging";
import { postFields } from "./posts";

const isoDate = (field: string) =>
  z.union([z.iso.datetime({ offset: true, error: `${field} must be an ISO 8601 date-time` }), z.iso.date()]).transform((s) => Date.parse(s));
const isoOrMs = (field: string) => z.union([isoDate(field), z.number().int().min(0).max(253_402_300_799_999)]).transform(Number);

/** v3 name → the v2 field schema (dropped in v3: campaign_name, is_draft, keywords; topic_ids → tagIds). */
const fields = {
  name: postFields.name,
  slug: postFields.slug,
  contentGroupId: postFields.content_group_id,
  blogAuthorId: postFields.blog_author_id,
  htmlTitle: postFields.html_title,
  postBody: postFields.post_body,
  postSummary: postFields.post_summary,
  metaDescription: postFields.meta_description,
  headHtml: postFields.head_html,
  footerHtml: postFields.footer_html,
  featuredImage: postFields.featured_image,
  useFeaturedImage: postFields.use_featured_image,
  campaign: postFields.campaign,
  tagIds: postFields.topic_ids,
  widgets: postFields.widgets,
  widgetContainers: postFields.widget_containers,
  publishDate: isoOrMs("publishDate"),
  publishImmediately: postFields.publish_immediately,
  archivedInDashboard: postFields.archived,
};
export type V3Field = keyof typeof fields;

const optional = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.optional()])) as {
  [K in V3Field]: z.ZodOptional<(typeof fields)[K]>;
};

/** The v2 rule: deleted_at (v3 archivedAt) is set only by DELETE; the 0 a read shows may be echoed back. */
const archivedAtGuard = z
  .unknown()
  .refine((v) => v === undefined || v === 0 || v === "0" || v === null, "archivedAt is set only by DELETE /cms/v3/blogs/posts/{id}")
  .optional();

/** Read-only keys a client echoes back (id, state, url, created, ...) are accepted and ignored, as in v2. */
export const patchPostV3Body = z.looseObject({ ...optional, archivedAt: archivedAtGuard });
export const createPostV3Body = patchPostV3Body.extend({ name: fields.name });
export type PostV3Input = z.output<typeof patchPostV3Body>;

export const idParams = z.object({ id: z.string().regex(/^\d{1,15}$/, "id must be a numeric id").transform(Number) });
export const readQuery = z.object({ archived: booleanQuery("archived").default(false) });

export const scheduleBody = z.object({
  id: z.string().regex(/^\d{1,15}$/, "id must be a numeric id").transform(Number),
  publishDate: isoOrMs("publishDate"),
});

export const SORTS = ["createdAt", "name", "updatedAt", "createdBy", "updatedBy"] as const;
export const FILTER_OPS = ["eq", "ne", "contains", "lt", "lte", "gt", "gte", "is_null", "not_null", "like", "not_like", "icontains", "startswith", "in", "nin"] as const;
export type FilterOp = (typeof FILTER_OPS)[number];
export const FILTER_PROPERTIES = ["id", "name", "slug", "state", "contentGroupId", "blogAuthorId", "htmlTitle", "campaign", "publishDate", "createdAt", "updatedAt", "archivedInDashboard"] as const;
export type FilterProperty = (typeof FILTER_PROPERTIES)[number];
export const MAX_PAGE = 300;

const dateQuery = (field: string) => isoDate(field).optional();

/**
 * The list's query: paging, sort, the date shortcuts the client sends, `state`, and `property__op` filters
 * (unknown keys are checked by the service, which names the property or operator it cannot use).
 */
export const listQuery = z.looseObject({
  limit: z.coerce.number().int().min(1, "limit must be at least 1").max(MAX_PAGE, `limit must be at most ${MAX_PAGE}`).default(20),
  after: afterCursor,
  sort: z
    .union([z.string(), z.array(z.string())])
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .pipe(
      z
        .array(z.enum([...SORTS, ...SORTS.map((s) => `-${s}` as const)], { error: `sort must be one of ${SORTS.join(", ")}, with - for descending` }))
        .max(1, "only one sort is allowed"),
    )
    .optional(),
  archived: booleanQuery("archived").default(false),
  state: z.enum(POST_STATES, { error: `state must be one of ${POST_STATES.join(", ")}` }).optional(),
  createdAt: dateQuery("createdAt"),
  createdAfter: dateQuery("createdAfter"),
  createdBefore: dateQuery("createdBefore"),
  updatedAt: dateQuery("updatedAt"),
  updatedAfter: dateQuery("updatedAfter"),
  updatedBefore: dateQuery("updatedBefore"),
  property: z.string().max(255).optional(),
});
export type ListQuery = z.output<typeof listQuery>;

export const postV3Response = z.looseObject({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  state: z.enum(POST_STATES),
  currentState: z.string(),
  contentGroupId: z.string(),
  blogAuthorId: z.string().nullable(),
  postBody: z.string(),
  tagIds: z.array(z.number()),
  publishDate: z.string(),
  url: z.string(),
  created: z.string(),
  updated: z.string(),
  archivedAt: z.number(),
});
export const postPage = z.object({ total: z.number(), results: z.array(postV3Response), paging: pagingSchema });
