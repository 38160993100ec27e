/**
 * @module Consumer of the sync dead-letter queue: a message the sync consumer could not apply within the
 * queue's retries is recorded as an UNKNOWN_ERROR sync error of its object, so no change is lost silently
 * (platform §6). Every dead letter is also logged; the error is not recorded when a newer message of the
 * object has been written since, as the object's state is then newer than the lost change anyway.
 */
import { makeDb } from "../db/client";
import { runRawBatch } from "../lib/d1-raw";
import { deadLetterStatements } from "../services/ecomm/commit";
import { backoffSeconds } from "../services/ecomm/plan";
import { faultPoint } from "./fault-seam";
import { syncQueueMessage } from "./messages";

export async function consumeDeadLetters(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const db = makeDb(env.DB);
  const now = Date.now();
  const rows = [];
  const settled: Message<unknown>[] = [];
  for (const msg of batch.messages) {
    const parsed = syncQueueMessage.safeParse(msg.body);
    if (!parsed.success) {
      console.error(`dead-lettered message ${msg.id} is not a v1 sync message; dropped: ${JSON.stringify(msg.body).slice(0, 500)}`);
      msg.ack();
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
  if (!rows.length) return;
  faultPoint("dlq:record", rows.map((r) => r.messageId));
  try {
    await runRawBatch(db, deadLetterStatements(db, rows, now));
    for (const msg of settled) msg.ack();
  } catch (err) {
    console.error(`recording dead letters failed: ${err instanceof Error ? err.message : String(err)}`);
    for (const msg of settled) msg.retry({ delaySeconds: backoffSeconds(msg.attempts) });
  }
}
