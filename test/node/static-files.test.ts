/**
 * public/ is served by Workers static assets (wrangler.toml [assets]) in front of the Worker, here by wrangler
 * itself as `npm run dev` and the platform serve it: every file under public/ (the vendored renderer under
 * public/vendor/, which the build step copies after checkout, included) byte for byte at its path, with
 * public/_headers' rules; every request that is not a file still reaches the Worker and its error envelope.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { workerUrl } from "./helpers";

const PUBLIC = fileURLToPath(new URL("../../public", import.meta.url));
const walk = (dir: string): string[] => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
const get = (path: string, init?: RequestInit) => fetch(`${workerUrl()}${path}`, init);

describe("static assets of public/", () => {
  it("every file under public/ but _headers, byte for byte, at its path", async () => {
    const files = walk(PUBLIC).filter((f) => !f.endsWith(`${sep}_headers`));
    expect(files.some((f) => f.includes(`${sep}vendor${sep}`))).toBe(true);
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) {
      const path = `/${relative(PUBLIC, file).split(sep).join("/")}`;
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(file)), path).toBe(true);
    }
  });

  it.each([
    ["/static/app.css", "text/css"],
    ["/static/record.js", "javascript"],
    ["/vendor/swagger-ui/swagger-ui-bundle.js", "javascript"],
  ])("GET %s has its type and public/_headers' headers", async (path, type) => {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain(type);
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("etag")).toBeTruthy();
  });

  it("revalidates: If-None-Match with the ETag answers 304 with no body, another tag the file", async () => {
    const first = await get("/static/app.css");
    const etag = first.headers.get("etag")!;
    const body = await first.text();
    const again = await get("/static/app.css", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const stale = await get("/static/app.css", { headers: { "if-none-match": '"0000"' } });
    expect(stale.status).toBe(200);
    expect(await stale.text()).toBe(body);
  });

  it("HEAD answers the headers of GET and no body", async () => {
    const res = await get("/static/app.js", { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("javascript");
    expect(await res.text()).toBe("");
  });

  it.each([["/static/nope.js"], ["/_headers"], ["/static/"]])("GET %s is not a file: the Worker answers its 404 envelope", async (path) => {
    const res = await get(path);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ status: "error", category: "OBJECT_NOT_FOUND" });
  });

  it("a POST to a file's path is never a 5xx", async () => {
    const res = await get("/static/app.css", { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });

  it("/docs loads its renderer from the same origin (works offline)", async () => {
    const html = await (await get("/docs")).text();
    const scripts = [...html.matchAll(/<script[^>]+src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      expect(src.startsWith("/")).toBe(true);
      expect((await get(src)).status, src).toBe(200);
    }
  });
});
