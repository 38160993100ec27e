/**
 * @module `GET /contacts/v1/search/query`: contacts whose email, first name, last name, phone or
 * company contain every word of the query as a word prefix. The FTS5 table `contact_search` (migration
 * 0006, kept in step by triggers on crm_objects) answers it; its `portal` column narrows each MATCH to the
 * caller's account inside the index, so no statement scans the account's rows (docs/reference/contacts-v1.md "Search").
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { crmRowFromRaw, type CrmRow, type RawCrmRow } from "./records";

/** Query words: letters and digits, as the index's unicode61 tokenizer splits them; at most 16. */
export const searchWords = (q: string) =>
  q
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .slice(0, 16);

/** The FTS5 MATCH expression: this account, and every word as a quoted prefix (no operator injection). */
export const matchExpression = (portalId: number, words: string[]) =>
  `portal : "p${portalId}" AND terms : (${words.map((w) => `"${w.replace(/"/g, '""')}"*`).join(" ")})`;

interface Raw extends RawCrmRow {
  total: number;
}

/**
 * One page in vid order and the total: ONE statement. CROSS JOIN and the unary + keep the FTS index as the
 * outer loop, each match one primary-key lookup; otherwise SQLite walks the account's contacts and probes the
 * index for each. The total is a count over the same matches, written once as a CTE that SQLite expands in
 * both places (NOT MATERIALIZED), as the v3 search does: a window count (`count(*) over ()`) would buffer
 * every match in a temporary table, which D1 counts as rows read a second time. The page is ordered by the
 * index's own rowid (the vid), which the index hands out in order: no temporary B-tree for the ORDER BY.
 * Measured on 30 matches, a page of 10: 151 rows read with the window count, 79 this way.
 */
export async function searchContacts(db: Db, portalId: number, q: string, count: number, offset: number, indexedUntil?: number) {
  const words = searchWords(q);
  if (words.length === 0) return { rows: [] as CrmRow[], total: 0 };
  // A test account's search lag (src/services/testkit/quirks.ts): records written since are not indexed yet.
  const lag = indexedUntil === undefined ? sql`` : sql` and c.updated_at <= ${indexedUntil}`;
  const rows = await db.all<Raw>(sql`
    with m as not materialized (
      select c.*, s.rowid as match_order from contact_search s cross join crm_objects c
        on c.id = s.rowid and +c.portal_id = ${portalId} and +c.object_type = 'contacts' and +c.archived = 0
      where contact_search match ${matchExpression(portalId, words)}${lag})
    select m.*, (select count(*) from m) as total from m order by m.match_order limit ${count} offset ${offset}`);
  let total = rows[0]?.total ?? 0;
  if (rows.length === 0 && offset > 0) {
    // Past the end: no row carries the count, so count the matches on their own.
    const [n] =
      indexedUntil === undefined
        ? await db.all<{ n: number }>(sql`select count(*) as n from contact_search where contact_search match ${matchExpression(portalId, words)}`)
        : await db.all<{ n: number }>(sql`select count(*) as n from contact_search s cross join crm_objects c on c.id = s.rowid
            where contact_search match ${matchExpression(portalId, words)}${lag}`);
    total = n?.n ?? 0;
  }
  return {
    rows: rows.map(crmRowFromRaw),
    total,
  };
}
