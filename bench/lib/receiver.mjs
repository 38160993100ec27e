/**
 * The webhook receiver of figure 8, in a process of its own (an integrator's server never shares the load
 * generator's event loop): answers every POST with 200 at once, counts the events, and reports its totals
 * to the parent over IPC. Run as a child by `startReceiver()`.
 */
import { fork } from "node:child_process";
import http from "node:http";
import { fileURLToPath } from "node:url";

if (process.send && process.argv[2] === "--receiver") {
  const totals = { events: 0, posts: 0 };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      totals.posts++;
      totals.events += JSON.parse(Buffer.concat(chunks).toString("utf8")).length;
      res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      process.send(totals);
    });
  });
  server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }));
  process.on("disconnect", () => process.exit(0));
}

/** Starts the receiver; `seen` follows its totals; `close()` stops it. */
export function startReceiver() {
  const child = fork(fileURLToPath(import.meta.url), ["--receiver"], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const seen = { events: 0, posts: 0 };
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.on("message", (m) => {
      if ("port" in m) {
        resolve({
          seen,
          url: `http://127.0.0.1:${m.port}/hooks`,
          close: () => new Promise((r) => (child.once("exit", r), child.disconnect())),
        });
      } else Object.assign(seen, m);
    });
  });
}
