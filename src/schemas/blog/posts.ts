/** @module zod schemas of the blog content API v2: snake_case names and epoch-ms longs, like the real service. */
import { z } from "zod";
import { POST_STATES, type PostState } from "../../db/tables/content";

/** A numeric path id; anything else is a 400. */
export const idParam = z.string().regex(/^\d{1,15}$/, "must be a numeric id").transform(Number);
export const idParams = z.object({ id: idParam });

/** Longs may come as JSON numbers or numeric strings (like the ecommerce bridge's changedAt). */
const numericId = z.union([z.number().int().positive().max(Number.MAX_SAFE_INTEGER), z.string().regex(/^\d{1,15}$/, "must be a numeric id").transform(Number)]);
const epochMs = z.union([
  z.number().int().min(0).max(253_402_300_799_999),
  z.string().regex(/^\d{1,15}$/, "must be epoch milliseconds").transform(Number),
]);
/** is_draft / publish_immediately are documented as strings, but the real service sends booleans: take both. */
const boolish = z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]);

const SLUG_SEGMENT = "[A-Za-z0-9_~-][A-Za-z0-9._~-]*";
/** Path segments of URL-safe characters; no empty, `.` or `..` segment, so the URL is exactly the slug. */
export const slugSchema = z
  .string()
  .trim()
  .transform((s) => s.replace(/^\/+|\/+$/g, ""))
  .pipe(
    z
      .string()
      .min(1, "slug must not be empty")
      .max(255)
      .regex(new RegExp(`^${SLUG_SEGMENT}(/${SLUG_SEGMENT})*$`), "slug may contain letters, digits, - _ . ~ and / between segments"),
  );

const keywordInput = z.union([
  z.string().trim().min(1).max(255).transform((keyword) => ({ keyword, keyword_guid: undefined })),
  z.object({ keyword: z.string().trim().min(1).max(255), keyword_guid: z.string().max(64).optional() }),
]);

const jsonObject = z.record(z.string(), z.unknown());

/** Writable post fields. Read-only fields a client echoes back (id, state, url, ...) are ignored. */
export const postFields = {
  name: z.string().trim().min(1, "name must not be empty").max(512),
  slug: slugSchema,
  content_group_id: numericId,
  blog_author_id: numericId.nullable(),
  html_title: z.string().max(512),
  post_body: z.string().max(512 * 1024),
  post_summary: z.string().max(64 * 1024),
  meta_description: z.string().max(1024),
  head_html: z.string().max(64 * 1024),
  footer_html: z.string().max(64 * 1024),
  featured_image: z.string().max(2048),
  use_featured_image: boolish,
  campaign: z.string().max(255),
  campaign_name: z.string().max(255).nullable(),
  keywords: z.array(keywordInput).max(100),
  topic_ids: z.array(numericId).max(100),
  widgets: jsonObject,
  widget_containers: jsonObject,
  publish_date: epochMs,
  publish_immediately: boolish,
  archived: boolish,
};

/** deleted_at is set only through DELETE, never directly. The value a GET shows (0) may be echoed back. */
const deletedAtGuard = z
  .unknown()
  .refine((v) => v === undefined || v === 0 || v === "0", "deleted_at is set only by DELETE /content/api/v2/blog-posts/{id}")
  .transform(() => undefined);

const optionalFields = Object.fromEntries(Object.entries(postFields).map(([k, v]) => [k, v.optional()])) as {
  [K in keyof typeof postFields]: z.ZodOptional<(typeof postFields)[K]>;
};

// deleted_at is optional: echoing a GET back is accepted, but no client has to send it.
export const updatePostBody = z.object({ ...optionalFields, deleted_at: deletedAtGuard.optional() });
export const createPostBody = updatePostBody.extend({ name: postFields.name });
export type PostInput = z.output<typeof updatePostBody>;

export const publishActionBody = z.object({
  action: z.enum(["schedule-publish", "cancel-publish"], { error: "action must be schedule-publish or cancel-publish" }),
});

const limit = (max: number) =>
  z.string().regex(/^\d+$/, "limit must be a positive integer").transform(Number).pipe(z.number().int().min(1, "limit must be at least 1").max(max, `limit must be at most ${max}`)).default(20);
const offset = z.string().regex(/^\d{1,9}$/, "offset must be a non-negative integer").transform(Number).default(0);
export const pageQuery = z.object({ limit: limit(300), offset });

