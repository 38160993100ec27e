/**
 * @module Blog posts of one account (the v2 content API). Every query is scoped by portalId: another
 * account's id is simply not found. A post moves DRAFT → SCHEDULED → PUBLISHED only through the publish
 * action and the publishing cron; DELETE sets deleted_at, nothing else can.
 */
import { and, asc, desc, eq, gt, gte, inArray, lt, lte, sql, type AnyColumn, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { newId } from "../../db/id-ranges";
import { rowReader } from "../../db/raw-rows";
import { blogAuthors, blogPosts, blogs, blogTopics, type Keyword } from "../../db/tables/content";
import { badRequest, conflict, notFound } from "../../lib/errors";
import { randomChars } from "../../lib/random";
import type { ListPostsQuery, PostInput, SortField } from "../../schemas/blog/posts";
import { countOf, ensureDefaultBlog, getBlog, isUniqueViolation, type AuthorRow, type BlogRow, type Page, type TopicRow } from "./blogs";
import { inJson } from "../crm/records";
import { checkCustomHtml } from "../../lib/custom-html";

export type PostRow = typeof blogPosts.$inferSelect;

// Literal (not bound) conditions, so SQLite can prove they imply the partial indexes' WHERE clauses.
const livePost = sql`${blogPosts.deletedAt} = 0`;
const scheduled = sql`${blogPosts.state} = 'SCHEDULED'`;

export interface Actor {
  userId: number | null;
}

/** Reads a post of the account, deleted or not (a deleted post shows its deleted_at). */
export async function getPost(db: Db, portalId: number, id: number): Promise<PostRow> {
  const row = await db.select().from(blogPosts).where(and(eq(blogPosts.id, id), eq(blogPosts.portalId, portalId))).get();
  if (!row) throw notFound(`Blog post ${id} not found`);
  return row;
}

const postRows = rowReader(blogPosts);
const blogRows = rowReader(blogs);
const authorRows = rowReader(blogAuthors);
const topicRows = rowReader(blogTopics);

/**
 * The post by id and account with its blog and author (JSON objects, from scalar subqueries on their
 * primary keys) and its topics (one JSON array). Measured in the bench Worker, this costs D1
 * about 0.1 ms less than the same read as left joins: joined tables' columns, as values or as json_object,
 * are built even when absent, and a post without topics skips their json_each. The post's columns are
 * listed and read as an array (`raw()`). Built once: see src/db/raw-rows.ts.
 */
const POST_WITH_RELATIONS = `select ${postRows.columnList("p")},
  (select ${blogRows.jsonObject("b")} from blogs b where b.id = p.content_group_id and b.portal_id = p.portal_id) as rel_blog,
  (select ${authorRows.jsonObject("a")} from blog_authors a where a.id = p.blog_author_id and a.portal_id = p.portal_id) as rel_author,
  case when p.topic_ids = '[]' then '[]' else (select json_group_array(${topicRows.jsonObject("t")}) from blog_topics t
    where t.portal_id = p.portal_id and t.id in (select value from json_each(p.topic_ids))) end as rel_topics
  from blog_posts p
  where p.id = ?1 and p.portal_id = ?2`;

const parsed = <T>(json: unknown, read: (o: Record<string, unknown>) => T): T | null =>
  typeof json === "string" ? read(JSON.parse(json) as Record<string, unknown>) : null;

/**
 * A post with its blog, author and topics in ONE statement: one round trip, not one for the post and another
 * for its relations. A post that is not the account's has no row, and so no relations.
 */
export async function getPostWithRelations(db: Db, portalId: number, id: number): Promise<{ post: PostRow; rel: PostRelations }> {
  const [raw] = await db.$client.prepare(POST_WITH_RELATIONS).bind(id, portalId).raw();
  if (!raw) throw notFound(`Blog post ${id} not found`);
  const at = postRows.width;
  const post = postRows.fromArray(raw, 0);
  const blog = parsed(raw[at], blogRows.fromJson);
  const author = parsed(raw[at + 1], authorRows.fromJson);
  const topics = (JSON.parse(raw[at + 2] as string) as Record<string, unknown>[]).map((t) => topicRows.fromJson(t));
  return {
    post,
    rel: {
      authors: new Map(author ? [[author.id, author]] : []),
      blogs: new Map(blog ? [[blog.id, blog]] : []),
      topics: new Map(topics.map((t) => [t.id, t])),
    },
  };
}

/** A post that may still change: deleted posts are read-only. */
export async function getLivePost(db: Db, portalId: number, id: number): Promise<PostRow> {
  const row = await getPost(db, portalId, id);
  if (row.deletedAt !== 0) throw conflict(`Blog post ${id} is deleted and can no longer be changed`);
  return row;
}

/** blog_author_id, topic_ids and content_group_id must name rows of the same account. */
export async function checkReferences(db: Db, portalId: number, input: PostInput): Promise<void> {
  const checks: Promise<void>[] = [];
  if (input.content_group_id !== undefined) {
    const id = input.content_group_id;
    checks.push(
      db
        .select({ id: blogs.id })
        .from(blogs)
        .where(and(eq(blogs.id, id), eq(blogs.portalId, portalId), eq(blogs.deletedAt, 0)))
        .get()
        .then((r) => {
          if (!r) throw badRequest(`content_group_id ${id} is not a blog of this account`, { context: { propertyName: ["content_group_id"] } });
        }),
    );
  }
  if (input.blog_author_id !== undefined && input.blog_author_id !== null) {
    const id = input.blog_author_id;
    checks.push(
      db
        .select({ id: blogAuthors.id })
        .from(blogAuthors)
        .where(and(eq(blogAuthors.id, id), eq(blogAuthors.portalId, portalId), eq(blogAuthors.deletedAt, 0)))
        .get()
        .then((r) => {
          if (!r) throw badRequest(`blog_author_id ${id} is not a blog author of this account`, { context: { propertyName: ["blog_author_id"] } });
        }),
    );
  }
  if (input.topic_ids?.length) {
    const wanted = [...new Set(input.topic_ids)];
    checks.push(
      db
        .select({ id: blogTopics.id })
        .from(blogTopics)
        .where(and(eq(blogTopics.portalId, portalId), eq(blogTopics.deletedAt, 0), inJson(blogTopics.id, wanted)))
        .all()
        .then((rows) => {
          const found = new Set(rows.map((r) => r.id));
          const missing = wanted.filter((id) => !found.has(id));
          if (missing.length) throw badRequest(`topic_ids ${missing.join(", ")} are not topics of this account`, { context: { propertyName: ["topic_ids"] } });
        }),
    );
  }
  await Promise.all(checks);
}

const keywordsOf = (input: NonNullable<PostInput["keywords"]>): Keyword[] =>
  input.map((k) => ({ keyword: k.keyword, keyword_guid: k.keyword_guid ?? crypto.randomUUID().replace(/-/g, "") }));

/** Column values for the fields present in `input` (a PUT changes only what it sends). */
export function columnsOf(input: PostInput): Partial<typeof blogPosts.$inferInsert> {
  const out: Partial<typeof blogPosts.$inferInsert> = {};
  if (input.name !== undefined) out.name = input.name;
  if (input.slug !== undefined) out.slug = input.slug;
  if (input.content_group_id !== undefined) out.contentGroupId = input.content_group_id;
  if (input.blog_author_id !== undefined) out.blogAuthorId = input.blog_author_id;
  if (input.html_title !== undefined) out.htmlTitle = input.html_title;
  if (input.post_body !== undefined) out.postBody = input.post_body;
  if (input.post_summary !== undefined) out.postSummary = input.post_summary;
  if (input.meta_description !== undefined) out.metaDescription = input.meta_description;
  if (input.head_html !== undefined) out.headHtml = input.head_html;
  if (input.footer_html !== undefined) out.footerHtml = input.footer_html;
  if (input.featured_image !== undefined) out.featuredImage = input.featured_image;
  if (input.use_featured_image !== undefined) out.useFeaturedImage = input.use_featured_image;
  if (input.campaign !== undefined) out.campaign = input.campaign;
  if (input.campaign_name !== undefined) out.campaignName = input.campaign_name;
  if (input.keywords !== undefined) out.keywords = keywordsOf(input.keywords);
  if (input.topic_ids !== undefined) out.topicIds = [...new Set(input.topic_ids)];
  if (input.widgets !== undefined) out.widgets = input.widgets;
  if (input.widget_containers !== undefined) out.widgetContainers = input.widget_containers;
  if (input.publish_date !== undefined) out.publishDate = input.publish_date;
  if (input.publish_immediately !== undefined) out.publishImmediately = input.publish_immediately;
  if (input.archived !== undefined) out.archived = input.archived;
  return out;
}

async function withSlugConflict<T>(slug: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`Another post of this account already uses the slug ${slug ?? ""}`, { context: { propertyName: ["slug"] } });
    throw err;
  }
}

