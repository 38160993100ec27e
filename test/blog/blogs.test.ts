/** Blogs, blog authors and topics (a post refers to them by content_group_id, blog_author_id and topic_ids). */
import { describe, expect, it } from "vitest";
import { BASE, call, expectError, tenant } from "../helpers/api";
import { createAuthor, createPost, createTopic, V2 } from "./helpers";

describe("blogs", () => {
  it("creates the default blog lazily, once, on first listing", async () => {
    const t = await tenant();
    const first = await call("GET", `${V2}/blogs`, { token: t.oauth });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ limit: 20, offset: 0, total: 1, total_count: 1 });
    const blog = first.json.objects[0];
    expect(blog).toMatchObject({ name: "Blog", slug: "blog", portal_id: t.portalId, deleted_at: 0, root_url: `${BASE}/_blog/${t.portalId}/blog` });
    const again = await call("GET", `${V2}/blogs`, { token: t.oauth });
    expect(again.json.objects).toEqual([blog]);
  });

  it("creates the default blog on first post creation too, so the post has a blog", async () => {
    const t = await tenant();
    const post = await createPost(t);
    const blogs = await call("GET", `${V2}/blogs`, { token: t.oauth });
    expect(blogs.json.total).toBe(1);
    expect(post.content_group_id).toBe(blogs.json.objects[0].id);
  });

  it("creates, lists and reads blogs; posts can go to a created blog", async () => {
    const t = await tenant();
    const res = await call("POST", `${V2}/blogs`, { token: t.oauth, body: { name: "Engineering News", description: "d" } });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ name: "Engineering News", slug: "engineering-news", description: "d", html_title: "Engineering News" });
    const list = await call("GET", `${V2}/blogs?limit=1&offset=1`, { token: t.oauth });
    expect(list.json).toMatchObject({ limit: 1, offset: 1, total: 2 });
    expect(list.json.objects[0].id).toBe(res.json.id);
    const got = await call("GET", `${V2}/blogs/${res.json.id}`, { token: t.oauth });
    expect(got.json).toEqual(res.json);
    const post = await createPost(t, { content_group_id: res.json.id, slug: undefined });
    expect(post.content_group_id).toBe(res.json.id);
    expect(post.slug).toMatch(/^engineering-news\/-temporary-slug-/);
  });

  it.each([
    ["no name", {}, "name"],
    ["empty name", { name: " " }, "name must not be empty"],
    ["bad slug", { name: "x", slug: "a b" }, "slug"],
  ])("rejects %s with 400", async (_label, body, message) => {
    const t = await tenant();
    expect(expectError(await call("POST", `${V2}/blogs`, { token: t.oauth, body }), 400, "VALIDATION_ERROR").message).toContain(message);
  });

  it("answers 400 for a non-numeric id, 404 for another account's blog", async () => {
    const a = await tenant();
    const b = await tenant();
    const blogA = (await call("GET", `${V2}/blogs`, { token: a.oauth })).json.objects[0];
    expectError(await call("GET", `${V2}/blogs/x1`, { token: a.oauth }), 400, "VALIDATION_ERROR");
    const res = await call("GET", `${V2}/blogs/${blogA.id}`, { token: b.oauth });
    expectError(res, 404, "OBJECT_NOT_FOUND");
    const listB = await call("GET", `${V2}/blogs`, { token: b.oauth });
    expect(listB.json.objects.map((o: { id: number }) => o.id)).not.toContain(blogA.id);
  });
});

