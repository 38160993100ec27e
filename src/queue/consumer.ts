/** @module Queue entry point: routes each batch to the consumer of its queue. */
export async function handleQueue(batch: MessageBatch, _env: Env, _ctx: ExecutionContext): Promise<void> {
  switch (batch.queue) {
    default:
      console.error(`no consumer for queue ${batch.queue}; retrying batch`);
      batch.retryAll({ delaySeconds: 30 });
  }
}
