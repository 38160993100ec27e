/**
 * Routes measured against their own D1 floors (figures 10 and 11): each route beside its statements recorded
 * from the route and replayed raw (bench/worker/replay-floor.ts), with figure 3's rounds, A/A control and
 * targets (suites/reads.mjs); then where a request's time goes (informative) and its D1 statements and rows
 * read, counted through the bench Worker.
 *
 * A route is `{ id, name, path, method?, body?, token?, headers?, floor, items, rowsPerItem? }`; a floor
 * `{ id, name, path, method?, body?, client, token?, headers? }`. `prefix` names the figure's ids
 * (`read_vsfloor_<prefix>_<route>_c<n>`, `d1_<prefix>_<route>`) and `label` its rows.
 */
import { aaBand, medianOf } from "../lib/stats.mjs";
import { status, step } from "../lib/progress.mjs";
import { FLOOR_TARGET, floorAsRoute, inWaves, interleaved, RATE_KEYS, WARMUP } from "./reads.mjs";

export async function againstFloors(ctx, { prefix, label, routes, floors }) {
  const { http, bench, tenant, sizes } = ctx;
  const out = [];
  const post = routes.find((r) => r.method === "POST");
  const healthz = { id: "healthz", name: "GET /healthz", path: "/healthz", expect: 204 };
  const control = { id: "healthz_aa", name: "GET /healthz again (A/A control)", path: "/healthz", expect: 204 };
  const benchNoop = { id: "bench_noop", name: "bench Worker no-op", path: "/__bench/noop", client: bench, expect: 204 };
  // A POST floor is rated with what a POST of its body costs (floorAsRoute): the probes of suites/reads.mjs.
  const postProbes = post
    ? [
        { id: "bench_noop_post", name: "bench Worker no-op, POST of the route's body", method: "POST", path: "/__bench/noop", body: post.body, client: bench, expect: 204 },
        { id: "front_get", name: "GET /crm/v3/objects/contacts without a credential (401)", path: "/crm/v3/objects/contacts", token: "", expect: 401 },
        { id: "front_post", name: `POST ${post.path} of its body without a credential (401)`, method: "POST", path: post.path, body: post.body, token: "", expect: 401 },
      ]
    : [];
  const measured = [healthz, ...routes, ...floors, benchNoop, ...postProbes, control].map((r) => ({ ...r, key: r.id, workerd: ctx.workerd }));
  for (const concurrency of [1, 10]) {
    const rounds = concurrency === 1 ? sizes.readsC1 : Math.ceil(sizes.readsC10 / concurrency);
    const count = rounds * concurrency;
    const runs = Object.fromEntries(measured.map((r) => [r.key, []]));
    if (concurrency === 1) await interleaved(measured, WARMUP, http, tenant);
    else await inWaves(measured, WARMUP, concurrency, http, tenant);
    for (let run = 1; run <= sizes.runs; run++) {
      step(`${prefix} c=${concurrency} run ${run}/${sizes.runs}: ${rounds} rounds, each endpoint ${concurrency === 1 ? "once" : `one wave of ${concurrency}`} per round in a random order`);
      const results =
        concurrency === 1
          ? await interleaved(measured, rounds, http, tenant, (i) => status(`round ${i}/${rounds}`))
          : await inWaves(measured, rounds, concurrency, http, tenant, (i) => status(`round ${i}/${rounds}`));
      for (const r of measured) {
        const res = results[r.key];
        if (res.statuses[r.expect ?? 200] !== count) ctx.fail(`${prefix} ${r.key} c=${concurrency}: statuses ${JSON.stringify(res.statuses)}`);
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
        id: `read_vsfloor_${prefix}_${r.id}_c${concurrency}`,
        figure: `${label}: ${r.name} vs its floor, c=${concurrency}`,
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
    const res = await bench.json("POST", "/__bench/profile-request", { token: r.token ?? tenant.oauth, headers: r.headers, body: { method: r.method, path: r.path, body: r.body, n: 50 } });
    if (res.status !== 200) throw new Error(`profile ${r.path} -> ${res.status} ${res.text}`);
    step(`  ${r.id}: deployed ${res.json.deployed.toFixed(2)} ms, without the rate-limiter call ${res.json.noRateLimiterCall.toFixed(2)} ms, without any I/O ${res.json.noIo.toFixed(2)} ms`);
  }

  step(`${prefix}: D1 statements and rows read per request (counting pass through the bench Worker)`);
  for (const r of routes) {
    const res = await bench.json(r.method ?? "GET", `/__bench/counted${r.path}`, { token: r.token ?? tenant.oauth, headers: r.headers, body: r.body });
    if (res.status !== 200) throw new Error(`counted ${r.path} -> ${res.status} ${res.text}`);
    const f = floors.find((x) => x.id === r.floor);
    const fl = await bench.request(f.method ?? "GET", f.path, { token: f.token ?? tenant.oauth, headers: f.headers, body: f.body });
    const c = res.json.d1;
    // A route may set its own bound per item (a join visits several rows per answer row); otherwise what a
    // read of the rows it returns costs, with one row passed over for each.
    const limit = r.rowsPerItem ? r.rowsPerItem * r.items : 2 * c.rowsReturned + 1;
    const bound = r.rowsPerItem ? `≤ ${r.rowsPerItem} × items returned = ${limit}` : `≤ 2 × rows returned + 1 = ${limit}`;
    out.push({
      id: `d1_${prefix}_${r.id}`,
      figure: `D1 per request: ${r.name}`,
      route: `${r.method ?? "GET"} ${r.path.replace(/\/\d+(\/|$)/, "/{id}$1")}`,
      statements: c.statements,
      roundTrips: c.roundTrips,
      rowsRead: c.rowsRead,
      rowsReturned: c.rowsReturned,
      itemsReturned: r.items,
      target: { rowsRead: `${bound}; the floor replays ${fl.headers["x-floor-statements"]} statements in ${fl.headers["x-floor-round-trips"]} round trips` },
      met: c.rowsRead <= limit,
      floor: { statements: Number(fl.headers["x-floor-statements"]), roundTrips: Number(fl.headers["x-floor-round-trips"]) },
      log: c.log,
    });
  }
  return out;
}
