import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vitest/config";

const SEAM = fileURLToPath(new URL("./src/queue/fault-seam.ts", import.meta.url));
const INJECTOR = fileURLToPath(new URL("./test/reliability/fault-injector.ts", import.meta.url));

/**
 * Test-only seams (issue 9): the queue consumers' no-op fault seam resolves to the armable injector in
 * tests. `wrangler deploy` never sees this config, so the injector cannot reach the production bundle.
 */
function testSeams(): Plugin {
  return {
    name: "crm-edge-test-seams",
    enforce: "pre",
    async resolveId(source, importer, options) {
      if (!source.includes("fault-seam")) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      return resolved?.id === SEAM ? INJECTOR : null;
    },
  };
}

export default defineConfig(async () => {
  // The real migrations, applied inside workerd by test/setup.ts before each file.
  const migrations = await readD1Migrations("./migrations");
  return {
    plugins: [
      testSeams(),
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
