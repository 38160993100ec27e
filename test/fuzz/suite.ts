/**
 * Property-based bad-input suite: for every route of the route table, requests generated from
 * its own zod schemas (near-valid values with one part broken) must never produce a 5xx, must answer
 * errors in the one envelope, and must write nothing when rejected (no insert, update or delete on any
 * database: `watchWrites`). Seed and run count come from
 * FUZZ_SEED / FUZZ_RUNS (printed); 30 cases per endpoint unless FUZZ_RUNS says otherwise. Half of the path ids and id fields
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

// 30 generated requests per route and run: with about 330 routes the four parts take about half a minute
// each. The seed is new on every run unless FUZZ_SEED fixes it, so the suite searches further with each run
// of `npm test`; FUZZ_RUNS=1000 searches deeper in one.
const RUNS = Number(env.FUZZ_RUNS || 30);
const SEED = Number(env.FUZZ_SEED || Date.now() % 2_147_483_647);
console.log(`fuzz: ${RUNS} cases per endpoint, seed ${SEED} (rerun with FUZZ_SEED=${SEED})`);

/**
 * What a rejected request must leave as it was: every table of the control plane and of every shard, but
 * the webhook delivery log, its leases and its outbox, which the webhook queue's consumer writes in the
 * background, never a request. A request's events go to the outbox by its id counter (the `webhook_outbox`
 * row of id_sequences), which only grows with inserts, so the counter stands for the outbox.
 */
const UNWATCHED = ["webhook_deliveries", "webhook_attempts", "webhook_inflight", "webhook_outbox"];

/**
 * Counts every insert, update and delete on the watched tables, in a table of the suite's own on each
 * database (`_fuzz_writes`; names starting with `_` are no account's). Triggers see every row a statement
 * touches, updates included, and reading the count is one row per database: comparing row counts of every
 * table took half of the suite's time and could not see an update.
 */
async function watchWrites(): Promise<void> {
  await Promise.all(
    [env.DB, ...SHARDS.map((n) => env[n])].map(async (d1) => {
      const tables = await d1
        .prepare("select name from sqlite_master where type = 'table' and name not like '\\_%' escape '\\' and name not like 'd1_%' and name != 'sqlite_sequence'")
        .all<{ name: string }>();
      // A full-text index (a virtual table and its shadow tables) follows its table through triggers: the table is watched.
      const virtual = (await d1.prepare("select name from sqlite_master where type = 'table' and sql like 'create virtual table%'").all<{ name: string }>()).results.map((t) => t.name);
      const indexOf = (n: string) => virtual.some((v) => n === v || n.startsWith(`${v}_`));
      const watched = tables.results.map((t) => t.name).filter((n) => !UNWATCHED.includes(n) && !indexOf(n));
      const bump = "update _fuzz_writes set n = n + 1;";
      const triggers = watched.flatMap((t) => {
        // id_sequences: only the outbox's counter; the other counters move with the rows they number, which are watched.
        const when = t === "id_sequences" ? (row: string) => ` when ${row}.name = 'webhook_outbox'` : () => "";
        return [
          `create trigger if not exists "_fuzz_${t}_i" after insert on "${t}"${when("new")} begin ${bump} end`,
          `create trigger if not exists "_fuzz_${t}_u" after update on "${t}"${when("new")} begin ${bump} end`,
          `create trigger if not exists "_fuzz_${t}_d" after delete on "${t}"${when("old")} begin ${bump} end`,
        ];
      });
      await d1.batch([
        d1.prepare("create table if not exists _fuzz_writes (n integer not null)"),
        d1.prepare("insert into _fuzz_writes (n) select 0 where not exists (select 1 from _fuzz_writes)"),
        ...triggers.map((sql) => d1.prepare(sql)),
      ]);
    }),
  );
}

/** The write counts of the control plane and every shard. */
async function snapshot(): Promise<string> {
  const rows = await Promise.all([env.DB, ...SHARDS.map((n) => env[n])].map((d1) => d1.prepare("select n from _fuzz_writes").first<{ n: number }>()));
  return rows.map((r) => r?.n ?? "").join("|");
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
/** POSTs that take records away as a delete does: a merge archives one record, a GDPR delete removes one. */
const removes = (r: RouteDef) => r.method === "POST" && /\/(merge|gdpr-delete)$/.test(r.path);
/**
 * Deletes run last (operator ones, and operator routes that take credentials away, at the very end), so they
 * never take away what other routes probe.
 */
const order = (r: RouteDef) => (revokes(r) ? 2 : r.method !== "DELETE" && !removes(r) ? 0 : r.auth.kinds.includes("admin") ? 2 : 1);
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
    case "associationTypeId":
      return w.ids.associationLabel;
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
      await watchWrites();
    }, 60_000);

    it("the write watch sees an insert, an update and a delete on every database, and not the webhook log", async () => {
      for (const d1 of [env.DB, ...SHARDS.map((n) => env[n])]) {
        const seen = async (sql: string, changes: boolean) => {
          const before = await snapshot();
          await d1.prepare(sql).run();
          expect(await snapshot() !== before, sql).toBe(changes);
        };
        // A fence for an account that does not exist: no request sees it.
        await seen("insert into account_fences (portal_id, state, created_at) values (-1, 'moving', 0)", true);
        await seen("update account_fences set created_at = 1 where portal_id = -1", true);
        await seen("delete from account_fences where portal_id = -1", true);
        await seen("update id_sequences set seq = seq where name = 'webhook_outbox'", true);
        await seen("update id_sequences set seq = seq where name = 'crm_objects'", false);
        await seen("insert into webhook_inflight (app_id, lease_id, expires_at) values (-1, 'probe', 0)", false);
        await seen("delete from webhook_inflight where app_id = -1", false);
      }
    });

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