describe("blog authors", () => {
  it("creates, lists and reads authors", async () => {
    const t = await tenant();
    const author = await createAuthor(t, { full_name: "Ada Lovelace", bio: "b", twitter: "https://twitter.com/ada" });
    expect(author).toMatchObject({ full_name: "Ada Lovelace", display_name: "Ada Lovelace", slug: "ada-lovelace", bio: "b", has_social_profiles: true, portal_id: t.portalId, deleted_at: 0 });
    const list = await call("GET", `${V2}/blog-authors`, { token: t.oauth });
    expect(list.json).toMatchObject({ total: 1, total_count: 1, objects: [author] });
    expect((await call("GET", `${V2}/blog-authors/${author.id}`, { token: t.oauth })).json).toEqual(author);
  });

  it.each([
    ["no full_name", {}, "full_name"],
    ["bad email", { full_name: "x", email: "not-an-email" }, "email"],
    ["bad slug", { full_name: "x", slug: "a/../b" }, "slug"],
  ])("rejects %s with 400", async (_label, body, message) => {
    const t = await tenant();
    expect(expectError(await call("POST", `${V2}/blog-authors`, { token: t.oauth, body }), 400, "VALIDATION_ERROR").message).toContain(message);
  });

  it("keeps authors per account", async () => {
    const a = await tenant();
    const b = await tenant();
    const author = await createAuthor(a);
    expectError(await call("GET", `${V2}/blog-authors/${author.id}`, { token: b.oauth }), 404, "OBJECT_NOT_FOUND");
    expect((await call("GET", `${V2}/blog-authors`, { token: b.oauth })).json.total).toBe(0);
    expectError(await call("GET", `${V2}/blog-authors/abc`, { token: a.oauth }), 400, "VALIDATION_ERROR");
  });
});

describe("topics", () => {
  it("creates, lists and reads topics with the recorded topic shape", async () => {
    const t = await tenant();
    const topic = await createTopic(t, { name: "Product Updates", description: "d" });
    expect(Object.keys(topic).sort()).toEqual(["created", "deleted_at", "description", "id", "name", "portal_id", "slug", "updated"]);
    expect(topic).toMatchObject({ name: "Product Updates", slug: "product-updates", description: "d", portal_id: t.portalId, deleted_at: 0 });
    expect((await call("GET", `${V2}/topics`, { token: t.oauth })).json).toMatchObject({ total: 1, objects: [topic] });
    expect((await call("GET", `${V2}/topics/${topic.id}`, { token: t.oauth })).json).toEqual(topic);
  });

  it("refuses a second topic with the same slug in one account (409), not across accounts", async () => {
    const a = await tenant();
    const b = await tenant();
    await createTopic(a, { name: "Same" });
    expectError(await call("POST", `${V2}/topics`, { token: a.oauth, body: { name: "same" } }), 409, "CONFLICT");
    await createTopic(b, { name: "Same" });
  });

  it.each([
    ["no name", {}, "name"],
    ["name too long", { name: "x".repeat(256) }, "name"],
  ])("rejects %s with 400", async (_label, body, message) => {
    const t = await tenant();
    expect(expectError(await call("POST", `${V2}/topics`, { token: t.oauth, body }), 400, "VALIDATION_ERROR").message).toContain(message);
  });

  it("keeps topics per account", async () => {
    const a = await tenant();
    const b = await tenant();
    const topic = await createTopic(a);
    expectError(await call("GET", `${V2}/topics/${topic.id}`, { token: b.oauth }), 404, "OBJECT_NOT_FOUND");
    expect((await call("GET", `${V2}/topics`, { token: b.oauth })).json.total).toBe(0);
  });
});

describe("blogs, authors and topics: credentials", () => {
  const paths = ["blogs", "blog-authors", "topics"];

  it("require a credential, an account token and the content scope", async () => {
    const t = await tenant();
    const noContent = await tenant({ scopes: ["contacts"] });
    for (const p of paths) {
      for (const [method, path, body] of [
        ["GET", `${V2}/${p}`, undefined],
        ["POST", `${V2}/${p}`, { name: "x", full_name: "x" }],
        ["GET", `${V2}/${p}/1`, undefined],
      ] as const) {
        expectError(await call(method, path, { body }), 401, "INVALID_AUTHENTICATION");
        expectError(await call(method, path, { body, token: t.developerKey }), 403, "FORBIDDEN");
        expectError(await call(method, path, { body, token: noContent.oauth }), 403, "MISSING_SCOPES");
      }
      expect((await call("GET", `${V2}/${p}`, { token: t.pat })).status).toBe(200);
    }
  });

  it("rejects page sizes over 300", async () => {
    const t = await tenant();
    for (const p of paths) {
      expect(expectError(await call("GET", `${V2}/${p}?limit=500`, { token: t.oauth }), 400, "VALIDATION_ERROR").message).toContain("limit");
    }
  });
});
