/**
 * @module Which sync queue a sync message goes to (docs/explanation/scaling.md "Sync queues"). A deployment
 * declares N producer bindings, `SYNC_QUEUE`, `SYNC_QUEUE_1` … `SYNC_QUEUE_<N-1>` (found at runtime, as the
 * shards are; N = 1 when only `SYNC_QUEUE` is declared), each with its queue and consumer in wrangler.toml.
 * An account's messages go to the queue of its shard's group: shard ordinal mod N (the control plane, ordinal
 * 0, is in group 0). So every message of one account goes to one queue, and one queue's consumer
 * invocations read and write the shards of its group only.
 *
 * The queue never ordered messages (delivery is at least once, in any order): last-write-wins is decided by
 * changedAt and the message id in the SyncOrder objects, whichever queue carried the message. So when N
 * changes, or an account moves to a shard of another group, messages still queued on the former queue are
 * applied by the same rule.
 */
import { shardOrdinal } from "../../db/shards";

export const SYNC_QUEUE_BINDING = "SYNC_QUEUE";

const isQueue = (v: unknown): v is Queue => typeof v === "object" && v !== null && typeof (v as Queue).sendBatch === "function";

const found = new WeakMap<object, Queue[]>();

/** The declared sync queues in group order: SYNC_QUEUE, then SYNC_QUEUE_1, SYNC_QUEUE_2 … while they exist. */
export function syncQueues(env: Env): Queue[] {
  let list = found.get(env);
  if (!list) {
    const record = env as unknown as Record<string, unknown>;
    list = [env.SYNC_QUEUE];
    for (let i = 1; isQueue(record[`${SYNC_QUEUE_BINDING}_${i}`]); i++) list.push(record[`${SYNC_QUEUE_BINDING}_${i}`] as Queue);
    found.set(env, list);
  }
  return list;
}

/** The shard group of an account's shard (null: the control plane), among `n` groups. */
export const syncGroup = (shard: string | null, n: number) => (shard === null ? 0 : shardOrdinal(shard) % n);

/** The queue of the account's shard group. */
export function syncQueueFor(env: Env, shard: string | null): Queue {
  const queues = syncQueues(env);
  return queues[syncGroup(shard, queues.length)]!;
}
