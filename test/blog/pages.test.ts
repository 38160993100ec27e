/** Public blog pages and the post life cycle through its URL (a post's url answers 404 until it is published). */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant, unique } from "../helpers/api";
import { createPost, page, publish, V2 } from "./helpers";

function expectPage(res: Awaited<ReturnType<typeof call>>) {
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/html;charset=utf-8");
  // Account HTML runs in an opaque origin: no access to this origin's cookies, storage or same-origin reads.
  const csp = res.headers.get("content-security-policy") ?? "";
  expect(csp).toMatch(/^sandbox /);
  expect(csp).not.toContain("allow-same-origin");
  return res.text;
}

function expect404(res: Awaited<ReturnType<typeof call>>) {
  expect(res.status).toBe(404);
  expect(res.headers.get("x-service-notfound")).toBe("true");
}

describe("post life cycle through the public URL", () => {
  it("draft → 404, published → page, renamed → new URL, unpublished → 404, deleted → 404", async () => {
    const t = await tenant();
    const post = await createPost(t, {
      name: "Hello <World>",
      post_body: "<p>Body text</p>",
      head_html: '<link rel="alternate" href="/feed">',
      footer_html: '<div id="footer">Footer</div>',
      meta_description: 'Says "hi"',
    });
    expect(post.url).toMatch(new RegExp(`/_blog/${t.portalId}/blog/post-`));
    expect404(await page(post.url)); // a draft's url is a 404

    const published = await publish(t, post.id);
    expect(published).toMatchObject({ state: "PUBLISHED", is_draft: false, processing_status: "published", published_url: post.url });
    expect(published.published_at).toBeGreaterThan(0);
    const html = expectPage(await page(post.url));
    expect(html).toContain("<p>Body text</p>");
    expect(html).toContain("<title>Hello &lt;World&gt;</title>");
    expect(html).toContain('<meta name="description" content="Says &quot;hi&quot;">');
    // head_html inside <head>, footer_html right before </body>.
    expect(html).toMatch(/<head>.*<link rel="alternate" href="\/feed"><\/head>/s);
    expect(html).toMatch(/<div id="footer">Footer<\/div><\/body><\/html>$/);
    // Styled by its own stylesheet, which the account's head HTML follows (so it can override it); dated.
    expect(html).toMatch(/<link rel="stylesheet" href="\/static\/blog.css">.*<link rel="alternate" href="\/feed">/s);
    const date = new Date(published.publish_date as number);
    expect(html).toContain(`<p class="post-meta">Published <time datetime="${date.toISOString()}">`);
    expect(html).toContain('<div class="post-body"><p>Body text</p></div>');

    // A new slug moves the page.
    const slug = `blog/${unique("moved-")}`;
    const moved = await call("PUT", `${V2}/blog-posts/${post.id}`, { token: t.oauth, body: { slug, post_body: "<p>Edited</p>" } });
    expect(moved.json.state).toBe("PUBLISHED");
    expect404(await page(post.url));
    expect(expectPage(await page(moved.json.url))).toContain("<p>Edited</p>");

    // cancel-publish takes it off the web; publishing again brings it back.
    const cancelled = await publish(t, post.id, "cancel-publish");
    expect(cancelled).toMatchObject({ state: "DRAFT", is_draft: true, published_url: "" });
    expect(cancelled.unpublished_at).toBeGreaterThan(0);
    expect404(await page(moved.json.url));
    await publish(t, post.id);
    expectPage(await page(moved.json.url));

    // DELETE: the URL is gone, the JSON shows deleted_at.
    expect((await call("DELETE", `${V2}/blog-posts/${post.id}`, { token: t.oauth })).status).toBe(204);
    expect404(await page(moved.json.url));
    const gone = await call("GET", `${V2}/blog-posts/${post.id}`, { token: t.oauth });
    expect(gone.json.deleted_at).toBeGreaterThan(0);
  });

  it("schedules a post whose publish_date is in the future; its URL is a 404 until published", async () => {
    const t = await tenant();
    const post = await createPost(t, { publish_date: Date.now() + 3_600_000 });
    const scheduled = await publish(t, post.id);
    expect(scheduled).toMatchObject({ state: "SCHEDULED", is_draft: false, processing_status: "scheduled", published_at: 0 });
    expect404(await page(post.url));
    // Scheduling again is idempotent; cancelling returns it to draft.
    expect((await publish(t, post.id)).state).toBe("SCHEDULED");
    expect((await publish(t, post.id, "cancel-publish")).state).toBe("DRAFT");
  });

  it("publishes at once when publish_immediately is true, ignoring a future publish_date", async () => {
    const t = await tenant();
    const future = Date.now() + 86_400_000;
    const post = await createPost(t, { publish_date: future, publish_immediately: true });
    const published = await publish(t, post.id);
    expect(published.state).toBe("PUBLISHED");
    expect(published.publish_date).toBeLessThan(future);
    expect(published.publish_date).toBe(published.published_at);
    expectPage(await page(post.url));
  });

  it("publishes at once when publish_date has passed", async () => {
    const t = await tenant();
    const post = await createPost(t, { publish_date: 1387580592000 });
    const published = await publish(t, post.id);
    expect(published).toMatchObject({ state: "PUBLISHED", publish_date: 1387580592000 });
    expectPage(await page(post.url));
  });

  it("keeps an archived post live (archiving only hides it from the dashboard)", async () => {
    const t = await tenant();
    const post = await createPost(t);
    await publish(t, post.id);
    await call("PUT", `${V2}/blog-posts/${post.id}`, { token: t.oauth, body: { archived: true } });
    expectPage(await page(post.url));
  });
});

