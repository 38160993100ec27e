/**
 * Property-based bad-input suite: for every route of the route table, requests generated from
 * its own zod schemas (near-valid values with one part broken) must never produce a 5xx, must answer
 * errors in the one envelope, and must write nothing when rejected. Seed and run count come from
 * FUZZ_SEED / FUZZ_RUNS (printed); CI runs 200 cases per endpoint. Half of the path ids and id fields
 * name the tenant's own existing resources (test/helpers/world.ts), so requests get past the lookups to
 * the checks behind them; deletes run last so they never take those resources away from other routes.
 *
 * The routes are dealt into parts (routes-<n>.test.ts), each a test file of its own, so the parts run in
 * parallel; every part keeps the full case count per route, and deletes last.
 */
import { SHARDS } from "../helpers/shards";
import { env } from "cloudflare:test";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { RouteDef } from "../../src/http/route";
import { allRoutes } from "../../src/routes";
import { ADMIN, BASE, send, tenant, type Tenant } from "../helpers/api";
import { buildWorld, ownParam, type World } from "../helpers/world";
import type { z } from "zod";
import { atLimits, mutated, schemaArbitrary, toQuery } from "./arbitrary";

const RUNS = Number(env.FUZZ_RUNS || 200);
const SEED = Number(env.FUZZ_SEED || Date.now() % 2_147_483_647);
console.log(`fuzz: ${RUNS} cases per endpoint, seed ${SEED} (rerun with FUZZ_SEED=${SEED})`);

let snapshotSql: string | undefined;

