/**
 * @module Public blog pages (docs/reference/blog.md "Public pages"): `GET /_blog/{portalId}/{slug}` is what a
 * post's `url` shows, `GET /_blog/{portalId}` lists the account's published posts and a blog's `root_url`
 * (`/_blog/{portalId}/{blog slug}`) lists that blog's. Only a published, live post is shown; a draft,
 * scheduled or deleted post's URL is a 404, as the real service answers an unpublished post's URL. Archived
 * posts stay live (an archived post is "hidden from the dashboard but stays live").
 *
 * Trust: post_body is sanitized on every serve (lib/sanitize.ts). head_html and footer_html are the account's
 * own custom HTML (the post fields' "custom HTML for the head tag" / "before the closing body tag") and are
 * inserted as written. So that such markup can never act on this origin (sign-in pages, session cookie, other
 * accounts' pages), each page is served with a CSP `sandbox` without allow-same-origin: it runs in an opaque
 * origin, cannot read cookies or storage, and its requests are cross-site.
 */
import { z } from "zod";
import type { Db } from "../../db/client";
import { shardDb } from "../../db/shards";
import { directoryTtlMs, shardOfAccount } from "../../db/directory";
import { escapeHtml } from "../../lib/html";
import { html } from "../../lib/http";
import { route } from "../../http/route";
import { sanitizeHtml } from "../../lib/sanitize";
import type { BlogRow } from "../../services/blog/blogs";
import { blogAt, publishedPage, publishedPost, type PublicPost } from "../../services/blog/public";

const PAGE_HEADERS = {
  "content-security-policy":
    "sandbox allow-scripts allow-popups allow-popups-to-escape-sandbox allow-forms; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  "referrer-policy": "strict-origin-when-cross-origin",
  // A post that is unpublished or deleted must stop answering at once, so caches revalidate every time.
  "cache-control": "no-cache",
};

const PREFIX = "/_blog/";

/** Posts per index page. */
export const INDEX_PAGE_SIZE = 10;

/** `?page=` of an index: 1 to 1,000 (an offset past that reads too many rows to skip for a public page). */
const pageNumber = z.coerce.number().int().min(1).max(1000).default(1);

/** The pages' own stylesheet (public/static/blog.css): a stylesheet, not inline styles, so the page's markup stays plain. */
const HEAD = `<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="/static/blog.css">`;

function notFoundPage(): Response {
  const body =
    `<!doctype html><html lang="en"><head>${HEAD}<title>Page not found</title></head><body>` +
    `<main class="post not-found"><p class="code">404</p><h1>Page not found</h1>` +
    `<p>This blog post does not exist, or it is not published.</p></main></body></html>`;
  return html(body, 404, { ...PAGE_HEADERS, "x-service-notfound": "true" });
}

/** `/_blog/<portalId>[/<slug...>]` → its parts (slug "" for the account's index), or null when it names nothing. */
export function parsePagePath(pathname: string): { portalId: number; slug: string } | null {
  if (!pathname.startsWith(PREFIX)) return null;
  const rest = pathname.slice(PREFIX.length).replace(/\/+$/, "");
  const cut = rest.indexOf("/");
  const portal = cut === -1 ? rest : rest.slice(0, cut);
  if (!/^\d{1,15}$/.test(portal)) return null;
  if (cut === -1) return { portalId: Number(portal), slug: "" };
  let slug: string;
  try {
    slug = decodeURIComponent(rest.slice(cut + 1));
  } catch {
    return null;
  }
  return slug ? { portalId: Number(portal), slug } : null;
}

/** A slug as a URL path: each segment escaped, the slashes kept. */
const slugPath = (slug: string) => slug.split("/").map(encodeURIComponent).join("/");

