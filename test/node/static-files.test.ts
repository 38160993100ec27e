/**
 * scripts/build-static.mjs and the running Worker serve every file under public/ (issue 17 §6): files a build
 * step writes there after checkout (a vendored renderer under public/vendor/, gitignored) included, binary
 * ones byte for byte, with public/_headers' rules applied as static assets apply them.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { buildStatic } from "../../scripts/build-static.mjs";
import { serveStatic, type StaticFile } from "../../src/lib/static-files";
import { workerUrl } from "./helpers";

const PUBLIC = fileURLToPath(new URL("../../public", import.meta.url));
const walk = (dir: string): string[] => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));

const tmp = mkdtempSync(join(tmpdir(), "crm-edge-static-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("scripts/build-static.mjs", () => {
  it("bundles every file of a public/ folder, nested and binary ones too, with _headers' rules", async () => {
    const pub = join(tmp, "public");
    mkdirSync(join(pub, "vendor", "renderer"), { recursive: true });
    mkdirSync(join(pub, ".hidden"), { recursive: true });
    writeFileSync(join(pub, "vendor", "renderer", "bundle.min.js"), "export const x = '\u2028é';\n");
    writeFileSync(join(pub, "vendor", "renderer", "font.woff2"), Buffer.from([0, 1, 2, 254, 255]));
    writeFileSync(join(pub, "vendor", "renderer", "style.css"), "a{}");
    writeFileSync(join(pub, "robots.txt"), "User-agent: *\n");
    writeFileSync(join(pub, ".hidden", "secret.txt"), "no");
    writeFileSync(
      join(pub, "_headers"),
      ["# comment", "/vendor/*", "  Cache-Control: public, max-age=3600", "  X-Content-Type-Options: nosniff", "/vendor/:dir/style.css", "  ! Cache-Control", "  Cache-Control: no-cache", ""].join("\n"),
    );
    const out = join(tmp, "generated.ts");
    const paths = buildStatic({ publicDir: pub, outFile: out, libImport: pathToFileURL(fileURLToPath(new URL("../../src/lib/static-files.ts", import.meta.url))).href });
    expect(paths).toEqual(["/robots.txt", "/vendor/renderer/bundle.min.js", "/vendor/renderer/font.woff2", "/vendor/renderer/style.css"]);
    const { STATIC_FILES } = (await import(pathToFileURL(out).href)) as { STATIC_FILES: Record<string, StaticFile> };
    const get = async (path: string) => serveStatic(new Request(`https://crm.test${path}`), STATIC_FILES);

    const js = (await get("/vendor/renderer/bundle.min.js"))!;
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(js.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(js.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await js.text()).toBe("export const x = '\u2028é';\n");

    const font = (await get("/vendor/renderer/font.woff2"))!;
    expect(font.headers.get("content-type")).toBe("font/woff2");
    expect([...new Uint8Array(await font.arrayBuffer())]).toEqual([0, 1, 2, 254, 255]);

    const css = (await get("/vendor/renderer/style.css"))!;
    expect(css.headers.get("cache-control")).toBe("no-cache"); // `! Cache-Control` dropped the earlier rule's value
    expect((await get("/robots.txt"))!.headers.get("cache-control")).toBeNull();
    expect(await get("/_headers")).toBeNull();
    expect(await get("/.hidden/secret.txt")).toBeNull();
  });

  it("leaves the module untouched when nothing changed (wrangler dev's watcher does not loop)", () => {
    const pub = join(tmp, "same");
    mkdirSync(pub);
    writeFileSync(join(pub, "a.css"), "a{}");
    const out = join(tmp, "same.ts");
    buildStatic({ publicDir: pub, outFile: out });
    const first = statSync(out).mtimeMs;
    buildStatic({ publicDir: pub, outFile: out });
    expect(statSync(out).mtimeMs).toBe(first);
  });
});

describe("the Worker started by wrangler serves public/", () => {
  it("every file under public/ but _headers, byte for byte, at its path", async () => {
    const files = walk(PUBLIC).filter((f) => !f.endsWith(`${sep}_headers`));
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) {
      const path = `/${relative(PUBLIC, file).split(sep).join("/")}`;
      const res = await fetch(`${workerUrl()}${path}`);
      expect(res.status, path).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(file)), path).toBe(true);
    }
  });

  it("an unknown path under /static/ is the router's 404 envelope", async () => {
    const res = await fetch(`${workerUrl()}/static/nope.js`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ status: "error", category: "OBJECT_NOT_FOUND" });
  });
});
