/**
 * @module A fixture's blog posts (docs/reference/testkit.md, "Fixtures"): posts as `POST /cms/v3/blogs/posts`
 * takes them (the same fields, rules and defaults: the default blog when no contentGroupId, a temporary slug
 * when none, the title from the name), plus their `state`, written in the fixture's batch.
 *
 * A post is made a draft by the API and published by its publish action; a fixture states where the post is:
 * `PUBLISHED` (at its publishDate, which has passed, or now), `SCHEDULED` (for its publishDate, in the
 * future: the publishing cron publishes it then) or `DRAFT`.
 */
import type { Db } from "../../db/client";
import type { ErrorDetail } from "../../lib/errors";
import { checkCustomHtml } from "../../lib/custom-html";
import { randomChars } from "../../lib/random";
import type { FixtureBlogPost } from "../../schemas/testkit";
import { caught, problem } from "./problems";

/** The default blog a post without contentGroupId goes to, made by the batch when the account has none yet. */
export const DEFAULT_BLOG = { name: "Blog", slug: "blog" };

/** The columns of blog_posts a fixture writes, in this order (`contentGroupId` null: the default blog). */
export const POST_COLUMNS = [
  "content_group_id",
  "blog_author_id",
  "name",
  "slug",
  "html_title",
  "post_body",
  "post_summary",
  "meta_description",
  "head_html",
  "footer_html",
  "featured_image",
  "use_featured_image",
  "campaign",
  "topic_ids",
  "widgets",
  "widget_containers",
  "publish_date",
  "publish_immediately",
  "state",
  "archived",
  "preview_key",
  "published_at",
] as const;

export interface PlannedPosts {
  rows: unknown[][];
  /** Whether the batch makes the account's default blog first (a post goes there and the account has none). */
  makeDefaultBlog: boolean;
  /** Each ref of a post, with its place among the posts. */
  refs: Map<string, number>;
}

const bool = (b: boolean | undefined) => (b ? 1 : 0);

