/**
 * @module Blogs, blog authors and topics of one account (a post's content_group_id, blog_author_id
 * and topic_ids point at these). Every query is scoped by portalId: another account's id is simply not found.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { newId } from "../../db/id-ranges";
import { blogAuthors, blogs, blogTopics } from "../../db/tables/content";
import { conflict, notFound } from "../../lib/errors";

export type BlogRow = typeof blogs.$inferSelect;
export type AuthorRow = typeof blogAuthors.$inferSelect;
export type TopicRow = typeof blogTopics.$inferSelect;

export interface Page<T> {
  rows: T[];
  total: number;
}

const DEFAULT_BLOG = { name: "Blog", slug: "blog" };

export function isUniqueViolation(err: unknown): boolean {
  return err instanceof Error && /UNIQUE constraint failed/i.test(err.message + String((err as { cause?: unknown }).cause ?? ""));
}

/** Lower-case words joined by `-`: the default slug of authors, topics and blogs. */
export function slugify(text: string, fallback: string): string {
  const s = text
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 100);
  return s || fallback;
}

// ---------------------------------------------------------------------------------------------------------
// Blogs

/**
 * The account's default blog, created on first use (any blog listing or a post created without
 * content_group_id). The partial unique index makes concurrent first uses converge on one row.
 */
export async function ensureDefaultBlog(db: Db, portalId: number, now: number): Promise<BlogRow> {
  const byDefault = and(eq(blogs.portalId, portalId), eq(blogs.isDefault, true));
  const existing = await db.select().from(blogs).where(byDefault).get();
  if (existing) return existing;
  await db
    .insert(blogs)
    .values({ id: newId("blogs"), portalId, ...DEFAULT_BLOG, isDefault: true, createdAt: now, updatedAt: now })
    .onConflictDoNothing()
    .run();
  const row = await db.select().from(blogs).where(byDefault).get();
  if (!row) throw new Error(`default blog of account ${portalId} could not be created`);
  return row;
}

export async function listBlogs(db: Db, portalId: number, limit: number, offset: number, now: number): Promise<Page<BlogRow>> {
  await ensureDefaultBlog(db, portalId, now);
  const where = and(eq(blogs.portalId, portalId), eq(blogs.deletedAt, 0));
  const [rows, count] = await db.batch([
    db.select().from(blogs).where(where).orderBy(asc(blogs.id)).limit(limit).offset(offset),
    db.select({ n: sql<number>`count(*)` }).from(blogs).where(where),
  ]);
  return { rows, total: countOf(count) };
}

export async function getBlog(db: Db, portalId: number, id: number): Promise<BlogRow> {
  const row = await db.select().from(blogs).where(and(eq(blogs.id, id), eq(blogs.portalId, portalId), eq(blogs.deletedAt, 0))).get();
  if (!row) throw notFound(`Blog ${id} not found`);
  return row;
}

export async function createBlog(
  db: Db,
  portalId: number,
  input: { name: string; slug?: string; description?: string; html_title?: string },
  now: number,
): Promise<BlogRow> {
  // Creating a blog is also "first blog-API use": the default blog exists before any other.
  await ensureDefaultBlog(db, portalId, now);
  return db
    .insert(blogs)
    .values({
      id: newId("blogs"),
      portalId,
      name: input.name,
      slug: input.slug ?? slugify(input.name, "blog"),
      description: input.description ?? "",
      htmlTitle: input.html_title ?? input.name,
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get();
}

// ---------------------------------------------------------------------------------------------------------
// Authors and topics

export async function listAuthors(db: Db, portalId: number, limit: number, offset: number): Promise<Page<AuthorRow>> {
  const where = and(eq(blogAuthors.portalId, portalId), eq(blogAuthors.deletedAt, 0));
  const [rows, count] = await db.batch([
    db.select().from(blogAuthors).where(where).orderBy(asc(blogAuthors.id)).limit(limit).offset(offset),
    db.select({ n: sql<number>`count(*)` }).from(blogAuthors).where(where),
  ]);
  return { rows, total: countOf(count) };
}

export async function getAuthor(db: Db, portalId: number, id: number): Promise<AuthorRow> {
  const row = await db
    .select()
    .from(blogAuthors)
    .where(and(eq(blogAuthors.id, id), eq(blogAuthors.portalId, portalId), eq(blogAuthors.deletedAt, 0)))
    .get();
  if (!row) throw notFound(`Blog author ${id} not found`);
  return row;
}

export async function createAuthor(
  db: Db,
  portalId: number,
  input: { full_name: string; email?: string; bio?: string; website?: string; twitter?: string; facebook?: string; linkedin?: string; avatar?: string; slug?: string },
  now: number,
): Promise<AuthorRow> {
  return db
    .insert(blogAuthors)
    .values({
      id: newId("blog_authors"),
      portalId,
      fullName: input.full_name,
      email: input.email ?? "",
      bio: input.bio ?? "",
      website: input.website ?? "",
      twitter: input.twitter ?? "",
      facebook: input.facebook ?? "",
      linkedin: input.linkedin ?? "",
      avatar: input.avatar ?? "",
      slug: input.slug ?? slugify(input.full_name, "author"),
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get();
}

export async function listTopics(db: Db, portalId: number, limit: number, offset: number): Promise<Page<TopicRow>> {
  const where = and(eq(blogTopics.portalId, portalId), eq(blogTopics.deletedAt, 0));
  const [rows, count] = await db.batch([
    db.select().from(blogTopics).where(where).orderBy(asc(blogTopics.id)).limit(limit).offset(offset),
    db.select({ n: sql<number>`count(*)` }).from(blogTopics).where(where),
  ]);
  return { rows, total: countOf(count) };
}

export async function getTopic(db: Db, portalId: number, id: number): Promise<TopicRow> {
  const row = await db
    .select()
    .from(blogTopics)
    .where(and(eq(blogTopics.id, id), eq(blogTopics.portalId, portalId), eq(blogTopics.deletedAt, 0)))
    .get();
  if (!row) throw notFound(`Topic ${id} not found`);
  return row;
}

export async function createTopic(
  db: Db,
  portalId: number,
  input: { name: string; slug?: string; description?: string },
  now: number,
): Promise<TopicRow> {
  const slug = input.slug ?? slugify(input.name, "topic");
  try {
    return await db
      .insert(blogTopics)
      .values({ id: newId("blog_topics"), portalId, name: input.name, slug, description: input.description ?? "", createdAt: now, updatedAt: now })
      .returning()
      .get();
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`A topic with slug ${slug} already exists`);
    throw err;
  }
}

export const countOf = (rows: { n: number }[]) => rows[0]?.n ?? 0;
