/**
 * Tenant isolation, generated over the route table (against broken object-level authorization, OWASP API1): for every route
 * whose path takes an id, account B's credentials of every kind the route accepts — and developer keys of
 * another app on developer-key routes — on A's ids get the documented refusal (404 unless the fixture
 * says otherwise), no byte of A's data, and change nothing in the database. A route that takes an id and
 * has no fixture fails the suite, so new routes cannot slip past it.
 */
import { SHARDS } from "../helpers/shards";
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { allRoutes } from "../../src/routes";
import { BASE, send } from "../helpers/api";
import { received } from "../helpers/integrator";
import { buildWorld, type World } from "../helpers/world";
import { BODY_ID_FIXTURES, credentialsFor, ENUM_PARAMS, FIXTURES, type Fixture } from "./isolation-fixtures";

const routeKey = (r: { method: string; path: string }) => `${r.method} ${r.path}`;
const idParams = (path: string) => [...path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]!).filter((p) => !ENUM_PARAMS.has(p));
const idRoutes = allRoutes.filter((r) => idParams(r.path).length > 0 || r.path.endsWith("/*"));

const tableSql = new Map<string, string>();

/**
 * Every row of every table, as one string: a refused request must leave it unchanged. Rows of accounts
 * other than `portals`, and of apps other than `apps`, are left out: other test files' queued work (a
 * sync, a webhook delivery) may still land meanwhile, and a refused request of B on A's ids can only reach
 * A's and B's rows or the tables no account or app owns, which are compared whole.
 */
async function snapshot(portals: number[], apps: number[]): Promise<string> {
  const key = `${portals.join(",")}/${apps.join(",")}`;
  if (!tableSql.has(key)) {
    const tables = (
      await env.DB.prepare(
        // contact_search (FTS5) and its shadow tables only mirror crm_objects, which is compared.
        "select name from sqlite_master where type = 'table' and name not like '\\_%' escape '\\' and name not like 'd1_%' and name not like 'sqlite_%' and name not like 'contact_search%'",
      ).all<{ name: string }>()
    ).results.map((t) => t.name);
    const parts: string[] = [];
    for (const t of tables) {
      const names = (await env.DB.prepare(`select name from pragma_table_info('${t}')`).all<{ name: string }>()).results.map((c) => c.name);
      const cols = names.map((c) => `"${c}"`);
      const only = names.includes("portal_id")
        ? `where portal_id in (${portals.map(Number).join(", ")})`
        : names.includes("app_id")
          ? `where app_id in (${apps.map(Number).join(", ")})`
          : t === "webhook_attempts"
            ? `where delivery_id in (select id from webhook_deliveries where app_id in (${apps.map(Number).join(", ")}))`
            : "";
      // The id counters move with every account's inserts; they hold no account's data.
      if (t === "id_sequences") continue;
      parts.push(`(select '${t}:' || coalesce(json_group_array(json_array(${cols.join(", ")})), '[]') from (select * from "${t}" ${only} order by rowid))`);
    }
    // One flat json_array, not a chain of ||: each || nests the expression a level deeper, and SQLite
    // refuses expressions deeper than 100, which the number of tables reaches.
    tableSql.set(key, `select json_array(${parts.join(", ")}) as s`);
  }
  const sql = tableSql.get(key)!;
  // The control plane and every shard: a refused request may change none of them.
  const parts = await Promise.all([env.DB, ...SHARDS.map((n) => env[n])].map(async (d1) => (await d1.prepare(sql).first<{ s: string }>())?.s ?? ""));
  return parts.join("\n--\n");
}

describe("every route that takes an id has an isolation fixture", () => {
  it("no id-taking route is missing from the fixture table, and no fixture names a route that is gone", () => {
    const routes = idRoutes.map(routeKey);
    expect(routes.filter((k) => !(k in FIXTURES)), "add these routes to FIXTURES in test/reliability/isolation-fixtures.ts").toEqual([]);
    expect(Object.keys(FIXTURES).filter((k) => !routes.includes(k))).toEqual([]);
    const all = allRoutes.map(routeKey);
    expect(Object.keys(BODY_ID_FIXTURES).filter((k) => !all.includes(k))).toEqual([]);
    expect(routes.length).toBeGreaterThan(40);
  });
});

