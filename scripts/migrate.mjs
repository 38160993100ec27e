#!/usr/bin/env node
// Applies drizzle-kit's migrations (migrations/) to the control plane `DB` and to every shard binding
// `SHARD_<n>` declared in wrangler.toml (docs/explanation/scaling.md), then starts each database's id
// counters in its own range. Usage: npm run migrate -- --local [--persist-to DIR]   |   npm run migrate -- --remote
//
// --remote runs `wrangler d1 migrations apply` and `wrangler d1 execute` per database. --local does what
// those commands do locally, in one local runtime for every database at once (scripts/migrate-local.mjs):
// wrangler starts a runtime per migration file, a minute and a half for three databases on two cores.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { ID_RANGE, seedSql } from "./id-seed.mjs";
import { migrateLocal } from "./migrate-local.mjs";

const args = process.argv.slice(2);
const remote = args.includes("--remote");
const local = args.includes("--local");
if (remote === local) {
  console.error("usage: npm run migrate -- --local [--persist-to DIR] | --remote");
  process.exit(2);
}
const persistAt = args.indexOf("--persist-to");
const persist = persistAt >= 0 ? ["--persist-to", args[persistAt + 1]] : [];
const where = [remote ? "--remote" : "--local", ...persist];

/** Every D1 binding of wrangler.toml: DB first, then the shards in number order. */
export function d1Bindings(toml = readFileSync("wrangler.toml", "utf8")) {
  const found = [...toml.matchAll(/\[\[d1_databases\]\][^[]*?binding\s*=\s*"([^"]+)"/g)].map((m) => m[1]);
  const shards = found.filter((b) => /^SHARD_\d+$/.test(b)).sort((a, b) => Number(a.slice(6)) - Number(b.slice(6)));
  return { control: found.includes("DB") ? "DB" : null, shards };
}

const run = (cmd) => {
  const r = spawnSync("npx", ["wrangler", ...cmd], { stdio: "inherit", env: { ...process.env, CI: "true" } });
  if (r.status !== 0) {
    console.error(`migrate: wrangler ${cmd.join(" ")} failed`);
    process.exit(r.status ?? 1);
  }
};

const { control, shards } = d1Bindings();
if (!control) throw new Error("wrangler.toml declares no DB binding");
for (const binding of shards) {
  const n = Number(binding.slice("SHARD_".length));
  if (!(n >= 1 && n <= 9999)) throw new Error(`${binding}: shard numbers run from 1 to 9999 (docs/explanation/scaling.md)`);
}
if (local) {
  await migrateLocal({ bindings: [control, ...shards], persistTo: persistAt >= 0 ? args[persistAt + 1] : undefined });
  console.log(`\nmigrated ${control} and ${shards.length} shard(s): ${shards.join(", ") || "none"}`);
  process.exit(0);
}
for (const binding of [control, ...shards]) {
  console.log(`\n== migrating ${binding} (${remote ? "remote" : "local"})`);
  run(["d1", "migrations", "apply", binding, ...where]);
  const n = binding === control ? 0 : Number(binding.slice("SHARD_".length));
  if (binding !== control && !(n >= 1 && n <= 9999)) throw new Error(`${binding}: shard numbers run from 1 to 9999 (docs/explanation/scaling.md)`);
  run(["d1", "execute", binding, ...where, "--command", seedSql(n * ID_RANGE)]);
}
console.log(`\nmigrated ${control} and ${shards.length} shard(s): ${shards.join(", ") || "none"}`);
