/**
 * A move's verification runs in bounded steps (docs/explanation/scaling.md "Moves"): each step reads one
 * page of one table on each side, so an account table of any size is verified over as many steps, never in
 * one invocation; a row that differs on a later page still fails the move, naming the table. Calls are
 * counted by D1 itself (the counting client: a batch is one call).
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ACCOUNT_TABLES } from "../../src/db/account-tables";
import { COPY_ROWS, verifyStep, type VerifyState } from "../../src/durable-objects/account-mover/copy";
import { countingD1 } from "../helpers/counting-d1";

const ROWS = 1_200;
/** Far above the shared runtime's accounts (portalIds count from 1): no other file writes these rows. */
const PORTAL = 980_000_000 + Math.floor(Math.random() * 1_000_000);
const tables = ACCOUNT_TABLES.filter((t) => ["crm_objects", "crm_properties", "lists"].includes(t.name));

/**
 * The same `ROWS` contacts of PORTAL into a database, ids given (as a move's copy keeps them): written as the
 * mover writes, through an unlocked fence, which lets ids of another database's range in.
 */
async function seed(d1: D1Database, base: number) {
  await d1.prepare("insert into account_fences (portal_id, state, created_at, unlocked) values (?, 'incoming', 1, 1)").bind(PORTAL).run();
  const rows = Array.from({ length: ROWS }, (_, i) => [base + i, JSON.stringify({ firstname: `F${i}` }), `v${i}@steps.example`, `guid-${i}`]);
  const statements = [];
  for (let i = 0; i < rows.length; i += 400) {
    statements.push(
      d1
        .prepare(
          `insert into crm_objects (id, portal_id, object_type, properties, email, guid, archived, created_at, updated_at)
           select j.value ->> 0, ?1, 'contacts', j.value ->> 1, j.value ->> 2, j.value ->> 3, 0, 1, 1 from json_each(?2) j`,
        )
        .bind(PORTAL, JSON.stringify(rows.slice(i, i + 400))),
    );
  }
  await d1.batch(statements);
}

async function verify(src: D1Database, dst: D1Database) {
  const [a, b] = [countingD1(src), countingD1(dst)];
  const perStep: number[] = [];
  let state: VerifyState | null = null;
  do {
    const before = a.counts.roundTrips + b.counts.roundTrips;
    state = await verifyStep(a, b, tables, PORTAL, state);
    perStep.push(a.counts.roundTrips + b.counts.roundTrips - before);
  } while (state);
  return perStep;
}

describe("a move's verification", () => {
  it("verifies a table of several pages in steps of at most 4 calls, and fails on a row that differs on its last page", async () => {
    // Ids of a range no database hands out, the same on both.
    const base = 990_000_000_000 + Math.floor(Math.random() * 1_000_000) * 10_000;
    await seed(env.SHARD_1, base);
    await seed(env.SHARD_2, base);
    try {
      const steps = await verify(env.SHARD_1, env.SHARD_2);
      // The first step reads every table's first page (a batch per side), then one page per side per step.
      expect(steps.length).toBe(Math.ceil(ROWS / COPY_ROWS));
      expect(Math.max(...steps)).toBeLessThanOrEqual(4);

      // One row of the last page differs on the target: the move fails on crm_objects.
      await env.SHARD_2.prepare("update crm_objects set properties = ?1 where id = ?2").bind(JSON.stringify({ firstname: "changed" }), base + ROWS - 1).run();
      await expect(verify(env.SHARD_1, env.SHARD_2)).rejects.toThrow(/^verification failed on crm_objects: source 1200 rows, target 1200 rows, digests differ$/);
      // A row missing on the target: the row counts differ.
      await env.SHARD_2.prepare("delete from crm_objects where id = ?").bind(base + ROWS - 1).run();
      await expect(verify(env.SHARD_1, env.SHARD_2)).rejects.toThrow(/^verification failed on crm_objects: source 1200 rows, target 1199 rows/);
    } finally {
      for (const d1 of [env.SHARD_1, env.SHARD_2]) {
        await d1.prepare("delete from crm_objects where portal_id = ?").bind(PORTAL).run();
        await d1.prepare("delete from account_fences where portal_id = ?").bind(PORTAL).run();
      }
    }
  });
});
