/**
 * @module Consumer of the sync queue: applies the messages that PUT /sync/messages only queued. Queues
 * deliver at least once (a message may come twice, in any order), so the apply path is a chain of small
 * steps with one commit point each:
 *   1. decide  — the SyncOrder shards record the last-write-wins winners (stale messages are acked);
 *   2. plan    — reads and pure checks turn each winner into an effect, a retry or a drop;
 *   3. commit  — one db.batch writes every effect of the batch (guarded, idempotent);
 *   4. settle  — each message is acked after its effect is committed, or retried with backoff.
 * If the batch's write fails, each message is planned and committed on its own, so one poison message
 * never holds back the others; messages that still fail are retried and, once the queue's retries are
 * exhausted, reach the dead-letter queue, whose consumer records them as sync errors.
 *
 * Sharding (docs/explanation/scaling.md): the batch's accounts are resolved to their shards in one
 * control-plane read (or the isolate's directory cache), the ordering decision is made once for the batch,
 * and each shard's messages are planned and committed on that shard on their own, so one failing or fenced
 * shard holds back only its own messages.
 */
import type { Db, StatementMeter } from "../../db/client";
import { CONTROL_SHARD, controlDb, SHARD_RETRY_AFTER_S, shardDb } from "../../db/shards";
import { directoryTtlMs, forgetDirectory, isFenceError, placementsOf } from "../../db/directory";
import { decideAll } from "../../durable-objects/sync-order-client";
import { commitEffects } from "./commit";
import { sendClaimed, type OutboxRow } from "../webhooks/drain";
import { webhookTargetsOf, type WebhookTarget } from "../webhooks/targets";
import { liveOwners } from "../owners/owners";
import { backoffSeconds, planBatch, readPlanContext, type Effect, type PlanContext } from "./plan";
import { faultPoint } from "../../lib/fault-seam";
import { PACK_MAX_MESSAGES, syncMessagesOf, type SyncQueueMessage } from "./sync-message";
import type { BatchTime } from "./batch-time";

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
  /** The shard the message's account was resolved to, once known; for the usage data point. */
  shard?: string;
}

/**
 * Acks and retries go through here, so every decision is also reported. A decision is made per sync
 * message; a queue message that carries several (a pack, see sync-message.ts) is settled once all of them
 * are: acked when every one was, else retried with the longest delay any of them asked for. Its messages
 * already applied are dropped as such when it comes back (planning finds them applied, or stale).
 */
export class Settler {
  readonly settled: Settlement[] = [];
  /** Queue message id → shard, filled when the batch is grouped by shard. */
  readonly shards = new Map<string, string>();
  /** Packs not yet settled: sync messages still undecided, and the longest retry delay asked so far. */
  private readonly open = new Map<Message<unknown>, { left: number; retry?: number }>();

  private where(id: string): { shard?: string } {
    const shard = this.shards.get(id);
    return shard === undefined ? {} : { shard };
  }

  /** `msg` carries `count` sync messages, each settled on its own; without this, a message counts as one. */
  expect(msg: Message<unknown>, count: number) {
    if (count > 1) this.open.set(msg, { left: count });
  }

  ack(msg: Message<unknown>, reason: string) {
    this.settled.push({ id: msg.id, action: "ack", reason, ...this.where(msg.id) });
    this.decided(msg);
  }

  retry(msg: Message<unknown>, delaySeconds: number, reason: string) {
    this.settled.push({ id: msg.id, action: "retry", delaySeconds, reason, ...this.where(msg.id) });
    console.warn(`sync message ${msg.id} retried in ${delaySeconds}s: ${reason}`);
    this.decided(msg, delaySeconds);
  }

  private decided(msg: Message<unknown>, retryIn?: number) {
    const pack = this.open.get(msg);
    if (!pack) {
      if (retryIn === undefined) msg.ack();
      else msg.retry({ delaySeconds: retryIn });
      return;
    }
    if (retryIn !== undefined) pack.retry = Math.max(pack.retry ?? 0, retryIn);
    if (--pack.left > 0) return;
    this.open.delete(msg);
    if (pack.retry === undefined) msg.ack();
    else msg.retry({ delaySeconds: pack.retry });
  }

