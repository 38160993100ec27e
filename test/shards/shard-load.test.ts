/**
 * Query load per shard in GET /admin/v1/shards (src/services/shards/load.ts): summed from the
 * usage data points through the Analytics Engine SQL API, which the operator opts into. The API is played
 * by the local integrator (a real HTTP server), which records what the Worker sent and answers as scripted.
 */
import { describe, expect, it } from "vitest";
import { callWithEnv } from "../cards/helpers";
import { admin } from "../helpers/api";
import { integratorPath, integratorUrl, received, script } from "../helpers/integrator";

type ShardRow = { name: string; load: unknown };
const ADMIN = "test-admin-token";

async function listWithAnalytics(answer: { status?: number; body: string }) {
  const path = integratorPath("ae-sql");
  await script(path, { status: answer.status ?? 200, body: answer.body, headers: { "content-type": "application/json" } });
  const res = await callWithEnv({ USAGE_SQL_URL: `${integratorUrl()}${path}`, USAGE_SQL_TOKEN: "analytics-read-token" }, "GET", "/admin/v1/shards", { token: ADMIN });
  expect(res.status).toBe(200);
  return { json: res.json as { load: Record<string, unknown>; results: ShardRow[] }, sent: await received(path) };
}

const byName = (rows: ShardRow[]) => new Map(rows.map((r) => [r.name, r.load]));

describe("GET /admin/v1/shards: load per shard", () => {
  it("without analytics access: the listing answers, each load is null, and says how to enable it", async () => {
    const res = await admin("GET", "/admin/v1/shards");
    expect(res.load).toEqual({ source: "analytics-engine", windowMinutes: 15, available: false, reason: expect.stringMatching(/not configured.*USAGE_SQL_TOKEN/) });
    expect(res.results.length).toBeGreaterThanOrEqual(2);
    for (const r of res.results) expect(r.load).toBeNull();
  });

  it("sums each shard's requests, D1 statements and sync messages of the last 15 minutes from one SQL API query", async () => {
    // The SQL API's JSON format; 64-bit sums may come as strings.
    const body = JSON.stringify({
      meta: [{ name: "kind" }, { name: "shard" }, { name: "points" }, { name: "statements" }],
      data: [
        { kind: "request", shard: "SHARD_1", points: "1200", statements: "3600" },
        { kind: "sync", shard: "SHARD_1", points: 500, statements: 0 },
        { kind: "request", shard: "DB", points: 10, statements: 25 },
        { kind: "sync", shard: "none", points: 3, statements: 0 },
      ],
      rows: 4,
    });
    const { json, sent } = await listWithAnalytics({ body });
    expect(json.load).toEqual({ source: "analytics-engine", windowMinutes: 15, available: true });
    const loads = byName(json.results);
    expect(loads.get("SHARD_1")).toEqual({ requests: 1200, d1Statements: 3600, d1StatementsPerSecond: 4, syncMessages: 500 });
    expect(loads.get("SHARD_2")).toEqual({ requests: 0, d1Statements: 0, d1StatementsPerSecond: 0, syncMessages: 0 });
    expect(loads.has("none")).toBe(false); // only databases are listed

    expect(sent).toHaveLength(1);
    const [req] = sent;
    expect(req!.method).toBe("POST");
    expect(req!.headers.authorization).toBe("Bearer analytics-read-token");
    expect(req!.body).toMatch(/FROM crm_edge_usage\b/);
    expect(req!.body).toMatch(/blob5 AS shard/);
    expect(req!.body).toMatch(/SUM\(_sample_interval \* double3\)/);
    expect(req!.body).toMatch(/INTERVAL '15' MINUTE/);
    expect(req!.body).toMatch(/FORMAT JSON$/);
  });

  it("an analytics API that fails or answers something else leaves the listing whole, with null loads and the reason", async () => {
    const failed = await listWithAnalytics({ status: 500, body: JSON.stringify({ errors: [{ message: "internal" }] }) });
    expect(failed.json.load).toMatchObject({ available: false, reason: "the analytics API answered 500" });
    expect(failed.json.results.every((r) => r.load === null)).toBe(true);
    expect(failed.json.results.map((r) => r.name)).toEqual(expect.arrayContaining(["SHARD_1", "SHARD_2"]));

    const odd = await listWithAnalytics({ body: JSON.stringify({ data: [{ kind: "request", shard: "SHARD_1", points: "many" }] }) });
    expect(odd.json.load).toMatchObject({ available: false, reason: "the analytics API's answer was not the expected JSON" });
    expect(odd.json.results.every((r) => r.load === null)).toBe(true);
  });
});
