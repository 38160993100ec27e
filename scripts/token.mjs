/**
 * @module `npm run -s token`: a fresh OAuth access token for the demo app, as an `export TOKEN=...` line.
 * The demo's access token lasts 30 minutes, as the real service's does; this refreshes it with the demo's
 * refresh token (kept in .wrangler/demo.json by `npm run dev`) and keeps the new pair there. Use it as
 * `eval "$(npm run -s token)"` while `npm run dev` runs; PORT names its port as it does for `npm run dev`.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { refreshAccessToken } from "./demo/seed.mjs";

const DEMO_FILE = ".wrangler/demo.json";
const base = process.env.BASE ?? `http://localhost:${process.env.PORT ?? 8787}`;
if (!existsSync(DEMO_FILE)) {
  console.error(`crm-edge: ${DEMO_FILE} is missing: start the demo with npm run dev first`);
  process.exit(1);
}
const demo = JSON.parse(readFileSync(DEMO_FILE, "utf8"));
try {
  await refreshAccessToken(base, demo);
} catch (err) {
  console.error(`crm-edge: could not refresh the demo's token at ${base} (is npm run dev running there?): ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
writeFileSync(DEMO_FILE, JSON.stringify(demo, null, 2));
console.log(`export TOKEN='${demo.oauthAccessToken}'`);
