import { applyD1Migrations, env } from "cloudflare:test";

// Applies the real SQL migrations in migrations/ (idempotent: already applied ones are skipped).
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
