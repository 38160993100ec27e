/** Blog posts API v2: create, read, update, delete, list, with the real service's blog post fields and shapes. */
import { describe, expect, it } from "vitest";
import { BASE, call, expectError, tenant, unique } from "../helpers/api";
import { BLOG_AUTHOR_V2, BLOG_POST_V2, BLOG_POSTS_CLIENT_QUERY, LIST_V2 } from "../fixtures/legacy-shapes";
import { createAuthor, createPost, createTopic, expectShape, publish, V2 } from "./helpers";

/** Every documented blog post field, plus the further keys the real service's response carries. */
const SPEC_FIELDS = [
  "archived", "blog_author_id", "campaign", "campaign_name", "content_group_id", "created", "deleted_at", "footer_html",
  "head_html", "is_draft", "keywords", "meta_description", "name", "post_body", "post_summary", "publish_date",
  "publish_immediately", "slug", "topic_ids", "updated", "url", "widgets",
  "state", "processing_status", "published_at", "tag_ids", "topic_names", "widget_containers", "portal_id", "id", "parent_blog",
];

describe("POST /content/api/v2/blog-posts", () => {
  it("creates a draft in the default blog with every documented blog post field", async () => {
    const t = await tenant();
    const author = await createAuthor(t);
    const topic = await createTopic(t, { name: "News" });
    const slug = `blog/${unique("first-")}`;
    const res = await call("POST", `${V2}/blog-posts`, {
      token: t.oauth,
      body: {
        name: "First post",
        slug,
        post_body: "<p>Body</p>",
        post_summary: "<p>Sum</p>",
        meta_description: "desc",
        head_html: "<meta name='x' content='y'>",
        footer_html: "<p>footer</p>",
        blog_author_id: author.id,
        topic_ids: [topic.id],
        keywords: ["alpha", { keyword: "beta", keyword_guid: "g-1" }],
        campaign: "c-guid",
        campaign_name: "Campaign",
        widgets: { w: { body: {} } },
      },
    });
    expect(res.status, res.text).toBe(201);
    const p = res.json;
    for (const key of SPEC_FIELDS) expect(p, key).toHaveProperty(key);
    expect(p).toMatchObject({
      name: "First post",
      slug,
      state: "DRAFT",
      is_draft: true,
      processing_status: "draft",
      deleted_at: 0,
      published_at: 0,
      published_url: "",
      portal_id: t.portalId,
      blog_author_id: author.id,
      topic_ids: [topic.id],
      tag_ids: [topic.id],
      topic_names: ["News"],
      campaign: "c-guid",
      campaign_name: "Campaign",
      url: `${BASE}/_blog/${t.portalId}/${slug}`,
      html_title: "First post",
      publish_immediately: false,
      archived: false,
      widgets: { w: { body: {} } },
      widget_containers: {},
    });
    expect(p.keywords).toEqual([
      { keyword: "alpha", keyword_guid: expect.stringMatching(/^[0-9a-f]{32}$/) },
      { keyword: "beta", keyword_guid: "g-1" },
    ]);
    expect(p.blog_author).toMatchObject({ id: author.id, full_name: "Levi Test", portal_id: t.portalId });
    expect(typeof p.created).toBe("number");
    expect(p.updated).toBe(p.created);
    expect(p.publish_date).toBe(p.created); // no publish_date given: publishing happens when asked
    const blogs = await call("GET", `${V2}/blogs`, { token: t.oauth });
    expect(p.content_group_id).toBe(blogs.json.objects[0].id);
    expect(p.parent_blog).toMatchObject({ id: p.content_group_id, slug: "blog" });
    // The read by id (one statement, its relations read with it) answers the same bytes as the create.
    const read = await call("GET", `${V2}/blog-posts/${p.id}`, { token: t.oauth });
    expect(read.text).toBe(res.text);
  });

  it("gives a post without slug the real service's temporary slug under its blog", async () => {
    const t = await tenant();
    const p = await createPost(t, { slug: undefined });
    expect(p.slug).toMatch(/^blog\/-temporary-slug-[0-9a-f-]{36}$/);
  });

  it("accepts the documented string forms (publish_immediately, longs as strings)", async () => {
    const t = await tenant();
    const p = await createPost(t, { publish_immediately: "true", publish_date: "1387580592000", archived: "false" });
    expect(p).toMatchObject({ publish_immediately: true, publish_date: 1387580592000, archived: false });
  });

  it.each([
    ["name missing", { slug: "a" }, "name"],
    ["empty name", { name: "  " }, "name must not be empty"],
    ["slug with empty segment", { name: "n", slug: "a//b" }, "slug"],
    ["slug with ..", { name: "n", slug: "a/../b" }, "slug"],
    ["slug with a space", { name: "n", slug: "my post" }, "slug"],
    ["slug with a query", { name: "n", slug: "a?b=1" }, "slug"],
    ["non-numeric content_group_id", { name: "n", content_group_id: "abc" }, "content_group_id"],
    ["negative publish_date", { name: "n", publish_date: -1 }, "publish_date"],
    ["publish_immediately not boolean", { name: "n", publish_immediately: "yes" }, "publish_immediately"],
    ["keywords not a list", { name: "n", keywords: "a,b" }, "keywords"],
    ["topic_ids not numeric", { name: "n", topic_ids: ["x"] }, "topic_ids"],
    ["deleted_at set directly", { name: "n", deleted_at: 1700000000000 }, "deleted_at is set only by DELETE"],
    ["widgets not an object", { name: "n", widgets: "x" }, "widgets"],
  ])("rejects %s with 400", async (_label, body, message) => {
    const t = await tenant();
    const res = await call("POST", `${V2}/blog-posts`, { token: t.oauth, body });
    const err = expectError(res, 400, "VALIDATION_ERROR");
    expect(err.message).toContain(message);
  });

  it.each([
    ["no body", ""],
    ["invalid JSON", "{"],
    ["a JSON array", "[]"],
  ])("rejects %s with 400", async (_label, raw) => {
    const t = await tenant();
    expectError(await call("POST", `${V2}/blog-posts`, { token: t.oauth, raw, headers: { "content-type": "application/json" } }), 400, "VALIDATION_ERROR");
  });

  it("rejects authors, topics and blogs that are not rows of the same account (400)", async () => {
    const a = await tenant();
    const b = await tenant();
    const foreignAuthor = await createAuthor(b);
    const foreignTopic = await createTopic(b);
    const foreignBlog = (await call("GET", `${V2}/blogs`, { token: b.oauth })).json.objects[0];
    const ownTopic = await createTopic(a);
    const cases: [Record<string, unknown>, string][] = [
      [{ blog_author_id: foreignAuthor.id }, "blog_author_id"],
      [{ blog_author_id: 999_999_999 }, "blog_author_id"],
      [{ topic_ids: [ownTopic.id, foreignTopic.id] }, `topic_ids ${foreignTopic.id}`],
      [{ content_group_id: foreignBlog.id }, "content_group_id"],
    ];
    for (const [extra, message] of cases) {
      const res = await call("POST", `${V2}/blog-posts`, { token: a.oauth, body: { name: "x", ...extra } });
      expect(expectError(res, 400, "VALIDATION_ERROR").message).toContain(message);
    }
    const list = await call("GET", `${V2}/blog-posts`, { token: a.oauth });
    expect(list.json.total).toBe(0);
  });

  it("refuses a slug another live post of the account uses (409), but not one of another account", async () => {
    const a = await tenant();
    const b = await tenant();
    const first = await createPost(a);
    expectError(await call("POST", `${V2}/blog-posts`, { token: a.oauth, body: { name: "x", slug: first.slug } }), 409, "CONFLICT");
    await createPost(b, { slug: first.slug });
  });
});

