/**
 * `npm run -s token` prints a fresh OAuth access token for the demo app as an export line, from the refresh
 * token `npm run dev` keeps in .wrangler/demo.json, and keeps the new pair there.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { tenant, workerUrl } from "./helpers";

const script = fileURLToPath(new URL("../../scripts/token.mjs", import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), "token-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (env: Record<string, string>) => spawnSync(process.execPath, [script], { cwd: dir, env: { ...process.env, ...env }, encoding: "utf8", timeout: 30_000 });

describe("npm run -s token", () => {
  it("says to start the demo first when there is none", () => {
    const res = run({ BASE: workerUrl() });
    expect(res.status).toBe(1);
    expect(res.stderr).toContain("start the demo with npm run dev first");
  });

  it("prints a working access token and keeps the rotated pair", async () => {
    const t = await tenant();
    mkdirSync(path.join(dir, ".wrangler"), { recursive: true });
    const file = path.join(dir, ".wrangler/demo.json");
    writeFileSync(file, JSON.stringify({ clientId: t.clientId, clientSecret: t.clientSecret, oauthRefreshToken: t.refresh, oauthAccessToken: t.oauth }));
    const res = run({ BASE: workerUrl() });
    expect(res.status, res.stderr).toBe(0);
    const token = /^export TOKEN='([^']+)'$/.exec(res.stdout.trim())?.[1];
    expect(token).toBeDefined();
    expect(token).not.toBe(t.oauth);
    const info = await fetch(`${workerUrl()}/oauth/v1/access-tokens/${token}`);
    expect(info.status).toBe(200);
    expect(JSON.parse(readFileSync(file, "utf8")).oauthAccessToken).toBe(token);
    const contacts = await fetch(`${workerUrl()}/crm/v3/objects/contacts?limit=1`, { headers: { authorization: `Bearer ${token}` } });
    expect(contacts.status).toBe(200);
  });
});
