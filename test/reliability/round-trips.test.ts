/**
 * D1 round trips per read: with the credential cached (the warm path), every read
 * route below costs exactly ONE D1 round trip on the account's shard and none on the control plane (the
 * credential and the account's shard come from the isolate's cache). A round trip is one
 * `prepare().first/all/run/raw` call or one `db.batch` call. Where D1's `meta` gives them (batches and
 * `all`), the rows read are counted too and held to at most 2 × the rows returned + 1.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { buildRouter } from "../../src/router";
import { BASE, call, send, type Tenant } from "../helpers/api";
import { createAuthor, createTopic, V2 } from "../blog/helpers";
import { BRIDGE } from "../ecomm/helpers";
import { bridgeTenantOn, deliver, qmsg, storeGen } from "../ecomm/queue-helpers";

interface Counts {
  roundTrips: number;
  /** Every statement prepared, with its bound values, on the binding it ran on. */
  statements: { d1: D1Database; sql: string; params: unknown[] }[];
}

const zero = (): Counts => ({ roundTrips: 0, statements: [] });

/** A D1 binding that records its statements and counts its round trips, then runs them. */
function countingDb(d1: D1Database, c: Counts): D1Database {
  const statement = (stmt: D1PreparedStatement, entry: Counts["statements"][number]): D1PreparedStatement =>
    new Proxy(stmt, {
      get(s, p) {
        if (p === "bind") {
          return (...values: unknown[]) => {
            entry.params = values;
            return statement(s.bind(...values), entry);
          };
        }
        const v = Reflect.get(s, p);
        if (typeof v !== "function") return v;
        if (p === "all" || p === "run" || p === "first" || p === "raw") {
          return (...args: unknown[]) => {
            c.roundTrips++;
            return (v as (...a: unknown[]) => unknown).apply(s, args);
          };
        }
        return v.bind(s);
      },
    });
  return new Proxy(d1, {
    get(target, prop) {
      if (prop === "prepare") {
        return (sql: string) => {
          const entry = { d1: target, sql, params: [] as unknown[] };
          c.statements.push(entry);
          return statement(target.prepare(sql), entry);
        };
      }
      if (prop === "batch") {
        return (stmts: D1PreparedStatement[]) => {
          c.roundTrips++;
          return target.batch(stmts);
        };
      }
      const v = Reflect.get(target, prop);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

/**
 * Rows D1 reads and returns for the recorded statements: each is run again through `all()`, whose `meta`
 * reports `rows_read` (drizzle reads through `raw()`, which has no meta). Only reads are recorded here.
 */
async function rowsOf(c: Counts) {
  let read = 0;
  let returned = 0;
  for (const s of c.statements) {
    const r = await s.d1.prepare(s.sql).bind(...s.params).all();
    read += r.meta.rows_read;
    returned += r.results.length;
  }
  return { read, returned };
}

/** One request through the router, every database counted: the control plane apart from the shards. */
async function counted(token: string, path: string, method = "GET", body?: unknown) {
  const control = zero();
  const shards = zero();
  const res = await buildRouter().fetch(
    new Request(`https://crm.test${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { ...env, DB: countingDb(env.DB, control), SHARD_1: countingDb(env.SHARD_1, shards), SHARD_2: countingDb(env.SHARD_2, shards) },
    createExecutionContext(),
  );
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, control, shards };
}

let a: Tenant;
let b: Tenant;
let postId: number;
let contactId: number;
let companyId: number;
let archivedId: number;

beforeAll(async () => {
  // The account lives on a shard, so the control plane's share is visible apart from the account's.
  ({ t: a } = await bridgeTenantOn("SHARD_1"));
  const origin = { portalId: a.portalId, appId: a.appId, storeId: "shop", storeGen: await storeGen(a.portalId, "shop") };
  await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "rt-1", properties: { title: "A" } })]);
  ({ t: b } = await bridgeTenantOn("SHARD_2"));
  const author = await createAuthor(a);
  const topic = await createTopic(a, { name: "Round trips" });
  const post = await call("POST", `${V2}/blog-posts`, { token: a.oauth, body: { name: "Counted", post_body: "<p>x</p>", blog_author_id: author.id, topic_ids: [topic.id] } });
  expect(post.status, post.text).toBe(201);
  postId = post.json.id;
  companyId = Number((await call("POST", "/crm/v3/objects/companies", { token: a.pat, body: { properties: { name: "Co" } } })).json.id);
  for (let i = 0; i < 12; i++) {
    const c = await call("POST", "/crm/v3/objects/contacts", { token: a.pat, body: { properties: { email: `rt${i}@example.com`, firstname: `F${i}`, company: "Counted Co" } } });
    expect(c.status, c.text).toBe(201);
    contactId ??= Number(c.json.id);
  }
  expect((await call("PUT", `/crm/v3/objects/contacts/${contactId}/associations/companies/${companyId}`, { token: a.pat })).status).toBe(204);
  await call("POST", "/tracking/v1/identify", { token: a.pat, body: { utk: "utk-rt", email: "rt0@example.com" } });
  // One merge, so the profile and list reads join real merge rows.
  const ids = (await call("GET", "/crm/v3/objects/contacts?limit=3", { token: a.pat })).json.results.map((r: { id: string }) => Number(r.id));
  const merged = await send(
    new Request(`${BASE}/contacts/v1/contact/merge-vids/${ids[1]}`, {
      method: "POST",
      headers: { authorization: `Bearer ${a.pat}`, "content-type": "application/json" },
      body: JSON.stringify({ vidToMerge: ids[2] }),
    }),
  );
  expect(merged.status).toBe(200); // its body is the recorded bare `SUCCESS`
  // One archived contact, for the archived=true reads. Without associations: association rows of its own
  // would be the next entries the other reads' index probes visit, one row read more each.
  archivedId = Number((await call("POST", "/crm/v3/objects/contacts", { token: a.pat, body: { properties: { email: "rt-gone@example.com" } } })).json.id);
  expect((await call("DELETE", `/crm/v3/objects/contacts/${archivedId}`, { token: a.pat })).status).toBe(204);
}, 60_000);

const search = (filters: unknown[], extra: Record<string, unknown> = {}) => ({ filterGroups: [{ filters }], limit: 5, ...extra });

/** Every single-record read and list held to one round trip, as [name, method, path, body?]. */
const reads = (): [string, string, string, unknown?][] => [
  ["blog post v2", "GET", `${V2}/blog-posts/${postId}`],
  ["blog post v3", "GET", `/cms/v3/blogs/posts/${postId}`],
  ["sync status", "GET", `${BRIDGE}/sync/status/shop/PRODUCT/rt-1`],
  ["v1 profile by vid", "GET", `/contacts/v1/contact/vid/${contactId}/profile`],
  ["v1 profile by email", "GET", "/contacts/v1/contact/email/rt0@example.com/profile"],
  ["v1 profile by utk", "GET", "/contacts/v1/contact/utk/utk-rt/profile"],
  ["v3 get", "GET", `/crm/v3/objects/contacts/${contactId}`],
  ["v3 get with associations", "GET", `/crm/v3/objects/contacts/${contactId}?associations=companies,deals`],
  ["v3 get by email", "GET", "/crm/v3/objects/contacts/rt0@example.com?idProperty=email&associations=companies"],
  ["v3 get archived", "GET", `/crm/v3/objects/contacts/${archivedId}?archived=true`],
  ["v3 get archived by email", "GET", "/crm/v3/objects/contacts/rt-gone@example.com?idProperty=email&archived=true&associations=companies"],
  ["v1 list", "GET", "/contacts/v1/lists/all/contacts/all?count=5"],
  ["v3 list", "GET", "/crm/v3/objects/contacts?limit=5"],
  ["v3 list with associations", "GET", "/crm/v3/objects/contacts?limit=5&associations=companies"],
  ["v3 list archived", "GET", "/crm/v3/objects/contacts?limit=5&archived=true"],
  ["v3 search", "POST", "/crm/v3/objects/contacts/search", search([{ propertyName: "company", operator: "EQ", value: "Counted Co" }])],
  ["v3 search sorted", "POST", "/crm/v3/objects/contacts/search", search([{ propertyName: "createdate", operator: "GT", value: "0" }], { sorts: ["-firstname"] })],
];

describe("D1 round trips per read, credential cached", () => {
  it("every read route is one D1 round trip on the account's shard and none on the control plane", async () => {
    for (const [name, method, path, body] of reads()) {
      await counted(a.pat, path, method, body); // warms the credential cache
      const r = await counted(a.pat, path, method, body);
      expect(r.status, `${name}: ${JSON.stringify(r.json)}`).toBe(200);
      expect({ name, control: r.control.roundTrips, shard: r.shards.roundTrips }).toEqual({ name, control: 0, shard: 1 });
      expect(r.control.statements, name).toEqual([]);
    }
  });

  it("the same with an OAuth token", async () => {
    for (const [name, method, path, body] of reads()) {
      await counted(a.oauth, path, method, body);
      const r = await counted(a.oauth, path, method, body);
      expect({ name, status: r.status, control: r.control.roundTrips, shard: r.shards.roundTrips }).toEqual({ name, status: 200, control: 0, shard: 1 });
    }
  });

  it("statements, rows returned and rows read of every read route (as D1 reports them for this seeded account)", async () => {
    const seen: Record<string, [number, number, number]> = {};
    for (const [name, method, path, body] of reads()) {
      const r = await counted(a.pat, path, method, body);
      const rows = await rowsOf(r.shards);
      seen[name] = [r.shards.statements.length, rows.returned, rows.read];
    }
    // [statements, rows returned, rows read at most]. Rows read count every row D1 visits: index entries, the
    // JSON lists' elements, and the search's count of all 12 of the account's matches (a window count read 46).
    const expected: Record<string, [number, number, number]> = {
      "blog post v2": [1, 1, 6], // the post joined to its blog and author, its topic as JSON
      "blog post v3": [1, 1, 6],
      "sync status": [1, 1, 2], // store, link, error, pending: one row of four scalar subqueries
      "v1 profile by vid": [1, 1, 3], // the contact and its merges
      "v1 profile by email": [1, 1, 3],
      "v1 profile by utk": [1, 1, 3],
      "v3 get": [1, 1, 1],
      "v3 get with associations": [2, 2, 5], // the record and its associations: one batch
      "v3 get by email": [2, 2, 6],
      "v3 get archived": [1, 1, 1],
      "v3 get archived by email": [2, 1, 3], // crm_objects_archived_email finds it, for the record and for its associations

      "v1 list": [1, 6, 13], // 5 contacts + 1 for has-more, one of them with its merge
      "v3 list": [1, 6, 6],
      "v3 list with associations": [2, 7, 20],
      "v3 list archived": [1, 1, 3], // the merged-away contact is archived too, and skipped
      "v3 search": [1, 5, 17],
      "v3 search sorted": [1, 5, 33],
    };
    for (const [name, [statements, returned, read]] of Object.entries(expected)) {
      const [s, ret, r] = seen[name]!;
      expect({ name, statements: s, returned: ret, readWithinBound: r <= read }, `${name}: ${r} rows read (bound ${read})`).toEqual({ name, statements, returned, readWithinBound: true });
    }
  });

  it("statements and rows of the single-record reads and the lists", async () => {
    const of = async (path: string, method = "GET", body?: unknown) => {
      const r = await counted(a.pat, path, method, body);
      return { statements: r.shards.statements.length, ...(await rowsOf(r.shards)) };
    };
    // The post with its blog, author and topic: one statement, one row.
    expect(await of(`${V2}/blog-posts/${postId}`)).toMatchObject({ statements: 1, returned: 1 });
    // The store and the link (no error, nothing pending): one statement answering one row, a row read for each found.
    expect(await of(`${BRIDGE}/sync/status/shop/PRODUCT/rt-1`)).toEqual({ statements: 1, returned: 1, read: 2 });
    // A profile: the contact and its merges, one statement.
    expect(await of(`/contacts/v1/contact/vid/${contactId}/profile`)).toMatchObject({ statements: 1, returned: 1 });
    // The v3 get with associations: the record and its associations in one batch.
    expect(await of(`/crm/v3/objects/contacts/${contactId}?associations=companies`)).toMatchObject({ statements: 2, returned: 2 });
    // The lists: one statement; a page of 5 reads 6 rows (has-more), plus the merged contact's merge row.
    const v1 = await of("/contacts/v1/lists/all/contacts/all?count=5");
    expect(v1.statements).toBe(1);
    expect(v1.returned).toBeGreaterThanOrEqual(6);
    expect(await of("/crm/v3/objects/contacts?limit=5")).toMatchObject({ statements: 1, returned: 6 });
    expect(await of("/crm/v3/objects/contacts/search", "POST", search([{ propertyName: "company", operator: "EQ", value: "Counted Co" }]))).toMatchObject({ statements: 1, returned: 5 });
  });

  it("the v1 search reads each match of its total once, and the page's rows once more: no buffered window count", async () => {
    const r = await counted(a.pat, "/contacts/v1/search/query?q=counted&count=5");
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ total: 11, "has-more": true });
    // The search and the page's merges: two statements. 43 rows read here (the window count read 68): the
    // count walks the 11 matches in the index, each with its record, and the page its 5 again.
    expect(r.shards.statements.length).toBe(2);
    expect((await rowsOf(r.shards)).read).toBeLessThanOrEqual(45);
  });

  it("a search naming a custom property reads its definition first: 2 round trips (justified: the SQL depends on its type)", async () => {
    const name = `rt_custom_${Date.now().toString(36)}`;
    const created = await call("POST", "/crm/v3/properties/contacts", { token: a.pat, body: { name, label: "RT", type: "number", fieldType: "number", groupName: "contactinformation" } });
    expect(created.status, created.text).toBe(201);
    const body = search([{ propertyName: name, operator: "GT", value: "1" }]);
    await counted(a.pat, "/crm/v3/objects/contacts/search", "POST", body);
    const r = await counted(a.pat, "/crm/v3/objects/contacts/search", "POST", body);
    expect({ status: r.status, control: r.control.roundTrips, shard: r.shards.roundTrips }).toEqual({ status: 200, control: 0, shard: 2 });
  });

  it("another account's ids cost the same one round trip and are not found (isolation)", async () => {
    const paths = [
      `${V2}/blog-posts/${postId}`,
      `/cms/v3/blogs/posts/${postId}`,
      `/contacts/v1/contact/vid/${contactId}/profile`,
      `/crm/v3/objects/contacts/${contactId}?associations=companies`,
      `${BRIDGE}/sync/status/shop/PRODUCT/rt-1`,
    ];
    for (const path of paths) {
      await counted(b.pat, path);
      const r = await counted(b.pat, path);
      expect({ path, status: r.status, control: r.control.roundTrips, shard: r.shards.roundTrips }).toEqual({ path, status: 404, control: 0, shard: 1 });
      expect(JSON.stringify(r.json)).not.toContain("Counted");
    }
    // B's lists hold none of A's records.
    const list = await counted(b.pat, "/crm/v3/objects/contacts?limit=100&associations=companies");
    expect(list.json.results).toEqual([]);
    const found = await counted(b.pat, "/crm/v3/objects/contacts/search", "POST", search([{ propertyName: "company", operator: "EQ", value: "Counted Co" }]));
    expect(found.json).toEqual({ total: 0, results: [] });
  });
});
