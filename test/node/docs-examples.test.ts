/**
 * The examples of README.md and docs/ work against the demo of `npm run dev`: every `sh` block (and every
 * `json request` block) is run by `bash -euo pipefail`, file by file in one shell session each, in the order
 * of the files and of their blocks (test/node/docs-examples.ts says which blocks run and how), against a
 * demo account seeded as `npm run dev` seeds it (scripts/demo/seed.mjs, its integrator answering the card),
 * with the variables `npm run dev` prints. A command that fails (an HTTP error, with `curl -f`) fails here,
 * naming the file and line. So an example that clashes with the demo's data fails here as it would for a
 * reader. The tutorials then run a second time: a reader may run them twice.
 */
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoIntegrator } from "../../scripts/demo/integrator.mjs";
import { demoEnv, seedDemo, type Demo } from "../../scripts/demo/seed.mjs";
import { blocksOf, docFiles, problemsOf, repositoryBlocks, runBash, scriptOf, type Block } from "./docs-examples";
import { START_TIMEOUT_MS, startWranglerDev, type WranglerDev } from "./wrangler-dev";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FILES = repositoryBlocks(ROOT);

let demo: Demo;
let secret: string | undefined;
let integrator: { url: string; close: () => Promise<void> } | undefined;
let env: Record<string, string>;
let dev: WranglerDev | undefined;
beforeAll(async () => {
  // A Worker of their own, started by `wrangler dev` as `npm run dev` starts it: the examples run the crons,
  // which would move other test files' demo deals on the shared Worker.
  dev = await startWranglerDev();
  integrator = await startDemoIntegrator({ secret: () => secret });
  // The examples make a few hundred calls in a minute with the demo's tokens: above the default 110 per 10 s.
  demo = await seedDemo({
    baseUrl: dev.url,
    adminToken: dev.adminToken,
    integratorUrl: integrator.url,
    userEmail: `docs-${randomUUID().slice(0, 8)}@example.com`,
    rateLimit: 100_000,
  });
  secret = demo.clientSecret;
  env = demoEnv(dev.url, demo, dev.adminToken);
}, START_TIMEOUT_MS);
afterAll(async () => {
  await integrator?.close();
  await dev?.stop();
});

async function run(blocks: Block[]) {
  const r = await runBash(scriptOf(blocks), env);
  return { ...r, report: `exit ${r.code}\n--- stderr\n${r.stderr.slice(-4000)}\n--- stdout\n${r.stdout.slice(-2000)}` };
}

describe("the examples of README.md and docs/, run by bash in order against the demo", () => {
  it("finds them in the README and in every tutorial, each well formed", () => {
    const files = FILES.map(([f]) => f);
    expect(files).toContain("README.md");
    const tutorials = docFiles(ROOT).filter((f) => f.startsWith("docs/tutorials/"));
    expect(tutorials.length).toBeGreaterThanOrEqual(9);
    for (const t of tutorials) expect(files, `${t} has no example that runs`).toContain(t);
    expect(FILES.flatMap(([, blocks]) => blocks.flatMap(problemsOf))).toEqual([]);
  });

  it.each(FILES.map(([file, blocks]) => [file, blocks] as const))("%s: every example runs", async (_file, blocks) => {
    const r = await run(blocks);
    expect(r.code, r.report).toBe(0);
  }, 180_000);

  it.each(FILES.filter(([f]) => f.startsWith("docs/tutorials/")).map(([file, blocks]) => [file, blocks] as const))(
    "%s: runs a second time",
    async (_file, blocks) => {
      const r = await run(blocks);
      expect(r.code, r.report).toBe(0);
    },
    180_000,
  );
});

describe("the examples runner", () => {
  const md = (...lines: string[]) => lines.join("\n");

  it("runs sh and json request blocks; shows sh no-run, console, json and untagged blocks only", () => {
    const text = md(
      "```sh", 'echo "$BASE"', "```",
      "```sh no-run", "npm ci && npm run dev", "```",
      "```console", "npx wrangler deploy", "```",
      "```json", "{}", "```",
      "```", "plain", "```",
      "```json request PUT /webhooks/v3/{appId}/settings developer-key", '{"a":1}', "```",
      "- in a list:", "  ```sh", "  echo indented", "  ```",
    );
    const blocks = blocksOf(text, "m.md");
    expect(blocks.map((b) => [b.line, b.kind])).toEqual([[1, "sh"], [16, "json request"], [20, "sh"]]);
    expect(blocks[1]!.script).toContain(`curl -fsS -X PUT "$BASE/webhooks/v3/\${APP_ID}/settings" -H "Authorization: Bearer $DEVELOPER_KEY"`);
    expect(blocks[2]!.script).toBe("echo indented");
    expect(() => blocksOf("```json request PUT\n{}\n```", "m.md")).toThrow("json request METHOD PATH");
    expect(() => blocksOf("```sh maybe\nls\n```", "m.md")).toThrow('"sh no-run"');
    expect(() => blocksOf("```sh\nls\n", "m.md")).toThrow("never closed");
  });

  it("refuses a curl that would pass an HTTP error, and a literal local host", () => {
    const [bad] = blocksOf(md("```sh", 'curl -s "$BASE/x" \\', '  -H "A: b"', 'curl -fsS "$BASE/y"', 'curl -s -o /dev/null -w "%{http_code}" "$BASE/z"', "curl -s http://localhost:8787/a -f", "```"), "m.md");
    expect(problemsOf(bad!)).toEqual([
      'm.md:1: curl without -f (an HTTP error would pass): curl -s "$BASE/x"    -H "A: b"',
      "m.md:1: write $BASE, not http://localhost:8787",
    ]);
  });

  it("keeps variables from one block of a file to the next", async () => {
    const blocks = blocksOf(md("```sh", `N=$(curl -fsS "$BASE/crm/v3/objects/contacts?limit=1" -H "Authorization: Bearer $PRIVATE_APP_TOKEN" | node -pe 'JSON.parse(require("fs").readFileSync(0)).results.length')`, "```", "text", "```sh", 'test "$N" = 1', "```"), "m.md");
    expect((await run(blocks)).code).toBe(0);
  });

  it("a failing example fails, naming its file and line: a contact the demo already has", async () => {
    const blocks = blocksOf(
      md("# Clash", "", "```sh", "true", `curl -fsS -X POST "$BASE/crm/v3/objects/contacts" -H "Authorization: Bearer $PRIVATE_APP_TOKEN" -H 'Content-Type: application/json' -d '{"properties":{"email":"grace@example.com"}}'`, "echo never", "```"),
      "clash.md",
    );
    const r = await run(blocks);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("409");
    expect(r.stderr).toContain("docs example failed: clash.md:5");
    expect(r.stdout).not.toContain("never");
  });

  it("a failing json request block fails: settings enabling sync without the required mappings", async () => {
    const blocks = blocksOf(
      md(
        "```json request PUT /extensions/ecomm/v2/settings",
        '{ "enabled": true, "webhookUri": "https://shop.example.com/import", "mappings": { "CONTACT": { "properties": [',
        '  { "externalPropertyName": "customer_email", "servicePropertyName": "email", "dataType": "STRING" } ] } } }',
        "```",
      ),
      "old.md",
    );
    const r = await run(blocks);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("400");
  });
});
