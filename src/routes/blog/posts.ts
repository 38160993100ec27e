/** @module Blog posts API v2 `/content/api/v2/blog-posts` (docs/reference/blog.md), scope `content`. */
import type { Db } from "../../db/client";
import { portalOf } from "../../http/auth";
import { json, noContent } from "../../lib/http";
import type { Principal } from "../../lib/principal";
import { route } from "../../http/route";
import * as posts from "../../services/blog/posts";
import { account, v2 } from "./blogs";
import { envelopeOf, presentPost } from "./present";
import * as s from "../../schemas/blog/posts";
import { publicPagesBase } from "../../lib/public-pages";

const tag = "Blog";

const actorOf = (p: Principal): posts.Actor => ({ userId: p.kind === "oauth" ? p.userId : null });

async function present(db: Db, portalId: number, post: posts.PostRow, origin: string) {
  return presentPost(post, await posts.relationsOf(db, portalId, [post]), origin);
}

export const blogPostRoutes = [
  route({
    method: "GET",
    path: `${v2}/blog-posts`,
    summary: "List blog posts (not deleted) with the common v2 filters",
    tag,
    auth: account,
    query: s.listPostsQuery,
    responses: { 200: { description: "A page of posts", schema: s.envelope(s.postResponse) } },
    handler: async ({ db, principal, query, env, url }) => {
      const portalId = portalOf(principal);
      const page = await posts.listPosts(db, portalId, query);
      const rel = await posts.relationsOf(db, portalId, page.rows);
      return json(envelopeOf(page.rows.map((p) => presentPost(p, rel, publicPagesBase(env, url))), query.limit, query.offset, page.total));
    },
  }),
  route({
    method: "POST",
    path: `${v2}/blog-posts`,
    summary: "Create a draft blog post",
    tag,
    auth: account,
    body: s.createPostBody,
    responses: { 201: { description: "Created (state DRAFT)", schema: s.postResponse }, 409: { description: "Slug already used" } },
    handler: async ({ db, principal, body, env, url, now }) => {
      const portalId = portalOf(principal);
      const post = await posts.createPost(db, portalId, body, actorOf(principal), now);
      return json(await present(db, portalId, post, publicPagesBase(env, url)), 201);
    },
  }),
  route({
    method: "GET",
    path: `${v2}/blog-posts/:id`,
    summary: "Read a blog post",
    tag,
    auth: account,
    params: s.idParams,
    responses: { 200: { description: "The post", schema: s.postResponse } },
    handler: async ({ db, principal, params, env, url }) => {
      // One round trip: the post and what it references together (services/blog/posts.ts).
      const { post, rel } = await posts.getPostWithRelations(db, portalOf(principal), params.id);
      return json(presentPost(post, rel, publicPagesBase(env, url)));
    },
  }),
  route({
    method: "PUT",
    path: `${v2}/blog-posts/:id`,
    summary: "Update a blog post (only the fields sent; a new slug changes the URL)",
    tag,
    auth: account,
    params: s.idParams,
    body: s.updatePostBody,
    responses: { 200: { description: "The updated post", schema: s.postResponse }, 409: { description: "Slug already used, or the post is deleted" } },
    handler: async ({ db, principal, params, body, env, url, now }) => {
      const portalId = portalOf(principal);
      const post = await posts.updatePost(db, portalId, params.id, body, now);
      return json(await present(db, portalId, post, publicPagesBase(env, url)));
    },
  }),
  route({
    method: "DELETE",
    path: `${v2}/blog-posts/:id`,
    summary: "Delete a blog post (sets deleted_at; its URL answers 404)",
    tag,
    auth: account,
    params: s.idParams,
    responses: { 204: { description: "Deleted" } },
    handler: async ({ db, principal, params, now }) => {
      await posts.deletePost(db, portalOf(principal), params.id, now);
      return noContent();
    },
  }),
  route({
    method: "POST",
    path: `${v2}/blog-posts/:id/publish-action`,
    summary: "Publish now, schedule, or cancel publishing of a post",
    tag,
    auth: account,
    params: s.idParams,
    body: s.publishActionBody,
    responses: { 200: { description: "The post in its new state", schema: s.postResponse }, 409: { description: "The post is deleted" } },
    handler: async ({ db, principal, params, body, env, url, now }) => {
      const portalId = portalOf(principal);
      const post = await posts.publishAction(db, portalId, params.id, body.action, now);
      return json(await present(db, portalId, post, publicPagesBase(env, url)));
    },
  }),
];
