/** Blog posts v3 (`/cms/v3/blogs/posts`): the v2 posts the v3 way, with the v2 rules, drafts and scheduling. */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant, unique, type Tenant } from "../helpers/api";
import { createAuthor, createPost, createTopic, page, publish, V2 } from "./helpers";
import { tick } from "../helpers/maintenance";

const V3 = "/cms/v3/blogs/posts";

async function createV3(t: Tenant, body: Record<string, unknown> = {}) {
  const res = await call("POST", V3, { token: t.oauth, body: { name: "Hello v3", slug: `blog/${unique("v3-")}`, postBody: "<p>Body</p>", ...body } });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

/** A cron tick at `scheduledTime` and the maintenance jobs it enqueues. */
const runScheduled = (scheduledTime: number) => tick(scheduledTime);

const v2Post = async (t: Tenant, id: string | number) => (await call("GET", `${V2}/blog-posts/${id}`, { token: t.oauth })).json;

describe("blog posts v3", () => {
  it("creates (201) a draft that is the v2 post: camelCase, string ids, ISO dates", async () => {
    const t = await tenant();
    const author = await createAuthor(t);
    const topic = await createTopic(t);
    const post = await createV3(t, { blogAuthorId: String(author.id), tagIds: [topic.id], publishDate: "2030-01-01T00:00:00.000Z", metaDescription: "m" });
    expect(post).toMatchObject({
      name: "Hello v3",
      state: "DRAFT",
      postBody: "<p>Body</p>",
      blogAuthorId: String(author.id),
      authorName: author.full_name,
      tagIds: [topic.id],
      publishDate: "2030-01-01T00:00:00.000Z",
      metaDescription: "m",
      archivedAt: 0,
    });
    expect(post.id).toMatch(/^\d+$/);
    expect(post.contentGroupId).toMatch(/^\d+$/);
    expect(new Date(post.created).toISOString()).toBe(post.created);
    const v2 = await v2Post(t, post.id);
    expect(v2).toMatchObject({ id: Number(post.id), name: "Hello v3", post_body: "<p>Body</p>", blog_author_id: author.id, topic_ids: [topic.id], publish_date: Date.parse("2030-01-01T00:00:00.000Z"), url: post.url });
  });

  it("shows a v2 post, and a v3 change is seen by v2 and on the public page", async () => {
    const t = await tenant();
    const v2 = await createPost(t, { name: "From v2", post_body: "<p>v2</p>" });
    await publish(t, v2.id);
    const read = await call("GET", `${V3}/${v2.id}`, { token: t.oauth });
    expect(read.status, read.text).toBe(200);
    expect(read.json).toMatchObject({ id: String(v2.id), name: "From v2", state: "PUBLISHED", postBody: "<p>v2</p>", url: v2.url });
    const patched = await call("PATCH", `${V3}/${v2.id}`, { token: t.oauth, body: { postBody: "<p>v3 <script>alert(1)</script></p>" } });
    expect(patched.status, patched.text).toBe(200);
    expect((await v2Post(t, v2.id)).post_body).toBe("<p>v3 <script>alert(1)</script></p>");
    const html = (await page(v2.url)).text;
    expect(html).toContain("v3");
    expect(html).not.toContain("<script>alert(1)</script>");
  });

  it("keeps the draft apart until push-live (204); reset (204) discards it", async () => {
    const t = await tenant();
    const post = await createV3(t, { name: "Live name" });
    const draft = await call("PATCH", `${V3}/${post.id}/draft`, { token: t.oauth, body: { name: "Draft name" } });
    expect(draft.status, draft.text).toBe(200);
    expect(draft.json.name).toBe("Draft name");
    expect((await call("GET", `${V3}/${post.id}/draft`, { token: t.oauth })).json.name).toBe("Draft name");
    expect((await call("GET", `${V3}/${post.id}`, { token: t.oauth })).json.name).toBe("Live name");
    expect((await v2Post(t, post.id)).name).toBe("Live name");

    expect((await call("POST", `${V3}/${post.id}/draft/push-live`, { token: t.oauth })).status).toBe(204);
    expect((await v2Post(t, post.id)).name).toBe("Draft name");

    await call("PATCH", `${V3}/${post.id}/draft`, { token: t.oauth, body: { name: "Discarded" } });
    expect((await call("POST", `${V3}/${post.id}/draft/reset`, { token: t.oauth })).status).toBe(204);
    expect((await call("GET", `${V3}/${post.id}/draft`, { token: t.oauth })).json.name).toBe("Draft name");
  });

  it("schedules (204): PUBLISHED in v3 and v2 after the cron tick; archive (204) is a v3 404 and v2 deleted_at", async () => {
    const t = await tenant();
    const post = await createV3(t);
    const due = Date.now() + 60 * 60_000;
    const res = await call("POST", `${V3}/schedule`, { token: t.oauth, body: { id: post.id, publishDate: new Date(due).toISOString() } });
    expect(res.status, res.text).toBe(204);
    expect((await call("GET", `${V3}/${post.id}`, { token: t.oauth })).json.state).toBe("SCHEDULED");
    await runScheduled(due);
    expect((await call("GET", `${V3}/${post.id}`, { token: t.oauth })).json.state).toBe("PUBLISHED");
    expect((await v2Post(t, post.id)).state).toBe("PUBLISHED");
    expect((await page(post.url)).status).toBe(200);

    expect((await call("DELETE", `${V3}/${post.id}`, { token: t.oauth })).status).toBe(204);
    expectError(await call("GET", `${V3}/${post.id}`, { token: t.oauth }), 404, "OBJECT_NOT_FOUND");
    const archived = await call("GET", `${V3}/${post.id}?archived=true`, { token: t.oauth });
    expect(archived.json.archivedAt).toBeGreaterThan(0);
    expect((await v2Post(t, post.id)).deleted_at).toBe(archived.json.archivedAt);
    expect((await page(post.url)).status).toBe(404);
  });

  it("pages with after, sorts, and filters (state, property__op, createdAfter)", async () => {
    const t = await tenant();
    const a = await createV3(t, { name: "Alpha" });
    const b = await createV3(t, { name: "beta" });
    const c = await createV3(t, { name: "Gamma" });
    await publish(t, Number(b.id));
    const first = await call("GET", `${V3}?limit=2`, { token: t.oauth });
    expect(first.json.total).toBe(3);
    expect(first.json.results.map((p: { id: string }) => p.id)).toEqual([a.id, b.id]);
    const second = await call("GET", `${V3}?limit=2&after=${first.json.paging.next.after}`, { token: t.oauth });
    expect(second.json.results.map((p: { id: string }) => p.id)).toEqual([c.id]);
    expect(second.json.paging).toBeUndefined();
    const byName = await call("GET", `${V3}?sort=-name`, { token: t.oauth });
    expect(byName.json.results.map((p: { name: string }) => p.name)).toEqual(["beta", "Gamma", "Alpha"]);
    expect((await call("GET", `${V3}?state=PUBLISHED`, { token: t.oauth })).json.results.map((p: { id: string }) => p.id)).toEqual([b.id]);
    expect((await call("GET", `${V3}?name__icontains=AMM`, { token: t.oauth })).json.results.map((p: { id: string }) => p.id)).toEqual([c.id]);
    expect((await call("GET", `${V3}?id__in=${a.id},${c.id}`, { token: t.oauth })).json.total).toBe(2);
    expect((await call("GET", `${V3}?name__startswith=Al`, { token: t.oauth })).json.results.map((p: { id: string }) => p.id)).toEqual([a.id]);
    expect((await call("GET", `${V3}?createdAfter=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, { token: t.oauth })).json.total).toBe(0);
  });

  it.each([
    ["POST", "", { slug: "x" }, "name"],
    ["POST", "", { name: "x", slug: "a//b" }, "slug"],
    ["POST", "", { name: "x", publishDate: "soon" }, "publishDate"],
    ["POST", "", { name: "x", archivedAt: 123 }, "archivedAt is set only by DELETE"],
    ["POST", "", { name: "x", blogAuthorId: "999999999" }, "blogAuthorId 999999999 is not a blog author"],
    ["POST", "", { name: "x", tagIds: [999999999] }, "tagIds 999999999 are not topics"],
    ["POST", "", { name: "x", tagIds: ["abc"] }, "tagIds"],
    ["POST", "/schedule", { id: "1" }, "publishDate"],
    ["GET", "?limit=301", undefined, "limit must be at most 300"],
    ["GET", "?sort=slug", undefined, "sort must be one of"],
    ["GET", "?sort=name&sort=-createdAt", undefined, "only one sort"],
    ["GET", "?color__eq=red", undefined, "color__eq: cannot filter on color"],
    ["GET", "?name__about=x", undefined, "unknown operator about"],
    ["GET", "?state=LIVE", undefined, "state must be one of"],
    ["GET", "/abc", undefined, "id must be a numeric id"],
  ])("%s %s with bad input answers 400 naming the field (%#)", async (method, suffix, body, text) => {
    const t = await tenant();
    const err = expectError(await call(method, `${V3}${suffix}`, { token: t.oauth, body }), 400, "VALIDATION_ERROR");
    expect(err.message).toContain(text);
    expect((await call("GET", V3, { token: t.oauth })).json.total).toBe(0);
  });

  it("keeps the v2 slug uniqueness (409) and the content scope", async () => {
    const t = await tenant();
    const post = await createV3(t);
    expectError(await call("POST", V3, { token: t.oauth, body: { name: "dup", slug: post.slug } }), 409, "CONFLICT");
    const noScope = await tenant({ scopes: ["contacts"] });
    expectError(await call("GET", V3, { token: noScope.oauth }), 403, "MISSING_SCOPES");
    expectError(await call("GET", V3, { token: t.developerKey }), 403, "FORBIDDEN");
  });

  it("keeps each account's posts to itself (404, nothing changes)", async () => {
    const a = await tenant();
    const b = await tenant();
    const post = await createV3(a);
    expect((await call("GET", V3, { token: b.oauth })).json.total).toBe(0);
    for (const [method, path, body] of [
      ["GET", `${V3}/${post.id}`],
      ["PATCH", `${V3}/${post.id}`, { name: "stolen" }],
      ["DELETE", `${V3}/${post.id}`],
      ["GET", `${V3}/${post.id}/draft`],
      ["PATCH", `${V3}/${post.id}/draft`, { name: "stolen" }],
      ["POST", `${V3}/${post.id}/draft/push-live`],
      ["POST", `${V3}/${post.id}/draft/reset`],
      ["POST", `${V3}/schedule`, { id: post.id, publishDate: new Date().toISOString() }],
    ] as [string, string, unknown?][]) {
      expectError(await call(method, path, { token: b.oauth, body }), 404, "OBJECT_NOT_FOUND");
    }
    const mine = (await call("GET", `${V3}/${post.id}/draft`, { token: a.oauth })).json;
    expect(mine).toMatchObject({ name: post.name, state: "DRAFT", archivedAt: 0 });
  });
});
