#!/usr/bin/env node
/**
 * @module Bundles the static files of public/ into the Worker (issue 17 §6).
 *
 * Why not Workers static assets: with `[assets]` in wrangler.toml, this wrangler's local scheduled route
 * (`/cdn-cgi/handler/scheduled`) answers 500, so the documented way to run the crons locally did not work.
 * The Worker serves public/ itself instead (src/lib/static-files.ts) from the module this script writes:
 * src/generated/static-files.ts (gitignored), one entry per file under public/ (files a build step writes
 * there after checkout included), each with its Content-Type, a strong ETag and the headers public/_headers
 * gives its path (the same file and syntax Workers static assets read).
 *
 * Run by wrangler's `[build] command` (wrangler dev, npm run dev, wrangler deploy, unstable_startWorker),
 * by vitest.config.ts (every vitest run) and by `npm run typecheck`. Writes only when the content changed,
 * so wrangler's watcher does not loop.
 */
// The API reference renderer is copied into public/vendor/ first, so it is bundled with the rest (issue 19 §2).
import "./vendor.mjs";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const PUBLIC = join(ROOT, "public");
const OUT = join(ROOT, "src", "generated", "static-files.ts");

/** Content types by extension; text types get `charset=utf-8` and are embedded as text, the rest as base64. */
const TYPES = {
  css: ["text/css", true],
  js: ["text/javascript", true],
  mjs: ["text/javascript", true],
  map: ["application/json", true],
  json: ["application/json", true],
  html: ["text/html", true],
  txt: ["text/plain", true],
  md: ["text/markdown", true],
  svg: ["image/svg+xml", true],
  xml: ["application/xml", true],
  png: ["image/png", false],
  jpg: ["image/jpeg", false],
  jpeg: ["image/jpeg", false],
  gif: ["image/gif", false],
  webp: ["image/webp", false],
  ico: ["image/x-icon", false],
  woff: ["font/woff", false],
  woff2: ["font/woff2", false],
  ttf: ["font/ttf", false],
  wasm: ["application/wasm", false],
};

/** Files under public/ that configure serving and are never served themselves (as with static assets). */
const CONFIG_FILES = new Set(["_headers", "_redirects", ".assetsignore"]);

function walk(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = join(dir, name);
      return statSync(full).isDirectory() ? walk(full) : [full];
    });
}

/**
 * public/_headers rules in the static-assets syntax: a URL pattern on its own line (`*` matches any
 * characters, `:name` one path segment), then indented `Name: value` lines, or `! Name` to drop a header
 * an earlier rule set.
 */
function parseHeaders(text) {
  const rules = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    if (!/^\s/.test(raw)) {
      const pattern = line.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/:[A-Za-z]\w*/g, "[^/]+");
      rules.push({ match: new RegExp(`^${pattern}$`), set: [], unset: [] });
      continue;
    }
    const rule = rules.at(-1);
    if (!rule) throw new Error(`public/_headers: header line before any URL pattern: ${line}`);
    if (line.startsWith("!")) rule.unset.push(line.slice(1).trim().toLowerCase());
    else {
      const colon = line.indexOf(":");
      if (colon < 1) throw new Error(`public/_headers: not a "Name: value" line: ${line}`);
      rule.set.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
    }
  }
  return rules;
}

function headersFor(path, rules) {
  const headers = new Map();
  for (const rule of rules) {
    if (!rule.match.test(path)) continue;
    for (const name of rule.unset) headers.delete(name);
    for (const [name, value] of rule.set) {
      const prev = headers.get(name.toLowerCase());
      headers.set(name.toLowerCase(), [name, prev ? `${prev[1]}, ${value}` : value]);
    }
  }
  return [...headers.values()];
}

/** Writes the module; `publicDir`/`outFile` are for tests (test/node/static-files.test.ts). Returns the served paths. */
export function buildStatic({ publicDir = PUBLIC, outFile = OUT, libImport = "../lib/static-files" } = {}) {
  const headersFile = join(publicDir, "_headers");
  const rules = existsSync(headersFile) ? parseHeaders(readFileSync(headersFile, "utf8")) : [];
  const entries = [];
  const paths = [];
  for (const file of walk(publicDir)) {
    const rel = relative(publicDir, file).split(sep);
    if (rel.length === 1 && CONFIG_FILES.has(rel[0])) continue;
    if (rel.some((part) => part.startsWith("."))) continue; // dotfiles are never served
    const path = `/${rel.join("/")}`;
    const ext = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
    const [type, text] = TYPES[ext] ?? ["application/octet-stream", false];
    const bytes = readFileSync(file);
    const entry = {
      type: text ? `${type}; charset=utf-8` : type,
      etag: `"${createHash("sha256").update(bytes).digest("hex").slice(0, 32)}"`,
      headers: headersFor(path, rules),
      ...(text ? { text: bytes.toString("utf8") } : { base64: bytes.toString("base64") }),
    };
    entries.push(`  ${JSON.stringify(path)}: ${JSON.stringify(entry)},`);
    paths.push(path);
  }
  const source = `// Generated by scripts/build-static.mjs from public/ (issue 17 §6). Do not edit; not committed.
import type { StaticFile } from "${libImport}";

export const STATIC_FILES: Readonly<Record<string, StaticFile>> = {
${entries.join("\n")}
};
`;
  mkdirSync(dirname(outFile), { recursive: true });
  if (!existsSync(outFile) || readFileSync(outFile, "utf8") !== source) writeFileSync(outFile, source);
  return paths;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) buildStatic();
