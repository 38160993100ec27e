/** The consumer's write is the hot path: every statement must reach rows through an index, never a table scan. */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { queryOf } from "../../src/db/d1-raw";
import { commitQueries } from "../../src/services/ecomm/commit";
import { realTime } from "../../src/services/ecomm/batch-time";
import type { Effect } from "../../src/services/ecomm/plan";
import { qmsg } from "./queue-helpers";

const origin = { portalId: 1, appId: 1, storeId: "s", storeGen: "g" };

describe("query plans of the batch write", () => {
  it("use indexes for every table they read (json_each and bound VALUES are the only scans)", async () => {
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
        link: { id: 7, serviceId: null, messageId: "m0", changedAt: 1, deleted: false },
        idCounters: true,
      },
      // The direct path (commit-direct.ts): a new object, and an update of a linked record.
      {
        kind: "upsert",
        msg: qmsg(origin, "CONTACT", { externalObjectId: "new" }),
        patch: { email: "a@example.com" },
        createProps: { email: "a@example.com" },
        email: { set: true, value: "a@example.com" },
        stage: null,
        presetServiceId: null,
        guid: "g2",
        assoc: { replace: [], targets: [] },
        link: null,
        idCounters: true,
      },
      {
        kind: "upsert",
        msg: qmsg(origin, "DEAL", { externalObjectId: "old" }),
        patch: { dealname: "x" },
        createProps: null,
        email: { set: false, value: null },
        stage: "processed",
        presetServiceId: null,
        guid: "g3",
        assoc: { replace: [], targets: [] },
        link: { id: 8, serviceId: 9, messageId: "m0", changedAt: 1, deleted: false },
        idCounters: true,
      },
      { kind: "delete", msg: qmsg(origin, "DEAL", { externalObjectId: "x", action: "DELETE" }) },
      { kind: "error", msg: qmsg(origin, "DEAL", { externalObjectId: "e" }), type: "INVALID_DEAL_STAGE", details: "x" },
    ];
    const queries = commitQueries(effects, realTime(1)).map(queryOf);
    // General statements: one per step for the whole batch (one JSON chunk); direct ones: the two id
    // reservations, the new object's link with its check and its record, the update's link and record (one
    // insert into the sync_updates view, whose trigger updates both by id), and the error resolution of each
    // (account, store, type).
    expect(queries.length).toBe(10 + 2 + 3 + 1 + 2);
    for (const q of queries) {
      const { results } = await env.DB.prepare(`explain query plan ${q.sql}`).bind(...q.params).all<{ detail: string }>();
      const plan = results.map((r) => r.detail);
      // Allowed: the JSON rows themselves, the transient subqueries built from them, the bound VALUES rows and
      // the one-row reserved-id subqueries of the direct path.
      const scans = plan.filter((d) => /^SCAN /.test(d) && !/VIRTUAL TABLE|^SCAN \(subquery-\d+\)$|^SCAN q$|^SCAN [lcv]$|^SCAN (\d+ )?CONSTANT ROWS?$/.test(d));
      expect(scans, `${q.sql}\n${plan.join("\n")}`).toEqual([]);
    }
  });
});
