/**
 * @module Blog posts v3 `/cms/v3/blogs/posts` (the successor of `/content/api/v2/blog-posts`, over the same
 * posts; services/blog/v3.ts maps them). Scope `content`, OAuth or private-app token, as v2. Success codes are
 * the ones @hubspot/api-client 14.0.1 accepts: create 201, archive, schedule, push-live and reset 204.
 */
import type { Db } from "../../db/client";
import { portalOf } from "../../http/auth";
import { json, noContent } from "../../lib/http";
import { pageBody } from "../../lib/paging";
import type { Principal } from "../../lib/principal";
import { publicPagesBase } from "../../lib/public-pages";
import { route } from "../../http/route";
import * as posts from "../../services/blog/posts";
import * as v3 from "../../services/blog/v3";
import { account } from "./blogs";
import { postUrl } from "./present";
import * as s from "../../schemas/blog/v3";

const tag = "Blog posts v3";
const base = "/cms/v3/blogs/posts";
const actorOf = (p: Principal): posts.Actor => ({ userId: p.kind === "oauth" ? p.userId : null });

async function present(db: Db, portalId: number, rows: posts.PostRow[], origin: string) {
  const rel = await posts.relationsOf(db, portalId, rows);
  return rows.map((p) => v3.presentPostV3(p, rel, postUrl(origin, p.portalId, p.slug)));
}
const presentOne = async (db: Db, portalId: number, row: posts.PostRow, origin: string) => (await present(db, portalId, [row], origin))[0];

const conflict409 = { 409: { description: "Another post of the account uses this slug" } };

export const blogPostV3Routes = [
  route({
    method: "GET",
    path: base,
    summary: "A page of posts: after paging, one sort, state, date shortcuts and property__op filters",
    tag,
    auth: account,
    query: s.listQuery,
    responses: { 200: { description: "A page of posts", schema: s.postPage } },
    handler: async ({ db, principal, query, url, env }) => {
      const portalId = portalOf(principal);
      const page = await v3.listPostsV3(db, portalId, query);
      return json(pageBody(await present(db, portalId, page.rows, publicPagesBase(env, url)), page.next, url, { total: page.total }));
    },
  }),
  route({
    method: "POST",
    path: base,
    summary: "Create a draft post",
    tag,
    auth: account,
    body: s.createPostV3Body,
    responses: { 201: { description: "The post", schema: s.postV3Response }, ...conflict409 },
    handler: async ({ db, principal, body, url, now, env }) => {
      const portalId = portalOf(principal);
      const row = await v3.inV3Terms(posts.createPost(db, portalId, { ...v3.toV2(body), name: body.name }, actorOf(principal), now));
      return json(await presentOne(db, portalId, row, publicPagesBase(env, url)), 201);
    },
  }),
  route({
    method: "POST",
    path: `${base}/schedule`,
    summary: "Publish a post at publishDate (now if it has passed)",
    tag,
    auth: account,
    body: s.scheduleBody,
    responses: { 204: { description: "Scheduled (or published)" }, 404: { description: "No such post in the account" } },
    handler: async ({ db, principal, body, now }) => {
      await v3.schedule(db, portalOf(principal), body.id, body.publishDate, now);
      return noContent();
    },
  }),
  route({
    method: "GET",
    path: `${base}/:id`,
    summary: "Read a post (an archived one only with archived=true)",
    tag,
    auth: account,
    params: s.idParams,
    query: s.readQuery,
    responses: { 200: { description: "The post", schema: s.postV3Response } },
    handler: async ({ db, principal, params, query, url, env }) => {
      // One round trip: the post and what it references together (services/blog/v3.ts).
      const { post, rel } = await v3.getPostV3WithRelations(db, portalOf(principal), params.id, query.archived);
      const origin = publicPagesBase(env, url);
      return json(v3.presentPostV3(post, rel, postUrl(origin, post.portalId, post.slug)));
    },
  }),
  route({
    method: "PATCH",
    path: `${base}/:id`,
    summary: "Update the fields sent of the live post",
    tag,
    auth: account,
    params: s.idParams,
    body: s.patchPostV3Body,
    responses: { 200: { description: "The post", schema: s.postV3Response }, ...conflict409 },
    handler: async ({ db, principal, params, body, url, now, env }) => {
      const portalId = portalOf(principal);
      await v3.getPostV3(db, portalId, params.id);
      return json(await presentOne(db, portalId, await v3.inV3Terms(posts.updatePost(db, portalId, params.id, v3.toV2(body), now)), publicPagesBase(env, url)));
    },
  }),
  route({
    method: "DELETE",
    path: `${base}/:id`,
    summary: "Archive a post (v2 deleted_at): it leaves lists, reads and its public page",
    tag,
    auth: account,
    params: s.idParams,
    responses: { 204: { description: "Archived" } },
    handler: async ({ db, principal, params, now }) => {
      const portalId = portalOf(principal);
      await v3.getPostV3(db, portalId, params.id);
      await posts.deletePost(db, portalId, params.id, now);
      return noContent();
    },
  }),
  route({
    method: "GET",
    path: `${base}/:id/draft`,
    summary: "Read the post as its draft shows it",
    tag,
    auth: account,
    params: s.idParams,
    responses: { 200: { description: "The draft", schema: s.postV3Response } },
    handler: async ({ db, principal, params, url, env }) => {
      const portalId = portalOf(principal);
      return json(await presentOne(db, portalId, v3.draftView(await v3.getPostV3(db, portalId, params.id)), publicPagesBase(env, url)));
    },
  }),
  route({
    method: "PATCH",
    path: `${base}/:id/draft`,
    summary: "Change the draft; the live post and its page stay as they are until push-live",
    tag,
    auth: account,
    params: s.idParams,
    body: s.patchPostV3Body,
    responses: { 200: { description: "The draft", schema: s.postV3Response } },
    handler: async ({ db, principal, params, body, url, env }) => {
      const portalId = portalOf(principal);
      const row = await v3.patchDraft(db, portalId, params.id, v3.toV2(body));
      return json(await presentOne(db, portalId, v3.draftView(row), publicPagesBase(env, url)));
    },
  }),
  route({
    method: "POST",
    path: `${base}/:id/draft/push-live`,
    summary: "Make the draft's changes live",
    tag,
    auth: account,
    params: s.idParams,
    responses: { 204: { description: "Live" }, ...conflict409 },
    handler: async ({ db, principal, params, now }) => {
      await v3.pushLive(db, portalOf(principal), params.id, now);
      return noContent();
    },
  }),
  route({
    method: "POST",
    path: `${base}/:id/draft/reset`,
    summary: "Discard the draft's changes",
    tag,
    auth: account,
    params: s.idParams,
    responses: { 204: { description: "Discarded" } },
    handler: async ({ db, principal, params }) => {
      await v3.resetDraft(db, portalOf(principal), params.id);
      return noContent();
    },
  }),
];
