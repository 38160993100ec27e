/** The web app's lists: sort, filters with the search's operators, chosen columns, keyset pages and what a page reads. */
import { describe, expect, it } from "vitest";
import { makeDb } from "../../src/db/client";
import { encodeCursor, listPage } from "../../src/services/web/lists";
import { ADMIN, call, tenant, type Tenant } from "../helpers/api";
import { countingD1 } from "../helpers/counting-d1";
import { accountD1 } from "../helpers/shards";
import { page, signIn } from "./helpers";

async function create(t: Tenant, type: string, properties: Record<string, string>) {
  const res = await call("POST", `/crm/v3/objects/${type}`, { token: t.pat, body: { properties } });
  expect(res.status, res.text).toBe(201);
  return Number(res.json.id);
}

/** Record ids of a list page, in order. */
const ids = (html: string, type: string) => [...html.matchAll(new RegExp(`<a href="/app/${type}/(\\d+)">`, "g"))].map((m) => Number(m[1]));
const nextHref = (html: string) => /<a href="([^"]+)" rel="next">Next page<\/a>/.exec(html)?.[1]?.replace(/&amp;/g, "&");
const filter = (p: string, op: string, v = "", h = "") => `fp=${encodeURIComponent(p)}&fo=${op}&fv=${encodeURIComponent(v)}&fh=${encodeURIComponent(h)}`;

