/**
 * Figure 15 — what the test kit costs a STANDARD account's calls (docs/reference/testkit.md, "Test accounts":
 * production pays nothing for it). Three fresh clusters run side by side: two of the production bundle and one
 * of the same source built with the kit's request-path hook replaced by nothing (`NO_TESTKIT` in
 * bench/lib/build.mjs: no account type or quirks in the credential statement, no test-account check, no fault
 * rules, real time, no search lag). Each gets the same STANDARD account and 100 contacts. For each route, every
 * sample sends `kitBlock` requests to each cluster, request by request in a rotating order (c=1, as figure 7's
 * interleaved samples), and gives two ratios of requests/s: production ÷ without the kit, and production ÷ the
 * other production cluster (the A/A control: two identical bundles). A route's figure is the median of its
 * samples' ratios with a 95 % bootstrap interval; "unchanged" holds where the kit's interval overlaps the A/A
 * control's: the kit shows no difference that two identical bundles do not also show.
 */
import { buildProduction, NO_TESTKIT } from "../lib/build.mjs";
import { startCluster } from "../lib/cluster.mjs";
import { client } from "../lib/http.mjs";
import { status, step } from "../lib/progress.mjs";
import { provisionTenant } from "../lib/seed.mjs";
import { bootstrapMedianInterval, median } from "../lib/stats.mjs";

const SEARCH_BODY = { filterGroups: [{ filters: [{ propertyName: "company", operator: "EQ", value: "Kit Co" }] }], limit: 100 };

const ROUTES = [
  { id: "v3get", name: "CRM v3 contact by id", method: "GET", path: (t) => `/crm/v3/objects/contacts/${t.contactId}` },
  { id: "v3list", name: "CRM v3 contact list, limit=100", method: "GET", path: () => "/crm/v3/objects/contacts?limit=100" },
  { id: "v3search", name: "CRM v3 contact search, limit=100", method: "POST", path: () => "/crm/v3/objects/contacts/search", body: () => SEARCH_BODY },
  { id: "v1list", name: "v1 contact list, count=100", method: "GET", path: () => "/contacts/v1/lists/all/contacts/all?count=100" },
  { id: "v3create", name: "CRM v3 contact create", method: "POST", path: () => "/crm/v3/objects/contacts", body: (t, k) => ({ properties: { email: `kit-${k}@bench.example.com`, company: "Other Co" } }), expect: 201 },
];

async function seed(http, adminToken, label) {
  const t = await provisionTenant(http, adminToken, `kit-cost-${label}-${Date.now()}`);
  const inputs = Array.from({ length: 100 }, (_, i) => ({ properties: { email: `c${i}@kit.example.com`, firstname: `First${i}`, lastname: `Last${i}`, company: "Kit Co" } }));
  const res = await http.json("POST", "/crm/v3/objects/contacts/batch/create", { token: t.oauth, body: { inputs } });
  if (res.status !== 201) throw new Error(`seeding ${label}: batch create -> ${res.status} ${res.text.slice(0, 200)}`);
  return { ...t, contactId: res.json.results[0].id };
}

/** One sample of one route: `block` requests to each target, interleaved; answers each target's requests/s. */
async function sample(ctx, targets, route, block, k) {
  const spent = targets.map(() => 0);
  for (let i = 0; i < block; i++) {
    for (let j = 0; j < targets.length; j++) {
      const at = (i + k + j) % targets.length; // each target goes first, second and third in turn
      const t = targets[at];
      const n = `${k}-${i}-${at}`;
      const res = await t.http.request(route.method, route.path(t.tenant), { token: t.tenant.oauth, body: route.body?.(t.tenant, n) });
      if (res.status >= 500) ctx.count5xx(1);
      if (res.status !== (route.expect ?? 200)) ctx.fail(`test kit cost, ${route.name} on ${t.label}: ${res.status} ${res.text.slice(0, 200)}`);
      spent[at] += res.ms;
    }
  }
  return spent.map((ms) => block / (ms / 1000));
}

export async function kitCost(ctx) {
  const { adminToken, sizes, stdio, benchScript, prodScript } = ctx;
  step("test kit cost: building the production bundle without the test kit's request-path hook (wrangler --alias)");
  const bare = buildProduction({ name: "prod-no-testkit", alias: NO_TESTKIT });
  const specs = [
    { label: "production", script: prodScript },
    { label: "production (A/A)", script: prodScript },
    { label: "without the kit", script: bare.scriptPath },
  ];
  const targets = [];
  try {
    for (const s of specs) {
      step(`test kit cost: starting a cluster, ${s.label}`);
      const c = await startCluster({ prodScript: s.script, benchScript, adminToken, stdio });
      const http = client(c.url);
      targets.push({ label: s.label, mf: c.mf, http });
      targets.at(-1).tenant = await seed(http, adminToken, targets.length);
    }
    const [prod, twin, bareTarget] = targets;
    const out = [];
    for (const route of ROUTES) {
      step(`test kit cost: ${route.name}, ${sizes.kitPairs} samples of ${sizes.kitBlock} requests to each of 3 clusters, interleaved`);
      await sample(ctx, targets, route, sizes.kitBlock, sizes.kitPairs); // discarded: warms each cluster's path
      const kit = [];
      const aa = [];
      const rps = { prod: [], bare: [] };
      for (let k = 0; k < sizes.kitPairs; k++) {
        status(`${route.name}: sample ${k + 1}/${sizes.kitPairs}`);
        const [p, a, b] = await sample(ctx, [prod, twin, bareTarget], route, sizes.kitBlock, k);
        kit.push(p / b);
        aa.push(p / a);
        rps.prod.push(p);
        rps.bare.push(b);
      }
      const interval = bootstrapMedianInterval(kit);
      const aaInterval = bootstrapMedianInterval(aa);
      out.push({
        id: `testkit_cost_${route.id}`,
        figure: `A STANDARD account's call with the test kit ÷ without it, ${sizes.kitPairs} interleaved samples: ${route.name} (req/s)`,
        value: { ratio: median(kit), interval, pairs: sizes.kitPairs, withKit: median(rps.prod) },
        baseline: { name: "the same source built without the kit's request-path hook", withoutKit: median(rps.bare) },
        ratio: median(kit),
        aa: { ratio: median(aa), interval: aaInterval, band: aaInterval },
        target: { overlapsAa: true },
        met: interval[0] <= aaInterval[1] && interval[1] >= aaInterval[0],
        samples: { kit, aa, ...rps },
      });
    }
    return out;
  } finally {
    for (const t of targets) {
      t.http.close();
      await t.mf.dispose();
    }
  }
}
