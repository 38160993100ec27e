/**
 * Figures 11 and 12 — the account's own shape of data, each against its own D1 floor at figure 3's targets
 * (≥ 0.9 at c=1, ≥ 0.8 at c=10), measured by suites/floors.mjs:
 * - 11: a page of 100 members of a DYNAMIC list over 10,000 contacts of which half match its filter, at the
 *   start and in the middle (`after`): the list has no member rows, so the page is the search that expresses
 *   it, and reads at most 2 × members + 1 rows;
 * - 12: the v4 batch read of 100 contacts' company associations (3 each): one round trip per shard, and at
 *   most 10 rows read per association answered (the named records, each association, its target record and
 *   its labels, through the ordering of the per-record pages).
 */
import { step } from "../lib/progress.mjs";
import { againstFloors } from "./floors.mjs";
import { provisionTenant } from "../lib/seed.mjs";

const BATCH = 100;
const LINKED = 100;
const PER_CONTACT = 3;

async function ok(res, what) {
  if (res.status >= 300) throw new Error(`${what} -> ${res.status} ${res.text.slice(0, 300)}`);
  return res.json;
}

/** CONTACTS contacts (sizes.shapeContacts: 10,000, 1,000 in --quick) (every other one a customer), the first LINKED of them with PER_CONTACT companies each, and the list. */
async function seed({ http, tenant }, CONTACTS) {
  const run = Date.now().toString(36);
  const ids = [];
  for (let i = 0; i < CONTACTS; i += BATCH) {
    if (i % 2000 === 0) step(`whole-crm: seeding contacts ${i}/${CONTACTS}`);
    const inputs = Array.from({ length: BATCH }, (_, j) => ({ properties: { email: `shape-${run}-${i + j}@bench.example.com`, lifecyclestage: (i + j) % 2 ? "lead" : "customer" } }));
    const made = await ok(await http.json("POST", "/crm/v3/objects/contacts/batch/create", { token: tenant.oauth, body: { inputs } }), "create contacts");
    ids.push(...made.results.map((r) => Number(r.id)));
  }
  ids.sort((a, b) => a - b);
  const companies = await ok(
    await http.json("POST", "/crm/v3/objects/companies/batch/create", { token: tenant.oauth, body: { inputs: Array.from({ length: PER_CONTACT }, (_, k) => ({ properties: { name: `Shape ${run} ${k}` } })) } }),
    "create companies",
  );
  const linked = ids.slice(0, LINKED);
  for (const company of companies.results) {
    const inputs = linked.map((id) => ({ from: { id: String(id) }, to: { id: company.id }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 279 }] }));
    await ok(await http.json("POST", "/crm/v4/associations/contacts/companies/batch/create", { token: tenant.oauth, body: { inputs } }), "associate");
  }
  const filterBranch = {
    filterBranchType: "OR",
    filters: [],
    filterBranches: [{ filterBranchType: "AND", filterBranches: [], filters: [{ filterType: "PROPERTY", property: "email", operation: { operationType: "STRING", operator: "STARTS_WITH", value: `shape-${run}-` } }, { filterType: "PROPERTY", property: "lifecyclestage", operation: { operationType: "MULTISTRING", operator: "IS_ANY_OF", values: ["customer"] } }] }],
  };
  const list = await ok(await http.json("POST", "/crm/v3/lists", { token: tenant.oauth, body: { name: `Customers ${run}`, objectTypeId: "0-1", processingType: "DYNAMIC", filterBranch } }), "create list");
  return { listId: list.list.listId, middle: ids[CONTACTS / 2], linked };
}

export async function wholeCrm(shared) {
  // An account of its own: the shared bench account holds other figures' contacts, which the list's search
  // would pass over before reaching this list's members (its rows-read bound counts this list's rows only).
  const tenant = await provisionTenant(shared.http, shared.adminToken, `whole-crm-${Date.now().toString(36)}`);
  const ctx = { ...shared, tenant };
  const { http, bench } = ctx;
  const CONTACTS = ctx.sizes.shapeContacts;
  const seeded = await seed(ctx, CONTACTS);
  const first = `/crm/v3/lists/${seeded.listId}/memberships?limit=100`;
  const middle = `${first}&after=${seeded.middle}`;
  const batchPath = "/crm/v4/associations/contacts/companies/batch/read";
  const batchBody = { inputs: seeded.linked.map((id) => ({ id: String(id) })) };
  const routes = [
    { id: "list_first", name: `DYNAMIC list page 1 (100 of ${CONTACTS / 2} members over ${CONTACTS} contacts)`, path: first, floor: "floor_list_first", items: 100 },
    { id: "list_middle", name: "DYNAMIC list page in the middle (after the middle contact)", path: middle, floor: "floor_list_middle", items: 100 },
    { id: "v4_batch", name: `v4 batch read, ${LINKED} contacts × ${PER_CONTACT} companies`, method: "POST", path: batchPath, body: batchBody, floor: "floor_v4_batch", items: LINKED * PER_CONTACT, rowsPerItem: 10 },
  ];
  const floors = routes.map((r) => ({
    id: r.floor,
    name: `floor: ${r.id}'s D1 statements, replayed raw (bench Worker)`,
    method: r.method,
    body: r.body,
    path: `/__bench/floor/replay?path=${encodeURIComponent(r.path)}`,
    client: bench,
  }));
  // Each route answers what it should before anything is measured.
  for (const r of routes) {
    const res = await http.json(r.method ?? "GET", r.path, { token: tenant.oauth, body: r.body });
    const n = r.method === "POST" ? res.json?.results?.reduce((k, x) => k + x.to.length, 0) : res.json?.results?.length;
    if (res.status !== 200 || n !== r.items) throw new Error(`${r.path} -> ${res.status}, ${n} items (expected ${r.items}): ${res.text.slice(0, 200)}`);
  }
  return againstFloors(ctx, { prefix: "crm", label: "Whole CRM", routes, floors });
}
