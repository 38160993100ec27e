/**
 * A search on an account of more than 10,000 records reads a bounded number of rows: the total stops at
 * 10,000 (the most a search can page to, docs/reference/crm.md "Search"), so the count never reads the whole
 * account. Rows are counted by D1 itself (the counting client); the records are inserted in chunks of 500 given
 * as one JSON parameter each, as the test kit's fixtures load them (src/services/testkit/fixtures.ts).
 */
import { describe, expect, it } from "vitest";
import { makeDb } from "../../src/db/client";
import { MAX_TOTAL } from "../../src/schemas/crm/search";
import { searchObjects, type SearchInput } from "../../src/services/crm/search";
import { tenant } from "../helpers/api";
import { countingD1 } from "../helpers/counting-d1";
import { accountD1 } from "../helpers/shards";
import { search } from "./helpers";

const RECORDS = 12_000;

/** Inserts `n` contacts into the account, ids from the database's counter (as a fixture does). */
async function bulkContacts(d1: D1Database, portalId: number, n: number) {
  const rows = Array.from({ length: n }, (_, i) => {
    const email = `s${i}@scale.example`;
    return ["contacts", JSON.stringify({ email, firstname: `First${i}`, lastname: `Last${i}`, company: "Scale Co", lifecyclestage: i % 2 ? "customer" : "lead" }), email, crypto.randomUUID()];
  });
  const statements = [];
  for (let i = 0; i < rows.length; i += 500) {
    statements.push(
      d1
        .prepare(
          `insert into crm_objects (id, portal_id, object_type, properties, email, guid, archived, created_at, updated_at)
           select (select seq from id_sequences where name = 'crm_objects') + row_number() over (order by j.key), ?1, j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3, 0, ?2, ?2
           from json_each(?3) j order by j.key`,
        )
        .bind(portalId, Date.now(), JSON.stringify(rows.slice(i, i + 500))),
    );
  }
  await d1.batch(statements);
}

const input = (over: Partial<SearchInput>): SearchInput => ({ filterGroups: [], limit: 10, after: 0, properties: [], ...over });

describe("search on an account of many records", () => {
  it("counts at most 10,000 matches: rows read stay near 10,000 whatever the account's size", { timeout: 60_000 }, async () => {
    const t = await tenant();
    const binding = await accountD1(t.portalId);
    await bulkContacts(binding, t.portalId, RECORDS);
    const d1 = countingD1(binding);
    const db = makeDb(d1);

    const cases: [string, SearchInput, number][] = [
      ["no filter", input({}), MAX_TOTAL],
      ["a filter every record matches", input({ filterGroups: [{ filters: [{ propertyName: "company", operator: "EQ", value: "scale co" }] }] }), MAX_TOTAL],
      ["a filter half the records match", input({ filterGroups: [{ filters: [{ propertyName: "lifecyclestage", operator: "EQ", value: "customer" }] }] }), RECORDS / 2],
    ];
    for (const [name, body, total] of cases) {
      const before = { rows: d1.counts.rowsRead, statements: d1.counts.statements };
      const page = await searchObjects(db, t.portalId, "contacts", body);
      expect(page.total, name).toBe(total);
      expect(page.rows, name).toHaveLength(10);
      expect(d1.counts.statements - before.statements, name).toBe(1);
      const read = d1.counts.rowsRead - before.rows;
      // The count's walk, stopped at 10,000 matches (or the account's end when fewer match), and the page's
      // rows. An exact count would read every one of the 12,000 records in the first two cases.
      const walked = total === MAX_TOTAL ? MAX_TOTAL : RECORDS;
      expect(read, `${name}: ${JSON.stringify(d1.counts.log.at(-1))}`).toBeLessThanOrEqual(walked + 100);
      if (total === MAX_TOTAL) expect(read, name).toBeLessThan(RECORDS);
    }

    // Through the API: the last page that can be read answers total 10,000 and no next page.
    const last = await search(t, "contacts", { limit: 10, after: String(MAX_TOTAL - 10) });
    expect(last.status, last.text).toBe(200);
    expect(last.json.total).toBe(MAX_TOTAL);
    expect(last.json.results).toHaveLength(10);
    expect(last.json.paging).toBeUndefined();
  });
});
