/**
 * Figure 13 — the test kit's fixture load (docs/reference/testkit.md, "Fixtures"): a document of 10,000
 * records (1,000 companies, 9,000 contacts, each contact associated with a company) posted to
 * `POST /admin/v1/accounts/{portalId}/fixtures`, timed from Node, response included. Each run loads into a
 * fresh DEVELOPER_TEST account (a fixture adds to an account, and an email is one contact's). Target: 5 s.
 */
import { median } from "../lib/stats.mjs";
import { step } from "../lib/progress.mjs";
import { kitCost } from "./testkit-cost.mjs";
import { restoreFigure } from "./testkit-restore.mjs";

const TARGET_MS = 5_000;

/** The 10,000-record document of test/testkit/fixtures.test.ts. */
export function bigFixture(companies = 1_000, contacts = 9_000) {
  return {
    records: {
      companies: Array.from({ length: companies }, (_, i) => ({ ref: `co${i}`, properties: { name: `Company ${i}`, domain: `c${i}.example` } })),
      contacts: Array.from({ length: contacts }, (_, i) => ({ ref: `p${i}`, properties: { email: `p${i}@bulk.example`, firstname: `First${i}`, lastname: `Last${i}` } })),
    },
    associations: Array.from({ length: contacts }, (_, i) => ({ from: `p${i}`, to: `co${i % companies}` })),
  };
}

export async function testkit(ctx) {
  const { http, adminToken, sizes } = ctx;
  const doc = bigFixture();
  const body = JSON.stringify(doc);
  const runs = [];
  for (let run = 1; run <= sizes.runs; run++) {
    const account = await http.json("POST", "/admin/v1/accounts", { token: adminToken, body: { name: `fixture-bench-${Date.now()}-${run}`, accountType: "DEVELOPER_TEST" } });
    if (account.status !== 201) throw new Error(`POST /admin/v1/accounts -> ${account.status} ${account.text}`);
    step(`testkit run ${run}/${sizes.runs}: a 10,000-record fixture (${(body.length / 2 ** 20).toFixed(1)} MB) into account ${account.json.portalId}`);
    const started = performance.now();
    const res = await http.json("POST", `/admin/v1/accounts/${account.json.portalId}/fixtures`, { token: adminToken, body: doc });
    const ms = performance.now() - started;
    if (res.status !== 201) ctx.fail(`fixture load -> ${res.status} ${res.text.slice(0, 300)}`);
    else if (res.json.counts.contacts !== 9_000 || res.json.counts.companies !== 1_000 || res.json.counts.associations !== 9_000) ctx.fail(`fixture load counted ${JSON.stringify(res.json.counts)}`);
    runs.push({ ms });
  }
  const ms = median(runs.map((r) => r.ms));
  const fixture = [
    {
      id: "testkit_fixture_10k",
      figure: "A fixture of 10,000 records (and 9,000 associations) loads",
      value: { msMedian: ms, msFirst: runs[0]?.ms, msMax: Math.max(...runs.map((r) => r.ms)), bytes: body.length },
      baseline: { name: "target: 5 s locally", ms: TARGET_MS },
      ratio: TARGET_MS / ms,
      met: ms <= TARGET_MS,
      runs,
    },
  ];
  // Figure 14: a restore of a 1,000-record snapshot against its floor; figure 15: the kit's cost to a STANDARD account.
  return [...fixture, ...(await restoreFigure(ctx)), ...(await kitCost(ctx))];
}
