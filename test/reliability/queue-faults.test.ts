/**
 * Queue faults (Cloudflare Queues deliver at least once, in no fixed order): the sync consumer crashes at
 * injected points — before the ordering decision, between the decision and the D1 commit, at the commit,
 * after the commit but before the acks —
 * and the dead-letter consumer crashes before recording. The simulated queue (queue-sim.ts) redelivers as
 * Cloudflare Queues does, and the final D1 state must equal the last-write-wins oracle: every message
 * settled once, one CRM record per object, poison messages dead-lettered after max_retries and visible as
 * sync errors, and a second delivery of everything changing nothing.
 */
import { accountD1 } from "../helpers/shards";
import { env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { messageId, packMessages, type SyncQueueMessage, type SyncQueuePack } from "../../src/services/ecomm/sync-message";
import { call } from "../helpers/api";
import { BRIDGE } from "../ecomm/helpers";
import { bridgeTenant, type Origin } from "../ecomm/queue-helpers";
import { armFaults, disarmFaults, InjectedFault, type FaultPoint } from "./fault-injector";
import { DLQ_MAX_RETRIES, drain, rng, SYNC_MAX_RETRIES, type Queued, type Rng } from "./queue-sim";

const SEED = Number(env.FUZZ_SEED || Date.now() % 2_147_483_647);
console.log(`queue faults: seed ${SEED} (rerun with FUZZ_SEED=${SEED})`);

const SYNC = "crm-edge-sync";
const DLQ = "crm-edge-sync-dlq";
const STAGES = ["checkout_abandoned", "checkout_pending", "checkout_completed", "processed", "shipped", "cancelled"];

type ObjectType = "CONTACT" | "PRODUCT" | "DEAL";

/** A message and the CRM properties its UPSERT must leave on the record (every message sends all of them). */
interface Sent {
  msg: SyncQueueMessage;
  crm: Record<string, string> | null;
}

let seq = 0;
const run = `faults${Date.now().toString(36)}`;

function message(origin: Origin, type: ObjectType, ext: string, changedAt: number, del: boolean, n: number): Sent {
  const receivedAt = Date.now() + seq;
  const base = { v: 1 as const, id: messageId(receivedAt, run, seq++ % 1000), ...origin, objectType: type, receivedAt };
  if (del) return { msg: { ...base, message: { externalObjectId: ext, action: "DELETE", changedAt } }, crm: null };
  const [properties, crm]: [Record<string, string | number>, Record<string, string>] =
    type === "CONTACT"
      ? [{ customer_email: `${ext}-v${n}@faults.example`, firstname: `first-${n}`, age: n % 97 }, { email: `${ext}-v${n}@faults.example`, firstname: `first-${n}`, age: String(n % 97) }]
      : type === "PRODUCT"
        ? [{ title: `title-${n}`, price: n % 1000 }, { name: `title-${n}`, price: String(n % 1000) }]
        : [{ stage: STAGES[n % STAGES.length]!, name: `deal-${n}` }, { dealstage: STAGES[n % STAGES.length]!, dealname: `deal-${n}`, pipeline: "ecommerce" }];
  return { msg: { ...base, message: { externalObjectId: ext, action: "UPSERT", changedAt, properties } }, crm };
}

const key = (type: string, ext: string) => `${type}|${ext}`;
const newer = (a: SyncQueueMessage, b: SyncQueueMessage) =>
  a.message.changedAt > b.message.changedAt || (a.message.changedAt === b.message.changedAt && a.id > b.id);

interface Link {
  object_type: string;
  external_id: string;
  service_id: number | null;
  changed_at: number;
  message_id: string;
  deleted: number;
}

/** Rows of the account's own shard; every query here binds the portalId first. */
async function rows<T>(sqlText: string, portalId: number, ...binds: unknown[]): Promise<T[]> {
  return (await (await accountD1(portalId)).prepare(sqlText).bind(portalId, ...binds).all<T>()).results;
}

/** Everything the sync wrote for the account, row by row (for "changes nothing"). */
async function snapshot(portalId: number) {
  return JSON.stringify([
    await rows("select * from ecomm_links where portal_id = ? order by id", portalId),
    await rows("select * from crm_objects where portal_id = ? order by id", portalId),
    await rows("select * from ecomm_sync_errors where portal_id = ? order by object_type, external_id", portalId),
    await rows("select * from crm_associations where portal_id = ? order by from_id, to_type, to_id", portalId),
  ]);
}

/**
 * The last-write-wins oracle: for every object, the link carries the newest message (changedAt, then id);
 * an UPSERT winner's properties are on the one record; a DELETE winner keeps whatever record an older
 * UPSERT left, or none. No record exists that no link points to (nothing applied twice).
 */
async function expectOracle(portalId: number, sent: Sent[]) {
  const winners = new Map<string, Sent>();
  const upserts = new Map<string, Sent[]>();
  for (const s of sent) {
    const k = key(s.msg.objectType, s.msg.message.externalObjectId);
    const w = winners.get(k);
    if (!w || newer(s.msg, w.msg)) winners.set(k, s);
    if (s.crm) upserts.set(k, [...(upserts.get(k) ?? []), s]);
  }
  const links = new Map((await rows<Link>("select * from ecomm_links where portal_id = ?", portalId)).map((l) => [key(l.object_type, l.external_id), l]));
  const records = new Map(
    (await rows<{ id: number; properties: string }>("select id, properties from crm_objects where portal_id = ?", portalId)).map((r) => [
      r.id,
      JSON.parse(r.properties) as Record<string, string>,
    ]),
  );
  expect([...links.keys()].sort()).toEqual([...winners.keys()].sort());
  const mismatches: string[] = [];
  for (const [k, w] of winners) {
    const l = links.get(k)!;
    const wantDeleted = w.msg.message.action === "DELETE" ? 1 : 0;
    if (l.message_id !== w.msg.id || l.changed_at !== w.msg.message.changedAt || l.deleted !== wantDeleted) {
      mismatches.push(`${k}: link ${l.message_id}@${l.changed_at} deleted=${l.deleted}, oracle ${w.msg.id}@${w.msg.message.changedAt} deleted=${wantDeleted}`);
      continue;
    }
    const props = l.service_id === null ? null : records.get(l.service_id);
    if (l.service_id !== null && !props) mismatches.push(`${k}: links to missing record ${l.service_id}`);
    const matches = (crm: Record<string, string>) => !!props && Object.entries(crm).every(([p, v]) => props[p] === v);
    if (w.crm) {
      if (!matches(w.crm)) mismatches.push(`${k}: record ${JSON.stringify(props)} is not the winner's ${JSON.stringify(w.crm)}`);
    } else if (props && !(upserts.get(k) ?? []).some((u) => newer(w.msg, u.msg) && matches(u.crm!))) {
      mismatches.push(`${k}: record under a DELETE winner matches no older UPSERT: ${JSON.stringify(props)}`);
    }
  }
  expect(mismatches).toEqual([]);
  const linked = [...links.values()].map((l) => l.service_id).filter((id): id is number => id !== null);
  expect(new Set(linked).size).toBe(linked.length); // no two objects share a record
  expect(records.size).toBe(linked.length); // and no record was created twice (or orphaned)
}

beforeEach(() => {
  // The consumers log every retry and dead letter; thousands of lines would bury the test output.
  vi.spyOn(console, "warn").mockImplementation(() => {});
  vi.spyOn(console, "error").mockImplementation(() => {});
});
afterEach(() => {
  disarmFaults();
  vi.restoreAllMocks();
});

const queued = (sent: Sent[]): Queued<SyncQueueMessage>[] => sent.map((s, i) => ({ qid: `q-${s.msg.id}-${i}`, body: s.msg, attempts: 1 }));

describe("one crash at each injection point: redelivery converges on the oracle", () => {
  const points: [FaultPoint, string][] = [
    ["sync:before-decide", "the whole batch is redelivered"],
    ["sync:after-decide", "the ordering object already recorded the winners; redelivery applies them"],
    ["sync:commit", "the batch's write fails; each message is written on its own in the same delivery"],
    ["sync:after-commit", "committed but not acked; redelivery is dropped as already applied"],
  ];
  it.each(points)("%s: %s", async (point) => {
    const { t, origin } = await bridgeTenant();
    const base = Date.now() - 60_000;
    const sent = [
      message(origin, "CONTACT", "c1", base, false, 1),
      message(origin, "CONTACT", "c1", base + 1000, false, 2),
      message(origin, "PRODUCT", "p1", base, false, 3),
      message(origin, "DEAL", "d1", base + 5, false, 4),
      message(origin, "DEAL", "d1", base + 9, true, 5),
    ];
    let fired = 0;
    armFaults((p) => {
      if (p === point && fired++ === 0) throw new InjectedFault(p);
    });
    const log = await drain(SYNC, queued(sent), { rng: rng(SEED), maxRetries: SYNC_MAX_RETRIES, whole: true });
    expect(fired).toBeGreaterThan(0);
    expect(log.dead).toEqual([]);
    expect(log.implicitAcks).toBe(0);
    expect([...log.acks.values()]).toEqual(sent.map(() => 1));
    // A crash that escapes the handler costs one more delivery; a failed batch write is absorbed in place.
    expect(log.crashed).toBe(point === "sync:commit" ? 0 : 1);
    expect(log.invocations).toBe(point === "sync:commit" ? 1 : 2);
    await expectOracle(t.portalId, sent);
  });

  it("dlq:record: a poison message is dead-lettered after max_retries, and a crash of the dead-letter consumer only delays its sync error", async () => {
    const { t, origin } = await bridgeTenant();
    const poison = message(origin, "PRODUCT", "poison", Date.now() - 1000, false, 7);
    const fine = message(origin, "PRODUCT", "fine", Date.now() - 1000, false, 8);
    let dlqCrashes = 0;
    armFaults((p, ids) => {
      if (p === "sync:commit" && ids.includes(poison.msg.id)) throw new InjectedFault(p);
      if (p === "dlq:record" && dlqCrashes++ < 2) throw new InjectedFault(p);
    });
    const log = await drain(SYNC, queued([poison, fine]), { rng: rng(SEED), maxRetries: SYNC_MAX_RETRIES, whole: true });
    expect(log.dead.map((m) => m.body.id)).toEqual([poison.msg.id]);
    expect(log.retries.get(log.dead[0]!.qid)).toBe(SYNC_MAX_RETRIES + 1); // six deliveries, each retried by the consumer
    expect(log.acks.get(`q-${fine.msg.id}-1`)).toBe(1);

    const dlq = await drain(DLQ, log.dead.map((m) => ({ ...m, qid: `dlq-${m.qid}`, attempts: 1 })), { rng: rng(SEED), maxRetries: DLQ_MAX_RETRIES, whole: true });
    expect(dlq.crashed).toBe(2);
    expect(dlq.dead).toEqual([]);
    expect([...dlq.acks.values()]).toEqual([1]);
    const errors = await call("GET", `${BRIDGE}/sync/errors/portal`, { token: t.oauth });
    expect(errors.json.results).toEqual([expect.objectContaining({ objectType: "PRODUCT", externalObjectId: "poison", type: "UNKNOWN_ERROR" })]);
    await expectOracle(t.portalId, [fine]);
  });
});

/**
 * 1,990 messages over 160 objects (contacts, products, deals; equal changedAt common, 12 % DELETEs), and 10
 * poison products that always fail their write.
 */
function randomMessages(r: Rng, origin: Origin) {
  const objects: [ObjectType, string][] = [
    ...Array.from({ length: 60 }, (_, i) => ["CONTACT", `c${i}`] as [ObjectType, string]),
    ...Array.from({ length: 60 }, (_, i) => ["PRODUCT", `p${i}`] as [ObjectType, string]),
    ...Array.from({ length: 40 }, (_, i) => ["DEAL", `d${i}`] as [ObjectType, string]),
  ];
  const base = Date.now() - 3_600_000;
  const sent: Sent[] = [];
  for (let n = 0; n < 1990; n++) {
    const [type, ext] = r.pick(objects);
    sent.push(message(origin, type, ext, base + r.int(40) * 1000, r.chance(0.12), n)); // equal changedAt is common
  }
  const poison = Array.from({ length: 10 }, (_, i) => message(origin, "PRODUCT", `poison${i}`, base + i, false, 5000 + i));
  return { sent, poison, poisonIds: new Set(poison.map((p) => p.msg.id)) };
}

/**
 * Crashes at random points: the poison's write always fails; transient faults hit each unit (`unitOf` a
 * message id: the message, or its pack) at most 3 times, so only the poison can exhaust 6 deliveries.
 * Every point must fire at least once whatever the seed: the first call of a sync point that the cap
 * allows always crashes (seed 21780165 never rolled one at sync:before-decide), and the dead-letter
 * consumer, which runs only a few times, crashes on its first invocation even for poison that already had
 * 3 transient faults in the sync consumer (seed 16704391 had every poison id there). Returns the counts
 * of injected faults by point.
 */
function armRandomFaults(r: Rng, poisonIds: Set<string>, unitOf: (id: string) => string): Record<string, number> {
  const chance: Record<FaultPoint, number> = { "sync:before-decide": 0.1, "sync:after-decide": 0.1, "sync:commit": 0.08, "sync:after-commit": 0.1, "dlq:record": 0.3, "shard:open": 0, "webhook:send": 0, "fixture:write": 0, "import:write": 0 };
  const injected: Record<string, number> = {};
  const faultsOf = new Map<string, number>();
  armFaults((point, ids) => {
    if (point === "sync:commit" && ids.some((id) => poisonIds.has(id))) {
      injected.poison = (injected.poison ?? 0) + 1;
      throw new InjectedFault(point);
    }
    const hit = [...new Set(ids.map(unitOf))];
    const capped = hit.some((u) => (faultsOf.get(u) ?? 0) >= 3);
    if (point === "dlq:record") {
      if (injected[point] && (!r.chance(chance[point]) || capped)) return;
    } else if ((!r.chance(chance[point]) && injected[point]) || capped) return;
    for (const u of hit) faultsOf.set(u, (faultsOf.get(u) ?? 0) + 1);
    injected[point] = (injected[point] ?? 0) + 1;
    throw new InjectedFault(point);
  });
  return injected;
}

describe("2,000 messages through a consumer that crashes at random points", () => {
  it("settles every message once, matches the LWW oracle, dead-letters the poison into sync errors, and ignores duplicates", async () => {
    const r = rng(SEED);
    const { t, origin } = await bridgeTenant();
    const { sent, poison, poisonIds } = randomMessages(r, origin);
    const all = [...sent, ...poison];
    expect(all).toHaveLength(2000);
    // At-least-once: about 5% of the messages are delivered twice from the start.
    const deliveries = queued(all);
    for (const q of [...deliveries]) if (r.chance(0.05)) deliveries.push({ ...q, qid: `${q.qid}-dup` });

    const injected = armRandomFaults(r, poisonIds, (id) => id);

    const log = await drain(SYNC, deliveries, { rng: r, maxRetries: SYNC_MAX_RETRIES });
    const dlq = await drain(DLQ, log.dead.map((m) => ({ ...m, qid: `dlq-${m.qid}`, attempts: 1 })), { rng: r, maxRetries: DLQ_MAX_RETRIES });
    disarmFaults();
    console.log(
      `queue faults: ${deliveries.length} queued (${deliveries.length - all.length} duplicates), ${log.invocations} invocations, ` +
        `${log.deliveries} deliveries, ${log.crashed} crashes; injected ${JSON.stringify(injected)}; dead-lettered ${log.dead.length}, DLQ crashes ${dlq.crashed}`,
    );
    for (const p of ["sync:before-decide", "sync:after-decide", "sync:commit", "sync:after-commit", "dlq:record"]) expect(injected[p], p).toBeGreaterThan(0);

    // Every delivery settled exactly once: acked, or (the poison only) dead-lettered after max_retries.
    // A second copy of a message in the same batch is acked as a duplicate (the first copy stands for
    // both), so a duplicated poison message may reach the dead-letter queue through one copy only.
    const poisonQids = new Set(deliveries.filter((q) => poisonIds.has(q.body.id)).map((q) => q.qid));
    expect(log.implicitAcks).toBe(0);
    expect(log.dead.filter((m) => !poisonQids.has(m.qid))).toEqual([]);
    expect(new Set(log.dead.map((m) => m.body.id))).toEqual(poisonIds);
    for (const m of log.dead) expect(m.attempts).toBe(SYNC_MAX_RETRIES + 1);
    for (const q of poisonQids) expect((log.acks.get(q) ?? 0) + log.dead.filter((m) => m.qid === q).length, q).toBe(1);
    const unsettled = deliveries.filter((q) => !poisonQids.has(q.qid) && log.acks.get(q.qid) !== 1).map((q) => q.qid);
    expect(unsettled).toEqual([]);
    expect(dlq.dead).toEqual([]);
    expect(new Set(dlq.acks.keys())).toEqual(new Set(log.dead.map((m) => `dlq-${m.qid}`)));
    for (const n of dlq.acks.values()) expect(n).toBe(1);

    await expectOracle(t.portalId, sent);

    // The poison shows up as sync errors, in the listing and in each object's status.
    const errors = await rows<{ external_id: string; type: string; status: string; message_id: string }>(
      "select external_id, type, status, message_id from ecomm_sync_errors where portal_id = ? order by external_id",
      t.portalId,
    );
    expect(errors).toEqual(poison.map((p) => ({ external_id: p.msg.message.externalObjectId, type: "UNKNOWN_ERROR", status: "OPEN", message_id: p.msg.id })).sort((a, b) => a.external_id.localeCompare(b.external_id)));
    const listed = await call("GET", `${BRIDGE}/sync/errors/portal?limit=100`, { token: t.oauth });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json.results.map((e: { externalObjectId: string }) => e.externalObjectId).sort()).toEqual(errors.map((e) => e.external_id));
    const status = await call("GET", `${BRIDGE}/sync/status/shop/PRODUCT/poison0`, { token: t.oauth });
    expect(status.json).toMatchObject({ serviceId: null, numErrors: 1 });

    // Duplicate delivery changes nothing: everything applied is delivered again, without faults.
    const before = await snapshot(t.portalId);
    const again = await drain(SYNC, queued(sent).map((q) => ({ ...q, qid: `${q.qid}-again` })), { rng: r, maxRetries: SYNC_MAX_RETRIES });
    expect(again.crashed + again.dead.length + again.implicitAcks).toBe(0);
    expect([...again.acks.values()].every((n) => n === 1) && again.acks.size === sent.length).toBe(true);
    expect(await snapshot(t.portalId)).toBe(before);
  }, 120_000);
});