  /** Transient failure: exponential backoff on the delivery count. */
  backoff(d: Delivery, reason: string) {
    this.retry(d.msg, backoffSeconds(d.msg.attempts), reason);
  }
}

const why = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Step 0: a queue message's sync messages, one delivery each (a pack carries several). Messages that are
 * not a known version cannot be applied by anyone; they are logged and acked.
 */
export function decodeBatch(messages: readonly Message<unknown>[], s: Settler): Delivery[] {
  const out = new Map<string, Delivery>();
  for (const msg of messages) {
    const bodies = syncMessagesOf(msg.body);
    if (!bodies) {
      console.error(`queue message ${msg.id} is not a v1 sync message or a v2 pack; dropped: ${JSON.stringify(msg.body)?.slice(0, 200) ?? ""}`);
      s.ack(msg, "not a v1 sync message or a v2 pack");
      continue;
    }
    s.expect(msg, bodies.length);
    for (const body of bodies) {
      if (out.has(body.id)) s.ack(msg, "duplicate in batch"); // the first copy stands for both
      else out.set(body.id, { msg, body });
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
    else if (v === "stale") s.ack(d.msg, "stale: an older or superseded change (the most recent changedAt wins)");
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
export async function planDeliveries(db: Db, winners: Delivery[], s: Settler, ctx?: PlanContext, control: Db = db): Promise<Planned[]> {
  const attempts = new Map(winners.map((d) => [d.body.id, d.msg.attempts]));
  const bodies = winners.map((d) => d.body);
  // Without the batch's read, this is the message-by-message path after a failed batch write: it reads the
  // owner of every email (the batch's read skips those of linked contacts, see plan-context.ts).
  const owners = async (portalId: number, ids: number[]) => new Set((await liveOwners(control, portalId, ids)).map((o) => String(o.ownerId)));
  const outcomes = await planBatch(db, ctx ?? (await readPlanContext(db, bodies, control, { everyEmailOwner: true })), bodies, attempts, owners);
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
/** `webhooks`: the app webhook targets of the batch's accounts; their events join the same batch. */
/** Returns the webhook events the commit wrote, claimed for sending (sendEvents). */
export async function commitPlanned(db: Db, planned: Planned[], time: BatchTime, webhooks?: Map<number, WebhookTarget[]>): Promise<OutboxRow[]> {
  faultPoint("sync:commit", idsOf(planned));
  return commitEffects(db, planned.map((p) => p.effect), time, webhooks);
}

/**
 * After the acks: sends the events a commit wrote to the webhook queue. A failure leaves them in the outbox,
 * where the cron's drain takes them over once their claim expires.
 */
async function sendEvents(queue: Queue | undefined, events: OutboxRow[]): Promise<void> {
  if (!events.length || !queue) return;
  await sendClaimed(queue, events).catch((err: unknown) => console.error(`sending the sync's webhook events failed (the cron's drain retries them): ${why(err)}`));
}

/** Step 4: acks, only after the commit. */
export function ackPlanned(planned: Planned[], s: Settler): void {
  for (const p of planned) s.ack(p.delivery.msg, p.effect.kind === "error" ? `recorded ${p.effect.type}` : `applied ${p.effect.kind}`);
}

/** Steps 3 and 4 for one group of messages. */
export async function commitAndAck(db: Db, planned: Planned[], time: BatchTime, s: Settler, webhooks?: Map<number, WebhookTarget[]>, queue?: Queue): Promise<void> {
  if (!planned.length) return;
  const events = await commitPlanned(db, planned, time, webhooks);
  faultPoint("sync:after-commit", idsOf(planned));
  ackPlanned(planned, s);
  await sendEvents(queue, events);
}

/**
 * A message whose write a fence refused (its account is moving, or moved and this isolate's directory
 * entry is stale): retried after a short delay, with the directory forgotten, so it lands on the new shard.
 */
function retryFenced(s: Settler, d: Delivery, err: unknown): void {
  forgetDirectory();
  s.retry(d.msg, SHARD_RETRY_AFTER_S, `account is moving between shards: ${why(err)}`);
}

/** The fallback after a failed batch write: each message planned and committed on its own. */
export async function applyOneByOne(db: Db, deliveries: Delivery[], time: BatchTime, s: Settler, control: Db = db, webhooks?: Map<number, WebhookTarget[]>, queue?: Queue): Promise<void> {
  for (const d of deliveries) {
    try {
      await commitAndAck(db, await planDeliveries(db, [d], s, undefined, control), time, s, webhooks, queue);
    } catch (err) {
      if (isFenceError(err)) retryFenced(s, d, err);
      else s.backoff(d, `apply failed: ${why(err)}`);
    }
  }
}

interface ShardGroup {
  db: Db;
  deliveries: Delivery[];
  /** The plan's read, started alongside the ordering decision. */
  ctx?: Promise<PlanContext | Error>;
}

/**
 * The batch's messages by shard, and the clocks of its accounts (`offsets`: those whose clock runs ahead),
 * read together (src/db/directory.ts: one control-plane read, or none when this isolate knows every account).
 * Messages of an account that no longer exists, or is being deleted, are
 * acknowledged and logged: nobody can apply them, and retrying them would only fill the dead-letter queue
 * (docs/how-to/account-lifecycle.md). A shard that cannot be opened backs off its own messages.
 */
async function groupByShard(env: Env, control: Db, deliveries: Delivery[], s: Settler, offsets: Map<number, number>, meter?: StatementMeter): Promise<ShardGroup[]> {
  const places = await placementsOf(control, deliveries.map((d) => d.body.portalId), directoryTtlMs(env));
  for (const [portalId, place] of places) if (place.clockOffsetMs) offsets.set(portalId, place.clockOffsetMs);
  const byShard = new Map<string, Delivery[]>();
  for (const d of deliveries) {
    const shard = places.get(d.body.portalId)?.shard;
    if (shard === undefined) {
      console.warn(`sync message ${d.body.id} of account ${d.body.portalId} dropped: the account does not exist or is being deleted`);
      s.ack(d.msg, `account ${d.body.portalId} does not exist or is being deleted`);
      continue;
    }
    const name = shard ?? CONTROL_SHARD;
    s.shards.set(d.msg.id, name);
    byShard.set(name, [...(byShard.get(name) ?? []), d]);
  }
  const groups: ShardGroup[] = [];
  for (const [name, ds] of byShard) {
    try {
      groups.push({ db: shardDb(env, name, meter), deliveries: ds });
    } catch (err) {
      for (const d of ds) s.backoff(d, `shard ${name} unavailable: ${why(err)}`);
    }
  }
  return groups;
}

/** The batch's app webhook targets (read alongside the plan's reads), or why they could not be read. */
type BatchWebhooks = Promise<Map<number, WebhookTarget[]> | Error>;

/**
 * The webhook queue, and the events the batch's commits wrote, gathered so the whole batch sends them at
 * once when it ends (consumeSyncBatch): one send per queue batch, not one per 100 sync messages.
 */
interface EventSink {
  queue: Queue;
  events: OutboxRow[];
}

/**
 * Steps 2 to 4 for one shard's winners. Never throws: every failure settles its own messages. Without the
 * webhook targets nothing is committed (the events would be lost): the messages back off like a failed plan.
 * After the commit and the acks, the events the commit wrote join the sink.
 */
async function applyOnShard(group: ShardGroup, control: Db, winners: Delivery[], time: BatchTime, s: Settler, hooks: BatchWebhooks, sink: EventSink): Promise<void> {
  if (!winners.length) return;
  let planned: Planned[];
  let webhooks: Map<number, WebhookTarget[]>;
  try {
    const ctx = await group.ctx;
    if (ctx instanceof Error) throw ctx;
    const targets = await hooks;
    if (targets instanceof Error) throw targets;
    webhooks = targets;
    planned = await planDeliveries(group.db, winners, s, ctx, control);
  } catch (err) {
    for (const d of winners) s.backoff(d, `plan failed: ${why(err)}`);
    return;
  }
  if (!planned.length) return;
  let events: OutboxRow[];
  try {
    events = await commitPlanned(group.db, planned, time, webhooks);
  } catch (err) {
    if (isFenceError(err)) {
      for (const p of planned) retryFenced(s, p.delivery, err);
      return;
    }
    console.error(`sync batch write failed, applying its ${planned.length} messages one by one: ${why(err)}`);
    await applyOneByOne(group.db, planned.map((p) => p.delivery), time, s, control, webhooks, sink.queue);
    return;
  }
  // A crash here redelivers committed messages; planning then drops them as already applied.
  faultPoint("sync:after-commit", idsOf(planned));
  ackPlanned(planned, s);
  sink.events.push(...events);
}

/**
 * `meter` counts the batch's D1 statements for its log line (`queue_batch`, docs/reference/operations.md).
 * With `exec`, the webhook events of a committed batch are sent in the invocation's background (its acks
 * do not wait for the send); without it, before this returns. Either way an event whose send is lost stays claimed in the outbox, and the
 * cron's drain sends it once the claim expires.
 */
export async function consumeSyncBatch(batch: MessageBatch<unknown>, env: Env, meter?: StatementMeter, exec?: ExecutionContext): Promise<Settlement[]> {
  const sink: EventSink = { queue: env.WEBHOOK_QUEUE, events: [] };
  try {
    return await consumeInto(batch, env, sink, meter);
  } finally {
    // Also when a later step threw: the events already committed are sent, not left to the drain.
    const send = sendEvents(sink.queue, sink.events);
    if (exec) exec.waitUntil(send);
    else await send;
  }
}

async function consumeInto(batch: MessageBatch<unknown>, env: Env, sink: EventSink, meter?: StatementMeter): Promise<Settlement[]> {
  const s = new Settler();
  const control = controlDb(env, meter);
  const decoded = decodeBatch(batch.messages, s);
  // A batch holds several packs of up to 100 sync messages each: they are applied 100 at a time, the size every
  // step is built for (one ordering call, one plan read, one commit; at most 100 values bound per statement).
  for (let i = 0; i < decoded.length; i += PACK_MAX_MESSAGES) {
    await applyDeliveries(env, control, decoded.slice(i, i + PACK_MAX_MESSAGES), s, sink, meter);
  }
  return s.settled;
}

/** Steps 1 to 4 for up to 100 sync messages. Never throws: every failure settles its own messages. */
async function applyDeliveries(env: Env, control: Db, decoded: Delivery[], s: Settler, sink: EventSink, meter?: StatementMeter): Promise<void> {
  // What the commit writes for an account is stamped by its clock (batch-time.ts): real time, and the offsets of
  // the accounts whose clock runs ahead, read with their shards. Ordering never looks at it: the most recent
  // changedAt, the integrator's, wins.
  const offsets = new Map<number, number>();
  const time: BatchTime = { now: Date.now(), offsets };
  if (!decoded.length) return;
  let groups: ShardGroup[];
  try {
    groups = await groupByShard(env, control, decoded, s, offsets, meter);
  } catch (err) {
    for (const d of decoded) s.backoff(d, `account directory unavailable: ${why(err)}`);
    return;
  }
  const deliveries = groups.flatMap((g) => g.deliveries);
  if (!deliveries.length) return;
  faultPoint("sync:before-decide", deliveries.map((d) => d.body.id));
  // The plan's reads do not depend on the ordering decision: they run at once (they read a superset).
  for (const g of groups) {
    g.ctx = readPlanContext(g.db, g.deliveries.map((d) => d.body), control).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
  }
  const hooks: BatchWebhooks = webhookTargetsOf(control, deliveries.map((d) => d.body.portalId)).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
  const winners = new Set(await decideOrder(env, deliveries, s));
  if (!winners.size) return;
  faultPoint("sync:after-decide", [...winners].map((d) => d.body.id));
  await Promise.all(groups.map((g) => applyOnShard(g, control, g.deliveries.filter((d) => winners.has(d)), time, s, hooks, sink)));
}
