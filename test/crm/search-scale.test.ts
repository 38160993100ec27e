/**
 * A search on an account of more than 10,000 records reads a bounded number of rows: the total stops at
 * 10,000 (the most a search can page to, docs/reference/crm.md "Search"), so the count never reads the whole
 * account, and a filter on an indexed property (INDEXED_PROPERTIES) reads its matches through the property's
 * expression index, not every record of the type. Rows are counted by D1 itself (the counting client); the records are inserted in chunks of 500 given
 * as one JSON parameter each, as the test kit's fixtures load them (src/services/testkit/fixtures.ts).
 */
import { describe, expect, it } from "vitest";
import { makeDb } from "../../src/db/client";
import { INDEXED_PROPERTIES } from "../../src/db/tables/crm";
import { MAX_TOTAL } from "../../src/schemas/crm/search";
import { searchObjects, type SearchInput } from "../../src/services/crm/search";
import { tenant } from "../helpers/api";
import { countingD1 } from "../helpers/counting-d1";
import { accountD1 } from "../helpers/shards";
import { search, watched } from "./helpers";

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

    // The first 10 customers and leads in id order, read with `->>` (not the search's expression, so not
    // through its index): the pages the search answered before the index existed.
    const firstOf = async (stage: string) =>
      (
        await binding
          .prepare("select id from crm_objects where portal_id = ?1 and object_type = 'contacts' and archived = 0 and properties ->> 'lifecyclestage' = ?2 order by id limit 10")
          .bind(t.portalId, stage)
          .all<{ id: number }>()
      ).results.map((r) => r.id);
    const customers = await firstOf("customer");
    const leads = await firstOf("lead");
    const stage = (operator: "EQ" | "NEQ" | "IN", value: string) =>
      input({ filterGroups: [{ filters: [{ propertyName: "lifecyclestage", operator, ...(operator === "IN" ? { values: [value] } : { value }) }] }] });

    // [name, body, total, first ids of the page (when pinned), most rows read]
    const cases: [string, SearchInput, number, number[] | null, number][] = [
      // The count's walk of crm_objects_list, stopped at 10,000 matches, and the page: an exact count would read
      // every one of the 12,000 records.
      ["no filter", input({}), MAX_TOTAL, null, MAX_TOTAL + 100],
      ["a filter every record matches", input({ filterGroups: [{ filters: [{ propertyName: "company", operator: "EQ", value: "scale co" }] }] }), MAX_TOTAL, null, MAX_TOTAL + 100],
      // An indexed property: the count reads the 6,000 matches in the index and the page its 10. Without the
      // index the count walks all 12,000 records to find them (12,010 rows read).
      ["EQ on an indexed property half the records match", stage("EQ", "customer"), RECORDS / 2, customers, RECORDS / 2 + 100],
      ["IN on an indexed property half the records match", stage("IN", "customer"), RECORDS / 2, customers, RECORDS / 2 + 100],
      // NEQ also matches records without the property, which the index leaves out: it walks the records.
      ["NEQ on an indexed property", stage("NEQ", "customer"), RECORDS / 2, leads, RECORDS + 100],
    ];
    for (const [name, body, total, first, most] of cases) {
      const before = { rows: d1.counts.rowsRead, statements: d1.counts.statements };
      const page = await searchObjects(db, t.portalId, "contacts", body);
      expect(page.total, name).toBe(total);
      expect(page.rows, name).toHaveLength(10);
      if (first) expect(page.rows.map((r) => r.id), name).toEqual(first);
      expect(d1.counts.statements - before.statements, name).toBe(1);
      const read = d1.counts.rowsRead - before.rows;
      expect(read, `${name}: ${JSON.stringify(d1.counts.log.at(-1))}`).toBeLessThanOrEqual(most);
      if (total === MAX_TOTAL) expect(read, name).toBeLessThan(RECORDS);
    }

    // A later page of the indexed filter is offset-paged in the index: the page after 5,980 matches is the
    // same as through the records, and reads the index up to it, not the records.
    const late = await searchObjects(db, t.portalId, "contacts", { ...stage("EQ", "customer"), after: RECORDS / 2 - 20 });
    const lastCustomers = (
      await binding
        .prepare("select id from crm_objects where portal_id = ?1 and object_type = 'contacts' and archived = 0 and properties ->> 'lifecyclestage' = 'customer' order by id desc limit 20")
        .bind(t.portalId)
        .all<{ id: number }>()
    ).results.map((r) => r.id).reverse();
    expect(late.total).toBe(RECORDS / 2);
    expect(late.rows.map((r) => r.id)).toEqual(lastCustomers.slice(0, 10));

    // Through the API: the last page that can be read answers total 10,000 and no next page.
    const last = await search(t, "contacts", { limit: 10, after: String(MAX_TOTAL - 10) });
    expect(last.status, last.text).toBe(200);
    expect(last.json.total).toBe(MAX_TOTAL);
    expect(last.json.results).toHaveLength(10);
    expect(last.json.paging).toBeUndefined();
  });

  /** The plan SQLite makes for the search statement of one search body, its values bound. */
  async function plan(t: Awaited<ReturnType<typeof tenant>>, type: string, body: unknown): Promise<string[]> {
    const seen = await watched(`/crm/v3/objects/${type}/search`, body, t.pat);
    const statement = seen.statements.find((s) => s.sql.startsWith("with m as"));
    if (!statement) throw new Error(`no search statement among ${seen.statements.map((s) => s.sql.slice(0, 60)).join(" | ")}`);
    const d1 = await accountD1(t.portalId);
    const rows = await d1.prepare(`explain query plan ${statement.sql}`).bind(...statement.params).all<{ detail: string }>();
    return rows.results.map((r) => r.detail).filter((d) => d.startsWith("SEARCH c") || d.startsWith("SCAN c"));
  }
  const filter = (propertyName: string, operator: string, value: Record<string, unknown> = {}) => ({ filterGroups: [{ filters: [{ propertyName, operator, ...value }] }], limit: 100 });

  it("every indexed property has its index, and EQ, IN and HAS_PROPERTY on it read through it", { timeout: 60_000 }, async () => {
    const t = await tenant();
    for (const [type, names] of Object.entries(INDEXED_PROPERTIES)) {
      for (const name of names) {
        const index = `crm_objects_${type}_${name}`;
        // EQ: the count and the page both read the index (the page in id order, without a sort).
        const eq = await plan(t, type, filter(name, "EQ", { value: "x" }));
        expect(eq, `${type}.${name} EQ`).toHaveLength(2);
        for (const step of eq) expect(step, `${type}.${name} EQ`).toContain(`INDEX ${index} `);
        // IN and HAS_PROPERTY: the count reads the index; the page may walk the records in id order.
        for (const body of [filter(name, "IN", { values: ["x", "y"] }), filter(name, "HAS_PROPERTY")]) {
          const steps = await plan(t, type, body);
          expect(steps.some((s) => s.includes(`INDEX ${index} `)), `${type}.${name} ${JSON.stringify(body)}: ${steps.join(" | ")}`).toBe(true);
          expect(steps.join(" | "), `${type}.${name}`).not.toContain("TEMP B-TREE");
        }
        // A range keeps the records' walk: through the index its matches come in value order and the page would sort them all.
        const range = await plan(t, type, filter(name, "LT", { value: "x" }));
        expect(range.join(" | "), `${type}.${name} LT`).not.toContain(index);
      }
    }
    // A property without an index walks the type's records as before.
    const plain = await plan(t, "contacts", filter("firstname", "EQ", { value: "x" }));
    expect(plain.every((s) => s.includes("INDEX crm_objects_list ")), plain.join(" | ")).toBe(true);
  });
});