describe("another account's credentials on this account's ids: refused, no data, nothing written", () => {
  let w: World;
  beforeAll(async () => {
    w = await buildWorld();
  }, 60_000);

  const cases = [...Object.entries(FIXTURES), ...Object.entries(BODY_ID_FIXTURES)].map(([key, fixture]) => {
    const route = allRoutes.find((r) => routeKey(r) === key)!;
    return [key, route, fixture] as const;
  });

  it.each(cases)("%s", async (_key, route, fixture: Fixture) => {
    const [portals, apps] = [[w.a.portalId, w.b.portalId], [w.a.appId, w.b.appId]];
    const before = await snapshot(portals, apps);
    const seen: string[] = [];
    for (const target of fixture(w)) {
      for (const cred of target.tokens ?? credentialsFor(route.auth.kinds, w)) {
        const headers: Record<string, string> = {};
        if (cred.bearer) headers.authorization = `Bearer ${cred.bearer}`;
        if (cred.cookie) headers.cookie = cred.cookie;
        if (cred.csrf) headers["x-csrf-token"] = cred.csrf;
        let path = target.path;
        if (cred.hapikey) path += `${path.includes("?") ? "&" : "?"}hapikey=${cred.hapikey}`;
        let body: string | undefined;
        if (target.body !== undefined) {
          headers["content-type"] = "application/json";
          body = JSON.stringify(target.body);
        }
        const res = await send(new Request(`${BASE}${path}`, { method: route.method, headers, body, redirect: "manual" }));
        const text = await res.text();
        const what = `${cred.name}: ${route.method} ${target.path} → ${res.status} ${text.slice(0, 300)}`;
        seen.push(what);
        expect(res.status, what).toBe(target.status ?? 404);
        // A target may document a 200 that shows none of A's data (A's app installed in B reading its own
        // install's app errors): only refusals must be in the error envelope.
        if (res.status >= 400 && (res.headers.get("content-type") ?? "").includes("json")) {
          const err = JSON.parse(text);
          expect(err.status === "error" || typeof err.error === "string", what).toBe(true);
          expect(err.correlationId, what).toBe(res.headers.get("x-service-correlation-id"));
        }
        for (const secret of w.forbidden) expect(text.includes(secret), `${what} contains A's data ${secret}`).toBe(false);
        for (const v of res.headers.values()) for (const secret of w.forbidden) expect(v.includes(secret), `${what}: a header contains A's data`).toBe(false);
      }
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(await snapshot(portals, apps), `a refused request wrote data:\n${seen.join("\n")}`).toBe(before);
    // Nothing reached A's integrator on B's behalf (cards of A's app).
    expect(await received(w.ids.cardFetchPath)).toEqual([]);
    expect(await received(w.ids.cardActionBase)).toEqual([]);
  });

  it("A still sees all of its data afterwards (the refused writes and deletes changed nothing)", async () => {
    const ok = async (path: string, token: string) => {
      const res = await send(new Request(`${BASE}${path}`, { headers: { authorization: `Bearer ${token}` } }));
      expect(res.status, path).toBe(200);
      return res.text();
    };
    expect(await ok(`/crm/v3/objects/contacts/${w.ids.contact}`, w.a.pat)).not.toContain("B was here");
    expect(await ok(`/content/api/v2/blog-posts/${w.ids.post}`, w.a.oauth)).not.toContain("renamed by B");
    expect(await ok(`/integrations/v1/${w.a.appId}/timeline/event-types/${w.ids.eventType}/properties`, w.a.developerKey)).not.toContain("by B");
    expect(await ok(`/extensions/sales-objects/v1/object-types/${w.ids.card}`, w.a.developerKey)).not.toContain("renamed by B");
    expect(await ok(`/extensions/ecomm/v2/stores/${w.ids.store}`, w.a.oauth)).toContain(w.ids.store);
  });
});