/** Checks the posts (references to the account's blogs, authors and tags; slugs; HTML; state and date). */
export async function planPosts(db: Db, portalId: number, posts: FixtureBlogPost[], takenRefs: (ref: string) => boolean, errors: ErrorDetail[], now: number): Promise<PlannedPosts> {
  const out: PlannedPosts = { rows: [], makeDefaultBlog: false, refs: new Map() };
  if (!posts.length) return out;
  const ids = (f: (p: FixtureBlogPost) => (number | null | undefined)[]) => JSON.stringify([...new Set(posts.flatMap((p) => f(p).filter((v): v is number => typeof v === "number")))]);
  const slugs = posts.flatMap((p) => (p.slug === undefined ? [] : [p.slug]));
  const d1 = db.$client;
  const [blogs, authors, tags, held] = await d1.batch<{ id: number; slug?: string; isDefault?: number }>([
    d1.prepare("select id, slug, is_default as isDefault from blogs where portal_id = ?1 and deleted_at = 0 and (is_default = 1 or id in (select value from json_each(?2)))").bind(portalId, ids((p) => [p.contentGroupId])),
    d1.prepare("select id from blog_authors where portal_id = ?1 and deleted_at = 0 and id in (select value from json_each(?2))").bind(portalId, ids((p) => [p.blogAuthorId])),
    d1.prepare("select id from blog_topics where portal_id = ?1 and deleted_at = 0 and id in (select value from json_each(?2))").bind(portalId, ids((p) => p.tagIds ?? [])),
    d1.prepare("select id, slug from blog_posts where portal_id = ?1 and deleted_at = 0 and slug in (select value from json_each(?2))").bind(portalId, JSON.stringify(slugs)),
  ]);
  const blogSlug = new Map(blogs!.results.map((b) => [b.id, b.slug!]));
  const defaultBlog = blogs!.results.find((b) => b.isDefault === 1);
  const authorIds = new Set(authors!.results.map((a) => a.id));
  const tagIds = new Set(tags!.results.map((t) => t.id));
  const heldSlugs = new Map(held!.results.map((p) => [p.slug!, p.id]));
  const docSlugs = new Map<string, number>();

  for (const [i, p] of posts.entries()) {
    const at = `blogPosts[${i}].`;
    const before = errors.length;
    if (p.ref !== undefined) {
      if (takenRefs(p.ref) || out.refs.has(p.ref)) errors.push(problem(`${at}ref`, `the ref ${JSON.stringify(p.ref)} names another record or post of the document`, "DUPLICATE_REF"));
      else out.refs.set(p.ref, out.rows.length);
    }
    if (p.contentGroupId !== undefined && !blogSlug.has(p.contentGroupId)) errors.push(problem(`${at}contentGroupId`, `${p.contentGroupId} is not a blog of this account`));
    if (typeof p.blogAuthorId === "number" && !authorIds.has(p.blogAuthorId)) errors.push(problem(`${at}blogAuthorId`, `${p.blogAuthorId} is not a blog author of this account`));
    const missing = (p.tagIds ?? []).filter((t) => !tagIds.has(t));
    if (missing.length) errors.push(problem(`${at}tagIds`, `${missing.join(", ")} ${missing.length > 1 ? "are not tags" : "is not a tag"} of this account`));
    if (p.slug !== undefined) {
      if (heldSlugs.has(p.slug)) errors.push(problem(`${at}slug`, `post ${heldSlugs.get(p.slug)} of the account uses the slug ${p.slug} already`, "DUPLICATE_SLUG"));
      else if (docSlugs.has(p.slug)) errors.push(problem(`${at}slug`, `the same slug as blogPosts[${docSlugs.get(p.slug)}]`, "DUPLICATE_SLUG"));
      else docSlugs.set(p.slug, i);
    }
    try {
      await checkCustomHtml({ headHtml: p.headHtml, footerHtml: p.footerHtml });
    } catch (err) {
      errors.push(...caught(err, at));
    }
    const state = p.state ?? "DRAFT";
    const date = p.publishDate;
    if (state === "SCHEDULED" && (date === undefined || date <= now)) errors.push(problem(`${at}publishDate`, "a SCHEDULED post is published at its publishDate, which must be in the future", "INVALID_STATE"));
    if (state === "PUBLISHED" && date !== undefined && date > now) errors.push(problem(`${at}publishDate`, "a PUBLISHED post's publishDate has passed (a post for later is SCHEDULED)", "INVALID_STATE"));
    if (errors.length > before) continue;

    if (p.contentGroupId === undefined && !defaultBlog) out.makeDefaultBlog = true;
    // Without a slug the service assigns a temporary one, as the API does: `<blog>/-temporary-slug-<uuid>`.
    const prefix = p.contentGroupId === undefined ? (defaultBlog?.slug ?? DEFAULT_BLOG.slug) : blogSlug.get(p.contentGroupId)!;
    const publishDate = date ?? now;
    out.rows.push([
      p.contentGroupId ?? null,
      p.blogAuthorId ?? null,
      p.name,
      p.slug ?? `${prefix}/-temporary-slug-${crypto.randomUUID()}`,
      p.htmlTitle ?? p.name,
      p.postBody ?? "",
      p.postSummary ?? "",
      p.metaDescription ?? "",
      p.headHtml ?? "",
      p.footerHtml ?? "",
      p.featuredImage ?? "",
      bool(p.useFeaturedImage),
      p.campaign ?? "",
      JSON.stringify([...new Set(p.tagIds ?? [])]),
      JSON.stringify(p.widgets ?? {}),
      JSON.stringify(p.widgetContainers ?? {}),
      publishDate,
      bool(p.publishImmediately),
      state,
      bool(p.archivedInDashboard),
      randomChars(8),
      state === "PUBLISHED" ? publishDate : 0,
    ]);
  }
  return out;
}
