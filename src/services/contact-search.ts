/**
 * @module `GET /contacts/v1/search/query` (issue 18): contacts whose email, first name, last name, phone or
 * company contain every word of the query as a word prefix. The FTS5 table `contact_search` (migration
 * 0005, kept in step by triggers on crm_objects) answers it; its `portal` column narrows each MATCH to the
 * caller's account inside the index, so no statement scans the account's rows (docs/reference/contacts-v1.md "Search").
 */
import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import type { CrmRow } from "./crm";
import { crmRowFromRaw, type RawCrmRow } from "./contacts-v1";

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
 * One page in vid order and the total: ONE statement (the total is a window count over the matches).
 * CROSS JOIN and the unary + keep the FTS index as the outer loop, each match one primary-key lookup;
 * otherwise SQLite walks the account's contacts and probes the index for each.
 */
export async function searchContacts(db: Db, portalId: number, q: string, count: number, offset: number) {
  const words = searchWords(q);
  if (words.length === 0) return { rows: [] as CrmRow[], total: 0 };
  const rows = await db.all<Raw>(sql`
    select c.*, count(*) over () as total
    from contact_search s cross join crm_objects c
      on c.id = s.rowid and +c.portal_id = ${portalId} and +c.object_type = 'contacts' and +c.archived = 0
    where contact_search match ${matchExpression(portalId, words)}
    order by s.rowid limit ${count} offset ${offset}`);
  let total = rows[0]?.total ?? 0;
  if (rows.length === 0 && offset > 0) {
    // Past the end: the window count saw no rows, so count the matches on their own.
    const [n] = await db.all<{ n: number }>(sql`select count(*) as n from contact_search where contact_search match ${matchExpression(portalId, words)}`);
    total = n?.n ?? 0;
  }
  return {
    rows: rows.map(crmRowFromRaw),
    total,
  };
}
