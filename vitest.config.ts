import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export default defineConfig(async () => {
  // The real migrations, applied inside workerd by test/setup.ts before each file.
  const migrations = await readD1Migrations("./migrations");
  return {
    plugins: [
      cloudflareTest({
        main: "./src/index.ts",
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: migrations,
            ADMIN_TOKEN: "test-admin-token",
            ALLOW_LOOPBACK_OUTBOUND: "true",
            // Property-based suite (test/fuzz): cases per endpoint and seed, from the environment.
            FUZZ_RUNS: process.env.FUZZ_RUNS ?? "200",
            FUZZ_SEED: process.env.FUZZ_SEED ?? "",
          },
        },
      }),
    ],
    test: {
      include: ["test/**/*.test.ts"],
      setupFiles: ["./test/setup.ts"],
      globalSetup: ["./test/global-setup.ts"],
      testTimeout: 30_000,
      hookTimeout: 60_000,
    },
  };
});
