/**
 * Figure 10 — a record with activities: the web app's contact page (`GET /app/contacts/{id}`, signed in)
 * and the v4 associations page (`GET /crm/v4/objects/contacts/{id}/associations/notes`) of a contact with
 * 50 notes, each against its own D1 floor, at figure 3's targets (≥ 0.9 at c=1, ≥ 0.8 at c=10).
 *
 * The floors: each route's own D1 statements, recorded from the route and replayed raw with the route's
 * round-trip shape (bench/worker/replay-floor.ts), reported as a route the way figure 3 reports its
 * floors (floorAsRoute: the floor's own time over the bench no-op, added to /healthz's). The page's
 * floor holds its session read, the record, its associations, its activities, its timeline events and its
 * cards; so what the ratio leaves to the page is its own work: rendering 50 sanitised note bodies and the HTML.
 * The rounds, the A/A control and the rating are figure 3's (suites/reads.mjs).
 */
import { aaBand, medianOf } from "../lib/stats.mjs";
import { status, step } from "../lib/progress.mjs";
import { FLOOR_TARGET, floorAsRoute, inWaves, interleaved, RATE_KEYS, WARMUP } from "./reads.mjs";

const NOTES = 50;
const PASSWORD = "bench activities password";

async function ok(res, what) {
  if (res.status >= 300) throw new Error(`${what} -> ${res.status} ${res.text}`);
  return res.json;
}

