/**
 * @module Finds the request examples in README.md and docs/*.md (issue 17 §6, "docs that work") so that
 * test/node/docs-examples.test.ts can send each one to the Worker. Two kinds of fenced block are examples
 * (README, Decisions, "Examples that run"):
 * - a block tagged `sh`: each line starting with `curl ` is a request; other lines (npm, npx) are not;
 * - a block tagged `json request METHOD PATH [credential]`: the block is the JSON body of that request,
 *   sent with the account's OAuth token, or with the credential named (`oauth`, `private-app`,
 *   `developer-key`, `admin`).
 * Every other block (plain `json`, `ts`, untagged) is illustration and is not run.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export type Credential = "oauth" | "private-app" | "developer-key" | "admin";

export interface Example {
  /** file:line, for the test's name. */
  where: string;
  method: string;
  /** The URL as written (host and placeholders not yet replaced). */
  url: string;
  headers: [string, string][];
  body?: string;
  /** For `json request` blocks; curl lines carry their credential in a header. */
  credential?: Credential;
}

const CREDENTIALS = new Set<string>(["oauth", "private-app", "developer-key", "admin"]);

/** Splits a shell line into words: single and double quotes, backslash escapes in double quotes, `#` comments. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in: ${line}`);
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      let text = "";
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === "\\" && j + 1 < line.length) j++;
        text += line[j];
      }
      if (j >= line.length) throw new Error(`unterminated " in: ${line}`);
      word = (word ?? "") + text;
      i = j;
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "#" && word === null) {
      break;
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

/** A curl command line as a request (the options the docs use: -X, -H, -d/--data/--data-raw, -s, -i, -G). */
export function parseCurl(line: string, where: string): Example {
  const words = shellWords(line);
  if (words[0] !== "curl") throw new Error(`${where}: not a curl line`);
  let method: string | undefined;
  let url: string | undefined;
  let body: string | undefined;
  const headers: [string, string][] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (w === "-X" || w === "--request") method = words[++i];
    else if (w === "-H" || w === "--header") {
      const h = words[++i] ?? "";
      const colon = h.indexOf(":");
      if (colon < 1) throw new Error(`${where}: bad header ${h}`);
      headers.push([h.slice(0, colon).trim(), h.slice(colon + 1).trim()]);
    } else if (w === "-d" || w === "--data" || w === "--data-raw") body = words[++i];
    else if (w === "-o" || w === "--output") i++; // where curl saves the answer: the test reads it instead
    else if (/^-[a-zA-Z]+$/.test(w) && /^-[sSiLfv]+$/.test(w)) continue; // output-only flags
    else if (w.startsWith("-")) throw new Error(`${where}: curl option ${w} is not supported by the examples test`);
    else if (url === undefined) url = w;
    else throw new Error(`${where}: two URLs`);
  }
  if (!url) throw new Error(`${where}: no URL`);
  // curl sends -d bodies as POST with a form content type unless told otherwise; the examples say JSON.
  if (body !== undefined && !headers.some(([k]) => k.toLowerCase() === "content-type")) headers.push(["Content-Type", "application/json"]);
  return { where, method: method ?? (body === undefined ? "GET" : "POST"), url, headers, body };
}

/** Every example of one markdown text. */
export function examplesOf(markdown: string, file: string): Example[] {
  const out: Example[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const info = open[1]!.trim().split(/\s+/);
    const start = i;
    let end = i + 1;
    while (end < lines.length && !lines[end]!.startsWith("```")) end++;
    const content = lines.slice(start + 1, end);
    i = end;
    if (info[0] === "sh") {
      // A command goes on over lines that end with a backslash.
      for (let k = 0; k < content.length; k++) {
        let line = content[k]!.trim();
        const first = k;
        while (line.endsWith("\\") && k + 1 < content.length) line = `${line.slice(0, -1)} ${content[++k]!.trim()}`;
        if (line.startsWith("curl ")) out.push(parseCurl(line, `${file}:${start + 2 + first}`));
      }
    } else if (info[0] === "json" && info[1] === "request") {
      const [, , method, url, credential = "oauth"] = info;
      if (!method || !url || !CREDENTIALS.has(credential)) throw new Error(`${file}:${start + 1}: expected "json request METHOD PATH [credential]"`);
      out.push({ where: `${file}:${start + 1}`, method, url, headers: [["Content-Type", "application/json"]], body: content.join("\n"), credential: credential as Credential });
    }
  }
  return out;
}

/** The examples of README.md and every docs/*.md of the repository at `root`. */
export function repositoryExamples(root: string): Example[] {
  const files = ["README.md", ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).sort().map((f) => `docs/${f}`)];
  return files.flatMap((f) => examplesOf(readFileSync(join(root, f), "utf8"), f));
}