/**
 * Creates a draft (it stays one until the publish action). Without content_group_id the post goes to the
 * default blog.
 */
export async function createPost(db: Db, portalId: number, input: PostInput & { name: string }, actor: Actor, now: number): Promise<PostRow> {
  await checkCustomHtml({ head_html: input.head_html, footer_html: input.footer_html });
  await checkReferences(db, portalId, input);
  const cols = columnsOf(input);
  const blog = cols.contentGroupId === undefined ? await ensureDefaultBlog(db, portalId, now) : null;
  const contentGroupId = cols.contentGroupId ?? blog!.id;
  // Without a slug the real service assigns a temporary one (recorded: `<blog>/-temporary-slug-<uuid>`).
  const prefix = cols.slug === undefined ? (blog ?? (await getBlog(db, portalId, contentGroupId))).slug : "";
  const slug = cols.slug ?? `${prefix}/-temporary-slug-${crypto.randomUUID()}`;
  return withSlugConflict(slug, () =>
    db
      .insert(blogPosts)
      .values({
        ...cols,
        id: newId("blog_posts"),
        portalId,
        contentGroupId,
        name: input.name,
        slug,
        htmlTitle: cols.htmlTitle ?? input.name,
        authorUserId: actor.userId ?? 0,
        publishDate: cols.publishDate ?? now,
        state: "DRAFT",
        previewKey: randomChars(8),
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get(),
  );
}

export async function updatePost(db: Db, portalId: number, id: number, input: PostInput, now: number): Promise<PostRow> {
  await checkCustomHtml({ head_html: input.head_html, footer_html: input.footer_html });
  await getLivePost(db, portalId, id);
  await checkReferences(db, portalId, input);
  const cols = columnsOf(input);
  const row = await withSlugConflict(input.slug, () =>
    db
      .update(blogPosts)
      .set({ ...cols, updatedAt: now })
      .where(and(eq(blogPosts.id, id), eq(blogPosts.portalId, portalId), eq(blogPosts.deletedAt, 0)))
      .returning()
      .get(),
  );
  if (!row) throw conflict(`Blog post ${id} is deleted and can no longer be changed`);
  return row;
}

/** DELETE is the only way deleted_at is set; it is never set directly. Deleting again keeps the first deletion time. */
export async function deletePost(db: Db, portalId: number, id: number, now: number): Promise<void> {
  const row = await getPost(db, portalId, id);
  if (row.deletedAt !== 0) return;
  await db
    .update(blogPosts)
    .set({ deletedAt: now, updatedAt: now })
    .where(and(eq(blogPosts.id, id), eq(blogPosts.portalId, portalId), eq(blogPosts.deletedAt, 0)));
}

export type PublishAction = "schedule-publish" | "cancel-publish";

/**
 * schedule-publish publishes now when publish_immediately is true (publish_date is then
 * set to now) or publish_date has passed, else schedules it for the cron. cancel-publish takes a scheduled
 * or published post back to draft. Both are idempotent.
 */
export async function publishAction(db: Db, portalId: number, id: number, action: PublishAction, now: number): Promise<PostRow> {
  const post = await getLivePost(db, portalId, id);
  let set: Partial<typeof blogPosts.$inferInsert>;
  if (action === "schedule-publish") {
    if (post.state === "PUBLISHED") return post;
    if (post.publishImmediately || post.publishDate <= now) {
      set = { state: "PUBLISHED", publishedAt: now, publishDate: post.publishImmediately ? now : post.publishDate, unpublishedAt: null };
    } else {
      set = { state: "SCHEDULED" };
    }
  } else {
    if (post.state === "DRAFT") return post;
    set = post.state === "PUBLISHED" ? { state: "DRAFT", unpublishedAt: now } : { state: "DRAFT" };
  }
  const row = await db
    .update(blogPosts)
    .set({ ...set, updatedAt: now })
    .where(and(eq(blogPosts.id, id), eq(blogPosts.portalId, portalId), eq(blogPosts.deletedAt, 0)))
    .returning()
    .get();
  if (!row) throw conflict(`Blog post ${id} is deleted and can no longer be changed`);
  return row;
}

const SORT_COLUMNS: Record<SortField, AnyColumn> = {
  created: blogPosts.createdAt,
  updated: blogPosts.updatedAt,
  publish_date: blogPosts.publishDate,
  name: blogPosts.name,
  id: blogPosts.id,
};

/** Live (not deleted) posts of the account matching the common v2 filters, one page plus the total. */
export async function listPosts(db: Db, portalId: number, q: ListPostsQuery): Promise<Page<PostRow>> {
  if (q.state === null) return { rows: [], total: 0 }; // an unknown state matches no post (see listPostsQuery)
  const conds: (SQL | undefined)[] = [eq(blogPosts.portalId, portalId), eq(blogPosts.deletedAt, 0)];
  if (q.content_group_id !== undefined) conds.push(eq(blogPosts.contentGroupId, q.content_group_id));
  if (q.blog_author_id !== undefined) conds.push(eq(blogPosts.blogAuthorId, q.blog_author_id));
  if (q.state !== undefined) conds.push(eq(blogPosts.state, q.state));
  if (q.archived !== undefined) conds.push(eq(blogPosts.archived, q.archived));
  const ranges = [
    ["created", blogPosts.createdAt],
    ["updated", blogPosts.updatedAt],
    ["publish_date", blogPosts.publishDate],
  ] as const;
  for (const [name, col] of ranges) {
    const v = (op: string) => q[`${name}__${op}` as keyof ListPostsQuery] as number | undefined;
    if (v("gt") !== undefined) conds.push(gt(col, v("gt")!));
    if (v("gte") !== undefined) conds.push(gte(col, v("gte")!));
    if (v("lt") !== undefined) conds.push(lt(col, v("lt")!));
    if (v("lte") !== undefined) conds.push(lte(col, v("lte")!));
  }
  const dir = q.order_by.desc ? desc : asc;
  const order = [dir(SORT_COLUMNS[q.order_by.field]), dir(blogPosts.id)];
  const where = and(...conds);
  const [rows, count] = await db.batch([
    db.select().from(blogPosts).where(where).orderBy(...order).limit(q.limit).offset(q.offset),
    db.select({ n: sql<number>`count(*)` }).from(blogPosts).where(where),
  ]);
  return { rows, total: countOf(count) };
}

/**
 * Publishes scheduled posts whose publish_date has come (the publishing cron). One bounded UPDATE over the partial
 * `blog_posts_due` index; running it again finds nothing left to do, so it is idempotent.
 */
/** `portalId`: only that account's posts, by its own clock (a test account's clock, src/services/testkit/clock.ts). */
export async function publishDuePosts(db: Db, now: number, max = 200, portalId?: number): Promise<number> {
  const due = db
    .select({ id: blogPosts.id })
    .from(blogPosts)
    // Accounts fenced on this shard (moving or moved) wait: their fence would refuse the update.
    .where(
      and(
        scheduled,
        livePost,
        lte(blogPosts.publishDate, now),
        sql`${blogPosts.portalId} not in (select portal_id from account_fences)`,
        portalId === undefined ? undefined : eq(blogPosts.portalId, portalId),
      ),
    )
    .orderBy(asc(blogPosts.publishDate))
    .limit(max);
  const rows = await db
    .update(blogPosts)
    .set({ state: "PUBLISHED", publishedAt: now, unpublishedAt: null, updatedAt: now })
    .where(and(inArray(blogPosts.id, due), scheduled, livePost))
    .returning({ id: blogPosts.id })
    .all();
  return rows.length;
}

// ---------------------------------------------------------------------------------------------------------
// Related rows for presenting posts

export interface PostRelations {
  authors: Map<number, AuthorRow>;
  blogs: Map<number, BlogRow>;
  topics: Map<number, TopicRow>;
}

/** One id is an equality (one index seek); several are an IN over json_each, whose rows D1 also counts as read. */
const anyOf = (col: AnyColumn, ids: number[]) => (ids.length === 1 ? eq(col, ids[0]!) : inJson(col, ids));

/**
 * Authors, blogs and topics of several posts in one round trip. Only the lists that name something are
 * queried (a post always has a blog; often no author and no topics), so reading one post costs the post,
 * its blog and what it actually references.
 */
export async function relationsOf(db: Db, portalId: number, posts: PostRow[]): Promise<PostRelations> {
  const authorIds = [...new Set(posts.flatMap((p) => (p.blogAuthorId === null ? [] : [p.blogAuthorId])))];
  const blogIds = [...new Set(posts.map((p) => p.contentGroupId))];
  const topicIds = [...new Set(posts.flatMap((p) => p.topicIds))];
  const blogsQuery = db.select().from(blogs).where(and(eq(blogs.portalId, portalId), anyOf(blogs.id, blogIds)));
  const authorsQuery = db.select().from(blogAuthors).where(and(eq(blogAuthors.portalId, portalId), anyOf(blogAuthors.id, authorIds)));
  const topicsQuery = db.select().from(blogTopics).where(and(eq(blogTopics.portalId, portalId), anyOf(blogTopics.id, topicIds)));
  // The batch holds a variable subset, so its tuple type is lost: each answer is re-typed by its position.
  const [blogRows, ...rest] = (await db.batch([
    blogsQuery,
    ...(authorIds.length ? [authorsQuery] : []),
    ...(topicIds.length ? [topicsQuery] : []),
  ] as unknown as [typeof blogsQuery])) as unknown as [BlogRow[], ...unknown[]];
  const authors = authorIds.length ? (rest.shift() as AuthorRow[]) : [];
  const topics = topicIds.length ? (rest.shift() as TopicRow[]) : [];
  return {
    authors: new Map(authors.map((a) => [a.id, a])),
    blogs: new Map(blogRows.map((b) => [b.id, b])),
    topics: new Map(topics.map((t) => [t.id, t])),
  };
}

