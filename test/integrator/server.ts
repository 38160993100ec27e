/**
 * A real local integrator for tests (runs in Node, started by test/global-setup.ts on 127.0.0.1).
 * Tests script answers per path with POST /__script and read what the service sent with GET /__requests.
 * Unscripted paths answer 200 `{"message":"ok"}`. GET /__traffic/<file> serves a recording from
 * ../shared/reference/traffic (tests run in workerd, which has no file system; the recordings are never
 * copied into the repository).
 */

import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { resolve, sep } from "node:path";
import type { Recorded, Script } from "./types";

// `../shared` beside the repository, or `../../shared` from a worktree under wt/ (as test/blog/helpers.ts).
const TRAFFIC =
  ["../shared/reference/traffic", "../../shared/reference/traffic"].map((p) => resolve(process.cwd(), p)).find((p) => existsSync(p)) ??
  resolve(process.cwd(), "../shared/reference/traffic");

const readAll = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });

export function startIntegrator(): Promise<{ server: Server; url: string }> {
  const scripts = new Map<string, Script>();
  const requests: Recorded[] = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const body = await readAll(req);
    if (url.pathname === "/__script" && req.method === "POST") {
      const { path, ...script } = JSON.parse(body) as Script & { path: string };
      scripts.set(path, script);
      res.writeHead(204).end();
      return;
    }
    if (url.pathname === "/__dns-query") {
      // A stub DNS-over-HTTPS resolver (JSON form) for the outbound guard's tests: it answers a fixed table,
      // so no test ever asks a real resolver, and the tests only call the names it maps to refused addresses.
      const name = (url.searchParams.get("name") ?? "").toLowerCase();
      const type = url.searchParams.get("type") === "AAAA" ? 28 : 1;
      const table: Record<string, [number, string][]> = {
        "hooks.private-net.test": [[1, "10.20.30.40"]],
        "metadata.rebind.test": [[1, "169.254.169.254"]],
        "mixed.rebind.test": [[1, "93.184.216.34"], [28, "::1"]],
        "loop.rebind.test": [[1, "127.0.0.1"]],
        "public.example.test": [[1, "93.184.216.34"], [28, "2606:2800:220:1:248:1893:25c8:1946"]],
        // Names a rebinding service and a wildcard service no fixed list knows answer with (probes found them).
        "7f000001.a9fea9fe.rbndr.us": [[1, "169.254.169.254"]],
        "169.254.169.254.xip.name": [[1, "169.254.169.254"]],
      };
      if (name === "broken.resolver.test") {
        res.writeHead(503).end();
        return;
      }
      const answers = (table[name] ?? []).filter(([t]) => t === type).map(([t, data]) => ({ name, type: t, TTL: 60, data }));
      res.writeHead(200, { "content-type": "application/dns-json" }).end(JSON.stringify({ Status: table[name] ? 0 : 3, Answer: answers }));
      return;
    }
    if (url.pathname.startsWith("/__traffic/")) {
      const file = resolve(TRAFFIC, decodeURIComponent(url.pathname.slice("/__traffic/".length)));
      if (!file.startsWith(TRAFFIC + sep)) {
        res.writeHead(400).end();
        return;
      }
      try {
        const data = await readFile(file, "utf8");
        res.writeHead(200, { "content-type": "application/json" }).end(data);
      } catch {
        res.writeHead(404).end();
      }
      return;
    }
    if (url.pathname === "/__requests") {
      const prefix = url.searchParams.get("path") ?? "";
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(requests.filter((r) => r.path.startsWith(prefix))));
      return;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
    requests.push({ method: req.method ?? "GET", url: `http://${req.headers.host}${req.url}`, path: url.pathname, headers, body, at: Date.now() });
    let script = scripts.get(url.pathname) ?? {};
    if (script.times !== undefined) {
      // A script for the next N requests only (a receiver that fails, or hangs, a few times then recovers).
      if (script.times <= 0) script = {};
      else scripts.set(url.pathname, { ...script, times: script.times - 1 });
    }
    if (script.delayMs) await new Promise((r) => setTimeout(r, script.delayMs));
    if (res.destroyed) return;
    const payload = script.bytes ? "x".repeat(script.bytes) : (script.body ?? JSON.stringify({ message: "ok" }));
    res.writeHead(script.status ?? 200, { "content-type": "application/json", ...script.headers });
    res.end(payload);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const addr = server.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      resolve({ server, url: `http://127.0.0.1:${port}` });
    });
  });
}
