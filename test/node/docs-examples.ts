/**
 * @module Runs the examples of README.md and docs/ (every `.md` under it, recursively) for real, so that
 * test/node/docs-examples.test.ts can hold the docs to what the service does. The convention, also in
 * docs/README.md ("Writing docs"):
 *
 * - A fenced block tagged `sh` is an example. It is executed by `bash -euo pipefail` against the demo of
 *   `npm run dev` (seeded by the test as `npm run dev` seeds it), with the variables `npm run dev` prints
 *   set in the environment: BASE, PRIVATE_APP_TOKEN, TOKEN (OAuth), DEVELOPER_KEY, ADMIN_TOKEN, PORTAL_ID,
 *   APP_ID, CLIENT_ID, CLIENT_SECRET, USER_EMAIL, USER_PASSWORD (`demoEnv` in scripts/demo/seed.mjs).
 * - The blocks of one file run in file order in ONE bash session, so a block may keep a value for later
 *   blocks of the same file (`ID=$(curl … | node -pe …)`). Files do not share variables.
 * - Every `curl` of an example must fail on an HTTP error: `curl -fsS …` (`-f`, `--fail` or
 *   `--fail-with-body`), unless it prints the status itself with `-w '%{http_code}'` and checks it. The host
 *   is `$BASE`, never a literal `http://localhost:8787` (the test's Worker listens elsewhere).
 * - A block tagged `sh no-run` or `console` is shown and never run: set-up and deployment (`npm ci`,
 *   `npm run dev`, `npm test`, `wrangler deploy`), commands for a deployed Worker, output.
 * - A block tagged `json request METHOD PATH [oauth|private-app|developer-key|admin]` is the JSON body of
 *   that request; it runs in the file's session as a `curl -fsS` to `$BASE` + PATH with the credential
 *   named (default `oauth`, i.e. $TOKEN). `{appId}` and `{portalId}` in PATH are the demo's.
 * - Every other block (plain `json`, `ts`, `sql`, untagged) is illustration and is not run.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type Credential = "oauth" | "private-app" | "developer-key" | "admin";

/** One runnable block: where it is and the shell text it runs as. */
export interface Block {
  file: string;
  /** Line of the opening fence (1-based). */
  line: number;
  kind: "sh" | "json request";
  /** The shell commands (a `json request` block already turned into its curl). */
  script: string;
}

const CREDENTIAL_VAR: Record<Credential, string> = { oauth: "TOKEN", "private-app": "PRIVATE_APP_TOKEN", "developer-key": "DEVELOPER_KEY", admin: "ADMIN_TOKEN" };

/** The curl of a `json request METHOD PATH [credential]` block, its body on stdin. */
function jsonRequestScript(method: string, path: string, credential: Credential, body: string): string {
  const url = path.replace(/\{appId\}/g, "${APP_ID}").replace(/\{portalId\}/g, "${PORTAL_ID}");
  return [
    `curl -fsS -X ${method} "$BASE${url}" -H "Authorization: Bearer $${CREDENTIAL_VAR[credential]}" -H 'Content-Type: application/json' --data-binary @- <<'DOCS_JSON_BODY'`,
    body,
    "DOCS_JSON_BODY",
    "echo",
  ].join("\n");
}

/** The runnable blocks of one markdown text, in order. Throws on a malformed `json request` tag or an unclosed fence. */
export function blocksOf(markdown: string, file: string): Block[] {
  const out: Block[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const info = open[2]!.trim().split(/\s+/).filter(Boolean);
    const start = i;
    let end = i + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end]!)) end++;
    if (end >= lines.length) throw new Error(`${file}:${start + 1}: the fence is never closed`);
    const content = lines.slice(start + 1, end).map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)));
    i = end;
    if (info[0] === "sh" && info.length === 1) out.push({ file, line: start + 1, kind: "sh", script: content.join("\n") });
    else if (info[0] === "sh" && info[1] !== "no-run") throw new Error(`${file}:${start + 1}: a sh block is "sh" (runs) or "sh no-run", not "${info.join(" ")}"`);
    else if (info[0] === "json" && info[1] === "request") {
      const [, , method, path, credential = "oauth"] = info;
      if (!method || !path || !(credential in CREDENTIAL_VAR)) throw new Error(`${file}:${start + 1}: expected "json request METHOD PATH [credential]"`);
      out.push({ file, line: start + 1, kind: "json request", script: jsonRequestScript(method, path, credential as Credential, content.join("\n")) });
    }
  }
  return out;
}

