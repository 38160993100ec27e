import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { spawnSync } from "node:child_process";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const SEAM = fileURLToPath(new URL("./src/lib/fault-seam.ts", import.meta.url));
const INJECTOR = fileURLToPath(new URL("./test/reliability/fault-injector.ts", import.meta.url));

/**
 * Test-only seams (docs/explanation/reliability.md, "The fault hook"): the queue consumers' no-op fault
 * seam resolves to the armable injector in tests. `wrangler deploy` never sees this config, so the
 * injector cannot reach the production bundle.
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
 * Four projects:
 * - workers: unit and integration tests inside workerd (@cloudflare/vitest-plugin), real D1, Queues and
 *   Durable Objects, the real migrations applied by test/setup.ts. Its files share a runtime per vitest
 *   worker (`isolate: false`): starting workerd, migrating and loading the Worker once per worker instead of
 *   once per file is most of the suite's speed. Every test makes its own accounts, so files do not see each
 *   other's data;
 * - isolated: the files whose checks read whole databases, each with a runtime of its own, where no other
 *   file's rows or queued work can land: the property-based suite (test/fuzz), which compares snapshots
 *   around each rejected request, and the move property test, which checks that no id is on two databases;
 * - node: tests that need a real HTTP server — unmodified npm clients, the browser (Playwright), `wrangler dev`
 *   — against the Worker started by wrangler's unstable_startWorker in test/node/global-setup.ts;
 * - traffic: replays of the real service's recorded exchanges (test/traffic/**). They read the recorded
 *   traffic beside the repository (shared/reference/traffic), which a clone does not have, so they are not
 *   part of `npm test` (workers + node) but of `npm run test:traffic`, which CI runs too.
 * All share the local integrator started in test/global-setup.ts.
 */
const migrations = await readD1Migrations("./migrations");

// public/ is served as Workers static assets (wrangler.toml [assets]); its vendored Swagger UI is copied in by
// wrangler's [build] command, which vitest does not run, so every vitest run copies it first. The workers
// project calls the Worker itself; assets are served in front of it by wrangler, in the node project.
const vendor = spawnSync(process.execPath, [fileURLToPath(new URL("./scripts/vendor.mjs", import.meta.url)), "--quiet"], { stdio: "inherit" });
if (vendor.status !== 0) throw new Error("scripts/vendor.mjs failed");

/** Files that need databases no other file writes to (see "isolated" below). */
const ISOLATED = ["test/fuzz/**/*.test.ts", "test/shards/moves-property.test.ts"];

/**
 * 500 more local D1 databases for the shared workers project, under names the Worker does not discover as
 * shards: test/shards/maintenance.test.ts hands them to the cron tick as SHARD_1..SHARD_500, to show that a
 * tick's cost does not grow with the number of shards. Declared, never migrated nor written: Miniflare
 * creates a database's storage on its first query, so they cost the runtime next to nothing.
 */
const MANY_SHARDS = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`TEST_MANY_${i + 1}`, `crm-edge-test-many-${i + 1}`]));

/** A project running in workerd against the Worker of wrangler.toml with test bindings. */
function workersProject(name: string, include: string[], exclude: string[], isolate = true, extraD1: Record<string, string> = {}) {
  return {
    plugins: [
      testSeams(),
      cloudflareTest({
        main: "./src/index.ts",
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          // A third shard for the move property test (test/shards/moves-property.test.ts), under a name the
          // Worker does not discover as a shard: only that test hands it to the Worker, as SHARD_3.
          d1Databases: { TEST_SHARD_3: "crm-edge-test-shard-3", ...extraD1 },
          // A second sync queue (a second shard group) with its consumer, under a binding name the Worker does
          // not discover: test/ecomm/sync-queues.test.ts hands it to the Worker as SYNC_QUEUE_1. Its name ends
          // in -sync-1, as a deployment's further sync queues do (src/queue/consumer.ts queueRole).
          queueProducers: { TEST_SYNC_QUEUE_1: { queueName: "crm-edge-sync-1" } },
          queueConsumers: { "crm-edge-sync-1": { maxBatchSize: 5, maxBatchTimeout: 1, maxRetries: 5, deadLetterQueue: "crm-edge-sync-dlq" } },
          bindings: {
            TEST_MIGRATIONS: migrations,
            ADMIN_TOKEN: "test-admin-token",
            ALLOW_LOOPBACK_OUTBOUND: "true",
            // App webhooks: failed deliveries are retried at once (the schedule itself is unit-tested).
            WEBHOOK_RETRY_BASE_SECONDS: "0",
            // Property-based suites: cases per endpoint (or runs) and seed, from the environment; unset, each
            // suite uses its own default.
            FUZZ_RUNS: process.env.FUZZ_RUNS ?? "",
            FUZZ_SEED: process.env.FUZZ_SEED ?? "",
          },
        },
      }),
    ],
    test: {
      name,
      include,
      exclude,
      isolate,
      setupFiles: ["./test/setup.ts"],
      globalSetup: ["./test/global-setup.ts"],
      testTimeout: 30_000,
      hookTimeout: 60_000,
    },
  };
}

