/**
 * Content API requests and bodies of the real service's recordings, replayed as recorded. Kept out of the
 * main suite, which has no recordings; it checks the same shapes through test/fixtures/legacy-shapes.ts.
 */
import { describe, expect, it } from "vitest";
import { createAuthor, createPost, createTopic, expectSameShape, publish, TOKENS, V2 } from "../blog/helpers";
import { call, tenant } from "../helpers/api";
import { recording } from "./recordings";

describe("blog posts against the recordings", () => {
  it("GET /blog-posts/:id has every top-level key of the recorded real body, with the same JSON types", async () => {
    const rec = recording("hubspot-ruby/blog_posts_v2_get__blog_posts__0_4d332477.json");
    expect(rec.status).toBe(200);
    const recorded = rec.responseBody as Record<string, unknown>;
    const t = await tenant();
    const author = await createAuthor(t);
    const topic = await createTopic(t);
    const post = await createPost(t, { blog_author_id: author.id, topic_ids: [topic.id], meta_description: "dfsdf", campaign: "||" });
    await publish(t, post.id);
    const res = await call("GET", `${V2}/blog-posts/${post.id}`, { token: t.oauth });
    expect(res.status).toBe(200);
    expect(expectSameShape(res.json, recorded)).toHaveLength(69);
    expectSameShape(res.json.blog_author, recorded.blog_author as Record<string, unknown>, "blog_author.");
  });

  it("answers the recorded hubspot-api-ruby query with the caller's blog", async () => {
    const rec = recording("hubspot-api-ruby-captaincontrat/blog_posts_v2_list__all_blog_posts__1_29435896.json");
    const t = await tenant();
    const p = await createPost(t);
    await publish(t, p.id);
    await createPost(t);
    const res = await call("GET", `${V2}/blog-posts?${new URLSearchParams({ ...rec.query, content_group_id: String(p.content_group_id) })}`, { token: t.oauth });
    expect(res.status, res.text).toBe(200);
    expect(res.json.objects.map((o: { id: number }) => o.id)).toEqual([p.id]);
    expectSameShape(res.json, rec.responseBody as Record<string, unknown>);
  });
});

describe("SMTP tokens against the documented examples", () => {
  it("accepts the documented create request and answers its documented shape", async () => {
    const t = await tenant({ addons: ["transactional-email"] });
    const rec = recording("hubspot-docs-examples/smtpapi_v1__create_token.json");
    const res = await call("POST", TOKENS, { token: t.oauth, body: rec.requestBody });
    expect(res.status, res.text).toBe(201);
    expect(res.json.createdBy).toBe(rec.requestBody.createdBy);
    expectSameShape(res.json, rec.responseBody as Record<string, unknown>);
  });
});
