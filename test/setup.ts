import { applyD1Migrations, env } from "cloudflare:test";
import { seedStatements } from "../src/db/id-ranges";
import { shardNames } from "../src/db/shards";

// Applies the real SQL migrations in migrations/ (idempotent: already applied ones are skipped) to the
// control plane and to every shard (issue 16), then starts each shard's ids in its own range, as
// `npm run migrate` does.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
for (const name of shardNames(env)) {
  const d1 = (env as unknown as Record<string, D1Database>)[name]!;
  await applyD1Migrations(d1, env.TEST_MIGRATIONS);
  const seeds = seedStatements(name);
  if (seeds.length) await d1.batch(seeds.map((s) => d1.prepare(s)));
}
