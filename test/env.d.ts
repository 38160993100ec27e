import type { D1Migration } from "cloudflare:test";

declare global {
  namespace Cloudflare {
    interface Env {
      /** Injected by vitest.config.ts for test/setup.ts. */
      TEST_MIGRATIONS: D1Migration[];
      FUZZ_RUNS: string;
      FUZZ_SEED: string;
      /** A third shard, given to the Worker as SHARD_3 by test/shards/moves-property.test.ts only. */
      TEST_SHARD_3: D1Database;
    }
  }
}
