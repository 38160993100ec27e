/**
 * @module Consumer of the sync queue (spec 4.2 rule 1; platform §4.2, §6). Delivery is at least once, so
 * the apply path is a chain of small steps with one commit point each:
 *   1. decide  — the SyncOrder shards record the last-write-wins winners (stale messages are acked);
 *   2. plan    — reads and pure checks turn each winner into an effect, a retry or a drop;
 *   3. commit  — one db.batch writes every effect of the batch (guarded, idempotent);
 *   4. settle  — each message is acked after its effect is committed, or retried with backoff.
 * If the batch's write fails, each message is planned and committed on its own, so one poison message
 * never holds back the others; messages that still fail are retried and, once the queue's retries are
 * exhausted, reach the dead-letter queue, whose consumer records them as sync errors.
 */
import { makeDb, type Db } from "../db/client";
import { decideAll } from "../durable-objects/sync-order-client";
import { commitEffects } from "../services/ecomm/commit";
import { backoffSeconds, planBatch, type Effect, type Outcome } from "../services/ecomm/plan";
import { syncQueueMessage, type SyncQueueMessage } from "./messages";

export interface Delivery {
  msg: Message<unknown>;
  body: SyncQueueMessage;
}

const retryLater = (d: Delivery, why: string) => {
  const delaySeconds = backoffSeconds(d.msg.attempts);
  console.warn(`sync message ${d.body.id} retried in ${delaySeconds}s: ${why}`);
  d.msg.retry({ delaySeconds });
};

/** Step 0: messages that are not a known version cannot be applied by anyone; they are logged and acked. */
export function decodeBatch(messages: readonly Message<unknown>[]): Delivery[] {
  const out = new Map<string, Delivery>();
  for (const msg of messages) {
    const parsed = syncQueueMessage.safeParse(msg.body);
    if (!parsed.success) {
      console.error(`sync message ${msg.id} is not a v1 sync message; dropped: ${parsed.error.issues[0]?.message ?? ""}`);
      msg.ack();
    } else if (out.has(parsed.data.id)) {
      msg.ack(); // the same message twice in one batch: the first copy stands for both
    } else {
      out.set(parsed.data.id, { msg, body: parsed.data });
    }
  }
  return [...out.values()];
}

/** Step 1 (commit point): ordering decisions. Returns the winners; stale messages are acked here. */
export async function decideOrder(env: Env, deliveries: Delivery[]): Promise<Delivery[]> {
  const verdicts = await decideAll(env.SYNC_ORDER, deliveries.map((d) => d.body));
  const winners: Delivery[] = [];
  for (const d of deliveries) {
    const v = verdicts.get(d.body.id);
    if (v === "apply") winners.push(d);
    else if (v === "stale") d.msg.ack(); // an older or superseded change: last write wins (spec 2.4 rule 2)
    else retryLater(d, `ordering shard unavailable: ${v?.message ?? "no verdict"}`);
  }
  return winners;
}

/** Step 2: plan. Retries and drops are settled here; the effects go on to the commit. */
export async function planDeliveries(db: Db, winners: Delivery[]): Promise<{ delivery: Delivery; effect: Effect }[]> {
  const attempts = new Map(winners.map((d) => [d.body.id, d.msg.attempts]));
  const outcomes = await planBatch(db, winners.map((d) => d.body), attempts);
  const effects: { delivery: Delivery; effect: Effect }[] = [];
  const byId = new Map(winners.map((d) => [d.body.id, d]));
  for (const [id, outcome] of outcomes) {
    const d = byId.get(id)!;
    settlePlanned(d, outcome, effects);
  }
  return effects;
}

function settlePlanned(d: Delivery, outcome: Outcome, effects: { delivery: Delivery; effect: Effect }[]) {
  switch (outcome.kind) {
    case "effect":
      effects.push({ delivery: d, effect: outcome.effect });
      break;
    case "retry":
      console.warn(`sync message ${d.body.id} retried in ${outcome.delaySeconds}s: ${outcome.reason}`);
      d.msg.retry({ delaySeconds: outcome.delaySeconds });
      break;
    case "drop":
      console.warn(`sync message ${d.body.id} dropped: ${outcome.reason}`);
      d.msg.ack();
      break;
  }
}

/** Steps 3 and 4: one db.batch for all effects, then the acks. */
export async function commitAndAck(db: Db, effects: { delivery: Delivery; effect: Effect }[], now: number): Promise<void> {
  if (!effects.length) return;
  await commitEffects(db, effects.map((e) => e.effect), now);
  for (const e of effects) e.delivery.msg.ack();
}

/** The fallback after a failed batch write: each message planned and committed on its own. */
export async function applyOneByOne(db: Db, deliveries: Delivery[], now: number): Promise<void> {
  for (const d of deliveries) {
    try {
      await commitAndAck(db, await planDeliveries(db, [d]), now);
    } catch (err) {
      retryLater(d, `apply failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

export async function consumeSyncBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const db = makeDb(env.DB);
  const now = Date.now();
  const winners = await decideOrder(env, decodeBatch(batch.messages));
  if (!winners.length) return;
  let effects: { delivery: Delivery; effect: Effect }[];
  try {
    effects = await planDeliveries(db, winners);
  } catch (err) {
    for (const d of winners) retryLater(d, `plan failed: ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  try {
    await commitAndAck(db, effects, now);
  } catch (err) {
    console.error(`sync batch write failed, applying its ${effects.length} messages one by one: ${err instanceof Error ? err.message : String(err)}`);
    await applyOneByOne(db, effects.map((e) => e.delivery), now);
  }
}
