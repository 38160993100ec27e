import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * The sample suite of an integration tested against crm-edge (`npm run example:integration`, against a
 * running `npm run dev`; BASE and ADMIN_TOKEN from the environment). Not part of `npm test`.
 *
 * Every test makes its own account, so they all run in parallel: files in vitest's default pool, and the
 * tests of a file concurrently (they spend their time waiting on the server, not on the CPU).
 */
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  test: {
    include: ["*.test.ts"],
    sequence: { concurrent: true },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The client logs each retry it makes with console.error; the tests check the retries, not the log.
    silent: "passed-only",
  },
});
