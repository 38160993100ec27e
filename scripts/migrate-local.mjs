/**
 * @module `npm run migrate -- --local`: the migrations and id counters of every database of wrangler.toml,
 * applied in one local runtime (Miniflare, as wrangler uses) to the state `wrangler dev` reads.
 *
 * It does what `wrangler d1 migrations apply <binding> --local` and `wrangler d1 execute --local` do, in the
 * same places, so either tool can take over from the other:
 * - each database is the file wrangler keeps for its `preview_database_id`, else its `database_id`, under
 *   `<persist-to>/v3/d1` (`.wrangler/state` by default);
 * - applied migrations are the rows of `d1_migrations` (wrangler's table, created as wrangler creates it);
 * - each migration file runs in one batch with its `d1_migrations` row, so a failed one leaves no trace.
 * Each file is split into statements by wrangler's own splitter, as `wrangler d1 migrations apply` splits it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Miniflare, convertV4MiniflareOptions } from "miniflare";
import { unstable_splitSqlQuery } from "wrangler";
import { ID_RANGE, seedStatements } from "./id-seed.mjs";

const MIGRATIONS = "migrations";

/** Each D1 binding of wrangler.toml with the id its local file is named by. */
export function localDatabaseIds(toml = readFileSync("wrangler.toml", "utf8")) {
  const ids = {};
  for (const block of toml.split(/^\[\[d1_databases\]\]\s*$/m).slice(1)) {
    const body = block.split(/^\[/m)[0];
    const value = (key) => body.match(new RegExp(`^\\s*${key}\\s*=\\s*"([^"]+)"`, "m"))?.[1];
    const binding = value("binding");
    if (binding) ids[binding] = value("preview_database_id") ?? value("database_id") ?? binding;
  }
  return ids;
}

/** The statements of a migration file, as wrangler splits them. */
export const statementsOf = (sql) => unstable_splitSqlQuery(sql);

/** Migration files in the order wrangler applies them (by name). */
export function migrationFiles(dir = MIGRATIONS) {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort();
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "d1_migrations"(
		id         INTEGER PRIMARY KEY AUTOINCREMENT,
		name       TEXT UNIQUE,
		applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
);`;

async function migrateOne(db, binding, files) {
  await db.prepare(CREATE_TABLE).run();
  const applied = new Set((await db.prepare('SELECT name FROM "d1_migrations" ORDER BY id').all()).results.map((r) => r.name));
  const pending = files.filter((f) => !applied.has(f));
  for (const name of pending) {
    const statements = statementsOf(readFileSync(join(MIGRATIONS, name), "utf8"));
    try {
      await db.batch([...statements.map((s) => db.prepare(s)), db.prepare('INSERT INTO "d1_migrations" (name) values (?)').bind(name)]);
    } catch (err) {
      throw new Error(`${binding}: migration ${name} failed: ${err?.cause?.message ?? err?.message ?? err}`);
    }
  }
  const n = binding === "DB" ? 0 : Number(binding.slice("SHARD_".length));
  await db.batch(seedStatements(n * ID_RANGE).map((s) => db.prepare(s)));
  console.log(`${binding}: ${pending.length ? `applied ${pending.join(", ")}` : "no migrations to apply"}; id counters from ${n * ID_RANGE}`);
}

/** Applies every pending migration, then the id counters, to each of `bindings` (all at once). */
export async function migrateLocal({ bindings, persistTo = ".wrangler/state" }) {
  const ids = localDatabaseIds();
  const missing = bindings.filter((b) => !ids[b]);
  if (missing.length) throw new Error(`wrangler.toml declares no database for ${missing.join(", ")}`);
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      modules: true,
      script: "",
      resourcePersistencePath: join(persistTo, "v3"),
      d1Databases: Object.fromEntries(bindings.map((b) => [b, ids[b]])),
    }),
  );
  try {
    const files = migrationFiles();
    await Promise.all(bindings.map(async (b) => migrateOne(await mf.getD1Database(b), b, files)));
  } finally {
    await mf.dispose();
  }
}