describe("GET /app/:objectType: sort, filters, columns", () => {
  it("sorts by a shown column both ways, marks the header with aria-sort, and puts records without the value last", async () => {
    const t = await tenant();
    const b = await signIn(t);
    const deals = {
      small: await create(t, "deals", { dealname: "Small", amount: "5" }),
      big: await create(t, "deals", { dealname: "Big", amount: "1200" }),
      none: await create(t, "deals", { dealname: "No amount" }),
      mid: await create(t, "deals", { dealname: "Mid", amount: "75.5" }),
    };
    const asc = await page(b, "/app/deals?sort=amount&dir=asc");
    expect(asc.status, asc.text).toBe(200);
    // Amounts compare as numbers ("1200" after "75.5"), as the search compares a number property.
    expect(ids(asc.text, "deals")).toEqual([deals.small, deals.mid, deals.big, deals.none]);
    expect(asc.text).toMatch(/<th role="columnheader" scope="col" aria-sort="ascending" class="num"><a class="sort" href="\/app\/deals\?sort=amount&amp;dir=desc">Amount/);
    expect(asc.text.match(/aria-sort=/g)).toHaveLength(1);
    const desc = await page(b, "/app/deals?sort=amount&dir=desc");
    expect(ids(desc.text, "deals")).toEqual([deals.big, deals.mid, deals.small, deals.none]);
    expect(desc.text).toContain('aria-sort="descending"');
    const byName = await page(b, "/app/deals?sort=dealname&dir=asc");
    expect(ids(byName.text, "deals")).toEqual([deals.big, deals.mid, deals.none, deals.small]);
    expect(byName.text).toMatch(/<th role="columnheader" scope="col" aria-sort="ascending"><a class="sort" href="[^"]*">Name/);
  });

  it("filters with the search's operators, ANDed, and keeps them in every link", async () => {
    const t = await tenant();
    const b = await signIn(t);
    const ada = await create(t, "contacts", { firstname: "Ada", email: "ada@lists.example", city: "London", jobtitle: "Countess" });
    const alan = await create(t, "contacts", { firstname: "Alan", email: "alan@lists.example", city: "Wilmslow" });
    const grace = await create(t, "contacts", { firstname: "Grace", email: "grace@lists.example", city: "New York" });
    const show = async (qs: string) => {
      const res = await page(b, `/app/contacts?${qs}`);
      expect(res.status, res.text.slice(0, 2000)).toBe(200);
      return ids(res.text, "contacts");
    };
    expect(await show(filter("city", "EQ", "london"))).toEqual([ada]);
    expect(await show(filter("city", "NEQ", "London"))).toEqual([alan, grace]);
    expect(await show(filter("city", "IN", "London, New York"))).toEqual([ada, grace]);
    expect(await show(filter("jobtitle", "HAS_PROPERTY"))).toEqual([ada]);
    expect(await show(filter("jobtitle", "NOT_HAS_PROPERTY"))).toEqual([alan, grace]);
    expect(await show(filter("email", "CONTAINS_TOKEN", "grace"))).toEqual([grace]);
    expect(await show(filter("hs_object_id", "BETWEEN", String(alan), String(grace)))).toEqual([alan, grace]);
    expect(await show(filter("hs_object_id", "GT", String(ada)))).toEqual([alan, grace]);
    expect(await show(filter("hs_object_id", "LTE", String(alan)))).toEqual([ada, alan]);
    expect(await show(`${filter("city", "NEQ", "London")}&${filter("firstname", "CONTAINS_TOKEN", "gr")}`)).toEqual([grace]);
    // The same filter through the API's search answers the same records.
    const api = await call("POST", "/crm/v3/objects/contacts/search", { token: t.pat, body: { filterGroups: [{ filters: [{ propertyName: "city", operator: "IN", values: ["London", "New York"] }] }] } });
    expect(api.json.results.map((r: { id: string }) => Number(r.id))).toEqual([ada, grace]);
    // The blank "add a filter" row of the form is left out; the active filter is listed with a link that removes it.
    const res = await page(b, `/app/contacts?${filter("city", "EQ", "London")}&fp=&fo=&fv=&fh=&sort=firstname&dir=desc`);
    expect(ids(res.text, "contacts")).toEqual([ada]);
    expect(res.text).toContain(`<ul class="active-filters" aria-label="Active filters"><li>City is London <a href="/app/contacts?sort=firstname&amp;dir=desc" aria-label="Remove filter 1">×</a></li></ul>`);
    expect(res.text).toContain(`href="/app/contacts?sort=firstname&amp;dir=asc&amp;fp=city&amp;fo=EQ&amp;fv=London&amp;fh="`);
  });

  it("shows the chosen columns, labelled, in the order asked", async () => {
    const t = await tenant();
    const b = await signIn(t);
    await create(t, "contacts", { firstname: "Ada", email: "ada@cols.example", city: "London <b>", phone: "+44 1" });
    const res = await page(b, "/app/contacts?col=city&col=phone&col=createdate");
    expect(res.status).toBe(200);
    const heads = [...res.text.matchAll(/<th role="columnheader"[^>]*><a class="sort" href="[^"]*">([^<]*)</g)].map((m) => m[1]);
    // Labelled as the properties API labels them.
    expect(heads).toEqual(["Name", "City", "Phone Number", "Created"]);
    expect(res.text).toContain(`<td role="cell" data-label="City"><span>London &lt;b&gt;</span></td>`);
    expect(res.text).not.toContain("ada@cols.example</span>");
    expect(res.text).toMatch(/<input type="checkbox" id="col-city" name="col" value="city" checked>/);
    expect(res.text).toMatch(/<input type="checkbox" id="col-email" name="col" value="email">/);
  });

  it.each([
    ["an unknown operator", `fp=city&fo=LIKE&fv=x&fh=`, "fo.0: fo (a filter's operator) must be one of EQ"],
    ["an unknown sort direction", "sort=city&dir=up", "dir: dir must be asc or desc"],
    ["a sort by a property the type does not have", "sort=nope", "sort: contacts has no property nope"],
    ["a filter on a property the type does not have", filter("nope", "EQ", "x"), "filter 1.propertyName: contacts has no property nope"],
    ["a value that is not a number for a number property", filter("hs_object_id", "GT", "ten"), `filter 1.value: "ten" is not a number`],
    ["BETWEEN without its high value", filter("hs_object_id", "BETWEEN", "1"), "filter 1.highValue: required for BETWEEN"],
    ["a filter without an operator", "fp=city&fo=&fv=x&fh=", "filter 1 (city) needs an operator"],
    ["a column the type does not have", "col=nope", "col: contacts have no property nope"],
    ["seven filters", Array.from({ length: 7 }, () => filter("city", "HAS_PROPERTY")).join("&"), "at most 6 filters"],
    ["a cursor of another sort", "sort=city&after=12", "after: not a cursor of this list"],
    ["a sorted cursor on an unsorted list", `after=${encodeCursor(12, "x")}`, "after: not a cursor of this list"],
  ])("refuses %s with a 400 page naming the problem, never a 500", async (_name, qs, message) => {
    const b = await signIn(await tenant());
    const res = await page(b, `/app/contacts?${qs}`);
    expect(res.status, res.text.slice(0, 300)).toBe(400);
    expect(res.headers.get("content-type")).toBe("text/html;charset=utf-8");
    expect(res.text).toContain("<h1>This list cannot be shown</h1>");
    expect(res.text.replace(/&quot;/g, '"').replace(/&#39;/g, "'")).toContain(message);
  });
});

describe("GET /app/:objectType: keyset pages", () => {
  it("walks a sorted list with ties and missing values page by page: every record once, in the search's order", async () => {
    const t = await tenant();
    const b = await signIn(t);
    const made: { id: number; amount: number | null }[] = [];
    const inputs = Array.from({ length: 60 }, (_, i) => ({ properties: { dealname: `D${i}`, ...(i % 7 === 0 ? {} : { amount: String(i % 5) }) } }));
    const res = await call("POST", "/crm/v3/objects/deals/batch/create", { token: t.pat, body: { inputs } });
    expect(res.status, res.text).toBe(201);
    for (const r of res.json.results) made.push({ id: Number(r.id), amount: r.properties.amount === undefined ? null : Number(r.properties.amount) });
    const expected = [...made].sort((x, y) => (x.amount === null ? 1 : 0) - (y.amount === null ? 1 : 0) || (y.amount ?? 0) - (x.amount ?? 0) || x.id - y.id).map((x) => x.id);
    const seen: number[] = [];
    let path: string | undefined = "/app/deals?sort=amount&dir=desc";
    let pages = 0;
    while (path) {
      const html: string = (await page(b, path)).text;
      seen.push(...ids(html, "deals"));
      path = nextHref(html);
      pages++;
      if (path) expect(path).toContain("sort=amount&dir=desc");
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(expected);
  });

  it("reads as few rows on the 400th page of 10,000 contacts as on the first", { timeout: 120_000 }, async () => {
    const t = await tenant({ accountType: "DEVELOPER_TEST" });
    const contacts = Array.from({ length: 10_000 }, (_, i) => ({ ref: `p${i}`, properties: { email: `p${i}@bulk.example`, firstname: `First${i}`, lastname: `L${String(9999 - i).padStart(4, "0")}` } }));
    const loaded = await call("POST", `/admin/v1/accounts/${t.portalId}/fixtures`, { token: ADMIN, body: { records: { contacts } } });
    expect(loaded.status, loaded.text.slice(0, 300)).toBe(201);
    const refs = loaded.json.refs as Record<string, string>;
    const idOf = (i: number) => Number(refs[`p${i}`]);
    const d1 = countingD1(await accountD1(t.portalId));
    const db = makeDb(d1);
    const read = async (input: Parameters<typeof listPage>[3]) => {
      const before = d1.counts.rowsRead;
      const result = await listPage(db, t.portalId, "contacts", input);
      return { ...result, rowsRead: d1.counts.rowsRead - before };
    };
    // Id order: the index from the cursor on, 26 rows (25 and one to know a next page exists).
    const first = await read({ filters: [] });
    expect(first.rows.map((r) => r.id)).toEqual(Array.from({ length: 25 }, (_, i) => idOf(i)));
    const last = await read({ filters: [], after: String(idOf(9974)) });
    expect(last.rows.map((r) => r.id)).toEqual(Array.from({ length: 25 }, (_, i) => idOf(9975 + i)));
    expect(last.next).toBeNull();
    expect(first.rowsRead).toBeLessThanOrEqual(30);
    expect(last.rowsRead).toBeLessThanOrEqual(30);
    // Sorted by a property (no index on its values): every contact is visited, and those after the cursor go
    // through the sorter, which D1 counts as rows read again: at most 2 × 10,000 on the first page, and less
    // on later ones, which sort fewer. No page pays for the pages before it, as an OFFSET would.
    const sort = { propertyName: "lastname", direction: "asc" as const };
    const sortedFirst = await read({ filters: [], sort });
    expect(sortedFirst.rows.map((r) => r.id)).toEqual(Array.from({ length: 25 }, (_, i) => idOf(9999 - i)));
    const sortedLast = await read({ filters: [], sort, after: encodeCursor(idOf(25), "l9974") });
    expect(sortedLast.rows.map((r) => r.id)).toEqual(Array.from({ length: 25 }, (_, i) => idOf(24 - i)));
    expect(sortedLast.next).toBeNull();
    expect(sortedFirst.rowsRead).toBeLessThanOrEqual(20_030);
    expect(sortedLast.rowsRead).toBeLessThanOrEqual(sortedFirst.rowsRead);
    // And the page itself, signed in: the 400th page through the URL's cursor.
    const b = await signIn(t);
    const html = (await page(b, `/app/contacts?after=${idOf(9974)}`)).text;
    expect(ids(html, "contacts")).toEqual(Array.from({ length: 25 }, (_, i) => idOf(9975 + i)));
    expect(html).not.toContain("Next page");
  });
});