/** What is wrong with a block before it runs: a curl that would not fail on an HTTP error, a literal host. */
export function problemsOf(block: Block): string[] {
  const found: string[] = [];
  // A command goes on over lines that end with a backslash.
  const commands = block.script.replace(/\\\n/g, " ").split("\n");
  for (const c of commands) {
    if (/(^|[\s|;&(])curl\s/.test(c) && !/\s(-[a-zA-Z]*f[a-zA-Z]*|--fail|--fail-with-body)(\s|$)/.test(c) && !/%\{http_code\}/.test(c)) {
      found.push(`${block.file}:${block.line}: curl without -f (an HTTP error would pass): ${c.trim().slice(0, 120)}`);
    }
  }
  if (/localhost:8787/.test(block.script)) found.push(`${block.file}:${block.line}: write $BASE, not http://localhost:8787`);
  return found;
}

/**
 * One bash script for the blocks of one file: each block is preceded by a marker, and the ERR trap names
 * the file and markdown line of the command that failed.
 */
export function scriptOf(blocks: Block[]): string {
  const parts = ['trap \'echo "docs example failed: ${DOCS_FILE}:$((DOCS_LINE + LINENO - DOCS_BASE)) (exit $?)" >&2\' ERR'];
  let lineNo = 2; // the trap is line 1
  for (const b of blocks) {
    // The block's first line comes two lines after its marker line.
    const marker = `DOCS_FILE='${b.file}'; DOCS_LINE=${b.line}; DOCS_BASE=${lineNo + 1}; echo "== ${b.file}:${b.line}" >&2`;
    parts.push(marker, b.kind === "json request" ? ": json request" : ": sh", b.script);
    lineNo += 2 + b.script.split("\n").length;
  }
  return `${parts.join("\n")}\n`;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `script` with `bash -euo pipefail` in a scratch directory (examples may write files), with `env` added
 * to the environment. curl gets a 30 s limit per transfer so a hanging example fails instead of waiting.
 */
export function runBash(script: string, env: Record<string, string>, timeoutMs = 120_000): Promise<RunResult> {
  const dir = mkdtempSync(join(tmpdir(), "docs-examples-"));
  writeFileSync(join(dir, ".curlrc"), "max-time = 30\n");
  writeFileSync(join(dir, "examples.sh"), script);
  return new Promise((resolve, reject) => {
    // Its own process group: whatever an example started in the background (a server) ends with it.
    const child = spawn("bash", ["-euo", "pipefail", join(dir, "examples.sh")], { cwd: dir, env: { ...process.env, ...env, CURL_HOME: dir }, detached: true });
    const group = (signal: NodeJS.Signals) => {
      try {
        process.kill(-(child.pid ?? 0), signal);
      } catch {
        // the group is gone already
      }
    };
    const timer = setTimeout(() => group("SIGKILL"), timeoutMs);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      group("SIGKILL");
      resolve({ code, stdout, stderr });
    });
  });
}

/** README.md, then every `.md` under docs/ (recursively, sorted by path): the order the examples run in. */
export function docFiles(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir))
      .sort()
      .flatMap((name) => {
        const rel = `${dir}/${name}`;
        if (statSync(join(root, rel)).isDirectory()) return walk(rel);
        return name.endsWith(".md") ? [rel] : [];
      });
  return ["README.md", ...walk("docs")];
}

/** The runnable blocks of every doc file, by file, in running order (files without examples left out). */
export function repositoryBlocks(root: string): [string, Block[]][] {
  return docFiles(root)
    .map((f): [string, Block[]] => [f, blocksOf(readFileSync(join(root, f), "utf8"), f)])
    .filter(([, blocks]) => blocks.length > 0);
}
