/**
 * Blog posts' head_html and footer_html go through HTMLRewriter when written: what it cannot parse is a
 * 400 naming the field, and nothing is written. PUBLIC_PAGES_ORIGIN moves public pages to their own host:
 * the API's urls point there, the service's host redirects pages there, and that host serves pages only.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { call, expectError, tenant } from "../helpers/api";
import { accountD1 } from "../helpers/shards";
import { createPost, publish, V2 } from "./helpers";

const UNPARSEABLE = ["<select><style>p{}</style></select>", "<p><select><style>x</style></select></p>"];

describe("blog post head_html and footer_html", () => {
  it.each(UNPARSEABLE.flatMap((html) => [["head_html", html] as const, ["footer_html", html] as const]))(
    "create refuses %s %j with a 400 naming it, and writes nothing",
    async (field, html) => {
      const t = await tenant();
      const res = await call("POST", `${V2}/blog-posts`, { token: t.oauth, body: { name: "p", [field]: html } });
      expectError(res, 400, "VALIDATION_ERROR");
      expect(res.text).toContain(field);
      const n = await (await accountD1(t.portalId)).prepare("select count(*) as n from blog_posts where portal_id = ?").bind(t.portalId).first<{ n: number }>();
      expect(n!.n).toBe(0);
    },
  );

  it("update refuses unparseable HTML and keeps the stored HTML", async () => {
    const t = await tenant();
    const post = await createPost(t, { head_html: '<meta name="a" content="b">', footer_html: "<p>ok</p>" });
    for (const field of ["head_html", "footer_html"]) {
      const res = await call("PUT", `${V2}/blog-posts/${post.id}`, { token: t.oauth, body: { [field]: UNPARSEABLE[0] } });
      expectError(res, 400, "VALIDATION_ERROR");
      expect(res.text).toContain(field);
    }
    const now = await call("GET", `${V2}/blog-posts/${post.id}`, { token: t.oauth });
    expect(now.json).toMatchObject({ head_html: '<meta name="a" content="b">', footer_html: "<p>ok</p>" });
  });

  it.each(['<script src="https://cdn.example.com/a.js"></script><style>p{}</style>', "<div><p>unclosed", "<!-- c --><select><option>x</option></select>", ""])(
    "accepts HTML the parser reads: %j",
    async (html) => {
      const t = await tenant();
      const post = await createPost(t, { head_html: html, footer_html: html });
      expect(post.head_html).toBe(html);
    },
  );
});

describe("PUBLIC_PAGES_ORIGIN", () => {
  const pagesEnv = { ...env, PUBLIC_PAGES_ORIGIN: "https://pages.example.org" } as Env;
  async function get(url: string, token?: string) {
    const ctx = createExecutionContext();
    const req = new Request(url, { headers: token ? { authorization: `Bearer ${token}` } : {}, redirect: "manual" });
    const res = await worker.fetch(req as Request<unknown, IncomingRequestCfProperties>, pagesEnv, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  }

  it("points urls (v2 and v3) at the pages host, redirects pages there, and serves nothing else there", async () => {
    const t = await tenant();
    const post = await createPost(t);
    await publish(t, post.id);
    const path = new URL(post.url).pathname;

    const api = await get(`https://crm.test${V2}/blog-posts/${post.id}`, t.oauth);
    expect(((await api.json()) as { url: string }).url).toBe(`https://pages.example.org${path}`);
    // The v3 face names the same public URL.
    const v3 = await get(`https://crm.test/cms/v3/blogs/posts/${post.id}`, t.oauth);
    expect(((await v3.json()) as { url: string }).url).toBe(`https://pages.example.org${path}`);

    const onService = await get(`https://crm.test${path}?x=1`);
    expect(onService.status).toBe(308);
    expect(onService.headers.get("location")).toBe(`https://pages.example.org${path}?x=1`);

    const onPages = await get(`https://pages.example.org${path}`);
    expect(onPages.status).toBe(200);
    expect(await onPages.text()).toContain("<article>");

    for (const other of ["/login", "/oauth/authorize?client_id=x", "/app", `${V2}/blog-posts`, "/static/app.css"]) {
      const res = await get(`https://pages.example.org${other}`);
      expect(res.status, other).toBe(404);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    }
    // The service's own host keeps everything else.
    expect((await get("https://crm.test/login")).status).toBe(200);
  });
});
