/**
 * The Worker serves public/ itself (issue 17 §6: no `[assets]`, so wrangler dev's cron trigger works):
 * the right Content-Type, public/_headers' headers, revalidation by ETag, HEAD without a body; every
 * other request still reaches the router and its error envelope.
 */
import { describe, expect, it } from "vitest";
import { serveStatic, type StaticFile } from "../../src/lib/static-files";
import { call, expectError } from "../helpers/api";

describe("static files of public/", () => {
  it.each([
    ["/static/app.css", "text/css; charset=utf-8", "{"],
    ["/static/record.js", "text/javascript; charset=utf-8", "import"],
  ])("GET %s answers the file with its type and public/_headers' headers", async (path, type, text) => {
    const res = await call("GET", path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(type);
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("etag")).toMatch(/^"[0-9a-f]{32}"$/);
    expect(res.text).toContain(text);
  });

  it("revalidates: If-None-Match with the ETag answers 304 with no body, another tag the file", async () => {
    const first = await call("GET", "/static/app.css");
    const etag = first.headers.get("etag")!;
    const again = await call("GET", "/static/app.css", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
    expect(again.headers.get("cache-control")).toBe("no-cache");
    const stale = await call("GET", "/static/app.css", { headers: { "if-none-match": '"0000"' } });
    expect(stale.status).toBe(200);
    expect(stale.text).toBe(first.text);
  });

  it("HEAD answers the headers of GET and no body", async () => {
    const res = await call("HEAD", "/static/app.js");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(res.text).toBe("");
  });

  it.each([
    ["GET", "/static/no-such-file.js", 404, "OBJECT_NOT_FOUND"],
    ["GET", "/_headers", 404, "OBJECT_NOT_FOUND"], // serving configuration, never served (as with static assets)
    ["GET", "/static/", 404, "OBJECT_NOT_FOUND"],
    ["GET", "/static/app.css/", 404, "OBJECT_NOT_FOUND"],
  ])("%s %s is not a file: the router answers %i %s", async (method, path, status, category) => {
    expectError(await call(method, path), status, category);
  });

  it("a method other than GET/HEAD on a file's path goes to the router", async () => {
    const res = await call("POST", "/static/app.css", { body: {} });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.json).toMatchObject({ status: "error" });
  });

  it("decodes a binary file once and serves its exact bytes", async () => {
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x10]);
    const files: Record<string, StaticFile> = {
      "/img/dot.png": { type: "image/png", etag: '"abc"', headers: [["Cache-Control", "max-age=60"]], base64: btoa(String.fromCharCode(...bytes)) },
    };
    for (let i = 0; i < 2; i++) {
      const res = serveStatic(new Request("https://crm.test/img/dot.png"), files)!;
      expect(res.headers.get("content-type")).toBe("image/png");
      expect(res.headers.get("cache-control")).toBe("max-age=60");
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
    }
    expect(serveStatic(new Request("https://crm.test/img/other.png"), files)).toBeNull();
    expect(serveStatic(new Request("https://crm.test/toString"), files)).toBeNull();
  });
});
