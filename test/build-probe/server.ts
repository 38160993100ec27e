/**
 * The build probe (Node, started by test/global-setup.ts): GET /bundle runs `wrangler deploy --dry-run`
 * into a temporary directory, once per test run and only when a test asks, and answers the files it
 * wrote. Tests run in workerd without a file system or processes; this is how they inspect the real
 * production bundle (test/reliability/bundle.test.ts).
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import type { BuiltBundle } from "./types";

const run = promisify(execFile);

async function build(): Promise<BuiltBundle> {
  const out = await mkdtemp(join(tmpdir(), "crm-edge-bundle-"));
  try {
    const wrangler = resolve(process.cwd(), "node_modules/.bin/wrangler");
    const args = ["deploy", "--dry-run", "--outdir", out];
    await run(wrangler, args, { cwd: process.cwd(), env: { ...process.env, WRANGLER_SEND_METRICS: "false" }, maxBuffer: 16 * 1024 * 1024 });
    const names = (await readdir(out)).filter((n) => n.endsWith(".js") || n.endsWith(".mjs"));
    const files = await Promise.all(names.map(async (name) => ({ name, text: await readFile(join(out, name), "utf8") })));
    return { command: `wrangler ${args.slice(0, 2).join(" ")} --outdir <tmp>`, files };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

export function startBuildProbe(): Promise<{ server: Server; url: string }> {
  let built: Promise<BuiltBundle> | undefined;
  const server = createServer((req, res) => {
    if (req.url !== "/bundle") {
      res.writeHead(404).end();
      return;
    }
    built ??= build();
    built.then(
      (b) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(b)),
      (err: unknown) => {
        built = undefined;
        res.writeHead(500, { "content-type": "text/plain" }).end(String(err));
      },
    );
  });
  return new Promise((done) => {
    server.listen(0, "127.0.0.1", () => {
      const addr = server.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      done({ server, url: `http://127.0.0.1:${port}` });
    });
  });
}