describe("GET /_blog/:portalId/*", () => {
  it("serves slugs with several segments and a trailing slash", async () => {
    const t = await tenant();
    const post = await createPost(t, { slug: `news/2024/${unique("deep-")}` });
    await publish(t, post.id);
    expectPage(await page(post.url));
    expectPage(await page(`${post.url}/`));
  });

  it("is per account: another portal id with the same slug is a 404", async () => {
    const a = await tenant();
    const b = await tenant();
    const post = await createPost(a);
    await publish(a, post.id);
    expectPage(await page(post.url));
    expect404(await call("GET", `/_blog/${b.portalId}/${post.slug}`));
  });

  it.each([
    ["unknown slug", "/_blog/1/blog/nothing-here"],
    ["an unknown account's index", "/_blog/999999999999"],
    ["non-numeric portal", "/_blog/abc/blog/x"],
    ["bad escape", "/_blog/1/blog/%E0%A4%A"],
  ])("answers 404 for %s", async (_label, path) => {
    expect404(await call("GET", path));
  });

  it("is a public, read-only page: other methods are 405", async () => {
    expectError(await call("POST", "/_blog/1/blog/x", { body: {} }), 405, "METHOD_NOT_ALLOWED");
  });

  it("serves a sanitized body while the API keeps the body as written", async () => {
    const t = await tenant();
    const body =
      '<p onclick="steal()">Hi<script>alert(1)</script></p><style>p{}</style><iframe src="https://evil.example"></iframe>' +
      '<object data="x"></object><embed src="x"><a href="javascript:alert(1)">x</a><a href="https://ok.example/">ok</a>' +
      '<img src="https://img.example/a.png" onerror="alert(2)" alt="a">';
    const post = await createPost(t, { post_body: body });
    await publish(t, post.id);
    const html = expectPage(await page(post.url));
    for (const bad of ["<script", "alert(1)", "<style", "<iframe", "<object", "<embed", "onclick", "onerror", "javascript:"]) {
      expect(html, bad).not.toContain(bad);
    }
    expect(html).toContain('<p>Hi</p>');
    expect(html).toContain('<a href="https://ok.example/">ok</a>');
    expect(html).toContain('<img src="https://img.example/a.png" alt="a">');
    const json = await call("GET", `${V2}/blog-posts/${post.id}`, { token: t.oauth });
    expect(json.json.post_body).toBe(body);
  });
});

describe("the public pages' look", () => {
  it("the stylesheet exists, and the 404 page uses it and says what happened", async () => {
    // public/ is served by Workers static assets, in front of the Worker this project calls: the node
    // project's static-files test fetches every file of public/, this one included, from wrangler.
    expect(Object.keys(import.meta.glob("../../public/static/blog.css"))).toHaveLength(1);
    const missing = await page("https://crm.test/_blog/1/no-such-post");
    expect404(missing);
    expect(missing.text).toContain('<link rel="stylesheet" href="/static/blog.css">');
    expect(missing.text).toContain("<h1>Page not found</h1>");
    expect(missing.text).toContain("This blog post does not exist, or it is not published.");
    expect(missing.headers.get("content-security-policy")).toMatch(/^sandbox /);
  });
});

describe("a public page never answers 500", () => {
  it("serves a post whose body the HTML parser finds ambiguous (<select><style>)", async () => {
    const t = await tenant();
    const post = await createPost(t, { post_body: "<p>before</p><select><style>x</style></select><p>after</p>" });
    await publish(t, post.id);
    const html = expectPage(await page(post.url));
    expect(html).toContain("before");
    expect(html).not.toMatch(/<(select|style)\b/i);
  });
});
