/** The content routes appear in the generated OpenAPI document (their zod schemas must convert). */
import { expect, it } from "vitest";
import { call } from "../helpers/api";

it("documents the blog and SMTP token endpoints, not the public pages", async () => {
  const res = await call("GET", "/openapi.json");
  expect(res.status, res.text).toBe(200);
  const paths = Object.keys(res.json.paths);
  for (const p of [
    "/content/api/v2/blogs",
    "/content/api/v2/blogs/{id}",
    "/content/api/v2/blog-authors",
    "/content/api/v2/topics/{id}",
    "/content/api/v2/blog-posts",
    "/content/api/v2/blog-posts/{id}",
    "/content/api/v2/blog-posts/{id}/publish-action",
    "/email/public/v1/smtpapi/tokens",
    "/email/public/v1/smtpapi/tokens/{userName}/password-reset",
    "/email/public/v1/smtpapi/tokens/{userName}",
  ]) {
    expect(paths).toContain(p);
  }
  expect(paths.some((p) => p.startsWith("/_blog"))).toBe(false);
});
