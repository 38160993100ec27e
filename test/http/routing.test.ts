/**
 * The router matches a request only against the routes of its path's first segment; what it answers must be
 * what one table in order answers: the first matching route, and otherwise a 405 naming every method the
 * path has, or a 404.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { route } from "../../src/http/route";
import { buildRouter } from "../../src/router";

const def = (method: "GET" | "POST", path: string, answer: string) =>
  route({ method, path, summary: "test", tag: "test", auth: { kinds: [] }, responses: {}, handler: () => new Response(answer) });

const table = [
  def("GET", "/a/fixed", "a-fixed"),
  def("GET", "/a/:id", "a-id"),
  def("POST", "/b/:id", "b-post"),
  def("GET", "/b/*", "b-any"),
  def("GET", "/c", "c-root"),
];

async function ask(method: string, url: string) {
  const res = await buildRouter(table).fetch(new Request(url, { method }), env, createExecutionContext());
  return { status: res.status, text: await res.text(), allow: res.headers.get("allow") };
}

describe("routing by first segment", () => {
  it.each([
    ["GET", "https://crm.test/a/fixed", 200, "a-fixed"],
    ["GET", "https://crm.test/a/7?x=/b/1", 200, "a-id"],
    ["GET", "https://crm.test/b/x/y", 200, "b-any"],
    ["POST", "https://crm.test/b/1", 200, "b-post"],
    ["GET", "https://crm.test/c", 200, "c-root"],
    ["GET", "https://crm.test/c?q=1", 200, "c-root"],
    ["GET", "https://crm.test/c#frag", 200, "c-root"],
    ["HEAD", "https://crm.test/a/fixed", 200, ""],
  ])("%s %s → %i %s", async (method, url, status, text) => {
    expect(await ask(method, url)).toMatchObject({ status, text });
  });

  it("answers 405 with every method of the path, and 404 for a path of no route, whatever its first segment", async () => {
    const wrong = await ask("DELETE", "https://crm.test/b/1");
    expect(wrong.status).toBe(405);
    expect(wrong.allow).toBe("GET, HEAD, POST, OPTIONS");
    for (const url of ["https://crm.test/", "https://crm.test", "https://crm.test/zzz/a", "https://crm.test/a", "https://crm.test/cc", "https://crm.test//a/fixed"]) {
      const res = await ask("GET", url);
      expect(res.status, url).toBe(404);
      expect(JSON.parse(res.text)).toMatchObject({ category: "OBJECT_NOT_FOUND" });
    }
  });

  it("refuses a route whose first segment is a parameter: it could not be put in one segment's group", () => {
    expect(() => buildRouter([def("GET", "/:anything/x", "no")])).toThrow("its first path segment must be literal");
  });
});
