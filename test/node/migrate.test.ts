/**
 * `npm run migrate -- --local` (scripts/migrate-local.mjs) leaves the state wrangler's own commands would:
 * it splits every migration file as wrangler does, records what it applied in wrangler's `d1_migrations`, so
 * `wrangler d1 migrations list` has nothing left to apply, and runs again without changing anything.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readD1Migrations } from "@cloudflare/vitest-plugin";
import { Miniflare, convertV4MiniflareOptions } from "miniflare";
import { afterAll, describe, expect, it } from "vitest";
import { ID_RANGE } from "../../scripts/id-seed.mjs";
import { localDatabaseIds, migrationFiles, statementsOf } from "../../scripts/migrate-local.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const persist = mkdtempSync(join(tmpdir(), "crm-edge-migrate-"));
afterAll(() => rmSync(persist, { recursive: true, force: true }));

const migrate = () => spawnSync(process.execPath, ["scripts/migrate.mjs", "--local", "--persist-to", persist], { cwd: root, encoding: "utf8" });

describe("npm run migrate -- --local", () => {
  it("splits every migration file into the statements the workers tests apply", async () => {
    const applied = await readD1Migrations(join(root, "migrations"));
    expect(applied.map((m) => m.name)).toEqual(migrationFiles(join(root, "migrations")));
    for (const m of applied) expect(statementsOf(readFileSync(join(root, "migrations", m.name), "utf8")), m.name).toEqual(m.queries);
  });

  it("migrates every database once, seeds its id counters in its range, and runs again changing nothing", async () => {
    const first = migrate();
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain("migrated DB and 2 shard(s): SHARD_1, SHARD_2");
    const again = migrate();
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout.match(/no migrations to apply/g)).toHaveLength(3);

    const ids = localDatabaseIds(readFileSync(join(root, "wrangler.toml"), "utf8"));
    const mf = new Miniflare(convertV4MiniflareOptions({ modules: true, script: "", resourcePersistencePath: join(persist, "v3"), d1Databases: ids }));
    try {
      for (const [binding, n] of [["DB", 0], ["SHARD_1", 1], ["SHARD_2", 2]] as const) {
        const db = await mf.getD1Database(binding);
        const applied = (await db.prepare('select name from "d1_migrations" order by id').all<{ name: string }>()).results.map((r) => r.name);
        expect(applied, binding).toEqual(migrationFiles(join(root, "migrations")));
        const bases = (await db.prepare("select distinct base from id_sequences").all<{ base: number }>()).results.map((r) => r.base);
        expect(bases, binding).toEqual([n * ID_RANGE]);
      }
    } finally {
      await mf.dispose();
    }
  }, 120_000);

  it("leaves wrangler nothing to apply", () => {
    const list = spawnSync("npx", ["wrangler", "d1", "migrations", "list", "SHARD_2", "--local", "--persist-to", persist], { cwd: root, encoding: "utf8", env: { ...process.env, CI: "true" } });
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toContain("No migrations to apply");
  }, 120_000);
});
