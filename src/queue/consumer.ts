/** @module Queue entry point: routes each batch to the consumer of its queue. */
import { consumeDeadLetters } from "./dead-letter";
import { consumeSyncBatch } from "./sync-consumer";

export async function handleQueue(batch: MessageBatch, env: Env, _ctx: ExecutionContext): Promise<void> {
  switch (batch.queue) {
    case "crm-edge-sync":
      await consumeSyncBatch(batch, env);
      return;
    case "crm-edge-sync-dlq":
      return consumeDeadLetters(batch, env);
    default:
      console.error(`no consumer for queue ${batch.queue}; retrying batch`);
      batch.retryAll({ delaySeconds: 30 });
  }
}
