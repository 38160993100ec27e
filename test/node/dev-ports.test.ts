/**
 * `npm run dev` on a busy port says which port and which variable to change, instead of failing later with
 * whatever the other program answers.
 */
import { spawnSync } from "node:child_process";
import { createServer, type Server } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const servers: Server[] = [];
afterAll(() => servers.forEach((s) => s.close()));

async function busyPort(): Promise<number> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return (server.address() as { port: number }).port;
}

describe("npm run dev on a busy port", () => {
  it.each(["PORT", "DEMO_INTEGRATOR_PORT", "SMTP_PORT"])("names the port and %s, and exits before starting anything", async (variable) => {
    const busy = await busyPort();
    const env = { ...process.env, PORT: String(busy + 2), DEMO_INTEGRATOR_PORT: String(busy + 3), SMTP_PORT: String(busy + 4), [variable]: String(busy) };
    const run = spawnSync(process.execPath, ["scripts/dev.mjs"], { cwd: root, env, encoding: "utf8", timeout: 30_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`port ${busy} is already in use by another program. Choose another with ${variable}`);
    expect(run.stdout).not.toContain("starting on");
  });
});
