/**
 * Figure 14 — restoring a snapshot of a 1,000-record test account (docs/reference/testkit.md, "Snapshots and
 * reset"). A DEVELOPER_TEST account gets a fixture of 500 companies and 500 contacts, 1,000 associations (each
 * contact with two companies) and 1,000 timeline events (two per contact, of a template of the account's
 * installed app, made with its developer key as the fixture tests do); a snapshot is taken. Then each sample
 * writes three contacts (so the restore has rows to remove) and times
 * `POST /admin/v1/accounts/{id}/snapshots/{name}/restore` from Node, response included; and writes three
 * more and times the floor (bench/worker/restore-floor.ts: the account's rows of the snapshot's tables
 * deleted and the snapshot's rows inserted back, one raw `db.batch`), alternating which goes first.
 * Targets: the restore's p95 ≤ 200 ms, and floor ÷ restore (medians) ≥ 0.5.
 */
import { percentile } from "../lib/stats.mjs";
import { step, status } from "../lib/progress.mjs";
import { provisionTenant } from "../lib/seed.mjs";

const P95_TARGET_MS = 200;
const FLOOR_TARGET = 0.5;
const SNAPSHOT = "bench-1000";

/** 500 companies, 500 contacts, 1,000 associations and 1,000 timeline events on the contacts. */
export function restoreFixture(templateId, half = 500) {
  return {
    records: {
      companies: Array.from({ length: half }, (_, i) => ({ ref: `co${i}`, properties: { name: `Company ${i}`, domain: `r${i}.example` } })),
      contacts: Array.from({ length: half }, (_, i) => ({ ref: `p${i}`, properties: { email: `p${i}@restore.example`, firstname: `First${i}`, lastname: `Last${i}` } })),
    },
    associations: Array.from({ length: 2 * half }, (_, i) => ({ from: `p${i % half}`, to: `co${(i + Math.floor(i / half)) % half}` })),
    timelineEvents: Array.from({ length: 2 * half }, (_, i) => ({ eventTemplateId: templateId, ref: `p${i % half}`, tokens: { title: `Event ${i}` } })),
  };
}

async function must(res, what) {
  if (res.status >= 300) throw new Error(`${what} -> ${res.status} ${res.text.slice(0, 300)}`);
  return res.json;
}

export async function restoreFigure(ctx) {
  const { http, bench, adminToken, sizes, db } = ctx;
  step("testkit restore: a DEVELOPER_TEST account with 1,000 records, 1,000 associations, 1,000 timeline events, and its snapshot");
  const t = await provisionTenant(http, adminToken, `restore-bench-${Date.now()}`, { accountType: "DEVELOPER_TEST" });
  const template = await must(
    await http.json("POST", `/integrators/timeline/v3/${t.appId}/event-templates?hapikey=${t.developerKey}&userId=12345`, {
      body: { name: "Webinar", objectType: "contacts", headerTemplate: "Joined {{title}}", tokens: [{ name: "title", label: "Title", type: "string" }] },
    }),
    "POST event template",
  );
  const loaded = await must(await http.json("POST", `/admin/v1/accounts/${t.portalId}/fixtures`, { token: adminToken, body: restoreFixture(template.id) }), "POST fixture");
  const snap = await must(await http.json("POST", `/admin/v1/accounts/${t.portalId}/snapshots`, { token: adminToken, body: { name: SNAPSHOT } }), "POST snapshot");
  const tables = Object.entries(snap.counts).filter(([, n]) => n > 0);
  const rows = tables.reduce((s, [, n]) => s + n, 0);

  let written = 0;
  const write = async () => {
    const inputs = Array.from({ length: 3 }, (_, j) => ({ properties: { email: `w${written}-${j}@restore.example`, firstname: "Between" } }));
    written++;
    const res = await http.json("POST", "/crm/v3/objects/contacts/batch/create", { token: t.oauth, body: { inputs } });
    if (res.status !== 201) ctx.fail(`restore samples, write -> ${res.status} ${res.text.slice(0, 200)}`);
  };
  const restore = async () => {
    await write();
    const res = await http.json("POST", `/admin/v1/accounts/${t.portalId}/snapshots/${SNAPSHOT}/restore`, { token: adminToken });
    if (res.status >= 500) ctx.count5xx(1);
    if (res.status !== 200) ctx.fail(`restore -> ${res.status} ${res.text.slice(0, 200)}`);
    return res.ms;
  };
  const floorPath = `/__bench/floor/restore?portal=${t.portalId}&snapshot=${SNAPSHOT}&tables=${tables.map(([name]) => name).join(",")}`;
  const floor = async () => {
    await write();
    const res = await bench.json("POST", floorPath);
    if (res.status !== 204) throw new Error(`restore floor -> ${res.status} ${res.text.slice(0, 300)}`);
    return res.ms;
  };

  step(`testkit restore: ${sizes.restoreSamples} samples of a restore (${rows} rows in ${tables.length} tables) and its floor, alternating`);
  await restore(); // warm-up, not measured: the first restore reads the column lists
  await floor();
  const samples = { restore: [], floor: [] };
  for (let k = 0; k < sizes.restoreSamples; k++) {
    status(`restore sample ${k + 1}/${sizes.restoreSamples}`);
    if (k % 2) {
      samples.floor.push(await floor());
      samples.restore.push(await restore());
    } else {
      samples.restore.push(await restore());
      samples.floor.push(await floor());
    }
  }
  // Each leaves the account's rows of every table as at the snapshot, the writes in between gone.
  for (const [what, run] of [["the floor", floor], ["a restore", restore]]) {
    await run();
    const counted = await db.batch(tables.map(([name]) => db.prepare(`select count(*) as n from ${name} where portal_id = ?`).bind(t.portalId)));
    tables.forEach(([name, want], i) => {
      if (counted[i].results[0].n !== want) ctx.fail(`after ${what} the account holds ${counted[i].results[0].n} rows of ${name}, its snapshot ${want}`);
    });
  }

  const p50 = percentile(samples.restore, 50);
  const p95 = percentile(samples.restore, 95);
  const floorP50 = percentile(samples.floor, 50);
  const ratio = floorP50 / p50;
  return [
    {
      id: "testkit_restore_1000",
      figure: `Restore of a snapshot: ${loaded.counts.contacts + loaded.counts.companies} records, ${loaded.counts.associations} associations, ${loaded.counts.timelineEvents} timeline events (${rows} rows), ${sizes.restoreSamples} samples`,
      value: { msP50: p50, msP95: p95, msMax: Math.max(...samples.restore), rows, tables: Object.fromEntries(tables) },
      baseline: { name: "floor: the same rows deleted and inserted back from the snapshot's stored form, one raw db.batch", msP50: floorP50, msP95: percentile(samples.floor, 95) },
      ratio,
      target: { p95Ms: P95_TARGET_MS, floorRatio: FLOOR_TARGET },
      met: p95 <= P95_TARGET_MS && ratio >= FLOOR_TARGET,
      samples,
    },
  ];
}
