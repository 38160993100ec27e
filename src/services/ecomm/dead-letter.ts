/**
 * @module Consumer of the sync dead-letter queue: a message the sync consumer could not apply within the
 * queue's retries is recorded as an UNKNOWN_ERROR sync error of its object, so no change is lost silently.
 * Every dead letter is also logged; the error is not recorded when the object's link holds
 * this message or a newer one, as the change was then applied, or the object's state is newer anyway
 * (a pack is retried whole, so it can reach this queue with some of its messages applied).
 * Each account's errors are recorded on its shard, one batch per shard.
 */
import type { StatementMeter } from "../../db/client";
import { CONTROL_SHARD, controlDb, shardDb } from "../../db/shards";
import { directoryTtlMs, placementsOf, type Placement } from "../../db/directory";
import { runRawBatch } from "../../db/d1-raw";
import { deadLetterStatements } from "./commit";
import { backoffSeconds } from "./plan";
import { faultPoint } from "../../lib/fault-seam";
import { syncMessagesOf } from "./sync-message";

/**
 * Returns how many dead letters (sync messages) were recorded, dropped (not a v1 message or a v2 pack,
 * counted per queue message) and retried, for the batch's log line. A pack is acked once every one of its
 * messages is recorded, and retried whole when a shard could not record some of them.
 */
export async function consumeDeadLetters(batch: MessageBatch<unknown>, env: Env, meter?: StatementMeter): Promise<Record<string, number>> {
  const now = Date.now(); // real time; each error is stamped by its account's clock, as the sync consumer's (batch-time.ts)
  const rows: (Parameters<typeof deadLetterStatements>[1][number] & { from: Message<unknown> })[] = [];
  let dropped = 0;
  for (const msg of batch.messages) {
    const messages = syncMessagesOf(msg.body);
    if (!messages) {
      console.error(`dead-lettered message ${msg.id} is not a v1 sync message or a v2 pack; dropped: ${JSON.stringify(msg.body)?.slice(0, 500) ?? ""}`);
      msg.ack();
      dropped++;
      continue;
    }
    for (const m of messages) {
      console.warn(`dead letter: sync message ${m.id} for ${m.objectType} ${m.message.externalObjectId} of store ${m.storeId} (account ${m.portalId})`);
      rows.push({
        from: msg,
        portalId: m.portalId,
        storeId: m.storeId,
        objectType: m.objectType,
        externalId: m.message.externalObjectId,
        appId: m.appId,
        messageId: m.id,
        changedAt: m.message.changedAt,
        details: `The ${m.message.action} message ${m.id} (changedAt ${m.message.changedAt}) could not be processed after the queue's retries were exhausted.`,
      });
    }
  }
  if (!rows.length) return { dropped };
  const settled = [...new Set(rows.map((r) => r.from))];
  faultPoint("dlq:record", rows.map((r) => r.messageId));
  let places: Map<number, Placement>;
  try {
    places = await placementsOf(controlDb(env, meter), rows.map((r) => r.portalId), directoryTtlMs(env));
  } catch (err) {
    retryAll(settled, err);
    return { retry: rows.length, dropped };
  }
  const offsets = new Map([...places].flatMap(([portalId, p]) => (p.clockOffsetMs ? [[portalId, p.clockOffsetMs] as const] : [])));
  const time = { now, offsets };
  const groups = new Map<string, typeof rows>();
  for (const r of rows) {
    const name = places.get(r.portalId)?.shard ?? CONTROL_SHARD;
    groups.set(name, [...(groups.get(name) ?? []), r]);
  }
  const failed = new Map<Message<unknown>, unknown>();
  const counts = { recorded: 0, retry: 0, dropped };
  await Promise.all(
    [...groups].map(async ([name, group]) => {
      try {
        const db = shardDb(env, name, meter);
        await runRawBatch(db, deadLetterStatements(db, group, time));
        counts.recorded += group.length;
      } catch (err) {
        for (const r of group) failed.set(r.from, err);
        counts.retry += group.length;
      }
    }),
  );
  for (const msg of settled) {
    if (failed.has(msg)) retryAll([msg], failed.get(msg));
    else msg.ack();
  }
  // `retry` only when some were retried, so a clean batch's line reads { recorded, dropped }.
  return counts.retry ? counts : { recorded: counts.recorded, dropped };
}

function retryAll(msgs: Message<unknown>[], err: unknown): void {
  console.error(`recording dead letters failed: ${err instanceof Error ? err.message : String(err)}`);
  for (const msg of msgs) msg.retry({ delaySeconds: backoffSeconds(msg.attempts) });
}