describe("GET /content/api/v2/blog-posts/:id", () => {
  it("has every top-level key of the real service's body, with the same JSON types (test/fixtures/legacy-shapes.ts)", async () => {
    const t = await tenant();
    const author = await createAuthor(t);
    const topic = await createTopic(t);
    const post = await createPost(t, { blog_author_id: author.id, topic_ids: [topic.id], meta_description: "dfsdf", campaign: "||" });
    await publish(t, post.id);
    const res = await call("GET", `${V2}/blog-posts/${post.id}`, { token: t.oauth });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json;charset=utf-8");
    const keys = expectShape(res.json, BLOG_POST_V2);
    expect(keys.length).toBe(69); // the real service's whole field set was compared
    expectShape(res.json.blog_author, BLOG_AUTHOR_V2, "blog_author.");
  });

  it("answers 400 for a non-numeric id and 404 for an unknown one", async () => {
    const t = await tenant();
    const bad = expectError(await call("GET", `${V2}/blog-posts/abc`, { token: t.oauth }), 400, "VALIDATION_ERROR");
    expect(bad.message).toContain("id");
    expectError(await call("GET", `${V2}/blog-posts/999999999`, { token: t.oauth }), 404, "OBJECT_NOT_FOUND");
  });
});

describe("PUT /content/api/v2/blog-posts/:id", () => {
  it("changes only the fields sent; a new slug changes the url", async () => {
    const t = await tenant();
    const post = await createPost(t, { meta_description: "keep" });
    const slug = `blog/${unique("renamed-")}`;
    const res = await call("PUT", `${V2}/blog-posts/${post.id}`, { token: t.oauth, body: { name: "Renamed", slug, post_body: "<p>new</p>" } });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ name: "Renamed", slug, post_body: "<p>new</p>", meta_description: "keep", state: "DRAFT" });
    expect(res.json.url).toBe(`${BASE}/_blog/${t.portalId}/${slug}`);
    expect(res.json.updated).toBeGreaterThanOrEqual(post.updated);
    const again = await call("GET", `${V2}/blog-posts/${post.id}`, { token: t.oauth });
    expect(again.json.slug).toBe(slug);
  });

  it("accepts a GET body sent back as-is (read-only keys are ignored, deleted_at 0 is allowed)", async () => {
    const t = await tenant();
    const author = await createAuthor(t);
    const post = await createPost(t, { blog_author_id: author.id, keywords: ["k"] });
    const got = (await call("GET", `${V2}/blog-posts/${post.id}`, { token: t.oauth })).json;
    const res = await call("PUT", `${V2}/blog-posts/${post.id}`, { token: t.oauth, body: { ...got, state: "PUBLISHED", is_draft: false, name: "Round trip" } });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ name: "Round trip", state: "DRAFT", is_draft: true, keywords: got.keywords, slug: got.slug });
  });

  it.each([
    ["deleted_at", { deleted_at: 5 }, "deleted_at is set only by DELETE"],
    ["bad slug", { slug: "/" }, "slug"],
    ["empty name", { name: "" }, "name"],
    ["bad topic id", { topic_ids: [0] }, "topic_ids"],
  ])("rejects %s with 400 and changes nothing", async (_label, body, message) => {
    const t = await tenant();
    const post = await createPost(t);
    const err = expectError(await call("PUT", `${V2}/blog-posts/${post.id}`, { token: t.oauth, body }), 400, "VALIDATION_ERROR");
    expect(err.message).toContain(message);
    const after = await call("GET", `${V2}/blog-posts/${post.id}`, { token: t.oauth });
    expect(after.json).toMatchObject({ name: post.name, slug: post.slug, deleted_at: 0 });
  });

  it("validates references and slug conflicts like create", async () => {
    const a = await tenant();
    const b = await tenant();
    const post = await createPost(a);
    const other = await createPost(a);
    const foreignAuthor = await createAuthor(b);
    expectError(await call("PUT", `${V2}/blog-posts/${post.id}`, { token: a.oauth, body: { blog_author_id: foreignAuthor.id } }), 400, "VALIDATION_ERROR");
    expectError(await call("PUT", `${V2}/blog-posts/${post.id}`, { token: a.oauth, body: { slug: other.slug } }), 409, "CONFLICT");
  });
});

