/** @module Blog content API v2: blogs, blog authors and topics (docs/reference/blog.md), scope `content`. */
import type { AuthRule } from "../../http/auth";
import { portalOf } from "../../http/auth";
import { json } from "../../lib/http";
import { route } from "../../http/route";
import * as blog from "../../services/blog/blogs";
import { envelopeOf, presentAuthor, presentBlog, presentTopic } from "./present";
import * as s from "../../schemas/blog/posts";
import { publicPagesBase } from "../../lib/public-pages";

export const account: AuthRule = { kinds: ["oauth", "private_app"], scopes: ["content"] };
const tag = "Blog";
export const v2 = "/content/api/v2";

export const blogRoutes = [
  // Blogs ---------------------------------------------------------------------------------------------
  route({
    method: "GET",
    path: `${v2}/blogs`,
    summary: "List the account's blogs (the default blog is created on first use)",
    tag,
    auth: account,
    query: s.pageQuery,
    responses: { 200: { description: "A page of blogs", schema: s.envelope(s.blogResponse) } },
    handler: async ({ db, principal, query, env, url, now }) => {
      const page = await blog.listBlogs(db, portalOf(principal), query.limit, query.offset, now);
      return json(envelopeOf(page.rows.map((b) => presentBlog(b, publicPagesBase(env, url))), query.limit, query.offset, page.total));
    },
  }),
  route({
    method: "POST",
    path: `${v2}/blogs`,
    summary: "Create a blog",
    tag,
    auth: account,
    body: s.createBlogBody,
    responses: { 201: { description: "Created", schema: s.blogResponse } },
    handler: async ({ db, principal, body, env, url, now }) =>
      json(presentBlog(await blog.createBlog(db, portalOf(principal), body, now), publicPagesBase(env, url)), 201),
  }),
  route({
    method: "GET",
    path: `${v2}/blogs/:id`,
    summary: "Read a blog",
    tag,
    auth: account,
    params: s.idParams,
    responses: { 200: { description: "The blog", schema: s.blogResponse } },
    handler: async ({ db, principal, params, env, url }) => json(presentBlog(await blog.getBlog(db, portalOf(principal), params.id), publicPagesBase(env, url))),
  }),

  // Authors -------------------------------------------------------------------------------------------
  route({
    method: "GET",
    path: `${v2}/blog-authors`,
    summary: "List blog authors",
    tag,
    auth: account,
    query: s.pageQuery,
    responses: { 200: { description: "A page of authors", schema: s.envelope(s.authorResponse) } },
    handler: async ({ db, principal, query }) => {
      const page = await blog.listAuthors(db, portalOf(principal), query.limit, query.offset);
      return json(envelopeOf(page.rows.map(presentAuthor), query.limit, query.offset, page.total));
    },
  }),
  route({
    method: "POST",
    path: `${v2}/blog-authors`,
    summary: "Create a blog author",
    tag,
    auth: account,
    body: s.createAuthorBody,
    responses: { 201: { description: "Created", schema: s.authorResponse } },
    handler: async ({ db, principal, body, now }) => json(presentAuthor(await blog.createAuthor(db, portalOf(principal), body, now)), 201),
  }),
  route({
    method: "GET",
    path: `${v2}/blog-authors/:id`,
    summary: "Read a blog author",
    tag,
    auth: account,
    params: s.idParams,
    responses: { 200: { description: "The author", schema: s.authorResponse } },
    handler: async ({ db, principal, params }) => json(presentAuthor(await blog.getAuthor(db, portalOf(principal), params.id))),
  }),

  // Topics --------------------------------------------------------------------------------------------
  route({
    method: "GET",
    path: `${v2}/topics`,
    summary: "List blog topics",
    tag,
    auth: account,
    query: s.pageQuery,
    responses: { 200: { description: "A page of topics", schema: s.envelope(s.topicResponse) } },
    handler: async ({ db, principal, query }) => {
      const page = await blog.listTopics(db, portalOf(principal), query.limit, query.offset);
      return json(envelopeOf(page.rows.map(presentTopic), query.limit, query.offset, page.total));
    },
  }),
  route({
    method: "POST",
    path: `${v2}/topics`,
    summary: "Create a blog topic (slug unique in the account)",
    tag,
    auth: account,
    body: s.createTopicBody,
    responses: { 201: { description: "Created", schema: s.topicResponse }, 409: { description: "Slug already used" } },
    handler: async ({ db, principal, body, now }) => json(presentTopic(await blog.createTopic(db, portalOf(principal), body, now)), 201),
  }),
  route({
    method: "GET",
    path: `${v2}/topics/:id`,
    summary: "Read a blog topic",
    tag,
    auth: account,
    params: s.idParams,
    responses: { 200: { description: "The topic", schema: s.topicResponse } },
    handler: async ({ db, principal, params }) => json(presentTopic(await blog.getTopic(db, portalOf(principal), params.id))),
  }),
];
