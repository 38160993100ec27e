/** Helpers of the CRM v3 completeness tests: records made through the API, ids as the API answers them. */
import { createExecutionContext, env } from "cloudflare:test";
import { expect } from "vitest";
import { buildRouter } from "../../src/router";
import { call, type Tenant } from "../helpers/api";
import { DEFAULT_GROUP } from "../../src/services/crm/properties";

export async function make(t: Tenant, type: string, properties: Record<string, string>): Promise<string> {
  const res = await call("POST", `/crm/v3/objects/${type}`, { token: t.pat, body: { properties } });
  expect(res.status, res.text).toBe(201);
  return res.json.id as string;
}

export const search = (t: Tenant, type: string, body: unknown) => call("POST", `/crm/v3/objects/${type}/search`, { token: t.pat, body });

export const ids = (res: { json: { results: { id: string }[] } }) => res.json.results.map((r) => r.id);

export async function defineProperty(t: Tenant, type: string, body: Record<string, unknown>) {
  const res = await call("POST", `/crm/v3/properties/${type}`, { token: t.pat, body: { label: String(body.name), groupName: (DEFAULT_GROUP as Record<string, string>)[type], fieldType: "text", type: "string", ...body } });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

export interface Watched {
  statements: { sql: string; params: unknown[] }[];
  batches: number;
}

/**
 * Sends one request (a POST with `body`, or a GET without one) through the router with the shards watched:
 * every statement prepared (and its bound values), and the db.batch calls.
 */
export async function watched(path: string, body: unknown, token: string, method: "POST" | "GET" = "POST"): Promise<Watched> {
  const seen: Watched = { statements: [], batches: 0 };
  const statement = (s: D1PreparedStatement, entry: Watched["statements"][number]): D1PreparedStatement =>
    new Proxy(s, {
      get(target, prop) {
        if (prop === "bind") return (...values: unknown[]) => ((entry.params = values), target.bind(...values));
        const v = Reflect.get(target, prop);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
  const watch = (d1: D1Database): D1Database =>
    new Proxy(d1, {
      get(target, prop) {
        if (prop === "prepare") {
          return (q: string) => {
            const entry = { sql: q, params: [] as unknown[] };
            seen.statements.push(entry);
            return statement(target.prepare(q), entry);
          };
        }
        if (prop === "batch") return (stmts: D1PreparedStatement[]) => (seen.batches++, target.batch(stmts));
        const v = Reflect.get(target, prop);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
  const res = await buildRouter().fetch(
    new Request(`https://crm.test${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: method === "POST" ? JSON.stringify(body) : undefined,
    }),
    { ...env, SHARD_1: watch(env.SHARD_1), SHARD_2: watch(env.SHARD_2) },
    createExecutionContext(),
  );
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return seen;
}
