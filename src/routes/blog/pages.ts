/**
 * @module Public blog pages `GET /_blog/{portalId}/{slug}`: what a post's `url` shows
 * (docs/reference/blog.md "Public pages"). Only a published, live post has a page; a draft, scheduled or
 * deleted post's URL is a 404, as the real service answers an unpublished post's URL. Archived posts stay live
 * (an archived post is "hidden from the dashboard but stays live").
 *
 * Trust: post_body is sanitized on every serve (lib/sanitize.ts). head_html and footer_html are the account's
 * own custom HTML (the post fields' "custom HTML for the head tag" / "before the closing body tag") and are
 * inserted as written. So that such markup can never act on this origin (sign-in pages, session cookie, other
 * accounts' pages), each page is served with a CSP `sandbox` without allow-same-origin: it runs in an opaque
 * origin, cannot read cookies or storage, and its requests are cross-site.
 */
import { shardDb } from "../../db/shards";
import { shardOfAccount } from "../../db/directory";
import { escapeHtml } from "../../lib/html";
import { html } from "../../lib/http";
import { route } from "../../http/route";
import { sanitizeHtml } from "../../lib/sanitize";
import { findPublishedPost, type PostRow } from "../../services/blog/posts";

const PAGE_HEADERS = {
  "content-security-policy":
    "sandbox allow-scripts allow-popups allow-popups-to-escape-sandbox allow-forms; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  "referrer-policy": "strict-origin-when-cross-origin",
  // A post that is unpublished or deleted must stop answering at once, so caches revalidate every time.
  "cache-control": "no-cache",
};

const PREFIX = "/_blog/";

/** The pages' own stylesheet (public/static/blog.css): a stylesheet, not inline styles, so the page's markup stays plain. */
const HEAD = `<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="/static/blog.css">`;

function notFoundPage(): Response {
  const body =
    `<!doctype html><html lang="en"><head>${HEAD}<title>Page not found</title></head><body>` +
    `<main class="post not-found"><p class="code">404</p><h1>Page not found</h1>` +
    `<p>This blog post does not exist, or it is not published.</p></main></body></html>`;
  return html(body, 404, { ...PAGE_HEADERS, "x-service-notfound": "true" });
}

/** `/_blog/<portalId>/<slug...>` → its parts, or null when the path cannot name a post. */
export function parsePagePath(pathname: string): { portalId: number; slug: string } | null {
  if (!pathname.startsWith(PREFIX)) return null;
  const rest = pathname.slice(PREFIX.length).replace(/\/+$/, "");
  const cut = rest.indexOf("/");
  if (cut <= 0) return null;
  const portal = rest.slice(0, cut);
  if (!/^\d{1,15}$/.test(portal)) return null;
  let slug: string;
  try {
    slug = decodeURIComponent(rest.slice(cut + 1));
  } catch {
    return null;
  }
  return slug ? { portalId: Number(portal), slug } : null;
}

export async function renderPost(post: PostRow): Promise<string> {
  const title = escapeHtml(post.htmlTitle || post.name);
  const description = post.metaDescription ? `<meta name="description" content="${escapeHtml(post.metaDescription)}">` : "";
  const body = await sanitizeHtml(post.postBody);
  const published = new Date(post.publishDate);
  const date = published.toLocaleDateString("en-US", { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" });
  return (
    `<!doctype html><html lang="en"><head>${HEAD}<title>${title}</title>${description}` +
    // The account's own head HTML (trusted by definition, see @module), after the stylesheet so it can override it.
    `${post.headHtml}</head><body><main class="post"><article><h1>${escapeHtml(post.name)}</h1>` +
    `<p class="post-meta">Published <time datetime="${published.toISOString()}">${date}</time></p>` +
    `<div class="post-body">${body}</div></article></main>` +
    `${post.footerHtml}</body></html>`
  );
}

export const blogPageRoutes = [
  route({
    method: "GET",
    path: "/_blog/:portalId/*",
    summary: "Public page of a published blog post",
    tag: "Blog",
    auth: { kinds: [] },
    hidden: true,
    responses: { 200: { description: "HTML page" }, 404: { description: "Not published, deleted or unknown" } },
    handler: async ({ control, env, url, now }) => {
      const where = parsePagePath(url.pathname);
      if (!where) return notFoundPage();
      // A public page names its account in the path: the directory (cached in the isolate) gives its shard.
      const shard = await shardOfAccount(control, where.portalId, now);
      if (shard === undefined) return notFoundPage();
      const post = await findPublishedPost(shardDb(env, shard), where.portalId, where.slug);
      if (!post) return notFoundPage();
      return html(await renderPost(post), 200, PAGE_HEADERS);
    },
  }),
];
