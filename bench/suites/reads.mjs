/**
 * Figure 3 — reads: the v1 contact list (count=100), a sync status, a blog post by id, each against the
 * no-op route GET /healthz of the same Worker (same router, no D1, no Durable Object), at concurrency 1
 * and 10. At c=1 every endpoint is asked once per round, in a new random order each round, and rated by
 * its median latency (`interleaved`); at c=10 every endpoint is sent one wave of ten requests per round,
 * in a new random order each round, and rated by requests over the time of its waves (`inWaves`). Either
 * way drift hits them alike.
 *
 * D1 work per request is measured once per route through the bench Worker, which runs the app's own fetch
 * handler with a D1 client that reads `meta` of every statement from the D1 simulator (bench/worker/).
 * The check is rows_read ≤ 2 × rows_returned + 1, where rows_returned is what D1 handed back to the Worker.
 *
 * Floors run in the same rounds, on the bench Worker: each is one route's own D1 read answered as raw JSON
 * and nothing else (one primary-key read for the single-record reads; the list query, every column; the
 * v1 list's page and its merges, every column; the v3 search's own statement). Each route is held to its
 * floor (FLOOR_TARGET).
 * Requests to the bench Worker skip the static-assets front the production Worker sits behind (about
 * 0.3–0.5 ms per request here; bench/lib/cluster.mjs), so a floor's raw rate is not comparable with
 * /healthz. Each floor is reported as if it were a route of the production Worker: its own time per
 * request (floor minus the bench Worker's no-op, same run) added to /healthz's time per request. A POST
 * floor (the search's) is sent the route's own request and charged what the front charges it
 * (floorAsRoute).
 */
import fs from "node:fs";
import path from "node:path";
import { BUILD_DIR } from "../lib/build.mjs";
import { cpuNow, cpuSince } from "../lib/cpu.mjs";
import { aaBand, medianOf, percentile } from "../lib/stats.mjs";
import { BRIDGE } from "../lib/seed.mjs";
import { status, step } from "../lib/progress.mjs";

