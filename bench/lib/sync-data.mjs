/**
 * Sync messages and their last-write-wins oracle. changedAt values are distinct per message (a
 * multiplicative permutation), so the winner of every object is decided by changedAt alone and the oracle
 * is exact without knowing the order in which the service received the messages.
 */
export const OBJECT_TYPE = "PRODUCT";

const PRIME = 1_000_003; // > every message count the bench sends
const STEP = 104_729; // coprime with PRIME: seq -> (seq * STEP) % PRIME is a permutation

/** `everyObject`: the first `objects` messages go one to each object, so every object is sent at least once. */
export function makeMessages({ count, objects, prefix, seqStart = 0, base = 1_700_000_000_000, everyObject = true }) {
  const messages = [];
  for (let i = 0; i < count; i++) {
    const seq = seqStart + i;
    const obj = everyObject && i < objects ? i : Math.floor(Math.random() * objects);
    const changedAt = base + ((seq * STEP) % PRIME);
    messages.push({
      externalObjectId: `${prefix}-${obj}`,
      action: "UPSERT",
      changedAt,
      properties: { title: `${prefix}-${obj} @${changedAt}`, price: String(changedAt % 1000) },
    });
  }
  return shuffle(messages);
}

export function shuffle(items) {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/** externalObjectId -> the message that must win (highest changedAt). */
export function oracle(messages, into = new Map()) {
  for (const m of messages) {
    const cur = into.get(m.externalObjectId);
    if (!cur || m.changedAt > cur.changedAt) into.set(m.externalObjectId, m);
  }
  return into;
}

export const requests = (messages, storeId, size = 200) => {
  const out = [];
  for (let i = 0; i < messages.length; i += size) out.push({ storeId, objectType: OBJECT_TYPE, messages: messages.slice(i, i + size) });
  return out;
};

/**
 * Whether every object of the store holds its oracle winner, cheaply enough to poll every 20 ms while the
 * consumer is being timed (D1 runs one query at a time, so a heavy poll would slow what it measures): one
 * range scan of the store's links comparing the count of processed objects and the sum of their changedAt
 * watermarks with the oracle's. A watermark only moves forward and never past the winner, so equal sums
 * mean every object reached its winner. The full check is verifyAgainstOracle, run once afterwards.
 */
export async function settled(db, portalId, storeId, expected) {
  // Sums of offsets from the smallest changedAt: raw epoch-ms sums of 20,000 objects exceed 2^53.
  let base = Infinity;
  for (const m of expected.values()) base = Math.min(base, m.changedAt);
  let sum = 0;
  for (const m of expected.values()) sum += m.changedAt - base;
  const row = await db
    .prepare(
      `select count(*) as n, coalesce(sum(changed_at - ?3), 0) as s from ecomm_links
        where portal_id = ?1 and store_id = ?2 and object_type = '${OBJECT_TYPE}' and processed_at is not null`,
    )
    .bind(portalId, storeId, base)
    .first();
  return { n: row.n, done: row.n === expected.size && row.s === sum };
}

/**
 * How many objects have reached at least their winner among `expected` (externalObjectId -> message).
 * One statement, one indexed lookup per object: CROSS JOIN keeps json_each as the outer loop (left to
 * the planner, SQLite may scan the links and probe json_each for each). Used where some messages were
 * refused and others may still have been applied, so exact sums do not apply (the soak).
 */
export async function countReached(db, portalId, storeId, expected) {
  const winners = JSON.stringify(Object.fromEntries([...expected].map(([id, m]) => [id, m.changedAt])));
  const row = await db
    .prepare(
      `select count(*) as n from json_each(?1) j cross join ecomm_links l
         on l.portal_id = ?2 and l.store_id = ?3 and l.object_type = '${OBJECT_TYPE}' and l.external_id = j.key
       where l.changed_at >= j.value and l.processed_at is not null`,
    )
    .bind(winners, portalId, storeId)
    .first();
  return row.n;
}

/**
 * The final state against the oracle: every object linked, processed, its watermark the winner's changedAt,
 * its CRM record carrying the winner's properties; no extra objects, no sync errors. Returns mismatches.
 */
export async function verifyAgainstOracle(db, portalId, storeId, expected, { refused = new Map() } = {}) {
  const { results } = await db
    .prepare(
      `select l.external_id, l.changed_at, l.processed_at, l.deleted, o.properties
         from ecomm_links l left join crm_objects o on o.id = l.service_id
        where l.portal_id = ?1 and l.store_id = ?2 and l.object_type = '${OBJECT_TYPE}'`,
    )
    .bind(portalId, storeId)
    .all();
  const errors = await db.prepare("select count(*) as n from ecomm_sync_errors where portal_id = ?1 and store_id = ?2").bind(portalId, storeId).first();
  const problems = [];
  const seen = new Set();
  const refusedObjects = new Set([...refused.values()].map((m) => m.externalObjectId));
  for (const row of results) {
    seen.add(row.external_id);
    const want = expected.get(row.external_id);
    if (!want) {
      if (!refusedObjects.has(row.external_id)) problems.push(`${row.external_id}: not sent, yet linked`);
      continue;
    }
    const props = row.properties ? JSON.parse(row.properties) : {};
    // A message of a refused request may still have been queued (an earlier chunk): newer is not a loss.
    const newer = refused.get(`${row.external_id}@${row.changed_at}`);
    if (newer && row.changed_at > want.changedAt) {
      if (props.name !== newer.properties.title) problems.push(`${row.external_id}: properties differ from its refused-but-applied message`);
      continue;
    }
    if (row.changed_at !== want.changedAt) problems.push(`${row.external_id}: changedAt ${row.changed_at}, expected ${want.changedAt}`);
    else if (row.processed_at === null) problems.push(`${row.external_id}: not processed`);
    else if (props.name !== want.properties.title || props.price !== want.properties.price)
      problems.push(`${row.external_id}: properties ${JSON.stringify({ name: props.name, price: props.price })}, expected ${JSON.stringify({ name: want.properties.title, price: want.properties.price })}`);
  }
  for (const id of expected.keys()) if (!seen.has(id)) problems.push(`${id}: lost (no link)`);
  if (errors.n) problems.push(`${errors.n} sync errors recorded`);
  return problems;
}

/** The same check for the raw baseline table. */
export async function verifyBaseline(db, expected) {
  const { results } = await db.prepare("select external_id, changed_at, properties from bench_baseline").all();
  const problems = [];
  for (const row of results) {
    const want = expected.get(row.external_id);
    if (!want || row.changed_at !== want.changedAt || JSON.parse(row.properties).title !== want.properties.title) problems.push(row.external_id);
  }
  if (results.length !== expected.size) problems.push(`rows ${results.length}, expected ${expected.size}`);
  return problems;
}

export async function waitUntil(check, { timeoutMs, intervalMs = 20, onPoll } = {}) {
  const until = performance.now() + timeoutMs;
  for (;;) {
    const v = await check();
    onPoll?.(v);
    if (v === true || (typeof v === "object" && v?.done)) return performance.now();
    if (performance.now() > until) return null;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
