/// <reference types="vite/client" />
/**
 * What users read speaks to users: README.md, every docs/**.md, /openapi.json and the /docs page carry
 * no issue numbers, no section numbers of design documents outside the repository, no development
 * history, and no paths to files outside the repository (code comments are not checked here). The
 * links between the docs lead somewhere: every relative link names a file of README.md or docs/, and
 * every #anchor a heading of it.
 */
import { describe, expect, it } from "vitest";
import { call } from "../helpers/api";

const markdown = {
  ...import.meta.glob<string>("../../README.md", { eager: true, query: "?raw", import: "default" }),
  ...import.meta.glob<string>("../../docs/**/*.md", { eager: true, query: "?raw", import: "default" }),
};

/** Development references a reader cannot follow, each with what it catches. */
const FORBIDDEN: [RegExp, string][] = [
  [/\bissues? \d+/i, "an issue number"],
  [/\(issue\b/i, "an issue reference"],
  [/(?<![\w&])#\d{1,2}\b/, "an issue number (#N)"],
  [/\b(spec|reference)\s*§/i, "a section of the design spec or the reference"],
  [/\bspec \d+(\.\d+)*\b/i, "a section of the design spec"],
  [/\.\.\/shared\b/, "a path outside the repository"],
  [/(?<!RFC \d{3,5} )§\s?\d/, "a section sign that names no RFC (a section of the design spec)"],
  [/\b(?:earlier|previous|fourth|fifth|sixth|seventh|eighth|ninth|tenth) sessions?\b|\bround \d+\b|\bpreviously\b/i, "development history"],
  [/\(was \d{3}\)|\baudit fix\b|\badded for this issue\b/i, "development history"],
];


/** `docs/a/../b.md` → `docs/b.md`. */
function normalize(path: string): string {
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "..") out.pop();
    else if (part !== "." && part !== "") out.push(part);
  }
  return out.join("/");
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");

const FILES = new Map(Object.entries(markdown).map(([file, text]) => [file.replace(/^(\.\.\/)+/, ""), text]));

function anchorsOf(text: string): Set<string> {
  const found = new Set<string>();
  let fenced = false;
  for (const line of text.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const h = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (h) found.add(slug(h[1]!));
  }
  return found;
}

/** Every relative markdown link of `file` that leads nowhere, as `file: target (why)`. */
function brokenLinks(file: string, text: string): string[] {
  const broken: string[] = [];
  const dir = file.includes("/") ? file.slice(0, file.lastIndexOf("/")) : "";
  const prose = text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  for (const m of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1]!;
    if (/^[a-z]+:/i.test(target)) continue;
    const [path, anchor] = target.split("#") as [string, string | undefined];
    const resolved = path === "" ? file : normalize(`${dir}/${path}`);
    if (!resolved.endsWith(".md")) continue;
    const linked = FILES.get(resolved);
    if (linked === undefined) {
      broken.push(`${file}: ${target} (no such file)`);
      continue;
    }
    if (anchor && !anchorsOf(linked).has(anchor)) broken.push(`${file}: ${target} (no heading #${anchor})`);
  }
  return broken;
}

/** Every offending line of `text` as `where:line: text (what)`. */
function offences(where: string, text: string): string[] {
  const found: string[] = [];
  text.split("\n").forEach((line, i) => {
    for (const [re, what] of FORBIDDEN) if (re.test(line)) found.push(`${where}:${i + 1}: ${line.trim().slice(0, 160)} (${what})`);
  });
  return found;
}

describe("texts for users carry no development references", () => {
  it("the patterns catch what they are meant to, and not an order number or a colour", () => {
    const caught = (s: string) => FORBIDDEN.some(([re]) => re.test(s));
    for (const bad of ["as issue 16 added", "(issue 9 §2)", "see #16", "spec §4.6", "reference §8.1", "(spec 9.4)", "../shared/spec/x.md", "### §5.1 Signatures", "in the seventh session's run", "round 3", "previously 404", "works (was 404)"]) {
      expect(caught(bad), bad).toBe(true);
    }
    for (const ok of ["Order #1001", "color: #fff", "&#39;", "the spec of OAuth 2.0", "an issue with your token", "RFC 6749 §5.2", "a second session of the same user", "one round trip"]) {
      expect(caught(ok), ok).toBe(false);
    }
  });

  it("README.md and every .md under docs/, in all four sections and the index", () => {
    const files = [...FILES.keys()];
    expect(files).toContain("README.md");
    expect(files).toContain("docs/README.md");
    for (const section of ["tutorials", "how-to", "reference", "explanation"]) expect(files.some((f) => f.startsWith(`docs/${section}/`)), section).toBe(true);
    expect([...FILES].flatMap(([file, text]) => offences(file, text))).toEqual([]);
  });

  it("every relative link leads to a doc and an anchor to its heading", () => {
    expect([...FILES].flatMap(([file, text]) => brokenLinks(file, text))).toEqual([]);
    // The check itself: a missing file and a missing heading are found, a good link is not.
    expect(brokenLinks("docs/README.md", "[a](reference/nope.md) [b](reference/crm.md#nope) [c](reference/crm.md#search) [d](how-to/operator-runbooks.md)")).toEqual([
      "docs/README.md: reference/nope.md (no such file)",
      "docs/README.md: reference/crm.md#nope (no heading #nope)",
    ]);
  });

  it("docs/README.md lists every doc", () => {
    const index = FILES.get("docs/README.md")!;
    const missing = [...FILES.keys()].filter((f) => f.startsWith("docs/") && f !== "docs/README.md" && !index.includes(`](${f.slice("docs/".length)})`));
    expect(missing).toEqual([]);
  });

  it("/openapi.json", async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    expect(offences("/openapi.json", JSON.stringify(res.json, null, 1))).toEqual([]);
  });

  it("the /docs page", async () => {
    const res = await call("GET", "/docs");
    expect(res.status).toBe(200);
    expect(offences("/docs", res.text)).toEqual([]);
  });
});