export async function seedReads(ctx) {
  const { http, tenant, sizes } = ctx;
  step(`reads: seeding ${sizes.contacts} contacts, a synced product, a blog post`);
  let contactId;
  for (let i = 0; i < sizes.contacts; i++) {
    const res = await http.json("POST", "/crm/v3/objects/contacts", {
      token: tenant.oauth,
      body: { properties: { email: `c${i}@bench.example.com`, firstname: `First${i}`, lastname: `Last${i}`, company: "Bench Co" } },
    });
    if (res.status !== 201) throw new Error(`create contact -> ${res.status} ${res.text}`);
    contactId ??= Number(res.json.id);
    status(`contact ${i + 1}/${sizes.contacts}`);
  }
  const put = await http.request("PUT", `${BRIDGE}/sync/messages`, {
    token: tenant.oauth,
    body: { storeId: "reads", objectType: "PRODUCT", messages: [{ externalObjectId: "r-1", action: "UPSERT", changedAt: 1, properties: { title: "Read me", price: "1" } }] },
  });
  if (put.status !== 204) throw new Error(`sync -> ${put.status} ${put.text}`);
  const post = await http.json("POST", "/content/api/v2/blog-posts", { token: tenant.oauth, body: { name: "Bench post", post_body: "<p>Hello from the bench</p>" } });
  if (post.status !== 201) throw new Error(`create post -> ${post.status} ${post.text}`);
  for (let i = 0; ; i++) {
    const s = await http.json("GET", `${BRIDGE}/sync/status/reads/PRODUCT/r-1`, { token: tenant.oauth });
    if (s.status === 200 && s.json.lastProcessedAt) break;
    if (i > 200) throw new Error(`status of the read object never became processed: ${s.status} ${s.text}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { postId: post.json.id, contactId };
}

/** What the v3 search is measured with: 100 of the 120 seeded contacts match, the total counts them all. */
export const SEARCH_BODY = { filterGroups: [{ filters: [{ propertyName: "company", operator: "EQ", value: "Bench Co" }] }], limit: 100 };

/**
 * The read routes, each with the floor it is held to (`floor`): a single-record read against one D1
 * primary-key read, a list against its own query. `method`/`body` default to GET without a body.
 */
const routesOf = (seeded) => [
  { id: "healthz", name: "GET /healthz (no-op)", path: "/healthz", items: () => 0 },
  { id: "contacts", name: "v1 contact list, count=100", path: "/contacts/v1/lists/all/contacts/all?count=100", items: (j) => j.contacts.length, target: 0.5, floor: "floor_v1page" },
  { id: "status", name: "sync status", path: `${BRIDGE}/sync/status/reads/PRODUCT/r-1`, items: () => 1, floor: "floor_row" },
  { id: "post", name: "blog post by id", path: `/content/api/v2/blog-posts/${seeded.postId}`, items: () => 1, floor: "floor_row" },
  { id: "profile", name: "v1 contact profile by vid", path: `/contacts/v1/contact/vid/${seeded.contactId}/profile`, items: () => 1, floor: "floor_row" },
  { id: "v3get", name: "CRM v3 contact by id", path: `/crm/v3/objects/contacts/${seeded.contactId}`, items: () => 1, floor: "floor_row" },
  { id: "v3list", name: "CRM v3 contact list, limit=100", path: "/crm/v3/objects/contacts?limit=100", items: (j) => j.results.length, floor: "floor_page" },
  { id: "v3search", name: "CRM v3 contact search, limit=100", method: "POST", path: "/crm/v3/objects/contacts/search", body: SEARCH_BODY, items: (j) => j.results.length, floor: "floor_search" },
];

/** Unmeasured rounds before the first run (c=1: requests; c=10: waves), so no endpoint's first requests pay a cold path. */
export const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);

/** A request's method, path and options as the client takes them. */
const requestOf = (r, tenant) => [r.method ?? "GET", r.path, { token: r.token ?? tenant.oauth, body: r.body, headers: r.headers }];

/**
 * Concurrency 10: rounds of waves, each round sending every endpoint one wave (`concurrency` requests at
 * once) in a new random order, so every endpoint meets the same neighbours and the same drift, wave by
 * wave, as at c=1 request by request. An endpoint's rate is its requests over the summed time of its waves;
 * its workerd CPU per request is that of its own cluster's workerd during its waves (10 ms ticks, summed
 * over the run). Only one wave is in flight at a time: with the sharded cluster beside the main one, their
 * two processes never serve at once, and what one leaves running after a wave (log lines, usage data
 * points) falls on a random neighbour, route or floor alike.
 */
export async function inWaves(measured, rounds, concurrency, http, tenant, onRound) {
  const t = tally(measured, http, tenant);
  const spentMs = Object.fromEntries(measured.map((r) => [r.key, 0]));
  const cpuMs = Object.fromEntries(measured.map((r) => [r.key, 0]));
  let cpuKnown = true;
  for (let i = 0; i < rounds; i++) {
    for (const r of shuffled(measured)) {
      const before = cpuNow(r.workerd);
      const started = performance.now();
      await Promise.all(Array.from({ length: concurrency }, () => t.send(r)));
      spentMs[r.key] += performance.now() - started;
      const cpu = cpuSince(before).workerdMs;
      if (cpu === null) cpuKnown = false;
      else cpuMs[r.key] += cpu;
    }
    onRound?.(i + 1);
  }
  return Object.fromEntries(
    measured.map((r) => {
      const l = t.lat[r.key];
      const sent = rounds * concurrency;
      return [
        r.key,
        {
          rps: (sent * 1000) / spentMs[r.key],
          p50: percentile(l, 50),
          p99: percentile(l, 99),
          statuses: t.statuses[r.key],
          failures: t.failures[r.key],
          serverErrors: t.serverErrors(r.key),
          // The workerd process's CPU per request (µs; bench/lib/cpu.mjs), null where /proc is not there.
          workerdUs: cpuKnown ? (cpuMs[r.key] * 1000) / sent : null,
        },
      ];
    }),
  );
}

/**
 * Each endpoint's latencies, status counts and failed requests, kept as `send` sends them; a request that
 * fails (no response) is counted, never thrown, and is a server error like a 5xx.
 */
function tally(measured, http, tenant) {
  const lat = Object.fromEntries(measured.map((r) => [r.key, []]));
  const statuses = Object.fromEntries(measured.map((r) => [r.key, {}]));
  const failures = Object.fromEntries(measured.map((r) => [r.key, 0]));
  async function send(r) {
    const [method, p, opts] = requestOf(r, tenant);
    try {
      const res = await (r.client ?? http).request(method, p, opts);
      lat[r.key].push(res.ms);
      statuses[r.key][res.status] = (statuses[r.key][res.status] ?? 0) + 1;
    } catch {
      failures[r.key]++;
    }
  }
  const serverErrors = (key) => Object.entries(statuses[key]).filter(([c]) => Number(c) >= 500).reduce((n, [, v]) => n + v, 0) + failures[key];
  return { lat, statuses, failures, send, serverErrors };
}

/** The endpoints in a fresh random order (Fisher–Yates). */
function shuffled(list) {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * Concurrency 1: `rounds` rounds, each sending one request to every endpoint, in a new random order per
 * round. Every endpoint then meets the same neighbours and the same drift, request by request; its rate
 * is taken from its median latency (1000 / p50), which a few slow requests of the shared cores do not move.
 * Its A/A band (/healthz against itself) is a few hundredths wide, where turns (each route a block of its
 * requests) rated by requests over time moved by up to a third at c=1.
 * Requests/s from the mean latency stay beside it (`meanRps`). The workerd CPU of one request cannot be
 * told apart from its neighbours', so c=1 has no CPU rows.
 */
export async function interleaved(measured, rounds, http, tenant, onRound) {
  const t = tally(measured, http, tenant);
  for (let i = 0; i < rounds; i++) {
    for (const r of shuffled(measured)) await t.send(r);
    onRound?.(i + 1);
  }
  return Object.fromEntries(
    measured.map((r) => {
      const l = t.lat[r.key];
      const p50 = percentile(l, 50);
      const meanRps = (l.length * 1000) / l.reduce((sum, x) => sum + x, 0);
      return [r.key, { rps: 1000 / p50, meanRps, p50, p99: percentile(l, 99), statuses: t.statuses[r.key], failures: t.failures[r.key], serverErrors: t.serverErrors(r.key), workerdUs: null }];
    }),
  );
}

/** What a route's runs are summarised by; `meanRps` only at c=1, where `rps` comes from the median latency. */
export const RATE_KEYS = ["rps", "meanRps", "p50", "p99"];

/** Targets of a route's rate against its floor's (service ÷ floor). */
export const FLOOR_TARGET = { 1: 0.9, 10: 0.8 };

/**
 * `ctx.also`: other configurations (the sharded one) whose routes take part in the same rounds, each
 * against its own /healthz: `{ id, label, http, tenant, seeded }`. Floors and the D1 counting pass are
 * properties of D1 and the main configuration's (they read its `DB`), measured once.
 */
export async function reads(ctx, seeded) {
  const { http, bench, tenant, sizes } = ctx;
  const floors = [
    { id: "floor_row", name: "floor: one D1 primary-key read, raw (bench Worker)", path: `/__bench/floor/d1-row?id=${seeded.contactId}`, client: bench },
    { id: "floor_page", name: "floor: the list's D1 query (101 rows), raw JSON (bench Worker)", path: `/__bench/floor/d1-page?portal=${tenant.portalId}`, client: bench },
    { id: "floor_v1page", name: "floor: the v1 list's page and its merges, every column (101 rows), raw JSON (bench Worker)", path: `/__bench/floor/d1-v1page?portal=${tenant.portalId}`, client: bench },
    // Sent the route's own request (a POST of SEARCH_BODY), from which it takes its filter value.
    { id: "floor_search", name: "floor: the search's D1 query (100 rows and the count of its matches), raw JSON (bench Worker)", method: "POST", path: `/__bench/floor/d1-search?portal=${tenant.portalId}`, body: SEARCH_BODY, client: bench },
  ];
  const benchNoop = { id: "bench_noop", name: "bench Worker no-op", path: "/__bench/noop", client: bench, expect: 204 };
  // What a POST of SEARCH_BODY costs over a GET: once reaching the bench Worker directly (its no-op), once
  // through the production front, measured as the same refusal (401, no credential) of a GET and a POST
  // route. A POST floor is put behind the front with the latter (floorAsRoute).
  const postProbes = [
    { id: "bench_noop_post", name: "bench Worker no-op, POST of the search body", method: "POST", path: "/__bench/noop", body: SEARCH_BODY, client: bench, expect: 204 },
    { id: "front_get", name: "GET /crm/v3/objects/contacts without a credential (401)", path: "/crm/v3/objects/contacts", token: "", expect: 401 },
    { id: "front_post", name: "POST /crm/v3/objects/contacts/search of the search body without a credential (401)", method: "POST", path: "/crm/v3/objects/contacts/search", body: SEARCH_BODY, token: "", expect: 401 },
  ];
  const routes = routesOf(seeded);
  const targets = [{ id: "", label: "", http, tenant, routes, workerd: ctx.workerd }, ...(ctx.also ?? []).map((a) => ({ ...a, routes: routesOf(a.seeded) }))];
  const key = (t, r) => `${t.id ? `${t.id}_` : ""}${r.id}`;
  // Route by route, each configuration's copy right after the other's, so drift hits the pair alike.
  const all = routes.flatMap((_, i) => targets.map((t) => ({ ...t.routes[i], key: key(t, t.routes[i]), client: t.http, token: t.tenant.oauth, workerd: t.workerd })));
  const out = [];
  for (const concurrency of [1, 10]) {
    // Requests per endpoint and run: at c=1 one per round, at c=10 a wave of ten per round.
    const rounds = concurrency === 1 ? sizes.readsC1 : Math.ceil(sizes.readsC10 / concurrency);
    const count = rounds * concurrency;
    // The A/A control: /healthz a second time in each round; its ratio to the first is noise alone.
    const control = { id: "healthz_aa", name: "GET /healthz again (A/A control)", path: "/healthz", key: "healthz_aa" };
    // Floors, probes and the control run on the main cluster (its workerd).
    const main = { workerd: ctx.workerd };
    const measured = [...all, ...floors.map((f) => ({ ...f, ...main, key: f.id })), { ...benchNoop, ...main, key: benchNoop.id }, ...postProbes.map((p) => ({ ...p, ...main, key: p.id })), { ...control, ...main }];
    const runs = Object.fromEntries(measured.map((r) => [r.key, []]));
    // Unmeasured rounds first: the first requests to each Worker and statement are slower than the rest.
    if (concurrency === 1) await interleaved(measured, WARMUP, http, tenant);
    else await inWaves(measured, WARMUP, concurrency, http, tenant);
    for (let run = 1; run <= sizes.runs; run++) {
      const others = targets.length > 1 ? ` (${targets.map((t) => t.label || "main").join(", ")} side by side)` : "";
      let results;
      if (concurrency === 1) {
        step(`reads c=1 run ${run}/${sizes.runs}: ${rounds} rounds, each endpoint once per round in a random order${others}`);
        results = await interleaved(measured, rounds, http, tenant, (i) => status(`round ${i}/${rounds}`));
      } else {
        step(`reads c=${concurrency} run ${run}/${sizes.runs}: ${rounds} rounds, each endpoint one wave of ${concurrency} requests per round in a random order${others}`);
        results = await inWaves(measured, rounds, concurrency, http, tenant, (i) => status(`round ${i}/${rounds}`));
      }
      for (const r of measured) {
        const res = results[r.key];
        const okStatus = r.expect ?? (r.id === "healthz" || r.id === control.id ? 204 : 200); // floors answer 200 too
        if (res.statuses[okStatus] !== count) ctx.fail(`reads ${r.key} c=${concurrency}: statuses ${JSON.stringify(res.statuses)}`);
        ctx.count5xx(res.serverErrors);
        runs[r.key].push(res);
      }
    }
    const aa = aaBand(runs[control.id].map((x, i) => x.rps / runs.healthz[i].rps));
    for (const t of targets) {
      const baseRuns = runs[key(t, t.routes[0])];
      const base = medianOf(baseRuns, RATE_KEYS);
      for (const r of t.routes.slice(1)) {
        const v = medianOf(runs[key(t, r)], RATE_KEYS);
        const ratio = v.rps / base.rps;
        out.push({
          id: `${t.id ? `${t.id}_` : ""}read_${r.id}_c${concurrency}`,
          figure: `${t.label ? `${t.label}: ` : ""}Read: ${r.name}, c=${concurrency}`,
          value: v,
          baseline: { name: "GET /healthz", ...base },
          ratio,
          ...(r.target ? { target: { ratio: r.target }, met: ratio >= r.target, aa } : {}),
          runs: { service: runs[key(t, r)], baseline: baseRuns },
        });
      }
    }
    const floorRps = {};
    for (const f of floors) {
      const asRoute = runs[f.id].map((_, i) => floorAsRoute(f, (id) => 1000 / runs[id][i].rps));
      const v = medianOf(asRoute, ["rps", "ownMs", "ratio"]);
      const measuredRps = medianOf(runs[f.id], ["rps"]).rps;
      const noopRps = medianOf(runs[benchNoop.id], ["rps"]).rps;
      const base = medianOf(runs.healthz, RATE_KEYS);
      floorRps[f.id] = { rps: v.rps, perRun: asRoute.map((x) => x.rps), name: f.name };
      out.push({
        id: `read_${f.id}_c${concurrency}`,
        figure: `Read: ${f.name}, c=${concurrency}`,
        value: { rps: v.rps, ownMs: v.ownMs, measuredRps, benchNoopRps: noopRps, ...(f.method === "POST" ? { postOverGetMs: medianOf(asRoute, ["postMs"]).postMs } : {}) },
        baseline: { name: "GET /healthz", ...base },
        ratio: v.ratio,
        runs: { service: runs[f.id], benchNoop: runs[benchNoop.id], baseline: runs.healthz, ...(f.method === "POST" ? Object.fromEntries(postProbes.map((p) => [p.id, runs[p.id]])) : {}) },
      });
    }
    // Each route against its own floor (main configuration): the median of the per-run quotients.
    for (const r of routes.filter((x) => x.floor)) {
      const f = floorRps[r.floor];
      const floorName = f.name.replace(/, raw( JSON)? \(bench Worker\)/, " as a route");
      const service = runs[r.id];
      const perRun = service.map((run, i) => run.rps / f.perRun[i]);
      const ratio = medianOf(perRun.map((q) => ({ q })), ["q"]).q;
      const target = FLOOR_TARGET[concurrency];
      out.push({
        id: `read_vsfloor_${r.id}_c${concurrency}`,
        figure: `Read vs its floor: ${r.name}, c=${concurrency}`,
        value: medianOf(service, RATE_KEYS),
        baseline: { name: floorName, rps: f.rps },
        ratio,
        target: { ratio: target },
        met: ratio >= target,
        aa,
      });
      // The same comparison in the workerd process's CPU per request: the floor as a route (/healthz's CPU
      // plus the floor's own, over the bench no-op's) against the route's. Where it agrees with the rates,
      // the gap is work done in workerd. Only workerd's: the bench process's CPU during a wave also holds
      // work left from the wave before (Miniflare reads the Worker's log lines as they come). Informative:
      // the targets are the rates above.
      const perRunCpu = service.map((run, i) =>
        run.workerdUs === null ? null : { floorUs: floorAsRoute(floors.find((f) => f.id === r.floor), (id) => runs[id][i].workerdUs).sumMs, serviceUs: run.workerdUs },
      );
      if (perRunCpu.every((x) => x !== null)) {
        const m = medianOf(perRunCpu.map((x) => ({ ...x, q: x.floorUs / x.serviceUs })), ["q", "floorUs", "serviceUs"]);
        out.push({
          id: `read_cpu_${r.id}_c${concurrency}`,
          figure: `Read vs its floor in workerd CPU per request: ${r.name}, c=${concurrency}`,
          value: { workerdUs: m.serviceUs },
          baseline: { name: floorName, workerdUs: m.floorUs },
          ratio: m.q,
        });
      }
    }
  }

  step("reads: D1 statements and rows read per request (counting pass through the bench Worker)");
  const d1 = [];
  for (const r of routes) {
    let last;
    for (let i = 0; i < 3; i++) {
      const res = await bench.json(r.method ?? "GET", `/__bench/counted${r.path}`, { token: tenant.oauth, body: r.body });
      if (res.status !== 200) throw new Error(`counted ${r.path} -> ${res.status} ${res.text}`);
      last = res.json;
    }
    const body = last.body ? JSON.parse(last.body) : null;
    const items = r.items(body);
    const c = last.d1;
    // A route held to a floor that reads more than the general bound (the search: its exact total counts
    // every match) is held to the rows its floor's query reads instead.
    const floorRows = r.floor ? await floorRowsRead(bench, floors.find((f) => f.id === r.floor)) : null;
    const general = 2 * c.rowsReturned + 1;
    const limit = floorRows !== null && floorRows > general ? floorRows : general;
    const rule = limit === general ? `≤ 2 × rows returned + 1 = ${limit}` : `≤ the rows its floor's query reads = ${limit} (more than 2 × rows returned + 1 = ${general})`;
    d1.push({
      id: `d1_${r.id}`,
      figure: `D1 per request: ${r.name}`,
      route: `${r.method ?? "GET"} ${r.path.replace(/\/\d+(\/|$)/, "/{id}$1").replace(/r-1$/, "{externalObjectId}")}`,
      statements: c.statements,
      roundTrips: c.roundTrips,
      rowsRead: c.rowsRead,
      rowsReturned: c.rowsReturned,
      itemsReturned: items,
      target: { rowsRead: rule },
      met: c.rowsRead <= limit,
      log: c.log,
    });
  }
  const concurrency = await concurrencyProbe(ctx, routes, seeded);
  return { throughput: out, d1, concurrency };
}

/**
 * A floor as if it were a route of the production Worker, from one run's ms per request (`ms(id)`; the
 * same sum serves the workerd CPU per request, `sumMs`): its own
 * time (the floor over the bench no-op of the same method and body) added to what the front costs that
 * request: /healthz's time, and for a POST what a POST of the body costs there over a GET (`postMs`, the
 * two refusals' difference). The route pays the latter for receiving its body, which the bench no-op's
 * POST only partly shows: reaching the bench Worker directly, the body cost about 0.15 ms; through the
 * front, about 0.3 ms.
 */
export function floorAsRoute(f, ms) {
  const post = f.method === "POST";
  const ownMs = ms(f.id) - ms(post ? "bench_noop_post" : "bench_noop");
  const postMs = post ? ms("front_post") - ms("front_get") : 0;
  const sumMs = ms("healthz") + postMs + ownMs;
  return { rps: 1000 / sumMs, sumMs, ownMs, postMs, ratio: ms("healthz") / sumMs };
}

/** The rows a floor's query reads, when the floor reports them (x-d1-rows-read); null otherwise. */
async function floorRowsRead(bench, f) {
  const res = await bench.request(f.method ?? "GET", f.path, { body: f.body });
  const n = res.headers?.["x-d1-rows-read"];
  return n === undefined ? null : Number(n);
}

/**
 * What grows with concurrency (bench/worker/concurrency.ts): a few routes served inside the bench Worker
 * at c=1 and c=10, with one per-request cost taken away at a time. Written to bench/.build/reads-concurrency.json
 * and summarised on the progress output; not a figure of the table.
 */
async function concurrencyProbe(ctx, routes, seeded) {
  const { bench, tenant, sizes } = ctx;
  const out = {};
  for (const r of routes.filter((x) => ["contacts", "status", "post", "v3get"].includes(x.id))) {
    step(`reads: what grows with concurrency, ${r.name} (in-isolate, c=1 and c=10, set-ups in turns)`);
    const res = await bench.json("POST", "/__bench/concurrency", {
      token: tenant.oauth,
      body: { method: r.method, path: r.path, body: r.body, n: Math.min(200, sizes.readsC1), rounds: Math.min(3, sizes.runs), floorId: seeded.contactId },
    });
    if (res.status !== 200) throw new Error(`concurrency probe ${r.path} -> ${res.status} ${res.text}`);
    out[r.id] = res.json;
    const line = Object.entries(res.json)
      .filter(([, v]) => typeof v === "object")
      .map(([k, v]) => `${k} ${v.msC1.toFixed(2)}→${v.msC10.toFixed(2)} ms (×${v.growth.toFixed(2)})${v.doCallsPer100C10 === undefined ? "" : ` DO calls/100 ${v.doCallsPer100C1}/${v.doCallsPer100C10}`}`)
      .join("; ");
    step(`  ${r.id}: ${line}`);
  }
  fs.writeFileSync(path.join(BUILD_DIR, "reads-concurrency.json"), `${JSON.stringify(out, null, 2)}\n`);
  return out;
}