/** Row counts of every table plus the newest record update: a rejected request must leave it unchanged. */
async function snapshot(): Promise<string> {
  if (!snapshotSql) {
    const tables = await env.DB.prepare(
      // The webhook delivery log and leases are written by the webhook queue's consumer in the background,
      // never by a request (a change's events go to webhook_outbox, which is compared by its id counter).
      "select name from sqlite_master where type = 'table' and name not like '\\_%' escape '\\' and name not like 'd1_%' and name != 'sqlite_sequence' and name not in ('webhook_deliveries', 'webhook_attempts', 'webhook_inflight')",
    ).all<{ name: string }>();
    // The outbox is emptied in the background too: the webhook queue's consumer deletes the rows it was
    // handed, maybe a second after the request that wrote them. Its id counter only grows with inserts, so it
    // says whether a request wrote events whatever the consumer has deleted since.
    const counts = tables.results
      .map((t) => (t.name === "webhook_outbox" ? `coalesce((select seq from id_sequences where name = 'webhook_outbox'), 0)` : `(select count(*) from "${t.name}")`))
      .join(", ");
    // One flat json_array rather than a chain of ||: each || nests the expression one level deeper, and
    // SQLite refuses expressions deeper than 100, which a few more tables would reach.
    snapshotSql = `select json_array(${counts}, (select coalesce(max(updated_at), 0) from crm_objects)) as s`;
  }
  // The control plane and every shard.
  const rows = await Promise.all([env.DB, ...SHARDS.map((n) => env[n])].map((d1) => d1.prepare(snapshotSql!).first<{ s: string }>()));
  return rows.map((r) => r?.s ?? "").join("|");
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

/** Operator routes that take credentials away: suspending, rotating, setting a password. */
const revokes = (r: RouteDef) => r.auth.kinds.includes("admin") && ((r.method === "PATCH" && r.path === "/admin/v1/accounts/:portalId") || /\/(rotate|rotate-secret|password)$/.test(r.path));
/**
 * Deletes run last (operator ones, and operator routes that take credentials away, at the very end), so they
 * never take away what other routes probe.
 */
const order = (r: RouteDef) => (revokes(r) ? 2 : r.method !== "DELETE" ? 0 : r.auth.kinds.includes("admin") ? 2 : 1);
/**
 * An account's deletion goes on in the background after its 202, and would change the databases under the
 * snapshots of later cases; its bad input is covered by test/accounts/deletion.test.ts instead.
 */
const background = (r: RouteDef) => r.method === "DELETE" && r.path === "/admin/v1/accounts/:portalId";
const fuzzable = allRoutes.filter((r) => (r.body || r.query || r.params) && !background(r)).sort((a, b) => order(a) - order(b));

/** Top-level query and body fields that name one of the tenant's resources. */
function ownField(key: string, w: World): string | number | undefined {
  switch (key) {
    case "appId":
    case "applicationId":
      return w.a.appId;
    case "storeId":
      return w.ids.store;
    case "eventTypeId":
      return w.ids.eventType;
    case "objectId":
      return w.ids.contact;
    case "userId":
      return w.a.userId;
    case "primaryTeamId":
      return w.ids.team;
  }
  return undefined;
}

/** Half of the time an id field gets the tenant's own existing resource, so requests get past the lookups. */
function withOwnIds(value: unknown, coins: number[], w: World): unknown {
  if (!value || typeof value !== "object" || Array.isArray(value)) return value;
  const out: Record<string, unknown> = { ...value };
  Object.keys(out).forEach((k, i) => {
    const own = ownField(k, w);
    if (own !== undefined && (coins[i % coins.length] ?? 0) > 0) out[k] = typeof out[k] === "string" ? String(own) : own;
  });
  return out;
}

/** Registers the suite for every `parts`-th route of the table, starting at `part` (0-based). */
export function fuzzRoutes(part: number, parts: number) {
  describe(`every route survives generated bad input (part ${part + 1} of ${parts})`, () => {
    let w: World;
    let t: Tenant;
    let storeless: Tenant;
    beforeAll(async () => {
      // A tenant that owns one resource of every kind, so path ids can name real resources.
      w = await buildWorld();
      t = w.a;
      storeless = await tenant({ rateLimit: 100_000 });
    }, 60_000);

    const mine = fuzzable.filter((_r, i) => i % parts === part);
    it.each(mine.map((r) => [`${r.method} ${r.path}`, r] as const))("%s", async (_name, route) => {
      // A tenth of the cases put every query and body field at its documented limit or one past it.
      const cases = (schema: z.ZodType) => fc.oneof({ weight: 9, arbitrary: mutated(schemaArbitrary(schema)) }, { weight: 1, arbitrary: atLimits(schema) });
      const params = route.params ? mutated(schemaArbitrary(route.params)) : fc.constant({});
      const query = route.query ? cases(route.query) : fc.constant(null);
      const body = route.body ? cases(route.body) : fc.constant(undefined);
      // Per path parameter and id field: 0 keeps the generated value, 1 uses the tenant's own resource.
      const coins = fc.array(fc.nat(1), { minLength: 8, maxLength: 8 });
      const operator = route.auth.kinds.includes("admin");
      // Accepted sync messages would be applied later by the local queue, and those writes would land in the
      // snapshot of some unrelated rejected request: they are sent by an account without stores (all refused).
      const queued = route.path.endsWith("/sync/messages");
      let last: string | undefined;
      await fc.assert(
        fc.asyncProperty(params, query, body, coins, async (p, q0, b0, coin) => {
          const values = (p && typeof p === "object" && !Array.isArray(p) ? p : {}) as Record<string, unknown>;
          let n = 0;
          const path = route.path.replace(/:([A-Za-z_]+)/g, (_m, name: string) => {
            const own = operator ? (name === "portalId" ? String(t.portalId) : undefined) : ownParam(route, name, w);
            if (own !== undefined && (coin[n++ % coin.length] ?? 0) > 0) return own;
            const v = values[name];
            return encode(v === undefined || v === null ? "x" : typeof v === "string" ? v : JSON.stringify(v));
          });
          // Operator routes keep generated ids in bodies: an own app id there would re-grant the tenant's install.
          const q = operator ? q0 : withOwnIds(q0, coin.slice(3), w);
          const b = operator || queued ? b0 : withOwnIds(b0, coin.slice(5), w);
          const qs = q === null ? "" : toQuery(q as Parameters<typeof toQuery>[0]);
          const headers: Record<string, string> = credentialFor(route, queued ? storeless : t);
          let payload: string | undefined;
          if (b !== undefined) {
            if (route.bodyFormat === "form") {
              headers["content-type"] = "application/x-www-form-urlencoded";
              payload = toQuery(b as Parameters<typeof toQuery>[0]);
            } else {
              headers["content-type"] = "application/json";
              payload = JSON.stringify(b);
            }
          }
          const before = (last ??= await snapshot());
          const res = await send(new Request(`${BASE}${path}${qs ? `?${qs}` : ""}`, { method: route.method, headers, body: payload, redirect: "manual" }));
          const text = new TextDecoder().decode(await res.arrayBuffer());
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
}