/** A date as the pages print it: "March 4, 2026" (UTC, as the post's `publish_date` is given). */
const dateOf = (ms: number) => new Date(ms).toLocaleDateString("en-US", { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" });

/** "By Ada Lovelace · Published March 4, 2026": the author when the post has one. */
function metaLine({ post, author }: PublicPost): string {
  const published = new Date(post.publishDate);
  const by = author ? `By <span class="post-author">${escapeHtml(author)}</span> · ` : "";
  return `<p class="post-meta">${by}Published <time datetime="${published.toISOString()}">${dateOf(post.publishDate)}</time></p>`;
}

export async function renderPost(found: PublicPost): Promise<string> {
  const { post } = found;
  const title = escapeHtml(post.htmlTitle || post.name);
  const description = post.metaDescription ? `<meta name="description" content="${escapeHtml(post.metaDescription)}">` : "";
  const body = await sanitizeHtml(post.postBody);
  return (
    `<!doctype html><html lang="en"><head>${HEAD}<title>${title}</title>${description}` +
    // The account's own head HTML (trusted by definition, see @module), after the stylesheet so it can override it.
    `${post.headHtml}</head><body><main class="post"><nav class="blog-nav"><a href="${PREFIX}${post.portalId}">All posts</a></nav>` +
    `<article><h1>${escapeHtml(post.name)}</h1>${metaLine(found)}` +
    `<div class="post-body">${body}</div></article></main>` +
    `${post.footerHtml}</body></html>`
  );
}

/** A post's summary on an index: its meta description, else its summary's text, cut at 300 characters. */
function teaser(post: PublicPost["post"]): string {
  const text = post.metaDescription || post.postSummary.replace(/<[^>]*>/g, " ").replace(/&nbsp;/g, " ");
  const plain = text.replace(/\s+/g, " ").trim();
  return plain.length > 300 ? `${plain.slice(0, 299)}…` : plain;
}

/** The index of the account's (or one blog's) published posts, newest first, a page at a time. */
export function renderIndex(where: { portalId: number; path: string; blog: BlogRow | null }, page: number, found: { posts: PublicPost[]; older: boolean }): string {
  const name = escapeHtml(where.blog?.name || "Blog");
  const items = found.posts
    .map((p) => {
      const href = `${PREFIX}${p.post.portalId}/${slugPath(p.post.slug)}`;
      const text = teaser(p.post);
      return `<li><article><h2><a href="${escapeHtml(href)}">${escapeHtml(p.post.name)}</a></h2>${metaLine(p)}${text ? `<p>${escapeHtml(text)}</p>` : ""}</article></li>`;
    })
    .join("");
  const link = (n: number, rel: string, label: string) => `<a rel="${rel}" href="${escapeHtml(where.path)}${n > 1 ? `?page=${n}` : ""}">${label}</a>`;
  const pager = [page > 1 ? link(page - 1, "prev", "Newer posts") : "", found.older ? link(page + 1, "next", "Older posts") : ""].filter(Boolean).join("");
  const list = items ? `<ol class="post-list">${items}</ol>` : `<p class="empty">No posts yet.</p>`;
  const description = where.blog?.description ? `<p class="blog-description">${escapeHtml(where.blog.description)}</p>` : "";
  return (
    `<!doctype html><html lang="en"><head>${HEAD}<title>${escapeHtml(where.blog?.htmlTitle || where.blog?.name || "Blog")}${page > 1 ? ` · page ${page}` : ""}</title></head>` +
    `<body><main class="post blog-index"><h1>${name}</h1>${description}${list}` +
    (pager ? `<nav class="pager" aria-label="More posts">${pager}</nav>` : "") +
    `</main></body></html>`
  );
}

export const blogPageRoutes = [
  route({
    method: "GET",
    path: "/_blog/:portalId",
    summary: "Public index of an account's published blog posts",
    tag: "Blog",
    auth: { kinds: [] },
    hidden: true,
    responses: { 200: { description: "HTML page" }, 404: { description: "Unknown account or page" } },
    handler: (input) => servePage(input),
  }),
  route({
    method: "GET",
    path: "/_blog/:portalId/*",
    summary: "Public page of a published blog post, or a blog's index",
    tag: "Blog",
    auth: { kinds: [] },
    hidden: true,
    responses: { 200: { description: "HTML page" }, 404: { description: "Not published, deleted or unknown" } },
    handler: (input) => servePage(input),
  }),
];

async function servePage({ control, env, url, now }: { control: Db; env: Env; url: URL; now: number }): Promise<Response> {
  const where = parsePagePath(url.pathname);
  if (!where) return notFoundPage();
  // A public page names its account in the path: the directory (cached in the isolate) gives its shard.
  const shard = await shardOfAccount(control, where.portalId, directoryTtlMs(env), now);
  if (shard === undefined) return notFoundPage();
  const db = shardDb(env, shard);
  if (where.slug) {
    const post = await publishedPost(db, where.portalId, where.slug);
    if (post) return html(await renderPost(post), 200, PAGE_HEADERS);
  }
  // Not a post: the account's index, or the index of the blog whose slug this is (its root_url).
  const blog = where.slug ? await blogAt(db, where.portalId, where.slug) : null;
  if (where.slug && !blog) return notFoundPage();
  const page = pageNumber.safeParse(url.searchParams.get("page") ?? undefined);
  if (!page.success) return notFoundPage();
  const found = await publishedPage(db, where.portalId, { blogId: blog?.id, offset: (page.data - 1) * INDEX_PAGE_SIZE, size: INDEX_PAGE_SIZE });
  // The first page exists even when empty ("No posts yet"); a page past the last does not.
  if (page.data > 1 && found.posts.length === 0) return notFoundPage();
  const path = `${PREFIX}${where.portalId}${blog ? `/${slugPath(blog.slug)}` : ""}`;
  return html(renderIndex({ portalId: where.portalId, path, blog }, page.data, found), 200, PAGE_HEADERS);
}
