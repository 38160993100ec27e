/**
 * Figure 10 — a record with activities: the web app's contact page (`GET /app/contacts/{id}`, signed in)
 * and the v4 associations page (`GET /crm/v4/objects/contacts/{id}/associations/notes`) of a contact with
 * 50 notes, each against its own D1 floor, at figure 3's targets (≥ 0.9 at c=1, ≥ 0.8 at c=10).
 *
 * The floors: each route's own D1 statements, recorded from the route and replayed raw with the route's
 * round-trip shape (bench/worker/replay-floor.ts), reported as a route the way figure 3 reports its
 * floors (floorAsRoute: the floor's own time over the bench no-op, added to /healthz's). The page's
 * floor holds its session read, the record, its associations, its activities, its timeline events and its
 * cards; so what the ratio leaves to the page is its own work: rendering 50 sanitised note bodies and the HTML.
 * The rounds, the A/A control and the rating are figure 3's (suites/reads.mjs).
 */
import { step } from "../lib/progress.mjs";
import { againstFloors } from "./floors.mjs";

const NOTES = 50;
const PASSWORD = "bench activities password";

async function ok(res, what) {
  if (res.status >= 300) throw new Error(`${what} -> ${res.status} ${res.text}`);
  return res.json;
}

/** A contact with NOTES notes (through the API, one batch create with their associations) and a signed-in user. */
async function seed(ctx) {
  const { http, tenant, adminToken } = ctx;
  step(`activities: seeding a contact with ${NOTES} notes and a signed-in user`);
  const run = Date.now().toString(36);
  const contact = await ok(
    await http.json("POST", "/crm/v3/objects/contacts", { token: tenant.oauth, body: { properties: { email: `activities-${run}@bench.example.com`, firstname: "Ada", lastname: "Activities" } } }),
    "create contact",
  );
  const now = Date.now();
  const inputs = Array.from({ length: NOTES }, (_, i) => ({
    properties: {
      hs_timestamp: String(now - i * 3_600_000),
      hs_note_body: `<p>Call ${i + 1}: asked about <strong>bulk pricing</strong> and the <a href="https://example.com/quotes/${i}">quote</a>.</p><ul><li>delivery in March</li><li>two sites</li></ul>`,
    },
    associations: [{ to: { id: contact.id }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 202 }] }],
  }));
  await ok(await http.json("POST", "/crm/v3/objects/notes/batch/create", { token: tenant.oauth, body: { inputs } }), "create notes");
  const email = `activities-${run}@bench.example.com`;
  await ok(await http.json("POST", `/admin/v1/accounts/${tenant.portalId}/users`, { token: adminToken, body: { email, password: PASSWORD } }), "create user");
  const login = await http.request("POST", "/login", {
    body: new URLSearchParams({ email, password: PASSWORD, next: "/app" }).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  if (login.status !== 303) throw new Error(`sign-in -> ${login.status} ${login.text}`);
  const cookie = String([login.headers["set-cookie"]].flat()[0] ?? "").split(";")[0];
  if (!cookie) throw new Error("sign-in set no cookie");
  return { contactId: Number(contact.id), cookie };
}

export async function activities(ctx) {
  const { http, bench, tenant } = ctx;
  const seeded = await seed(ctx);
  const page = `/app/contacts/${seeded.contactId}`;
  const v4 = `/crm/v4/objects/contacts/${seeded.contactId}/associations/notes`;
  const cookie = { cookie: seeded.cookie };
  const routes = [
    { id: "page", name: `contact page with ${NOTES} notes (web app, signed in)`, path: page, token: "", headers: cookie, floor: "floor_page" },
    { id: "v4", name: `v4 associations page, contact → notes (${NOTES})`, path: v4, floor: "floor_v4" },
  ];
  const floors = [
    { id: "floor_page", name: "floor: the contact page's D1 statements, replayed raw (bench Worker)", path: `/__bench/floor/replay?path=${encodeURIComponent(page)}`, client: bench, token: "", headers: cookie },
    { id: "floor_v4", name: "floor: the v4 page's D1 statements, replayed raw (bench Worker)", path: `/__bench/floor/replay?path=${encodeURIComponent(v4)}`, client: bench },
  ];
  // Each route answers what it should before anything is measured (the page: its 50 activities).
  const first = await http.request("GET", page, { headers: cookie });
  const shown = (first.text.match(/<li class="activity /g) ?? []).length;
  if (first.status !== 200 || shown !== NOTES) throw new Error(`${page} -> ${first.status}, ${shown} activities shown`);
  const assoc = await http.json("GET", v4, { token: tenant.oauth });
  if (assoc.status !== 200 || assoc.json.results.length !== NOTES) throw new Error(`${v4} -> ${assoc.status} ${assoc.text.slice(0, 200)}`);

  return againstFloors(ctx, { prefix: "activities", label: "Activities", routes: routes.map((r) => ({ ...r, items: NOTES })), floors });
}