/**
 * The order in which `npm test` hands files to its workers. vitest's own order runs the projects one after
 * another by name (isolated, node, workers), so the workers project's 4,900 tests waited for the node
 * project's slowest files, which mostly wait on a browser or a `wrangler dev`. Here those files start
 * first and the workers project runs beside them; each project keeps vitest's order inside it (longest or
 * largest first), and the workers project's files stay together so that its shared runtime is reused from
 * one file to the next (vitest ends a shared runtime when the next file in line belongs to another project).
 * Three files go first, leaving one worker to the workers project: with five, it started a minute late and
 * the whole run took longer (6 min 8 s against 5 min 51 s on two idle cores).
 */
const FIRST = ["test/node/docs-examples.test.ts", "test/node/openapi-contract.test.ts", "test/node/accessibility.test.ts"];
const PROJECTS = ["workers", "isolated", "node"];

class Sequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const first = FIRST.indexOf(relative(spec.project.config.root, spec.moduleId));
      if (first !== -1) return first;
      const project = PROJECTS.indexOf(spec.project.name);
      return FIRST.length + (project === -1 ? PROJECTS.length : project);
    };
    return sorted.map((spec, i) => ({ spec, i, r: rank(spec) })).sort((a, b) => a.r - b.r || a.i - b.i).map(({ spec }) => spec);
  }
}

export default defineConfig({
  test: {
    // A passing run prints its counts, not what the code under test logs: many tests cause the warnings
    // and errors they check (a dead letter, a failed move, a refused queue batch, an injected fault), and
    // the property-based suites print their seeds. Console output is kept with its test and printed only
    // when that test (or its file) fails, so a failure still shows everything logged around it.
    silent: "passed-only",
    // Even then, the Worker's structured log lines (one per request, queue batch and cron run;
    // src/lib/observability.ts) are left out: the fuzz suite alone sends tens of thousands of requests.
    // Tests that check them spy on console.log, which sees them before this filter.
    onConsoleLog: (log: string) => !log.startsWith('{"type":"'),
    // The reporter names each test slower than this. Against real D1, queues and Durable Objects most
    // tests take a few hundred ms, more on a busy machine (vitest's 300 ms default named 655 tests in one
    // run of this project): only a test past 5 s is worth a line.
    slowTestThreshold: 5_000,
    // Sized for two cores: files spend much of their time waiting on workerd, wrangler or a browser, so four
    // run at once, in the order Sequencer above gives (the slowest waiting files first, beside the rest).
    maxWorkers: 4,
    sequence: { sequencer: Sequencer },
    projects: [
      workersProject("workers", ["test/**/*.test.ts"], ["test/node/**", "test/traffic/**", ...ISOLATED], false, MANY_SHARDS),
      workersProject("isolated", ISOLATED, []),
      workersProject("traffic", ["test/traffic/**/*.test.ts"], []),
      {
        test: {
          name: "node",
          environment: "node",
          include: ["test/node/**/*.test.ts"],
          globalSetup: ["./test/global-setup.ts", "./test/node/global-setup.ts"],
          // A browser page or a real client's walk takes seconds alone, and several times that beside the
          // workers project on two cores (CI also runs this project on a second Node beside other work).
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // Files run side by side against the one Worker: each makes its own accounts and apps, and the
          // sign-in throttle's 15-minute window spans the whole run either way.
          fileParallelism: true,
        },
      },
    ],
  },
});
