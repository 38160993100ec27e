/**
 * Every v1 contacts read takes the same small number of D1 statements whatever the
 * count (docs/explanation/contacts-v1-queries.md "Statement counts"), and no statement of them walks the account's rows: every
 * plan line is an index SEARCH, the JSON list, the FTS5 index, or a subquery (docs/explanation/contacts-v1-queries.md "Query plans").
 */
import { createExecutionContext, env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { buildRouter } from "../../src/router";
import { call, tenant, type Tenant } from "../helpers/api";
import { V1, v1Props } from "./helpers";

interface Seen {
  sql: string;
  params: unknown[];
}

/** A D1 binding that records every statement it prepares (and its bound values) before running it. */
function recordingDb(d1: D1Database, seen: Seen[]): D1Database {
  return new Proxy(d1, {
    get(target, prop) {
      if (prop === "prepare") {
        return (sql: string) => {
          const entry: Seen = { sql, params: [] };
          seen.push(entry);
          const stmt = target.prepare(sql);
          return new Proxy(stmt, {
            get(s, p) {
              if (p === "bind") {
                return (...values: unknown[]) => {
                  entry.params = values;
                  return s.bind(...values);
                };
              }
              const v = Reflect.get(s, p);
              return typeof v === "function" ? v.bind(s) : v;
            },
          });
        };
      }
      const v = Reflect.get(target, prop);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

let t: Tenant;
let vids: number[] = [];

beforeAll(async () => {
  t = await tenant();
  const body = Array.from({ length: 120 }, (_, i) => ({ email: `s${i}@example.com`, ...v1Props({ firstname: `First${i}`, company: "Acme" }) }));
  expect((await call("POST", `${V1}/batch`, { token: t.pat, body })).status).toBe(202);
  const list = await call("GET", "/contacts/v1/lists/all/contacts/all?count=100", { token: t.pat });
  vids = list.json.contacts.map((c: { vid: number }) => c.vid);
  // One merge, so the merge tables take part in every read below.
  await run(`${V1}/merge-vids/${vids[0]}`, [], "POST", { vidToMerge: vids[1] });
  // Warm the credential cache, so only the route's own statements are counted.
  await call("GET", `${V1}/vid/${vids[0]}/profile`, { token: t.pat });
}, 60_000);

/** The v1 contacts reads, with `n` contacts asked for. */
const reads = (n: number): [string, string][] => [
  ["profile by vid", `${V1}/vid/${vids[1]}/profile`],
  ["profile by email", `${V1}/email/s5@example.com/profile`],
  ["vids batch", `${V1}/vids/batch?${vids.slice(0, n).map((v) => `vid=${v}`).join("&")}`],
  ["emails batch", `${V1}/emails/batch?${Array.from({ length: n }, (_, i) => `email=s${i}@example.com`).join("&")}`],
  ["recently updated", `/contacts/v1/lists/recently_updated/contacts/recent?count=${n}`],
  ["recently created", `/contacts/v1/lists/all/contacts/recent?count=${n}&timeOffset=${Date.now() + 1000}&vidOffset=1`],
  ["search", `/contacts/v1/search/query?q=acme&count=${n}`],
  ["all contacts", `/contacts/v1/lists/all/contacts/all?count=${n}`],
];

async function run(path: string, seen: Seen[], method = "GET", body?: unknown) {
  const res = await buildRouter().fetch(
    new Request(`https://crm.test${path}`, {
      method,
      headers: { authorization: `Bearer ${t.pat}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    // Every database is watched: the control plane and both shards.
    { ...env, DB: recordingDb(env.DB, seen), SHARD_1: recordingDb(env.SHARD_1, seen), SHARD_2: recordingDb(env.SHARD_2, seen) },
    createExecutionContext(),
  );
  expect(res.status, `${path}: ${await res.clone().text()}`).toBeLessThan(300);
}

describe("statement counts (docs/explanation/contacts-v1-queries.md)", () => {
  it("every read takes 2 statements (the all-contacts list and the profiles 1), for 1, 30 or 100 contacts", async () => {
    for (const n of [1, 30, 100]) {
      for (const [name, path] of reads(n)) {
        const seen: Seen[] = [];
        await run(path, seen);
        expect([name, n, seen.length]).toEqual([name, n, name === "all contacts" || name.startsWith("profile") ? 1 : 2]);
      }
    }
  });

  it("a batch of 1,000 contacts is 4 statements: the webhook targets, one read, then one insert and one update in one D1 batch", async () => {
    const body = Array.from({ length: 1000 }, (_, i) => ({ email: `s${i}@example.com`, ...v1Props({ lastname: "Batch" }) }));
    const seen: Seen[] = [];
    await run(`${V1}/batch`, seen, "POST", body);
    expect(seen.length).toBe(4);
    // The account has no app with webhooks: the control plane is asked once, and the batch has no outbox statement.
    expect(seen.filter((x) => x.sql.includes("webhook_")).map((x) => /^\s*(\w+)/.exec(x.sql)?.[1])).toEqual(["select"]);
  });
});

describe("query plans (docs/explanation/contacts-v1-queries.md)", () => {
  it("no statement of the reads or the batch write scans the account's rows", async () => {
    const seen: Seen[] = [];
    for (const [, path] of reads(30)) await run(path, seen);
    await run(`${V1}/batch`, seen, "POST", [{ email: "s1@example.com", properties: [] }, { email: "plan-new@example.com", properties: [] }]);
    expect(seen.length).toBeGreaterThan(10);
    // The control plane's read of the account's webhook targets (docs/reference/webhooks.md) walks its installs (a
    // handful of rows of the control plane, not the account's records).
    for (const s of seen.filter((x) => !x.sql.includes("webhook_settings"))) {
      const { results } = await env.DB.prepare(`explain query plan ${s.sql}`).bind(...s.params).all<{ detail: string }>();
      const plan = results.map((r) => r.detail);
      // Allowed scans: the JSON list (json_each), the FTS5 index, and subqueries built from them.
      // (`k` is the union of keys findContacts builds from the JSON lists; `p` the all-contacts page, a CTE
      // read from crm_objects_list up to its LIMIT, whose rows the join then walks.)
      const scans = plan.filter((d) => /^SCAN /.test(d) && !/VIRTUAL TABLE|^SCAN [kp]$|^SCAN \(subquery-\d+\)$/.test(d));
      expect(scans, `${s.sql}\n${plan.join("\n")}`).toEqual([]);
      // An index range over the whole account is a walk of its rows too, unless the statement reads it
      // in index order and stops at its LIMIT (the first page of a recent list).
      const accountRange = plan.filter((d) => /^SEARCH .*\(portal_id=\?( AND object_type=\?)?( AND archived=\?)?\)$/.test(d));
      const bounded = / limit /i.test(s.sql) && !plan.some((d) => /TEMP B-TREE FOR ORDER BY/.test(d));
      if (!bounded) expect(accountRange, `${s.sql}\n${plan.join("\n")}`).toEqual([]);
    }
  });
});
