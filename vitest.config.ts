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

/**
 * Two projects, one `npm test`:
 * - workers: unit and integration tests inside workerd (@cloudflare/vitest-pool-workers), real D1,
 *   Queues and Durable Objects, the real migrations applied by test/setup.ts;
 * - node: tests that need a real HTTP server — unmodified npm clients and the browser (Playwright) —
 *   against the Worker started by wrangler's unstable_startWorker in test/node/global-setup.ts.
 * Both share the local integrator started in test/global-setup.ts.
 */
const migrations = await readD1Migrations("./migrations");

export default defineConfig({
  test: {
    projects: [
      {
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
          name: "workers",
          include: ["test/**/*.test.ts"],
          exclude: ["test/node/**"],
          setupFiles: ["./test/setup.ts"],
          globalSetup: ["./test/global-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: "node",
          environment: "node",
          include: ["test/node/**/*.test.ts"],
          globalSetup: ["./test/global-setup.ts", "./test/node/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
