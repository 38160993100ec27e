/**
 * The sample suite of examples/integration-tests keeps working: its first tests (first.test.ts, the ones the
 * tutorial docs/tutorials/test-your-integration.md starts with) run here against the test Worker, as they run
 * against `npm run dev` for a reader. The whole suite (`npm run example:integration`) needs a running server
 * and is not part of `npm test`.
 */
import { inject } from "vitest";
import { workerUrl } from "./helpers";

// The example reads its server and operator token from the environment when it calls, as a reader's run does.
process.env.BASE = workerUrl();
process.env.ADMIN_TOKEN = inject("adminToken");

await import("../../examples/integration-tests/first.test");
