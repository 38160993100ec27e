/**
 * Builds what the bench runs: the production bundle exactly as `wrangler deploy --dry-run` makes it (its
 * printed gzip size is figure 6), and the bench-only Worker (bench/worker/) with esbuild, which wrangler
 * itself uses. The bench Worker imports the app's source, so it is never part of the production bundle.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { build } from "esbuild";

export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
export const BUILD_DIR = path.join(ROOT, "bench/.build");

/**
 * Figure 15's baseline: the production bundle with the test kit's request-path hook replaced by nothing, by
 * wrangler's own `--alias` (the import specifiers, exactly as the importing files write them): the kit's part
 * of the credential statement and its test-account check (src/http/auth.ts), the fault rules and the account
 * clock of the router (src/router.ts), and the search lag of the search and list routes. Everything else is
 * the same source, built the same way.
 */
export const NO_TESTKIT = {
  "../services/testkit/account": "./bench/lib/no-testkit/account.mjs",
  "./services/testkit/faults": "./bench/lib/no-testkit/router.mjs",
  "./services/testkit/clock": "./bench/lib/no-testkit/router.mjs",
  "../../services/testkit/quirks": "./bench/lib/no-testkit/quirks.mjs",
};

/** `name` is the output folder under bench/.build; `alias` maps import specifiers to replacements (NO_TESTKIT). */
export function buildProduction({ name = "prod", alias = {} } = {}) {
  const outdir = path.join(BUILD_DIR, name);
  fs.rmSync(outdir, { recursive: true, force: true });
  const wrangler = path.join(ROOT, "node_modules/.bin/wrangler");
  const aliasArgs = Object.entries(alias).flatMap(([from, to]) => ["--alias", `${from}:${to}`]);
  const res = spawnSync(wrangler, ["deploy", "--dry-run", "--outdir", outdir, ...aliasArgs], { cwd: ROOT, encoding: "utf8", env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" } });
  const out = `${res.stdout}\n${res.stderr}`;
  if (res.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${out}`);
  const m = /Total Upload:\s*([\d.]+)\s*KiB\s*\/\s*gzip:\s*([\d.]+)\s*KiB/.exec(out);
  if (!m) throw new Error(`could not read the bundle size from wrangler's output:\n${out}`);
  return { scriptPath: path.join(outdir, "index.js"), uploadKiB: Number(m[1]), gzipKiB: Number(m[2]) };
}

export async function buildBenchWorker() {
  const outfile = path.join(BUILD_DIR, "bench-worker/index.js");
  await build({
    entryPoints: [path.join(ROOT, "bench/worker/index.ts")],
    outfile,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["browser", "module", "main"],
    external: ["cloudflare:*", "node:*"],
    logLevel: "error",
  });
  return outfile;
}

/**
 * A hello-world Worker that exports the same Durable Object classes, so it starts with exactly the
 * production bindings (D1, queues, Durable Objects): the start-up baseline of figure 6.
 */
export function writeHelloWorker() {
  const file = path.join(BUILD_DIR, "hello/index.js");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    [
      'import { DurableObject } from "cloudflare:workers";',
      "export class SyncOrder extends DurableObject {}",
      "export class RateLimiter extends DurableObject {}",
      "export default { fetch: () => new Response(null, { status: 204 }), queue: () => {}, scheduled: () => {} };",
      "",
    ].join("\n"),
  );
  return file;
}