/** A contact with NOTES notes (through the API, one batch create with their associations) and a signed-in user. */
async function seed(ctx) {
  const { http, tenant, adminToken } = ctx;
  step(`activities: seeding a contact with ${NOTES} notes and a signed-in user`);
  const run = Date.now().toString(36);
  const contact = await ok(
    await http.json("POST", "/crm/v3/objects/contacts", { token: tenant.oauth, body: { properties: { email: `activities-${run}@bench.example.com`, firstname: "Ada", lastname: "Activities" } } }),
    "create contact",
  );
  const now = Date.now();
  const inputs = Array.from({ length: NOTES }, (_, i) => ({
    properties: {
      hs_timestamp: String(now - i * 3_600_000),
      hs_note_body: `<p>Call ${i + 1}: asked about <strong>bulk pricing</strong> and the <a href="https://example.com/quotes/${i}">quote</a>.</p><ul><li>delivery in March</li><li>two sites</li></ul>`,
    },
    associations: [{ to: { id: contact.id }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 202 }] }],
  }));
  await ok(await http.json("POST", "/crm/v3/objects/notes/batch/create", { token: tenant.oauth, body: { inputs } }), "create notes");
  const email = `activities-${run}@bench.example.com`;
  await ok(await http.json("POST", `/admin/v1/accounts/${tenant.portalId}/users`, { token: adminToken, body: { email, password: PASSWORD } }), "create user");
  const login = await http.request("POST", "/login", {
    body: new URLSearchParams({ email, password: PASSWORD, next: "/app" }).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  if (login.status !== 303) throw new Error(`sign-in -> ${login.status} ${login.text}`);
  const cookie = String([login.headers["set-cookie"]].flat()[0] ?? "").split(";")[0];
  if (!cookie) throw new Error("sign-in set no cookie");
  return { contactId: Number(contact.id), cookie };
}

export async function activities(ctx) {
  const { http, bench, tenant, sizes } = ctx;
  const seeded = await seed(ctx);
  const page = `/app/contacts/${seeded.contactId}`;
  const v4 = `/crm/v4/objects/contacts/${seeded.contactId}/associations/notes`;
  const cookie = { cookie: seeded.cookie };
  const routes = [
    { id: "page", name: `contact page with ${NOTES} notes (web app, signed in)`, path: page, token: "", headers: cookie, floor: "floor_page" },
    { id: "v4", name: `v4 associations page, contact → notes (${NOTES})`, path: v4, floor: "floor_v4" },
  ];
  const floors = [
    { id: "floor_page", name: "floor: the contact page's D1 statements, replayed raw (bench Worker)", path: `/__bench/floor/replay?path=${encodeURIComponent(page)}`, client: bench, token: "", headers: cookie },
    { id: "floor_v4", name: "floor: the v4 page's D1 statements, replayed raw (bench Worker)", path: `/__bench/floor/replay?path=${encodeURIComponent(v4)}`, client: bench },
  ];
  const healthz = { id: "healthz", name: "GET /healthz", path: "/healthz", expect: 204 };
  const control = { id: "healthz_aa", name: "GET /healthz again (A/A control)", path: "/healthz", expect: 204 };
  const benchNoop = { id: "bench_noop", name: "bench Worker no-op", path: "/__bench/noop", client: bench, expect: 204 };
  const measured = [healthz, ...routes, ...floors, benchNoop, control].map((r) => ({ ...r, key: r.id, workerd: ctx.workerd }));
  // Each route answers what it should before anything is measured (the page: its 50 activities).
  const first = await http.request("GET", page, { headers: cookie });
  const shown = (first.text.match(/<li class="activity /g) ?? []).length;
  if (first.status !== 200 || shown !== NOTES) throw new Error(`${page} -> ${first.status}, ${shown} activities shown`);
  const assoc = await http.json("GET", v4, { token: tenant.oauth });
  if (assoc.status !== 200 || assoc.json.results.length !== NOTES) throw new Error(`${v4} -> ${assoc.status} ${assoc.text.slice(0, 200)}`);

  const out = [];
  for (const concurrency of [1, 10]) {
    const rounds = concurrency === 1 ? sizes.readsC1 : Math.ceil(sizes.readsC10 / concurrency);
    const count = rounds * concurrency;
    const runs = Object.fromEntries(measured.map((r) => [r.key, []]));
    if (concurrency === 1) await interleaved(measured, WARMUP, http, tenant);
    else await inWaves(measured, WARMUP, concurrency, http, tenant);
    for (let run = 1; run <= sizes.runs; run++) {
      step(`activities c=${concurrency} run ${run}/${sizes.runs}: ${rounds} rounds, each endpoint ${concurrency === 1 ? "once" : `one wave of ${concurrency}`} per round in a random order`);
      const results =
        concurrency === 1
          ? await interleaved(measured, rounds, http, tenant, (i) => status(`round ${i}/${rounds}`))
          : await inWaves(measured, rounds, concurrency, http, tenant, (i) => status(`round ${i}/${rounds}`));
      for (const r of measured) {
        const res = results[r.key];
        if (res.statuses[r.expect ?? 200] !== count) ctx.fail(`activities ${r.key} c=${concurrency}: statuses ${JSON.stringify(res.statuses)}`);
        ctx.count5xx(res.serverErrors);
        runs[r.key].push(res);
      }
    }
    const aa = aaBand(runs[control.id].map((x, i) => x.rps / runs.healthz[i].rps));
    for (const r of routes) {
      const f = floors.find((x) => x.id === r.floor);
      const asRoute = runs[f.id].map((_, i) => floorAsRoute(f, (id) => 1000 / runs[id][i].rps));
      const perRun = runs[r.id].map((x, i) => x.rps / asRoute[i].rps);
      const ratio = medianOf(perRun.map((q) => ({ q })), ["q"]).q;
      const target = FLOOR_TARGET[concurrency];
      const fv = medianOf(asRoute, ["rps", "ownMs"]);
      out.push({
        // Printed, charted and kept like figure 3's comparisons with their floors.
        id: `read_vsfloor_activities_${r.id}_c${concurrency}`,
        figure: `Activities: ${r.name} vs its floor, c=${concurrency}`,
        value: medianOf(runs[r.id], RATE_KEYS),
        baseline: { name: `${f.name.replace(/, replayed raw \(bench Worker\)/, ", as a route")}: own ${fv.ownMs.toFixed(2)} ms/request`, rps: fv.rps, ownMs: fv.ownMs, healthzRps: medianOf(runs.healthz, ["rps"]).rps },
        ratio,
        target: { ratio: target },
        met: ratio >= target,
        aa,
        runs: { service: runs[r.id], floor: runs[f.id], benchNoop: runs[benchNoop.id], healthz: runs.healthz },
      });
    }
  }

  // Where a request's time goes (informative): as deployed, without the rate-limiter call, and without any
  // I/O (D1 answers replayed), inside workerd (bench/worker/index.ts, profile-request).
  for (const r of routes) {
    const res = await bench.json("POST", "/__bench/profile-request", { token: r.token ?? tenant.oauth, headers: r.headers, body: { path: r.path, n: 50 } });
    if (res.status !== 200) throw new Error(`profile ${r.path} -> ${res.status} ${res.text}`);
    step(`  ${r.id}: deployed ${res.json.deployed.toFixed(2)} ms, without the rate-limiter call ${res.json.noRateLimiterCall.toFixed(2)} ms, without any I/O ${res.json.noIo.toFixed(2)} ms`);
  }

  step("activities: D1 statements and rows read per request (counting pass through the bench Worker)");
  for (const r of routes) {
    const res = await bench.json("GET", `/__bench/counted${r.path}`, { token: r.token ?? tenant.oauth, headers: r.headers });
    if (res.status !== 200) throw new Error(`counted ${r.path} -> ${res.status} ${res.text}`);
    const f = floors.find((x) => x.id === r.floor);
    const fl = await bench.request("GET", f.path, { token: f.token ?? tenant.oauth, headers: f.headers });
    const c = res.json.d1;
    const limit = 2 * c.rowsReturned + 1;
    out.push({
      id: `d1_activities_${r.id}`,
      figure: `D1 per request: ${r.name}`,
      route: `GET ${r.path.replace(/\/\d+(\/|$)/, "/{id}$1")}`,
      statements: c.statements,
      roundTrips: c.roundTrips,
      rowsRead: c.rowsRead,
      rowsReturned: c.rowsReturned,
      itemsReturned: NOTES,
      target: { rowsRead: `≤ 2 × rows returned + 1 = ${limit}; the floor replays ${fl.headers["x-floor-statements"]} statements in ${fl.headers["x-floor-round-trips"]} round trips` },
      met: c.rowsRead <= limit,
      floor: { statements: Number(fl.headers["x-floor-statements"]), roundTrips: Number(fl.headers["x-floor-round-trips"]) },
      log: c.log,
    });
  }
  return out;
}
