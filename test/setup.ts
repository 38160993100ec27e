import { applyD1Migrations, env } from "cloudflare:test";
import { seedStatements } from "../src/db/id-ranges";
import { shardNames } from "../src/db/shards";

// Applies the real SQL migrations in migrations/ (idempotent: already applied ones are skipped) to the
// control plane and to every shard, then starts each database's id counters in its own range, as
// `npm run migrate` does (the control plane's from 1).
for (const name of ["DB", ...shardNames(env)]) {
  const d1 = (env as unknown as Record<string, D1Database>)[name]!;
  await applyD1Migrations(d1, env.TEST_MIGRATIONS);
  await d1.batch(seedStatements(name).map((s) => d1.prepare(s)));
}
