/**
 * @module Disjoint id ranges per shard (issue 16; docs/scaling.md "Ids"). Account tables number their rows
 * with AUTOINCREMENT, and an account that moves keeps its ids; so no two shards may ever hand out the same
 * id. Shard `SHARD_<n>` numbers from n × 10^11 (n ≤ 9999 keeps every id within 15 digits, the API's id
 * limit); the control plane from 0. `seedStatements` start a fresh shard's sequences there (run by
 * `npm run migrate` and the test setup after the migrations), and the mover resets the target's sequences
 * into its own range after copying rows of another range (src/services/moves/copy.ts).
 * scripts/migrate.mjs keeps a copy of ID_TABLES: change both together.
 */
import { shardOrdinal } from "./shards";

export const ID_RANGE = 100_000_000_000;
export const MAX_SHARD_ORDINAL = 9999;

/** Account tables whose id is an AUTOINCREMENT primary key, with that column. */
export const ID_TABLES: Record<string, string> = {
  crm_objects: "id",
  blogs: "id",
  blog_authors: "id",
  blog_topics: "id",
  blog_posts: "id",
  smtp_tokens: "id",
  ecomm_links: "id",
  ecomm_imports: "id",
  timeline_events: "row_id",
  webhook_outbox: "id",
};

export const idBase = (shard: string) => shardOrdinal(shard) * ID_RANGE;

/** Idempotent: starts each sequence at the shard's base unless it already has one. */
export function seedStatements(shard: string): string[] {
  const base = idBase(shard);
  if (base === 0) return [];
  return Object.keys(ID_TABLES).map(
    (t) => `insert into sqlite_sequence (name, seq) select '${t}', ${base} where not exists (select 1 from sqlite_sequence where name = '${t}')`,
  );
}
