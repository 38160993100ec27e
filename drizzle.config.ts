import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/tables/*.ts",
  out: "./migrations",
  // wrangler applies flat *.sql files in name order; drizzle-kit's meta/ snapshots stay beside them.
  migrations: { prefix: "index" },
});
