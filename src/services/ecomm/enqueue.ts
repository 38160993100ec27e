/**
 * @module PUT /sync/messages: validate the whole request, then put one queue message per sync message
 * on the sync queue (spec 4.2 rule 1: the response means only "queued"). Nothing is written to the CRM
 * on the request path. Either every message passes every check or nothing is enqueued.
 */
import type { Db } from "../../db/client";
import { badRequest } from "../../lib/errors";
import { chunkForSendBatch, MAX_QUEUE_MESSAGE_BYTES, messageId, queueBytes, SYNC_MESSAGE_VERSION, type SyncQueueMessage } from "../../queue/messages";
import type { z } from "zod";
import type { syncBody } from "../../routes/ecomm.schemas";
import { findStore } from "./stores";

export interface EnqueueInput {
  portalId: number;
  /** The OAuth app that sent the request (its settings govern the sync); null for a private app. */
  appId: number | null;
  requestId: string;
  receivedAt: number;
  body: z.output<typeof syncBody>;
}

const fieldError = (field: string, message: string) =>
  badRequest(`Invalid body: ${field}: ${message}`, {
    errors: [{ message: `${field}: ${message}`, code: "INVALID", in: "body", context: { propertyName: [field] } }],
  });

/** Builds the queue messages; throws the 400 naming the first offending field. */
export async function buildQueueMessages(db: Db, input: EnqueueInput): Promise<SyncQueueMessage[]> {
  const { body } = input;
  // reference §3.3: an unknown store is a validation error of the request, not a 404 of the route.
  const store = await findStore(db, input.portalId, body.storeId);
  if (!store) throw fieldError("storeId", `store ${body.storeId} does not exist in this account`);
  const msgs = body.messages.map((m, i): SyncQueueMessage => ({
    v: SYNC_MESSAGE_VERSION,
    id: messageId(input.receivedAt, input.requestId, i),
    portalId: input.portalId,
    appId: input.appId,
    storeId: store.storeId,
    storeGen: store.generation,
    objectType: body.objectType,
    receivedAt: input.receivedAt,
    message: {
      externalObjectId: m.externalObjectId,
      action: m.action,
      changedAt: m.changedAt ?? input.receivedAt, // spec 2.4: omitted -> the receive time
      ...(m.properties ? { properties: m.properties } : {}),
      ...(m.associations ? { associations: m.associations } : {}),
    },
  }));
  msgs.forEach((m, i) => {
    const bytes = queueBytes(m);
    if (bytes > MAX_QUEUE_MESSAGE_BYTES) {
      throw fieldError(`messages.${i}`, `the message is ${bytes} bytes once queued; a queue message holds at most ${MAX_QUEUE_MESSAGE_BYTES} bytes`);
    }
  });
  return msgs;
}

/**
 * Sends the messages in sendBatch calls of at most 100 messages and 256 KB. A failure part-way leaves the
 * earlier chunks queued; the client's retry of the whole request is harmless, because a re-sent change
 * with the same changedAt simply wins the tie again (later message id) with the same content.
 */
export async function sendToQueue(queue: Queue, msgs: SyncQueueMessage[]): Promise<void> {
  await Promise.all(chunkForSendBatch(msgs).map((chunk) => queue.sendBatch(chunk.map((body) => ({ body, contentType: "json" as const })))));
}