const epochQuery = z.string().regex(/^\d{1,15}$/, "must be epoch milliseconds").transform(Number).optional();
export const SORT_FIELDS = ["created", "updated", "publish_date", "name", "id"] as const;
export type SortField = (typeof SORT_FIELDS)[number];

export const listPostsQuery = pageQuery.extend({
  content_group_id: z.string().regex(/^\d{1,15}$/, "content_group_id must be a numeric id").transform(Number).optional(),
  blog_author_id: z.string().regex(/^\d{1,15}$/, "blog_author_id must be a numeric id").transform(Number).optional(),
  // Matched case-insensitively. An unknown state is not a 400: the real service answers 200 with an empty page
  // for state=TRUE, INVALID and false.
  // null is that "matches no post" filter.
  state: z
    .string()
    .transform((s): PostState | null => {
      const upper = s.toUpperCase();
      return (POST_STATES as readonly string[]).includes(upper) ? (upper as PostState) : null;
    })
    .optional(),
  archived: z.enum(["true", "false"], { error: "archived must be true or false" }).transform((v) => v === "true").optional(),
  created__gt: epochQuery,
  created__gte: epochQuery,
  created__lt: epochQuery,
  created__lte: epochQuery,
  updated__gt: epochQuery,
  updated__gte: epochQuery,
  updated__lt: epochQuery,
  updated__lte: epochQuery,
  publish_date__gt: epochQuery,
  publish_date__gte: epochQuery,
  publish_date__lt: epochQuery,
  publish_date__lte: epochQuery,
  // Wording of the real service's answer to an unknown sort field.
  order_by: z
    .string()
    .refine((v) => (SORT_FIELDS as readonly string[]).includes(v.replace(/^-/, "")), {
      error: (issue) => `You can not sort by ${String(issue.input).replace(/^-/, "")} because it is not a valid field`,
    })
    .transform((v) => ({ field: v.replace(/^-/, "") as SortField, desc: v.startsWith("-") }))
    .default({ field: "created", desc: true }),
});
export type ListPostsQuery = z.output<typeof listPostsQuery>;

export const createBlogBody = z.object({
  name: z.string().trim().min(1, "name must not be empty").max(255),
  slug: slugSchema.optional(),
  description: z.string().max(4096).optional(),
  html_title: z.string().max(512).optional(),
});

export const createAuthorBody = z.object({
  full_name: z.string().trim().min(1, "full_name must not be empty").max(255),
  email: z.union([z.email().max(254), z.literal("")]).optional(),
  bio: z.string().max(8192).optional(),
  website: z.string().max(2048).optional(),
  twitter: z.string().max(2048).optional(),
  facebook: z.string().max(2048).optional(),
  linkedin: z.string().max(2048).optional(),
  avatar: z.string().max(2048).optional(),
  slug: slugSchema.optional(),
});

export const createTopicBody = z.object({
  name: z.string().trim().min(1, "name must not be empty").max(255),
  slug: slugSchema.optional(),
  description: z.string().max(4096).optional(),
});

// Response shapes (OpenAPI). Posts carry many more legacy keys, as the real service's do; the schema names the main ones.
export const topicResponse = z.object({
  id: z.number(),
  portal_id: z.number(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  created: z.number(),
  updated: z.number(),
  deleted_at: z.number(),
});
export const authorResponse = z.looseObject({ id: z.number(), portal_id: z.number(), full_name: z.string(), email: z.string(), slug: z.string(), created: z.number(), updated: z.number(), deleted_at: z.number() });
export const blogResponse = z.looseObject({ id: z.number(), portal_id: z.number(), name: z.string(), slug: z.string(), root_url: z.string(), created: z.number(), updated: z.number(), deleted_at: z.number() });
export const postResponse = z.looseObject({
  id: z.number(),
  portal_id: z.number(),
  name: z.string(),
  slug: z.string(),
  url: z.string(),
  state: z.enum(POST_STATES),
  is_draft: z.boolean(),
  content_group_id: z.number(),
  blog_author_id: z.number().nullable(),
  topic_ids: z.array(z.number()),
  keywords: z.array(z.object({ keyword: z.string(), keyword_guid: z.string() })),
  publish_date: z.number(),
  published_at: z.number(),
  created: z.number(),
  updated: z.number(),
  deleted_at: z.number(),
});
export const envelope = <T extends z.ZodType>(item: T) =>
  z.object({ limit: z.number(), objects: z.array(item), offset: z.number(), total: z.number(), total_count: z.number() });
