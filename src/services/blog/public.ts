/**
 * @module What the public blog pages read (`/_blog/{portalId}/…`): published, live posts only, each with its
 * author's name. A draft, scheduled or deleted post is not there, as the real service's URL of an
 * unpublished post answers 404. Archived posts stay live ("hidden from the dashboard but stays live").
 */
import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { blogAuthors, blogPosts, blogs } from "../../db/tables/content";
import type { BlogRow } from "./blogs";
import type { PostRow } from "./posts";

export interface PublicPost {
  post: PostRow;
  /** The post's blog author's full name; null when it has none (or its author was deleted). */
  author: string | null;
}

const published = (portalId: number) =>
  and(eq(blogPosts.portalId, portalId), eq(blogPosts.deletedAt, 0), eq(blogPosts.state, "PUBLISHED"));

const withAuthor = (db: Db) =>
  db
    .select({ post: blogPosts, author: blogAuthors.fullName })
    .from(blogPosts)
    .leftJoin(blogAuthors, and(eq(blogAuthors.id, blogPosts.blogAuthorId), eq(blogAuthors.portalId, blogPosts.portalId), eq(blogAuthors.deletedAt, 0)));

/** The published post at `slug`, with its author, in one statement; null when there is none. */
export async function publishedPost(db: Db, portalId: number, slug: string): Promise<PublicPost | null> {
  const row = await withAuthor(db)
    .where(and(published(portalId), eq(blogPosts.slug, slug)))
    .get();
  return row ?? null;
}

/**
 * One page of the published posts, newest first (by publish date, then id), of the account or of one of its
 * blogs. It reads one row past the page to say whether an older page exists, and counts nothing.
 */
export async function publishedPage(db: Db, portalId: number, page: { blogId?: number; offset: number; size: number }) {
  const rows = await withAuthor(db)
    .where(and(published(portalId), page.blogId === undefined ? undefined : eq(blogPosts.contentGroupId, page.blogId)))
    .orderBy(desc(blogPosts.publishDate), desc(blogPosts.id))
    .limit(page.size + 1)
    .offset(page.offset);
  return { posts: rows.slice(0, page.size), older: rows.length > page.size };
}

/** The account's live blog whose slug is `slug` (a blog's `root_url`), or null. */
export async function blogAt(db: Db, portalId: number, slug: string): Promise<BlogRow | null> {
  const row = await db
    .select()
    .from(blogs)
    .where(and(eq(blogs.portalId, portalId), eq(blogs.slug, slug), eq(blogs.deletedAt, 0)))
    .get();
  return row ?? null;
}
