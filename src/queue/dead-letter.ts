/**
 * @module Consumer of the sync dead-letter queue: a message the sync consumer could not apply within the
 * queue's retries is recorded as an UNKNOWN_ERROR sync error of its object, so no change is lost silently
 * (platform §6). Every dead letter is also logged; the error is not recorded when a newer message of the
 * object has been written since, as the object's state is then newer than the lost change anyway.
 * Each account's errors are recorded on its shard (issue 16), one batch per shard.
 */
import type { StatementMeter } from "../db/client";
import { CONTROL_SHARD, controlDb, shardDb } from "../db/shards";
import { shardsOfAccounts } from "../lib/directory";
import { runRawBatch } from "../lib/d1-raw";
import { deadLetterStatements } from "../services/ecomm/commit";
import { backoffSeconds } from "../services/ecomm/plan";
import { faultPoint } from "./fault-seam";
import { syncQueueMessage } from "./messages";

/** Returns how many dead letters were recorded, dropped (not a v1 message) and retried, for the batch's log line. */
export async function consumeDeadLetters(batch: MessageBatch<unknown>, env: Env, meter?: StatementMeter): Promise<Record<string, number>> {
  const now = Date.now();
  const rows: Parameters<typeof deadLetterStatements>[1][number][] = [];
  const settled: Message<unknown>[] = [];
  let dropped = 0;
  for (const msg of batch.messages) {
    const parsed = syncQueueMessage.safeParse(msg.body);
    if (!parsed.success) {
      console.error(`dead-lettered message ${msg.id} is not a v1 sync message; dropped: ${JSON.stringify(msg.body).slice(0, 500)}`);
      msg.ack();
      dropped++;
      continue;
    }
    const m = parsed.data;
    console.warn(`dead letter: sync message ${m.id} for ${m.objectType} ${m.message.externalObjectId} of store ${m.storeId} (account ${m.portalId})`);
    rows.push({
      portalId: m.portalId,
      storeId: m.storeId,
      objectType: m.objectType,
      externalId: m.message.externalObjectId,
      appId: m.appId,
      messageId: m.id,
      changedAt: m.message.changedAt,
      details: `The ${m.message.action} message ${m.id} (changedAt ${m.message.changedAt}) could not be processed after the queue's retries were exhausted.`,
    });
    settled.push(msg);
  }
  if (!rows.length) return { dropped };
  faultPoint("dlq:record", rows.map((r) => r.messageId));
  let shards: Map<number, string | null>;
  try {
    shards = await shardsOfAccounts(controlDb(env, meter), rows.map((r) => r.portalId));
  } catch (err) {
    retryAll(settled, err);
    return { retry: settled.length, dropped };
  }
  const groups = new Map<string, number[]>();
  rows.forEach((r, i) => {
    const name = shards.get(r.portalId) ?? CONTROL_SHARD;
    groups.set(name, [...(groups.get(name) ?? []), i]);
  });
  const counts = { recorded: 0, retry: 0, dropped };
  await Promise.all(
    [...groups].map(async ([name, idx]) => {
      try {
        const db = shardDb(env, name, meter);
        await runRawBatch(db, deadLetterStatements(db, idx.map((i) => rows[i]!), now));
        for (const i of idx) settled[i]!.ack();
        counts.recorded += idx.length;
      } catch (err) {
        retryAll(idx.map((i) => settled[i]!), err);
        counts.retry += idx.length;
      }
    }),
  );
  // `retry` only when some were retried, so a clean batch's line reads { recorded, dropped }.
  return counts.retry ? counts : { recorded: counts.recorded, dropped };
}

function retryAll(msgs: Message<unknown>[], err: unknown): void {
  console.error(`recording dead letters failed: ${err instanceof Error ? err.message : String(err)}`);
  for (const msg of msgs) msg.retry({ delaySeconds: backoffSeconds(msg.attempts) });
}
