/**
 * Figure 4 — CRM cards: viewing a contact with 5 cards whose integrator (a Node HTTP server on 127.0.0.1
 * started here) answers each data fetch after 100 ms. Target p50 ≤ 130 ms: the five fetches run in
 * parallel, so a view costs one integrator delay plus the service's own work. Baseline: the same
 * integrator called directly from Node (one 100 ms fetch), measured the same way.
 */
import http from "node:http";
import { client } from "../lib/http.mjs";
import { median, percentile } from "../lib/stats.mjs";
import { status, step } from "../lib/progress.mjs";

export const CARD_COUNT = 5;
export const INTEGRATOR_DELAY_MS = 100;

export function startIntegrator() {
  const server = http.createServer((req, res) => {
    setTimeout(() => {
      const body = JSON.stringify({ results: [{ objectId: 1, title: `Card for ${new URL(req.url, "http://x").searchParams.get("associatedObjectId")}`, properties: [] }] });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    }, INTEGRATOR_DELAY_MS);
  });
  server.keepAliveTimeout = 30_000;
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${server.address().port}` })));
}

/**
 * Five card definitions on the integrator and a contact to view them on; answers the view's path. Once per
 * tenant (the path is kept on it): the suites that view cards share one integrator (`ctx.integrator`).
 */
export async function prepare(c, tenant, integrator) {
  if (tenant.cardView) return tenant.cardView;
  for (let i = 0; i < CARD_COUNT; i++) {
    const res = await c.json("POST", "/extensions/sales-objects/v1/object-types", {
      token: tenant.developerKey,
      body: {
        applicationId: tenant.appId,
        baseUris: [`${integrator.url}/actions`],
        dataFetchUri: `${integrator.url}/cards/${i}`,
        title: `Bench card ${i}`,
        propertyDefinitions: [],
        associatedHubSpotObjectTypes: ["CONTACT"],
        associatedHubSpotObjectTypeProperties: { CONTACT: ["email"] },
      },
    });
    if (res.status !== 200) throw new Error(`define card -> ${res.status} ${res.text}`);
  }
  const contact = await c.json("POST", "/crm/v3/objects/contacts", { token: tenant.oauth, body: { properties: { email: "cards@bench.example.com" } } });
  if (contact.status !== 201) throw new Error(`create contact -> ${contact.status} ${contact.text}`);
  tenant.cardView = `/crm/v3/objects/contacts/${contact.json.id}/cards?userId=${tenant.userId}`;
  return tenant.cardView;
}

/** `ctx.also`: other configurations (the sharded one) viewed in the same runs: `{ id, label, http, tenant }`. */
export async function cards(ctx) {
  const { sizes } = ctx;
  const integrator = ctx.integrator ?? (await startIntegrator());
  const targets = [{ id: "", label: "", http: ctx.http, tenant: ctx.tenant }, ...(ctx.also ?? [])];
  try {
    step(`cards: defining ${CARD_COUNT} record types on a local integrator (${integrator.url}, ${INTEGRATOR_DELAY_MS} ms per answer)`);
    for (const t of targets) t.view = await prepare(t.http, t.tenant, integrator);
    const direct = client(integrator.url);

    const runs = { baseline: [], ...Object.fromEntries(targets.map((t) => [`service${t.id}`, []])) };
    for (let run = 1; run <= sizes.runs; run++) {
      step(`cards run ${run}/${sizes.runs}: ${sizes.cardViews} record views${targets.length > 1 ? " per configuration" : ""}, then ${sizes.cardViews} direct integrator calls`);
      for (const t of run % 2 ? targets : [...targets].reverse()) {
        const views = [];
        for (let i = 0; i < sizes.cardViews; i++) {
          const res = await t.http.json("GET", t.view, { token: t.tenant.oauth });
          if (res.status >= 500) ctx.count5xx(1);
          const okCards = res.status === 200 ? res.json.cards.filter((k) => k.status === "OK").length : 0;
          if (okCards !== CARD_COUNT) ctx.fail(`card view: ${res.status}, ${okCards}/${CARD_COUNT} cards OK: ${res.text.slice(0, 300)}`);
          views.push(res.ms);
          status(`view ${i + 1}/${sizes.cardViews}: ${res.ms.toFixed(0)} ms`);
        }
        runs[`service${t.id}`].push({ p50: percentile(views, 50), p99: percentile(views, 99) });
      }
      const directs = [];
      for (let i = 0; i < sizes.cardViews; i++) {
        const res = await direct.request("GET", "/cards/direct?associatedObjectId=1");
        directs.push(res.ms);
      }
      if (run === sizes.runs) direct.close();
      runs.baseline.push({ p50: percentile(directs, 50), p99: percentile(directs, 99) });
    }
    const base = median(runs.baseline.map((r) => r.p50));
    return targets.map((t) => {
      const service = runs[`service${t.id}`];
      const p50 = median(service.map((r) => r.p50));
      return {
        id: `${t.id ? `${t.id}_` : ""}cards_view`,
        figure: `${t.label ? `${t.label}: ` : ""}Record view, ${CARD_COUNT} cards, integrator ${INTEGRATOR_DELAY_MS} ms`,
        value: { p50, p99: median(service.map((r) => r.p99)) },
        baseline: { name: "one integrator call, direct", p50: base, p99: median(runs.baseline.map((r) => r.p99)) },
        ratio: base / p50,
        target: { p50: 130 },
        met: p50 <= 130,
        runs: { service, baseline: runs.baseline },
      };
    });
  } finally {
    if (!ctx.integrator) await stopIntegrator(integrator);
  }
}

export async function stopIntegrator(integrator) {
  integrator.server.closeAllConnections?.();
  await new Promise((r) => integrator.server.close(r));
}
