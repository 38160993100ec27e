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
import { backoffSeconds, planBatch, readPlanContext, type Effect, type PlanContext } from "../services/ecomm/plan";
import { faultPoint } from "./fault-seam";
import { syncQueueMessage, type SyncQueueMessage } from "./messages";

export interface Delivery {
  msg: Message<unknown>;
  body: SyncQueueMessage;
}

/** What the consumer did with each message of a batch (returned for logs, benchmarks and tests). */
export interface Settlement {
  /** Queue message id. */
  id: string;
  action: "ack" | "retry";
  delaySeconds?: number;
  reason: string;
}

/** Acks and retries go through here, so every decision is also reported. */
export class Settler {
  readonly settled: Settlement[] = [];

  ack(msg: Message<unknown>, reason: string) {
    msg.ack();
    this.settled.push({ id: msg.id, action: "ack", reason });
  }

  retry(msg: Message<unknown>, delaySeconds: number, reason: string) {
    msg.retry({ delaySeconds });
    this.settled.push({ id: msg.id, action: "retry", delaySeconds, reason });
    console.warn(`sync message ${msg.id} retried in ${delaySeconds}s: ${reason}`);
  }

  /** Transient failure: exponential backoff on the delivery count. */
  backoff(d: Delivery, reason: string) {
    this.retry(d.msg, backoffSeconds(d.msg.attempts), reason);
  }
}

const why = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Step 0: messages that are not a known version cannot be applied by anyone; they are logged and acked. */
export function decodeBatch(messages: readonly Message<unknown>[], s: Settler): Delivery[] {
  const out = new Map<string, Delivery>();
  for (const msg of messages) {
    const parsed = syncQueueMessage.safeParse(msg.body);
    if (!parsed.success) {
      console.error(`queue message ${msg.id} is not a v1 sync message; dropped: ${parsed.error.issues[0]?.message ?? ""}`);
      s.ack(msg, "not a v1 sync message");
    } else if (out.has(parsed.data.id)) {
      s.ack(msg, "duplicate in batch"); // the first copy stands for both
    } else {
      out.set(parsed.data.id, { msg, body: parsed.data });
    }
  }
  return [...out.values()];
}

/** Step 1 (commit point): ordering decisions. Returns the winners; stale messages are acked here. */
export async function decideOrder(env: Env, deliveries: Delivery[], s: Settler): Promise<Delivery[]> {
  const verdicts = await decideAll(env.SYNC_ORDER, deliveries.map((d) => d.body));
  const winners: Delivery[] = [];
  for (const d of deliveries) {
    const v = verdicts.get(d.body.id);
    if (v === "apply") winners.push(d);
    else if (v === "stale") s.ack(d.msg, "stale: an older or superseded change (spec 2.4 rule 2)");
    else s.backoff(d, `ordering shard unavailable: ${v?.message ?? "no verdict"}`);
  }
  return winners;
}

export interface Planned {
  delivery: Delivery;
  effect: Effect;
}

/**
 * Step 2: plan (reads only). Retries and drops are settled here; the effects go on to the commit.
 * `ctx` is the batch's read, when it was made alongside the ordering decision.
 */
export async function planDeliveries(db: Db, winners: Delivery[], s: Settler, ctx?: PlanContext): Promise<Planned[]> {
  const attempts = new Map(winners.map((d) => [d.body.id, d.msg.attempts]));
  const bodies = winners.map((d) => d.body);
  const outcomes = await planBatch(db, ctx ?? (await readPlanContext(db, bodies)), bodies, attempts);
  const byId = new Map(winners.map((d) => [d.body.id, d]));
  const planned: Planned[] = [];
  for (const [id, outcome] of outcomes) {
    const d = byId.get(id)!;
    if (outcome.kind === "effect") planned.push({ delivery: d, effect: outcome.effect });
    else if (outcome.kind === "retry") s.retry(d.msg, outcome.delaySeconds, outcome.reason);
    else s.ack(d.msg, outcome.reason);
  }
  return planned;
}

const idsOf = (planned: Planned[]) => planned.map((p) => p.delivery.body.id);

/** Step 3 (commit point): one db.batch for all effects. */
export async function commitPlanned(db: Db, planned: Planned[], now: number): Promise<void> {
  faultPoint("sync:commit", idsOf(planned));
  await commitEffects(db, planned.map((p) => p.effect), now);
}

/** Step 4: acks, only after the commit. */
export function ackPlanned(planned: Planned[], s: Settler): void {
  for (const p of planned) s.ack(p.delivery.msg, p.effect.kind === "error" ? `recorded ${p.effect.type}` : `applied ${p.effect.kind}`);
}

/** Steps 3 and 4 for one group of messages. */
export async function commitAndAck(db: Db, planned: Planned[], now: number, s: Settler): Promise<void> {
  if (!planned.length) return;
  await commitPlanned(db, planned, now);
  faultPoint("sync:after-commit", idsOf(planned));
  ackPlanned(planned, s);
}

/** The fallback after a failed batch write: each message planned and committed on its own. */
export async function applyOneByOne(db: Db, deliveries: Delivery[], now: number, s: Settler): Promise<void> {
  for (const d of deliveries) {
    try {
      await commitAndAck(db, await planDeliveries(db, [d], s), now, s);
    } catch (err) {
      s.backoff(d, `apply failed: ${why(err)}`);
    }
  }
}

export async function consumeSyncBatch(batch: MessageBatch<unknown>, env: Env): Promise<Settlement[]> {
  const s = new Settler();
  const db = makeDb(env.DB);
  const now = Date.now();
  const deliveries = decodeBatch(batch.messages, s);
  if (!deliveries.length) return s.settled;
  faultPoint("sync:before-decide", deliveries.map((d) => d.body.id));
  // The plan's read does not depend on the ordering decision: both run at once (it reads a superset).
  const [winners, ctx] = await Promise.all([
    decideOrder(env, deliveries, s),
    readPlanContext(db, deliveries.map((d) => d.body)).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err)))),
  ]);
  if (!winners.length) return s.settled;
  faultPoint("sync:after-decide", winners.map((d) => d.body.id));
  let planned: Planned[];
  try {
    if (ctx instanceof Error) throw ctx;
    planned = await planDeliveries(db, winners, s, ctx);
  } catch (err) {
    for (const d of winners) s.backoff(d, `plan failed: ${why(err)}`);
    return s.settled;
  }
  if (!planned.length) return s.settled;
  try {
    await commitPlanned(db, planned, now);
  } catch (err) {
    console.error(`sync batch write failed, applying its ${planned.length} messages one by one: ${why(err)}`);
    await applyOneByOne(db, planned.map((p) => p.delivery), now, s);
    return s.settled;
  }
  // A crash here redelivers committed messages; planning then drops them as already applied.
  faultPoint("sync:after-commit", idsOf(planned));
  ackPlanned(planned, s);
  return s.settled;
}