describe("DELETE /content/api/v2/blog-posts/:id", () => {
  it("sets deleted_at, hides the post from lists and freezes it", async () => {
    const t = await tenant();
    const post = await createPost(t);
    const del = await call("DELETE", `${V2}/blog-posts/${post.id}`, { token: t.oauth });
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expect(del.headers.get("content-type")).toBeNull();
    const got = await call("GET", `${V2}/blog-posts/${post.id}`, { token: t.oauth });
    expect(got.json.deleted_at).toBeGreaterThan(0);
    expect((await call("GET", `${V2}/blog-posts`, { token: t.oauth })).json.total).toBe(0);
    expectError(await call("PUT", `${V2}/blog-posts/${post.id}`, { token: t.oauth, body: { name: "x" } }), 409, "CONFLICT");
    expectError(await call("POST", `${V2}/blog-posts/${post.id}/publish-action`, { token: t.oauth, body: { action: "schedule-publish" } }), 409, "CONFLICT");
    // Deleting again is harmless and keeps the first deletion time.
    expect((await call("DELETE", `${V2}/blog-posts/${post.id}`, { token: t.oauth })).status).toBe(204);
    expect((await call("GET", `${V2}/blog-posts/${post.id}`, { token: t.oauth })).json.deleted_at).toBe(got.json.deleted_at);
    // The slug is free again.
    await createPost(t, { slug: post.slug });
  });

  it("answers 404 for an unknown post and 400 for a non-numeric id", async () => {
    const t = await tenant();
    expectError(await call("DELETE", `${V2}/blog-posts/424242424`, { token: t.oauth }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("DELETE", `${V2}/blog-posts/1e3`, { token: t.oauth }), 400, "VALIDATION_ERROR");
  });
});

describe("POST /content/api/v2/blog-posts/:id/publish-action", () => {
  it.each([
    ["unknown action", { action: "publish" }],
    ["no action", {}],
  ])("rejects %s with 400", async (_label, body) => {
    const t = await tenant();
    const post = await createPost(t);
    const err = expectError(await call("POST", `${V2}/blog-posts/${post.id}/publish-action`, { token: t.oauth, body }), 400, "VALIDATION_ERROR");
    expect(err.message).toContain("action");
  });

  it("answers 404 for an unknown post", async () => {
    const t = await tenant();
    expectError(await call("POST", `${V2}/blog-posts/77777777/publish-action`, { token: t.oauth, body: { action: "schedule-publish" } }), 404, "OBJECT_NOT_FOUND");
  });
});

describe("GET /content/api/v2/blog-posts", () => {
  it("uses the real service's v2 list envelope", async () => {
    const t = await tenant();
    await createPost(t);
    const res = await call("GET", `${V2}/blog-posts`, { token: t.oauth });
    expect(res.status).toBe(200);
    expectShape(res.json, LIST_V2);
    expect(res.json).toMatchObject({ limit: 20, offset: 0, total: 1, total_count: 1 });
    expect(res.json.objects).toHaveLength(1);
  });

  it("answers hubspot-api-ruby's query (content_group_id, created__gt, order_by=-created, state)", async () => {
    const t = await tenant();
    const p = await createPost(t);
    await publish(t, p.id);
    await createPost(t); // a draft: filtered out by state
    const q = new URLSearchParams({ ...BLOG_POSTS_CLIENT_QUERY, content_group_id: String(p.content_group_id) });
    const res = await call("GET", `${V2}/blog-posts?${q}`, { token: t.oauth });
    expect(res.status, res.text).toBe(200);
    expect(res.json.objects.map((o: { id: number }) => o.id)).toEqual([p.id]);
    expect(res.json.total).toBe(1);
  });

  it("pages with limit and offset and orders by the requested field", async () => {
    const t = await tenant();
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await createPost(t, { name: `post ${i}` }));
    const newestFirst = [...made].sort((x, y) => y.created - x.created || y.id - x.id).map((p) => p.id);
    const first = await call("GET", `${V2}/blog-posts?limit=2`, { token: t.oauth });
    expect(first.json).toMatchObject({ limit: 2, offset: 0, total: 5, total_count: 5 });
    expect(first.json.objects.map((p: { id: number }) => p.id)).toEqual(newestFirst.slice(0, 2));
    const last = await call("GET", `${V2}/blog-posts?limit=2&offset=4`, { token: t.oauth });
    expect(last.json.objects.map((p: { id: number }) => p.id)).toEqual(newestFirst.slice(4));
    const byName = await call("GET", `${V2}/blog-posts?order_by=name`, { token: t.oauth });
    expect(byName.json.objects.map((p: { name: string }) => p.name)).toEqual(["post 0", "post 1", "post 2", "post 3", "post 4"]);
    const byNameDesc = await call("GET", `${V2}/blog-posts?order_by=-name&limit=1`, { token: t.oauth });
    expect(byNameDesc.json.objects[0].name).toBe("post 4");
  });

  it("filters by created ranges, state, content_group_id and archived", async () => {
    const t = await tenant();
    const other = await call("POST", `${V2}/blogs`, { token: t.oauth, body: { name: "Other blog" } });
    const posts = [await createPost(t), await createPost(t, { archived: true }), await createPost(t, { content_group_id: other.json.id })];
    await publish(t, posts[0].id);
    const ids = async (query: string) =>
      ((await call("GET", `${V2}/blog-posts?${query}`, { token: t.oauth })).json.objects as { id: number }[]).map((o) => o.id).sort((x, y) => x - y);
    const pivot = posts[1].created;
    const expectIds = (pred: (p: { created: number }) => boolean) => posts.filter(pred).map((p) => p.id).sort((x, y) => x - y);
    expect(await ids(`created__gt=${pivot}`)).toEqual(expectIds((p) => p.created > pivot));
    expect(await ids(`created__gte=${pivot}`)).toEqual(expectIds((p) => p.created >= pivot));
    expect(await ids(`created__lt=${pivot}`)).toEqual(expectIds((p) => p.created < pivot));
    expect(await ids(`created__lte=${pivot}`)).toEqual(expectIds((p) => p.created <= pivot));
    expect(await ids("state=PUBLISHED")).toEqual([posts[0].id]);
    expect(await ids("state=draft")).toEqual([posts[1].id, posts[2].id]);
    expect(await ids(`content_group_id=${other.json.id}`)).toEqual([posts[2].id]);
    expect(await ids("archived=true")).toEqual([posts[1].id]);
  });

  it.each([
    ["limit over 300", "limit=301", "limit must be at most 300"],
    ["limit 0", "limit=0", "limit must be at least 1"],
    ["limit not a number", "limit=ten", "limit"],
    ["negative offset", "offset=-1", "offset"],
    ["unknown sort field", "order_by=%20created", "You can not sort by  created because it is not a valid field"],
    ["non-numeric created__gt", "created__gt=yesterday", "created__gt"],
    ["non-numeric content_group_id", "content_group_id=x", "content_group_id"],
  ])("rejects %s with 400", async (_label, query, message) => {
    const t = await tenant();
    const err = expectError(await call("GET", `${V2}/blog-posts?${query}`, { token: t.oauth }), 400, "VALIDATION_ERROR");
    expect(err.message).toContain(message);
  });

  it("answers an unknown state with an empty page, not a 400 (recorded: hubspot-ruby-apptopia state=TRUE, INVALID, false)", async () => {
    const t = await tenant();
    const p = await createPost(t);
    await publish(t, p.id);
    await createPost(t);
    for (const state of ["LIVE", "TRUE", "INVALID", "false"]) {
      const res = await call("GET", `${V2}/blog-posts?state=${state}&limit=5&offset=3`, { token: t.oauth });
      expect(res.status, res.text).toBe(200);
      expect(res.json).toEqual({ limit: 5, objects: [], offset: 3, total: 0, total_count: 0 });
    }
    expect((await call("GET", `${V2}/blog-posts?state=published`, { token: t.oauth })).json.total).toBe(1);
  });

  it("accepts up to 300 per page", async () => {
    const t = await tenant();
    const res = await call("GET", `${V2}/blog-posts?limit=300`, { token: t.oauth });
    expect(res.json).toMatchObject({ limit: 300, total: 0, objects: [] });
  });
});

