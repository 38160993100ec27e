/** The consumer's write is the hot path: every statement must reach rows through an index, never a table scan. */
import { env } from "cloudflare:test";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { commitQueries } from "../../src/services/ecomm/commit";
import type { Effect } from "../../src/services/ecomm/plan";
import { qmsg } from "./queue-helpers";

const dialect = new SQLiteAsyncDialect();
const origin = { portalId: 1, appId: 1, storeId: "s", storeGen: "g" };

describe("query plans of the batch write", () => {
  it("use indexes for every table they read (json_each is the only scan)", async () => {
    const effects: Effect[] = [
      {
        kind: "upsert",
        msg: qmsg(origin, "DEAL", { externalObjectId: "d" }),
        patch: { dealstage: "processed" },
        createProps: { dealstage: "processed" },
        email: { set: false, value: null },
        stage: "processed",
        presetServiceId: null,
        guid: "g",
        assoc: { replace: ["CONTACT"], targets: [{ objectType: "CONTACT", externalId: "c" }] },
      },
      { kind: "delete", msg: qmsg(origin, "DEAL", { externalObjectId: "x", action: "DELETE" }) },
      { kind: "error", msg: qmsg(origin, "DEAL", { externalObjectId: "e" }), type: "INVALID_DEAL_STAGE", details: "x" },
    ];
    const queries = commitQueries(effects, 1).map((q) => dialect.sqlToQuery(q));
    expect(queries.length).toBe(10); // a whole batch, whatever its size (one JSON chunk)
    for (const q of queries) {
      const { results } = await env.DB.prepare(`explain query plan ${q.sql}`).bind(...q.params).all<{ detail: string }>();
      const plan = results.map((r) => r.detail);
      // Allowed: the JSON rows themselves and the transient subqueries built from them.
      const scans = plan.filter((d) => /^SCAN /.test(d) && !/VIRTUAL TABLE|^SCAN \(subquery-\d+\)$|^SCAN q$/.test(d));
      expect(scans, `${q.sql}\n${plan.join("\n")}`).toEqual([]);
    }
  });
});
