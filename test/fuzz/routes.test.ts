/**
 * Property-based bad-input suite (issue 9): for every route of the route table, requests generated from
 * its own zod schemas (near-valid values with one part broken) must never produce a 5xx, must answer
 * errors in the one envelope, and must write nothing when rejected. Seed and run count come from
 * FUZZ_SEED / FUZZ_RUNS (printed); CI runs 200 cases per endpoint.
 */
import { env } from "cloudflare:test";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { RouteDef } from "../../src/lib/route";
import { allRoutes } from "../../src/routes";
import { ADMIN, BASE, send, tenant, type Tenant } from "../helpers/api";
import { mutated, schemaArbitrary, toQuery } from "./arbitrary";

const RUNS = Number(env.FUZZ_RUNS || 200);
const SEED = Number(env.FUZZ_SEED || Date.now() % 2_147_483_647);
console.log(`fuzz: ${RUNS} cases per endpoint, seed ${SEED} (rerun with FUZZ_SEED=${SEED})`);

let snapshotSql: string | undefined;

/** Row counts of every table plus the newest record update: a rejected request must leave it unchanged. */
async function snapshot(): Promise<string> {
  if (!snapshotSql) {
    const tables = await env.DB.prepare(
      "select name from sqlite_master where type = 'table' and name not like '\\_%' escape '\\' and name not like 'd1_%' and name != 'sqlite_sequence'",
    ).all<{ name: string }>();
    const counts = tables.results.map((t) => `(select count(*) from "${t.name}")`).join(" || ',' || ");
    snapshotSql = `select ${counts} || ',' || (select coalesce(max(updated_at), 0) from crm_objects) as s`;
  }
  const row = await env.DB.prepare(snapshotSql).first<{ s: string }>();
  return row?.s ?? "";
}

/** encodeURIComponent throws on lone surrogates; the generator produces them on purpose. */
const encode = (v: string) => encodeURIComponent(v.replace(/[\ud800-\udfff]/g, "\ufffd"));

function credentialFor(route: RouteDef, t: Tenant): Record<string, string> {
  const kinds = route.auth.kinds;
  if (kinds.includes("admin")) return { authorization: `Bearer ${ADMIN}` };
  if (kinds.includes("oauth")) return { authorization: `Bearer ${t.oauth}` };
  if (kinds.includes("private_app")) return { authorization: `Bearer ${t.pat}` };
  if (kinds.includes("developer")) return { authorization: `Bearer ${t.developerKey}` };
  return {};
}

const fuzzable = allRoutes.filter((r) => r.body || r.query || r.params);

describe("every route survives generated bad input", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await tenant({ rateLimit: 100_000 });
  });

  it.each(fuzzable.map((r) => [`${r.method} ${r.path}`, r] as const))("%s", async (_name, route) => {
    const params = route.params ? mutated(schemaArbitrary(route.params)) : fc.constant({});
    const query = route.query ? mutated(schemaArbitrary(route.query)) : fc.constant(null);
    const body = route.body ? mutated(schemaArbitrary(route.body)) : fc.constant(undefined);
    let last: string | undefined;
    await fc.assert(
      fc.asyncProperty(params, query, body, async (p, q, b) => {
        const values = (p && typeof p === "object" && !Array.isArray(p) ? p : {}) as Record<string, unknown>;
        const path = route.path.replace(/:([A-Za-z_]+)/g, (_m, name: string) => {
          // Use the tenant's own app id most of the time, so app-scoped routes get past the ownership check.
          if (name === "appId" && typeof values[name] !== "string") return String(t.appId);
          if (name === "portalId" && typeof values[name] !== "string") return String(t.portalId);
          const v = values[name];
          return encode(v === undefined || v === null ? "x" : typeof v === "string" ? v : JSON.stringify(v));
        });
        const qs = q === null ? "" : toQuery(q);
        const headers: Record<string, string> = credentialFor(route, t);
        let payload: string | undefined;
        if (b !== undefined) {
          if (route.bodyFormat === "form") {
            headers["content-type"] = "application/x-www-form-urlencoded";
            payload = toQuery(b);
          } else {
            headers["content-type"] = "application/json";
            payload = JSON.stringify(b);
          }
        }
        const before = (last ??= await snapshot());
        const res = await send(new Request(`${BASE}${path}${qs ? `?${qs}` : ""}`, { method: route.method, headers, body: payload, redirect: "manual" }));
        const text = await res.text();
        expect(res.status, `${route.method} ${path}?${qs} ${payload ?? ""} → ${text}`).toBeLessThan(500);
        if (res.status >= 400) {
          if ((res.headers.get("content-type") ?? "").includes("json")) {
            const err = JSON.parse(text);
            expect(typeof err.message).toBe("string");
            expect(err.correlationId).toBe(res.headers.get("x-service-correlation-id"));
            expect(typeof err.category).toBe("string");
          }
          expect((last = await snapshot()), `rejected ${route.method} ${path} wrote data`).toBe(before);
        } else {
          last = undefined; // an accepted request may write: take a fresh snapshot next time
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true, includeErrorInReport: true },
    );
  }, 300_000);
});
