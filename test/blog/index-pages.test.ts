/** The public blog index: `/_blog/{portalId}` and a blog's root_url list published posts, newest first, paged. */
import { describe, expect, it } from "vitest";
import { call, tenant } from "../helpers/api";
import { createAuthor, createPost, page, publish, V2 } from "./helpers";

const DAY = 86_400_000;
const start = Date.UTC(2025, 0, 1);

function html(res: Awaited<ReturnType<typeof call>>) {
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get("content-security-policy")).toMatch(/^sandbox /);
  return res.text;
}
const titles = (text: string) => [...text.matchAll(/<h2><a href="[^"]*">([^<]*)<\/a><\/h2>/g)].map((m) => m[1]);

describe("GET /_blog/{portalId}", () => {
  it("lists only published posts, newest first, each with its author, date and summary, linked to its page", async () => {
    const t = await tenant();
    const author = await createAuthor(t, { full_name: "Ada <Lovelace>" });
    const posts: [number, Record<string, unknown>][] = [
      [0, { meta_description: "First & oldest" }],
      [2, { blog_author_id: author.id, post_summary: "<p>Third <b>one</b></p>" }],
      [1, {}],
    ];
    for (const [i, extra] of posts) {
      const post = await createPost(t, { name: `Post ${i}`, publish_date: start + i * DAY, ...extra });
      await publish(t, post.id);
    }
    await createPost(t, { name: "A draft", publish_date: start + 5 * DAY });
    const text = html(await call("GET", `/_blog/${t.portalId}`));
    expect(titles(text)).toEqual(["Post 2", "Post 1", "Post 0"]);
    expect(text).not.toContain("A draft");
    expect(text).toContain('By <span class="post-author">Ada &lt;Lovelace&gt;</span> · Published <time datetime="2025-01-03T00:00:00.000Z">January 3, 2025</time>');
    expect(text).toContain("<p>Third one</p>");
    expect(text).toContain("<p>First &amp; oldest</p>");
    const link = text.match(/<h2><a href="([^"]*)">Post 2</)![1]!;
    expect(link).toMatch(new RegExp(`^/_blog/${t.portalId}/blog/post-`));
    const post = html(await call("GET", link));
    expect(post).toContain('By <span class="post-author">Ada &lt;Lovelace&gt;</span>');
    expect(post).toContain(`<a href="/_blog/${t.portalId}">All posts</a>`);
  });

  it("pages by 10 with newer and older links; a page past the last, or a bad page number, is a 404", async () => {
    const t = await tenant();
    for (let i = 0; i < 12; i++) await publish(t, (await createPost(t, { name: `P${String(i).padStart(2, "0")}`, publish_date: start + i * DAY })).id);
    const first = html(await call("GET", `/_blog/${t.portalId}/`));
    expect(titles(first)).toEqual(["P11", "P10", "P09", "P08", "P07", "P06", "P05", "P04", "P03", "P02"]);
    expect(first).toContain(`<a rel="next" href="/_blog/${t.portalId}?page=2">Older posts</a>`);
    expect(first).not.toContain('rel="prev"');
    const second = html(await call("GET", `/_blog/${t.portalId}?page=2`));
    expect(titles(second)).toEqual(["P01", "P00"]);
    expect(second).toContain(`<a rel="prev" href="/_blog/${t.portalId}">Newer posts</a>`);
    expect(second).not.toContain('rel="next"');
    for (const bad of ["3", "0", "-1", "x", "1.5", "1001"]) {
      const res = await call("GET", `/_blog/${t.portalId}?page=${bad}`);
      expect(res.status, bad).toBe(404);
      expect(res.headers.get("x-service-notfound")).toBe("true");
    }
  });

  it("a blog's root_url lists that blog's posts alone; an account with none says so", async () => {
    const t = await tenant();
    const empty = html(await call("GET", `/_blog/${t.portalId}`));
    expect(empty).toContain("No posts yet.");
    const blog = (await call("POST", `${V2}/blogs`, { token: t.oauth, body: { name: "Engineering News", description: "From the team" } })).json;
    await publish(t, (await createPost(t, { name: "In the default blog" })).id);
    await publish(t, (await createPost(t, { name: "In engineering", content_group_id: blog.id, slug: undefined })).id);
    const own = html(await page(blog.root_url));
    expect(titles(own)).toEqual(["In engineering"]);
    expect(own).toContain("<h1>Engineering News</h1>");
    expect(own).toContain('<p class="blog-description">From the team</p>');
    expect(titles(html(await call("GET", `/_blog/${t.portalId}`)))).toHaveLength(2);
  });

  it("is per account: another account's index never lists these posts; an unknown account is a 404", async () => {
    const a = await tenant();
    const b = await tenant();
    await publish(a, (await createPost(a, { name: "Only in A" })).id);
    expect(html(await call("GET", `/_blog/${a.portalId}`))).toContain("Only in A");
    expect(html(await call("GET", `/_blog/${b.portalId}`))).not.toContain("Only in A");
    const blogOfA = (await call("GET", `${V2}/blogs`, { token: a.oauth })).json.objects[0];
    expect((await call("GET", `/_blog/${b.portalId}/${blogOfA.slug}`)).text).not.toContain("Only in A");
    expect((await call("GET", "/_blog/999999999999")).status).toBe(404);
  });
});
