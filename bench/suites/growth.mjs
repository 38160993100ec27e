/**
 * Figure 16 — cost as an account grows (docs/explanation/scaling.md, "Cost as an account grows"): the same
 * reads on an account of 100,000 contacts and on one of 1,000, in the same cluster and the same moments.
 *
 * Three STANDARD accounts: "small" and "small (A/A)" of `growthSmall` contacts, "large" of `growthLarge`. The
 * contacts go straight into D1 in chunks of 500 rows given as one JSON parameter each (the insert of the test
 * kit's fixtures, src/services/testkit/fixtures.ts: ids from the database's counter, every trigger run, the
 * contact search index included), so 100,000 take seconds, not the minutes of the batch API. Every other
 * contact is a customer, the others leads.
 *
 * For each route, every sample sends `growthBlock` requests to each account, request by request, the account
 * that goes first rotating (c=1, as figure 15); a sample gives large ÷ small and, as the A/A control, the
 * second small account ÷ the first, in requests/s (so also the inverse ratio of their latencies). A figure is
 * the median of `growthPairs` samples with its 95 % bootstrap interval; target: the median ≥ 0.8. Then a
 * counting pass (the bench Worker's counting D1 client) gives each route's statements and rows read on both.
 */
import { status, step } from "../lib/progress.mjs";
import { provisionTenant } from "../lib/seed.mjs";
import { bootstrapMedianInterval, median } from "../lib/stats.mjs";

const TARGET = 0.8;
const CHUNK = 500;
const CUSTOMERS = { filterGroups: [{ filters: [{ propertyName: "lifecyclestage", operator: "EQ", value: "customer" }] }], limit: 100 };

/** The reads compared; `t` is an account with its `middleId` (the contact halfway through its ids). */
const ROUTES = [
  { id: "v1list", name: "v1 contact list, count=100, first page", path: () => "/contacts/v1/lists/all/contacts/all?count=100", items: (j) => j.contacts.length },
  { id: "v1list_middle", name: "v1 contact list, count=100, page after the middle contact", path: (t) => `/contacts/v1/lists/all/contacts/all?count=100&vidOffset=${t.middleId}`, items: (j) => j.contacts.length },
  { id: "v3get", name: "CRM v3 contact by id", path: (t) => `/crm/v3/objects/contacts/${t.middleId}`, items: () => 1 },
  { id: "v3list", name: "CRM v3 contact list, limit=100, first page", path: () => "/crm/v3/objects/contacts?limit=100", items: (j) => j.results.length },
  { id: "v3list_middle", name: "CRM v3 contact list, limit=100, page after the middle contact", path: (t) => `/crm/v3/objects/contacts?limit=100&after=${t.middleId}`, items: (j) => j.results.length },
  { id: "v3search", name: "CRM v3 contact search, limit=100, no filter", method: "POST", path: () => "/crm/v3/objects/contacts/search", body: { limit: 100 }, items: (j) => j.results.length },
  { id: "v3search_filter", name: "CRM v3 contact search, limit=100, lifecyclestage EQ customer (half the contacts)", method: "POST", path: () => "/crm/v3/objects/contacts/search", body: CUSTOMERS, items: (j) => j.results.length },
];

/**
 * `n` contacts into the account's database, in batches of 4 statements of 500 rows (batches of 20 statements,
 * 10,000 rows with their search index, made the local workerd close the connection).
 */
async function seedContacts(db, portalId, n, label) {
  const now = Date.now();
  const statements = [];
  for (let from = 0; from < n; from += CHUNK) {
    const rows = [];
    for (let i = from; i < Math.min(n, from + CHUNK); i++) {
      const email = `g${i}@${label}.growth.example`;
      rows.push(["contacts", JSON.stringify({ email, firstname: `First${i}`, lastname: `Last${i}`, company: `Company ${i % 500}`, lifecyclestage: i % 2 ? "customer" : "lead" }), email, crypto.randomUUID()]);
    }
    statements.push(
      db
        .prepare(
          `insert into crm_objects (id, portal_id, object_type, properties, email, guid, archived, created_at, updated_at)
           select (select seq from id_sequences where name = 'crm_objects') + row_number() over (order by j.key), ?1, j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3, 0, ?2, ?2
           from json_each(?3) j order by j.key`,
        )
        .bind(portalId, now, JSON.stringify(rows)),
    );
  }
  const count = async () => (await db.prepare("select count(*) as n from crm_objects where portal_id = ?1").bind(portalId).first()).n;
  for (let i = 0; i < statements.length; i += 4) {
    const upTo = Math.min(n, (i + 4) * CHUNK);
    status(`growth: seeding ${label}, ${upTo.toLocaleString("en-US")}/${n.toLocaleString("en-US")} contacts`);
    try {
      await db.batch(statements.slice(i, i + 4));
    } catch (err) {
      // Miniflare's proxy from Node sometimes loses the connection on a loaded machine; a batch is one
      // transaction, so it either landed whole or not at all: count, and send it again only if it did not.
      const have = await count();
      step(`growth: a seeding batch failed (${err.message}); the account has ${have.toLocaleString("en-US")} contacts, ${have === upTo ? "it landed" : "sending it again"}`);
      if (have !== upTo) await db.batch(statements.slice(i, i + 4));
    }
  }
  const { id } = await db.prepare("select id from crm_objects where portal_id = ?1 and object_type = 'contacts' order by id limit 1 offset ?2").bind(portalId, Math.floor(n / 2)).first();
  return id;
}

