/**
 * @module Starts the Worker with the `wrangler dev` command itself, as a developer does, on
 * free ports and a fresh local state directory migrated like `npm run dev` migrates it: a copy of the one
 * test/node/global-setup.ts migrated with `npm run migrate -- --local`. Used by the test of the documented
 * local cron trigger (test/node/local-crons.test.ts) and by the docs examples.
 */
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";
import "./types";

/** A port the system says is free now (a server on port 0, closed again). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface WranglerDev {
  url: string;
  adminToken: string;
  /** What wrangler printed, for failure messages. */
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * How long a start may take: generous, for CI, where these tests share two cores with the traffic replays
 * and the quick bench. A hook that starts it is given START_TIMEOUT_MS.
 */
const LISTEN_WITHIN_MS = 180_000;
export const START_TIMEOUT_MS = 300_000;

export async function startWranglerDev(extraArgs: string[] = []): Promise<WranglerDev> {
  const persist = mkdtempSync(join(tmpdir(), "crm-edge-dev-"));
  // The control plane and every shard, migrated by `npm run migrate -- --local` as for `npm run dev`.
  cpSync(inject("migratedState"), persist, { recursive: true });
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const adminToken = `dev-cron-${crypto.randomUUID()}`;
  const child = spawn(
    "npx",
    [
      "wrangler", "dev",
      "--ip", "127.0.0.1",
      "--port", String(port),
      "--inspector-port", String(inspectorPort),
      "--persist-to", persist,
      "--var", `ADMIN_TOKEN:${adminToken}`,
      "--var", "ALLOW_LOOPBACK_OUTBOUND:true",
      "--show-interactive-dev-session=false",
      ...extraArgs,
    ],
    { env: { ...process.env }, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  let log = "";
  child.stdout.on("data", (d: Buffer) => (log += d.toString()));
  child.stderr.on("data", (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    // The whole process group: npx, wrangler and its workerd.
    if (child.exitCode === null && child.pid) process.kill(-child.pid, "SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (child.exitCode === null && child.pid) process.kill(-child.pid, "SIGKILL");
    rmSync(persist, { recursive: true, force: true });
  };
  const deadline = Date.now() + LISTEN_WITHIN_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited (${child.exitCode}):\n${log}`);
    try {
      const res = await fetch(`${url}/openapi.json`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`wrangler dev did not answer within ${LISTEN_WITHIN_MS / 1000} s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return { url, adminToken, output: () => log, stop };
}
