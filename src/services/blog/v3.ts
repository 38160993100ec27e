/**
 * @module The v3 face of blog posts (`/cms/v3/blogs/posts`) over the v2 post rows. The mapping is here, once:
 *
 * | v3 | v2 |
 * |---|---|
 * | `id`, `contentGroupId`, `blogAuthorId` (strings) | `id`, `content_group_id`, `blog_author_id` (numbers) |
 * | `postBody`, `htmlTitle`, … (camelCase) | `post_body`, `html_title`, … |
 * | `tagIds` | `topic_ids` |
 * | `publishDate`, `created`, `updated` (ISO) | `publish_date`, `created`, `updated` (epoch ms) |
 * | `archivedInDashboard` | `archived` |
 * | `archivedAt` (DELETE; v3 `archived=true`) | `deleted_at` |
 * | — | `campaign_name`, `is_draft`, `keywords` (dropped in v3) |
 *
 * Writes go through the v2 service, so slug uniqueness, references to the account's own blogs, authors and
 * topics, and "deleted_at only via DELETE" hold; the public page (sanitised on every serve) is the same row.
 * The v3 draft is the post's `draft` column: v2 fields waiting for push-live.
 */
import { and, asc, desc, eq, gt, gte, lt, lte, ne, not, sql, type AnyColumn, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { blogPosts } from "../../db/tables/content";
import { ApiError, badRequest, notFound } from "../../lib/errors";
import type { FilterOp, FilterProperty, ListQuery, PostV3Input } from "../../schemas/blog/v3";
import { FILTER_OPS, FILTER_PROPERTIES } from "../../schemas/blog/v3";
import type { PostInput } from "../../schemas/blog/posts";
import { inJson } from "../crm/records";
import { countOf } from "./blogs";
import * as posts from "./posts";

type Relations = posts.PostRelations;
const iso = (ms: number) => new Date(ms).toISOString();

/** The v2 input a v3 body stands for (only the fields sent). */
export function toV2(input: PostV3Input): PostInput {
  const out: PostInput = {
    name: input.name,
    slug: input.slug,
    content_group_id: input.contentGroupId,
    blog_author_id: input.blogAuthorId,
    html_title: input.htmlTitle,
    post_body: input.postBody,
    post_summary: input.postSummary,
    meta_description: input.metaDescription,
    head_html: input.headHtml,
    footer_html: input.footerHtml,
    featured_image: input.featuredImage,
    use_featured_image: input.useFeaturedImage,
    campaign: input.campaign,
    topic_ids: input.tagIds,
    widgets: input.widgets,
    widget_containers: input.widgetContainers,
    publish_date: input.publishDate,
    publish_immediately: input.publishImmediately,
    archived: input.archivedInDashboard,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as PostInput;
}

export function presentPostV3(p: posts.PostRow, rel: Relations, postUrl: string) {
  const author = p.blogAuthorId === null ? undefined : rel.authors.get(p.blogAuthorId);
  return {
    id: String(p.id),
    name: p.name,
    slug: p.slug,
    state: p.state,
    currentState: p.state,
    currentlyPublished: p.state === "PUBLISHED",
    contentGroupId: String(p.contentGroupId),
    blogAuthorId: p.blogAuthorId === null ? null : String(p.blogAuthorId),
    authorName: author?.fullName ?? "",
    htmlTitle: p.htmlTitle,
    postBody: p.postBody,
    postSummary: p.postSummary,
    metaDescription: p.metaDescription,
    headHtml: p.headHtml,
    footerHtml: p.footerHtml,
    featuredImage: p.featuredImage,
    useFeaturedImage: p.useFeaturedImage,
    campaign: p.campaign,
    tagIds: p.topicIds,
    widgets: p.widgets,
    widgetContainers: p.widgetContainers,
    publishDate: iso(p.publishDate),
    publishImmediately: p.publishImmediately,
    archivedInDashboard: p.archived,
    // A number in the client's model (epoch ms); 0 while the post is not archived.
    archivedAt: p.deletedAt,
    url: postUrl,
    createdById: String(p.authorUserId),
    created: iso(p.createdAt),
    updated: iso(p.updatedAt),
  };
}

const V3_NAMES: Record<string, string> = { content_group_id: "contentGroupId", blog_author_id: "blogAuthorId", topic_ids: "tagIds", slug: "slug" };

/** Runs a v2 write, naming the fields of its errors the v3 way (`blog_author_id` → `blogAuthorId`). */
export async function inV3Terms<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    const field = err instanceof ApiError ? (err.init.context?.propertyName as string[] | undefined)?.[0] : undefined;
    const v3 = field ? V3_NAMES[field] : undefined;
    if (!(err instanceof ApiError) || !field || !v3) throw err;
    throw new ApiError(err.category, err.message.replace(field, v3), { ...err.init, context: { ...err.init.context, propertyName: [v3] } });
  }
}

