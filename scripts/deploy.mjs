#!/usr/bin/env node
// Deploys crm-edge in the one safe order: the migrations first, on the control plane `DB` and on every shard
// (scripts/migrate.mjs --remote), then the code (`wrangler deploy`). Every migration works with the code
// before it and the code after it (docs/how-to/operator-upgrades.md), so the running version keeps serving
// while the schema changes, and a failed migration stops here, before any new code is live.
//
// Usage: npm run deploy [-- <wrangler deploy options>]     (with --dry-run: no migration, a build only)
//
// Refuses to start while wrangler.toml still holds the repository's placeholder database ids
// (00000000-0000-0000-0000-…): put the ids of your databases there, or remove the database_id lines so
// wrangler finds each database by its database_name (docs/tutorials/operator-zero-to-production.md).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

const args = process.argv.slice(2);
const dryRun = args.includes("--dry-run");

const toml = readFileSync("wrangler.toml", "utf8");
const placeholders = [...toml.matchAll(/\[\[d1_databases\]\][^[]*?binding\s*=\s*"([^"]+)"[^[]*?database_id\s*=\s*"0{8}-0{4}-0{4}-0{4}-\d{12}"/g)].map((m) => m[1]);
if (placeholders.length && !dryRun) {
  console.error(
    `deploy: wrangler.toml still has placeholder database ids for ${placeholders.join(", ")}.\n` +
      "Put the ids that `wrangler d1 create` printed there, or remove those database_id lines so wrangler finds each database by its database_name.",
  );
  process.exit(2);
}

/** Runs a command with the terminal attached; stops the deployment when it fails. */
function step(what, cmd, cmdArgs) {
  console.log(`\n== deploy: ${what}`);
  const r = spawnSync(cmd, cmdArgs, { stdio: "inherit" });
  if (r.status !== 0) {
    console.error(`deploy: ${what} failed (exit ${r.status ?? r.signal}); nothing after it ran`);
    process.exit(r.status || 1);
  }
}

if (dryRun) console.log("deploy: --dry-run, so the remote databases are not migrated");
else step("migrating the remote databases (DB and every shard)", process.execPath, ["scripts/migrate.mjs", "--remote"]);
step(dryRun ? "building (wrangler deploy --dry-run)" : "deploying the code (wrangler deploy)", "npx", ["wrangler", "deploy", ...args]);
