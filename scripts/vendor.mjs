#!/usr/bin/env node
// Copies the API reference renderer (swagger-ui-dist, Apache-2.0, installed from npm with an exact version)
// into public/vendor/swagger-ui/ so GET /docs loads nothing from a CDN. The output is gitignored and
// rebuilt by wrangler.toml's [build] command before `wrangler dev` and `wrangler deploy`, and by
// vitest.config.ts before the tests. Only the files the page loads are copied, with the licence and notice
// that must travel with them.
import { Buffer } from "node:buffer";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const from = dirname(require.resolve("swagger-ui-dist/package.json"));
const to = join(dirname(fileURLToPath(import.meta.url)), "..", "public", "vendor", "swagger-ui");
mkdirSync(to, { recursive: true });
// Written only when the content changed: wrangler dev watches public/ and would rebuild forever otherwise.
const writeIfChanged = (path, data) => {
  if (existsSync(path) && readFileSync(path).equals(Buffer.from(data))) return;
  writeFileSync(path, data);
};
for (const file of ["swagger-ui-bundle.js", "swagger-ui.css", "LICENSE", "NOTICE"]) {
  const raw = readFileSync(join(from, file));
  // The source map is not shipped: drop its reference so devtools do not ask for a missing file.
  const text = /\.(js|css)$/.test(file) ? raw.toString("utf8").replace(/\n\/[/*]# sourceMappingURL=\S+(?: \*\/)?\s*$/, "\n") : raw;
  writeIfChanged(join(to, file), text);
}
const { version } = JSON.parse(readFileSync(join(from, "package.json"), "utf8"));
if (!process.argv.includes("--quiet")) console.log(`vendor: swagger-ui-dist ${version} -> ${to}`);