describe("blog posts: credentials", () => {
  const routes = (id: number): [string, string, unknown?][] => [
    ["GET", `${V2}/blog-posts`],
    ["POST", `${V2}/blog-posts`, { name: "x" }],
    ["GET", `${V2}/blog-posts/${id}`],
    ["PUT", `${V2}/blog-posts/${id}`, { name: "x" }],
    ["DELETE", `${V2}/blog-posts/${id}`],
    ["POST", `${V2}/blog-posts/${id}/publish-action`, { action: "schedule-publish" }],
  ];

  it("require a credential (401), an account token (403) and the content scope (403)", async () => {
    const t = await tenant();
    const post = await createPost(t);
    const noContent = await tenant({ scopes: ["contacts", "transactional-email"] });
    for (const [method, path, body] of routes(post.id)) {
      expectError(await call(method, path, { body }), 401, "INVALID_AUTHENTICATION");
      expectError(await call(method, path, { body, token: t.developerKey }), 403, "FORBIDDEN");
      const scoped = expectError(await call(method, path, { body, token: noContent.oauth }), 403, "MISSING_SCOPES");
      expect(scoped.errors[0].context.requiredScopes).toEqual(["content"]);
      expectError(await call(method, path, { body, token: noContent.pat }), 403, "MISSING_SCOPES");
    }
    expect((await call("GET", `${V2}/blog-posts/${post.id}`, { token: t.oauth })).json.deleted_at).toBe(0);
  });

  it("accept a private app token with the content scope", async () => {
    const t = await tenant();
    const res = await call("POST", `${V2}/blog-posts`, { token: t.pat, body: { name: "by pat" } });
    expect(res.status, res.text).toBe(201);
    expect(res.json.author_user_id).toBe(0);
  });

  it("never let one account read or change another's posts (404, nothing changes)", async () => {
    const a = await tenant();
    const b = await tenant();
    const post = await createPost(a);
    for (const [method, path, body] of routes(post.id).slice(2)) {
      const res = await call(method, path, { body, token: b.oauth });
      expectError(res, 404, "OBJECT_NOT_FOUND");
      expect(res.text).not.toContain(post.slug);
    }
    expect((await call("GET", `${V2}/blog-posts`, { token: b.oauth })).json.total).toBe(0);
    const still = await call("GET", `${V2}/blog-posts/${post.id}`, { token: a.oauth });
    expect(still.json).toMatchObject({ name: post.name, state: "DRAFT", deleted_at: 0 });
  });
});
