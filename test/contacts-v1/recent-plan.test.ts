/**
 * The recent lists read the `crm_objects_recent_*` partial indexes (docs/reference/contacts-v1.md),
 * and other records' writes skip those indexes (bench/README.md: a synced product costs no recent-list
 * index rows).
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { makeDb } from "../../src/db/client";
import { recentContactsQuery } from "../../src/services/contacts-v1/contacts";

async function plan(d1: D1Database, q: { sql: string; params: unknown[] }): Promise<string> {
  const { results } = await d1.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).bind(...q.params).all<{ detail: string }>();
  return results.map((r) => r.detail).join("\n");
}

describe("recent lists and their partial indexes", () => {
  it("each list, first and next page, searches its own index, with no temporary sort", async () => {
    const db = makeDb(env.SHARD_1);
    for (const [kind, index] of [["updated", "crm_objects_recent_updated"], ["created", "crm_objects_recent_created"]] as const) {
      for (const cursor of [undefined, { time: Date.now(), vid: 100_000_000_050 }]) {
        const detail = await plan(env.SHARD_1, recentContactsQuery(db, 7, kind, 20, cursor).toSQL());
        expect(detail).toContain(`USING INDEX ${index}`);
        expect(detail).not.toContain("TEMP B-TREE");
      }
    }
  });

  it("a product's insert and update write no entry into either index; a contact's do", async () => {
    const d1 = env.SHARD_1;
    const entries = async (portal: number) => {
      const counts = await d1.batch([
        d1.prepare("SELECT count(*) AS n FROM crm_objects INDEXED BY crm_objects_recent_updated WHERE portal_id = ?1 AND object_type = 'contacts' AND archived = 0").bind(portal),
        d1.prepare("SELECT count(*) AS n FROM crm_objects WHERE portal_id = ?1").bind(portal),
      ]);
      return counts.map((c) => (c.results[0] as { n: number }).n);
    };
    const portal = 900_000 + Math.floor(Math.random() * 1000);
    const now = Date.now();
    const product = await d1
      .prepare("INSERT INTO crm_objects (id, portal_id, object_type, properties, guid, created_at, updated_at) VALUES ((SELECT seq + 1 FROM id_sequences WHERE name = 'crm_objects'), ?1, 'products', '{}', 'g1', ?2, ?2) RETURNING id")
      .bind(portal, now)
      .first<{ id: number }>();
    const write = await d1.prepare("UPDATE crm_objects SET updated_at = ?2 WHERE id = ?1").bind(product!.id, now + 1).run();
    expect(write.meta.rows_written).toBe(1); // the row alone: no recent-list index entry to move
    expect(await entries(portal)).toEqual([0, 1]);
    await d1.prepare("INSERT INTO crm_objects (id, portal_id, object_type, properties, guid, created_at, updated_at) VALUES ((SELECT seq + 1 FROM id_sequences WHERE name = 'crm_objects'), ?1, 'contacts', '{}', 'g2', ?2, ?2)").bind(portal, now).run();
    expect(await entries(portal)).toEqual([1, 2]);
  });
});