describe("2,000 messages in packs through a consumer that crashes at random points", () => {
  it("acks every pack once, applies every message of a pack that dies of its poison, and dead-letters only the poison", async () => {
    const r = rng(SEED + 1);
    const { t, origin } = await bridgeTenant();
    const { sent, poison, poisonIds } = randomMessages(r, origin);
    // Requests of 1 to 100 messages of one type, as PUT /sync/messages packs them; the poison lands in
    // products' requests among healthy messages.
    const byType = new Map<string, SyncQueueMessage[]>();
    for (const s of r.shuffle([...sent, ...poison])) byType.set(s.msg.objectType, [...(byType.get(s.msg.objectType) ?? []), s.msg]);
    const packs: SyncQueuePack[] = [];
    for (const msgs of byType.values()) {
      for (let i = 0; i < msgs.length; ) {
        const n = 1 + r.int(100);
        packs.push(...packMessages(msgs.slice(i, i + n)).packs);
        i += n;
      }
    }
    const deliveries: Queued<SyncQueuePack>[] = packs.map((body, i) => ({ qid: `pack-${i}`, body, attempts: 1 }));
    for (const q of [...deliveries]) if (r.chance(0.05)) deliveries.push({ ...q, qid: `${q.qid}-dup` });
    const packOf = new Map(packs.flatMap((p, i) => p.messages.map((m) => [m.id, `pack-${i}`] as const)));
    const poisonPacks = new Set(packs.flatMap((p, i) => (p.messages.some((m) => poisonIds.has(m.id)) ? [`pack-${i}`] : [])));
    expect(poisonPacks.size).toBeGreaterThan(0);

    // Transient faults are capped per pack: a crash retries its whole pack, so a pack, not a message, is
    // what must stay below max_retries. Batches hold one pack, so a crash retries only the pack it hit.
    const injected = armRandomFaults(r, poisonIds, (id) => packOf.get(id) ?? id);

    const log = await drain(SYNC, deliveries, { rng: r, maxRetries: SYNC_MAX_RETRIES, maxBatch: 1 });
    const dlq = await drain(DLQ, log.dead.map((m) => ({ ...m, qid: `dlq-${m.qid}`, attempts: 1 })), { rng: r, maxRetries: DLQ_MAX_RETRIES });
    disarmFaults();
    console.log(`queue faults, packs: ${packs.length} packs, ${deliveries.length} queued, ${log.invocations} invocations, ${log.crashed} crashes; injected ${JSON.stringify(injected)}; dead-lettered ${log.dead.length}`);
    for (const p of ["sync:before-decide", "sync:after-decide", "sync:commit", "sync:after-commit", "dlq:record"]) expect(injected[p], p).toBeGreaterThan(0);

    // Every pack settled once: acked, or (a pack with poison, each copy) dead-lettered after max_retries.
    const key = (qid: string) => qid.replace(/-dup$/, "");
    expect(log.implicitAcks).toBe(0);
    expect(new Set(log.dead.map((m) => key(m.qid)))).toEqual(poisonPacks);
    for (const m of log.dead) expect(m.attempts).toBe(SYNC_MAX_RETRIES + 1);
    for (const q of deliveries) expect((log.acks.get(q.qid) ?? 0) + log.dead.filter((m) => m.qid === q.qid).length, q.qid).toBe(1);
    expect(dlq.dead).toEqual([]);

    // The poison packs' healthy messages were applied on their first delivery: the oracle holds for every
    // message but the poison, and the dead-letter consumer recorded the poison alone.
    await expectOracle(t.portalId, sent);
    const errors = await rows<{ external_id: string; message_id: string }>("select external_id, message_id from ecomm_sync_errors where portal_id = ? order by external_id", t.portalId);
    expect(errors).toEqual(poison.map((p) => ({ external_id: p.msg.message.externalObjectId, message_id: p.msg.id })).sort((a, b) => a.external_id.localeCompare(b.external_id)));
  }, 120_000);
});