/** A post the v3 face shows: an archived (deleted) one only when `archived=true` asks for it. */
export async function getPostV3(db: Db, portalId: number, id: number, archived = false) {
  const row = await posts.getPost(db, portalId, id);
  if (row.deletedAt !== 0 && !archived) throw notFound(`Blog post ${id} not found`);
  return row;
}

/** `getPostV3` and the post's relations in one round trip (posts.getPostWithRelations). */
export async function getPostV3WithRelations(db: Db, portalId: number, id: number, archived = false) {
  const found = await posts.getPostWithRelations(db, portalId, id);
  if (found.post.deletedAt !== 0 && !archived) throw notFound(`Blog post ${id} not found`);
  return found;
}

// ---------------------------------------------------------------------------------------------------------
// Listing

const COLUMNS: Record<FilterProperty, { col: AnyColumn; kind: "text" | "number" | "date" | "bool" }> = {
  id: { col: blogPosts.id, kind: "number" },
  name: { col: blogPosts.name, kind: "text" },
  slug: { col: blogPosts.slug, kind: "text" },
  state: { col: blogPosts.state, kind: "text" },
  contentGroupId: { col: blogPosts.contentGroupId, kind: "number" },
  blogAuthorId: { col: blogPosts.blogAuthorId, kind: "number" },
  htmlTitle: { col: blogPosts.htmlTitle, kind: "text" },
  campaign: { col: blogPosts.campaign, kind: "text" },
  publishDate: { col: blogPosts.publishDate, kind: "date" },
  createdAt: { col: blogPosts.createdAt, kind: "date" },
  updatedAt: { col: blogPosts.updatedAt, kind: "date" },
  archivedInDashboard: { col: blogPosts.archived, kind: "bool" },
};

const SORT_COLUMNS: Record<string, AnyColumn> = {
  createdAt: blogPosts.createdAt,
  updatedAt: blogPosts.updatedAt,
  name: blogPosts.name,
  createdBy: blogPosts.authorUserId,
  updatedBy: blogPosts.authorUserId,
};

const filterError = (key: string, why: string) => badRequest(`Invalid query: ${key}: ${why}`, { errors: [{ message: `${key}: ${why}`, code: "INVALID_FILTER", in: "query", context: { propertyName: [key] } }] });