/** The database's size as D1 reports it (`meta.size_after`, as `GET /admin/v1/shards` reads it). */
const sizeOf = async (db) => (await db.prepare("select 1").run()).meta.size_after;

/** One sample: `block` requests to each account, interleaved, the first rotating; answers each one's req/s. */
async function sample(ctx, accounts, route, block, k) {
  const spent = accounts.map(() => 0);
  for (let i = 0; i < block; i++) {
    for (let j = 0; j < accounts.length; j++) {
      const at = (i + k + j) % accounts.length;
      const a = accounts[at];
      const res = await ctx.http.request(route.method ?? "GET", route.path(a), { token: a.oauth, body: route.body });
      if (res.status >= 500) ctx.count5xx(1);
      if (res.status !== 200) ctx.fail(`growth, ${route.name} on ${a.label}: ${res.status} ${res.text.slice(0, 200)}`);
      spent[at] += res.ms;
    }
  }
  return spent.map((ms) => block / (ms / 1000));
}

/** Statements and rows read of one request, through the bench Worker's counting D1 client (third of three). */
async function counted(ctx, route, a) {
  let last;
  for (let i = 0; i < 3; i++) {
    const res = await ctx.bench.json(route.method ?? "GET", `/__bench/counted${route.path(a)}`, { token: a.oauth, body: route.body });
    if (res.status !== 200) throw new Error(`counted ${route.path(a)} on ${a.label} -> ${res.status} ${res.text.slice(0, 200)}`);
    last = res.json;
  }
  const body = last.body ? JSON.parse(last.body) : null;
  return { statements: last.d1.statements, roundTrips: last.d1.roundTrips, rowsRead: last.d1.rowsRead, rowsReturned: last.d1.rowsReturned, items: route.items(body), total: body?.total };
}

export async function growth(ctx) {
  const { http, adminToken, sizes, db } = ctx;
  const specs = [
    { label: "small", contacts: sizes.growthSmall },
    { label: "small (A/A)", contacts: sizes.growthSmall },
    { label: "large", contacts: sizes.growthLarge },
  ];
  const accounts = [];
  for (const s of specs) {
    const t = await provisionTenant(http, adminToken, `growth-${s.label.replace(/\W+/g, "")}-${Date.now()}`);
    if (t.shard && t.shard !== "DB") throw new Error(`growth: the account was placed on ${t.shard}; this figure runs on the single-database configuration`);
    step(`growth: seeding ${s.contacts.toLocaleString("en-US")} contacts into the ${s.label} account (chunks of ${CHUNK} as one JSON parameter each)`);
    const started = performance.now();
    const before = await sizeOf(db);
    const middleId = await seedContacts(db, t.portalId, s.contacts, s.label.replace(/\W+/g, ""));
    // What a contact costs in storage, indexes and the search index included (D1's own size of the database).
    const bytesPerContact = ((await sizeOf(db)) - before) / s.contacts;
    accounts.push({ ...t, ...s, middleId, seedMs: performance.now() - started, bytesPerContact });
  }
  const [small, twin, large] = accounts;
  const out = [];
  for (const route of ROUTES) {
    step(`growth: ${route.name}, ${sizes.growthPairs} samples of ${sizes.growthBlock} requests to each of 3 accounts, interleaved`);
    await sample(ctx, accounts, route, sizes.growthBlock, sizes.growthPairs); // discarded: warms each account's path and pages
    const ratios = [];
    const aa = [];
    const rps = { small: [], large: [] };
    for (let k = 0; k < sizes.growthPairs; k++) {
      status(`${route.name}: sample ${k + 1}/${sizes.growthPairs}`);
      const [s, a, l] = await sample(ctx, [small, twin, large], route, sizes.growthBlock, k);
      ratios.push(l / s);
      aa.push(a / s);
      rps.small.push(s);
      rps.large.push(l);
    }
    const d1 = { small: await counted(ctx, route, small), large: await counted(ctx, route, large) };
    const ratio = median(ratios);
    const aaInterval = bootstrapMedianInterval(aa);
    out.push({
      id: `growth_${route.id}`,
      figure: `Cost as an account grows, ${sizes.growthPairs} interleaved samples: ${route.name}, ${large.contacts.toLocaleString("en-US")} ÷ ${small.contacts.toLocaleString("en-US")} contacts (req/s)`,
      value: { ratio, interval: bootstrapMedianInterval(ratios), pairs: sizes.growthPairs, rps: median(rps.large), contacts: large.contacts, d1: d1.large },
      baseline: { name: `the same read on an account of ${small.contacts.toLocaleString("en-US")} contacts, same cluster, same moments`, rps: median(rps.small), contacts: small.contacts, d1: d1.small },
      ratio,
      aa: { ratio: median(aa), interval: aaInterval, band: aaInterval },
      target: { ratio: TARGET },
      met: ratio >= TARGET,
      seedMs: { small: small.seedMs, large: large.seedMs },
      bytesPerContact: { small: small.bytesPerContact, large: large.bytesPerContact },
      samples: { ratios, aa, ...rps },
    });
  }
  return out;
}
