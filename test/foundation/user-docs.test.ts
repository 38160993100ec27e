/// <reference types="vite/client" />
/**
 * What users read speaks to users (issue 29 "Done when"): README.md, docs/*.md, /openapi.json and the
 * /docs page carry no issue numbers, no references to the design spec's or the reference files'
 * sections, and no paths to files a clone does not have (../shared). Code comments may keep theirs.
 */
import { describe, expect, it } from "vitest";
import { call } from "../helpers/api";

const markdown = {
  ...import.meta.glob<string>("../../README.md", { eager: true, query: "?raw", import: "default" }),
  ...import.meta.glob<string>("../../docs/*.md", { eager: true, query: "?raw", import: "default" }),
};

/** Development references a reader cannot follow, each with what it catches. */
const FORBIDDEN: [RegExp, string][] = [
  [/\bissues? \d+/i, "an issue number"],
  [/\(issue\b/i, "an issue reference"],
  [/(?<![\w&])#\d{1,2}\b/, "an issue number (#N)"],
  [/\b(spec|reference)\s*§/i, "a section of the design spec or the reference"],
  [/\bspec \d+(\.\d+)*\b/i, "a section of the design spec"],
  [/\.\.\/shared\b/, "a path outside the repository"],
];

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
    for (const bad of ["as issue 16 added", "(issue 9 §2)", "see #16", "spec §4.6", "reference §8.1", "(spec 9.4)", "../shared/spec/x.md"]) expect(caught(bad), bad).toBe(true);
    for (const ok of ["Order #1001", "color: #fff", "&#39;", "the spec of OAuth 2.0", "an issue with your token"]) expect(caught(ok), ok).toBe(false);
  });

  it("README.md and docs/*.md", () => {
    const files = Object.keys(markdown);
    expect(files.some((f) => f.endsWith("/README.md"))).toBe(true);
    expect(files.filter((f) => f.includes("/docs/")).length).toBeGreaterThan(5);
    expect(Object.entries(markdown).flatMap(([file, text]) => offences(file.replace(/^(\.\.\/)+/, ""), text))).toEqual([]);
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