function filterValue(key: string, kind: "text" | "number" | "date" | "bool", raw: string): string | number | boolean {
  if (kind === "text") return raw;
  if (kind === "bool") {
    if (raw !== "true" && raw !== "false") throw filterError(key, "must be true or false");
    return raw === "true";
  }
  if (/^\d{1,15}$/.test(raw)) return Number(raw);
  const ms = kind === "date" ? Date.parse(raw) : NaN;
  if (!Number.isFinite(ms)) throw filterError(key, kind === "date" ? "must be an ISO date or epoch milliseconds" : "must be a number");
  return ms;
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** One `property__op=value` filter (the documented operators) as SQL. */
function filterOf(key: string, raw: string): SQL {
  const at = key.lastIndexOf("__");
  const property = key.slice(0, at) as FilterProperty;
  const op = key.slice(at + 2) as FilterOp;
  if (!(FILTER_PROPERTIES as readonly string[]).includes(property)) throw filterError(key, `cannot filter on ${property}; filterable: ${FILTER_PROPERTIES.join(", ")}`);
  if (!(FILTER_OPS as readonly string[]).includes(op)) throw filterError(key, `unknown operator ${op}; one of ${FILTER_OPS.join(", ")}`);
  const { col, kind } = COLUMNS[property];
  const value = () => filterValue(key, kind, raw);
  switch (op) {
    case "eq": return eq(col, value());
    case "ne": return ne(col, value());
    case "lt": return lt(col, value());
    case "lte": return lte(col, value());
    case "gt": return gt(col, value());
    case "gte": return gte(col, value());
    case "is_null": return sql`${col} is null`;
    case "not_null": return sql`${col} is not null`;
    case "contains": return sql`instr(${col}, ${raw}) > 0`;
    case "icontains": return sql`instr(lower(${col}), lower(${raw})) > 0`;
    case "startswith": return sql`${col} like ${`${likeEscape(raw)}%`} escape '\\'`;
    case "like": return sql`${col} like ${raw}`;
    case "not_like": return sql`${col} not like ${raw}`;
    case "in":
    case "nin": {
      const list = raw.split(",").map((v) => filterValue(key, kind, v.trim())) as (string | number)[];
      return op === "in" ? inJson(col, list) : not(inJson(col, list));
    }
  }
}

const KNOWN = new Set(["limit", "after", "sort", "archived", "state", "createdAt", "createdAfter", "createdBefore", "updatedAt", "updatedAfter", "updatedBefore", "property"]);

/** One page of the account's posts: `after` is the offset of the next page (an opaque numeric string). */
export async function listPostsV3(db: Db, portalId: number, q: ListQuery) {
  const conds: (SQL | undefined)[] = [eq(blogPosts.portalId, portalId), q.archived ? gt(blogPosts.deletedAt, 0) : eq(blogPosts.deletedAt, 0)];
  if (q.state) conds.push(eq(blogPosts.state, q.state));
  if (q.createdAt !== undefined) conds.push(eq(blogPosts.createdAt, q.createdAt));
  if (q.createdAfter !== undefined) conds.push(gt(blogPosts.createdAt, q.createdAfter));
  if (q.createdBefore !== undefined) conds.push(lt(blogPosts.createdAt, q.createdBefore));
  if (q.updatedAt !== undefined) conds.push(eq(blogPosts.updatedAt, q.updatedAt));
  if (q.updatedAfter !== undefined) conds.push(gt(blogPosts.updatedAt, q.updatedAfter));
  if (q.updatedBefore !== undefined) conds.push(lt(blogPosts.updatedAt, q.updatedBefore));
  for (const [key, raw] of Object.entries(q)) {
    if (KNOWN.has(key) || !key.includes("__")) continue;
    for (const v of Array.isArray(raw) ? raw : [raw]) conds.push(filterOf(key, String(v)));
  }
  const sort = q.sort?.[0] ?? "createdAt";
  const dir = sort.startsWith("-") ? desc : asc;
  const where = and(...conds);
  const offset = q.after ?? 0;
  const [rows, count] = await db.batch([
    db.select().from(blogPosts).where(where).orderBy(dir(SORT_COLUMNS[sort.replace(/^-/, "")]!), dir(blogPosts.id)).limit(q.limit).offset(offset),
    db.select({ n: sql<number>`count(*)` }).from(blogPosts).where(where),
  ]);
  const total = countOf(count);
  return { rows, total, next: offset + rows.length < total ? String(offset + rows.length) : null };
}

// ---------------------------------------------------------------------------------------------------------
// Schedule and draft

/** Publishes at `publishDate` (now if it has passed) through the v2 publish action and the publishing cron. */
export async function schedule(db: Db, portalId: number, id: number, publishDate: number, now: number) {
  await getPostV3(db, portalId, id);
  await posts.updatePost(db, portalId, id, { publish_date: publishDate, publish_immediately: false }, now);
  await posts.publishAction(db, portalId, id, "schedule-publish", now);
}

/** The post as its draft shows it: the live fields with the pending changes over them. */
export function draftView(row: posts.PostRow): posts.PostRow {
  return row.draft ? { ...row, ...posts.columnsOf(row.draft as PostInput) } : row;
}

export async function patchDraft(db: Db, portalId: number, id: number, input: PostInput) {
  const row = await getPostV3(db, portalId, id);
  await inV3Terms(posts.checkReferences(db, portalId, input));
  const draft = { ...(row.draft ?? {}), ...input };
  const updated = await db.update(blogPosts).set({ draft }).where(and(eq(blogPosts.id, id), eq(blogPosts.portalId, portalId))).returning().get();
  if (!updated) throw notFound(`Blog post ${id} not found`);
  return updated;
}

/** The draft's changes made live through the v2 update (slug uniqueness, references), then the draft cleared. */
export async function pushLive(db: Db, portalId: number, id: number, now: number) {
  const row = await getPostV3(db, portalId, id);
  if (row.draft) await inV3Terms(posts.updatePost(db, portalId, id, row.draft as PostInput, now));
  await resetDraft(db, portalId, id);
}

export async function resetDraft(db: Db, portalId: number, id: number) {
  await getPostV3(db, portalId, id);
  await db.update(blogPosts).set({ draft: null }).where(and(eq(blogPosts.id, id), eq(blogPosts.portalId, portalId)));
}
