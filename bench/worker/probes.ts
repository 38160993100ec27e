/**
 * @module Probes of the sharded configuration (docs/explanation/scaling.md "Capacity model"):
 *   GET /__bench/probe/parallel-d1?k=4&spread=0|1   k heavy queries at once, on one shard or one per shard
 *   GET /__bench/probe/fence?rows=N                 the fence triggers' cost per written row
 */

/** About 10–20 ms of SQLite work and one row back: long enough that the query, not the call, dominates. */
const HEAVY = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?1) SELECT count(*) AS n FROM c";

const binding = (env: object, name: string): D1Database => {
  const b = (env as Record<string, unknown>)[name];
  if (!b) throw new Error(`binding ${name} missing`);
  return b as D1Database;
};

/**
 * Whether Miniflare runs separate local D1 databases in parallel. The same k queries run at once, either
 * all on SHARD_1 or one on each of SHARD_1..k. If the databases ran on separate threads, the spread wall
 * time would approach one query's time (bounded by the machine's cores); if workerd runs every database
 * on its one thread, both wall times are k queries' time.
 */
export async function parallelD1(env: object, url: URL): Promise<Response> {
  const k = Number(url.searchParams.get("k") ?? 4);
  const depth = Number(url.searchParams.get("depth") ?? 200_000);
  const spread = url.searchParams.get("spread") === "1";
  const one = async (name: string) => {
    const t0 = performance.now();
    await binding(env, name).prepare(HEAVY).bind(depth).first();
    return performance.now() - t0;
  };
  const single = await one("SHARD_1");
  const t0 = performance.now();
  const each = await Promise.all(Array.from({ length: k }, (_, i) => one(spread ? `SHARD_${i + 1}` : "SHARD_1")));
  const wallMs = performance.now() - t0;
  return Response.json({ k, spread, singleMs: single, wallMs, eachMs: each });
}

/**
 * The fence triggers (migrations/0008_fences.sql) cost one primary-key probe of account_fences per written row.
 * Measured on BENCH_SCRATCH, a migrated database no Worker serves: `rows` inserts, then as many updates
 * by primary key, of crm_objects in batches of 100, with the triggers and with crm_objects' three fence
 * triggers dropped (`withoutFirst` swaps the order); the triggers are put back from sqlite_master's own SQL.
 */
export async function fenceCost(env: object, url: URL): Promise<Response> {
  const db = binding(env, "BENCH_SCRATCH");
  const rows = Number(url.searchParams.get("rows") ?? 2000);
  const withoutFirst = url.searchParams.get("withoutFirst") === "1";
  // Each pass writes its own account's rows and updates them by primary key, so neither pass pays for
  // the other's rows.
  const pass = async () => {
    const portal = 1 + Math.floor(Math.random() * 1e9);
    const now = Date.now();
    const ids: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < rows; i += 100) {
      const n = Math.min(100, rows - i);
      const res = await db.batch<{ id: number }>(
        Array.from({ length: n }, (_, j) =>
          db
            .prepare("INSERT INTO crm_objects (portal_id, object_type, properties, email, guid, archived, created_at, updated_at) VALUES (?1, 'products', '{}', NULL, ?2, 0, ?3, ?3) RETURNING id")
            .bind(portal, `g-${i + j}`, now),
        ),
      );
      for (const r of res) ids.push(r.results[0]!.id);
    }
    const t1 = performance.now();
    for (let i = 0; i < ids.length; i += 100) {
      await db.batch(ids.slice(i, i + 100).map((id) => db.prepare("UPDATE crm_objects SET properties = '{\"a\":1}', updated_at = ?2 WHERE id = ?1").bind(id, now + 1)));
    }
    const t2 = performance.now();
    await db.prepare("DELETE FROM crm_objects WHERE portal_id = ?1").bind(portal).run();
    return { insertUsPerRow: ((t1 - t0) * 1000) / rows, updateUsPerRow: ((t2 - t1) * 1000) / rows };
  };
  const { results: triggers } = await db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'crm_objects' AND name LIKE '%fence%'").all<{ name: string; sql: string }>();
  const drop = () => db.batch(triggers.map((t) => db.prepare(`DROP TRIGGER ${t.name}`)));
  const restore = () => db.batch(triggers.map((t) => db.prepare(t.sql)));
  let withTriggers;
  let without;
  if (withoutFirst) await drop();
  try {
    if (withoutFirst) {
      without = await pass();
      await restore();
      withTriggers = await pass();
    } else {
      withTriggers = await pass();
      await drop();
      without = await pass();
      await restore();
    }
  } catch (err) {
    const left = await db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'crm_objects' AND name LIKE '%fence%'").first<{ n: number }>();
    if (left?.n !== triggers.length) await restore();
    throw err;
  }
  return Response.json({ rows, triggers: triggers.length, withoutFirst, withTriggers, without });
}
