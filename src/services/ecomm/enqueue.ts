/**
 * @module PUT /sync/messages: validate the whole request, then put its sync messages on the sync queue in
 * packs of up to 100 (its 204 means only "queued"; the consumer applies them). Nothing is written to the CRM
 * on the request path. Either every message passes every check or nothing is enqueued.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { ecommPending } from "../../db/tables/ecomm";
import { rawStatement } from "../../db/d1-raw";
import { ApiError, badRequest } from "../../lib/errors";
import { messageId, PACK_OVERHEAD_BYTES, packMessages, queueBytes, SYNC_MESSAGE_VERSION, type SyncQueueMessage, type SyncQueuePack } from "./sync-message";
import { chunkForSendBatch, MAX_QUEUE_MESSAGE_BYTES } from "../../lib/queue-limits";
import type { z } from "zod";
import type { syncBody } from "../../schemas/ecomm";
import { findStore } from "./stores";

export interface EnqueueInput {
  portalId: number;
  /** The OAuth app that sent the request (its settings govern the sync, else the account's); null for a private app. */
  appId: number | null;
  requestId: string;
  receivedAt: number;
  body: z.output<typeof syncBody>;
  /** The date of a message without changedAt; the receive time unless given (import pages: imports.ts). */
  defaultChangedAt?: number;
}

export const fieldError = (field: string, message: string) =>
  badRequest(`Invalid body: ${field}: ${message}`, {
    errors: [{ message: `${field}: ${message}`, code: "INVALID", in: "body", context: { propertyName: [field] } }],
  });

/** An unknown store is a validation error of the request (400 on `storeId`), not a 404 of the route. */
export const unknownStore = (storeId: string) => fieldError("storeId", `store ${storeId} does not exist in this account`);

/** A request's queue messages, each with the bytes the queue counts for it (measured once, here). */
export interface QueueBatch {
  msgs: SyncQueueMessage[];
  bytes: number[];
}

/** Builds the queue messages; throws the 400 naming the first offending field. */
export async function buildQueueMessages(db: Db, input: EnqueueInput): Promise<QueueBatch> {
  const { body } = input;
  const store = await findStore(db, input.portalId, body.storeId);
  if (!store) throw unknownStore(body.storeId);
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
      changedAt: m.changedAt ?? input.defaultChangedAt ?? input.receivedAt, // omitted -> the receive time
      ...(m.properties ? { properties: m.properties } : {}),
      ...(m.associations ? { associations: m.associations } : {}),
    },
  }));
  const bytes = msgs.map(queueBytes);
  bytes.forEach((n, i) => {
    // The most a message takes once queued: alone in its pack.
    if (n + PACK_OVERHEAD_BYTES > MAX_QUEUE_MESSAGE_BYTES) {
      throw fieldError(`messages.${i}`, `the message is ${n + PACK_OVERHEAD_BYTES} bytes once queued; a queue message holds at most ${MAX_QUEUE_MESSAGE_BYTES} bytes`);
    }
  });
  return { msgs, bytes };
}

/**
 * Pauses before the 2nd and 3rd attempt of a refused sendBatch. Queues' send errors are transient
 * ("Queue is overloaded. Please back off", "Too Many Requests" above 5,000 msg/s, internal errors)
 * and a retry shortly after usually succeeds; the whole wait stays under a second.
 */
export const SEND_RETRY_DELAYS_MS = [100, 400];

/** Retry-After of the 503 answered when the queue still refuses after the retries. */
export const QUEUE_BUSY_RETRY_AFTER_S = 2;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function sendChunk(queue: Queue, chunk: SyncQueuePack[], delays: readonly number[]): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await queue.sendBatch(chunk.map((body) => ({ body, contentType: "json" as const })));
      return;
    } catch (err) {
      const delay = delays[attempt];
      const why = err instanceof Error ? err.message : String(err);
      if (delay === undefined) {
        console.error(`sendBatch of ${chunk.length} sync message packs refused ${attempt + 1} times, giving up: ${why}`);
        throw new ApiError(
          "INTERNAL_ERROR",
          `The sync queue is busy and did not take the messages. Send the whole request again after ${QUEUE_BUSY_RETRY_AFTER_S} seconds; messages already queued are applied only once.`,
          { status: 503, headers: { "retry-after": String(QUEUE_BUSY_RETRY_AFTER_S) } },
        );
      }
      console.warn(`sendBatch of ${chunk.length} sync message packs refused (attempt ${attempt + 1}), retrying in ${delay} ms: ${why}`);
      await sleep(delay);
    }
  }
}

/**
 * Sends the messages in packs (packMessages: one queue message per 100 sync messages, where the queue
 * counts, bills and rate-limits queue messages, 5,000 per second per queue), in sendBatch calls of at most
 * 100 queue messages and 256 KB, each retried on a refusal
 * (SEND_RETRY_DELAYS_MS). Re-sending is safe: a message keeps its id, a copy is acked as a duplicate or
 * as already applied (consumer.ts). If the queue still refuses, the answer is 503 with Retry-After;
 * earlier chunks may be queued, and the client's retry of the whole request is harmless, because a re-sent
 * change with the same changedAt simply wins the tie again (later message id) with the same content.
 */
export async function sendToQueue(queue: Queue, { msgs, bytes }: QueueBatch, delays: readonly number[] = SEND_RETRY_DELAYS_MS): Promise<void> {
  const packed = packMessages(msgs, bytes);
  await Promise.all(chunkForSendBatch(packed.packs, packed.bytes).map((chunk) => sendChunk(queue, chunk, delays)));
}

/**
 * Queues the messages (sendToQueue), then records their objects as pending so their status answers 200
 * from the 204 on, not 404 until the consumer has run (hubspot-php reads the status one second after its
 * sync and expects 200). One statement; written only once the queue took every message,
 * so a refused request leaves no pending object behind.
 */
export async function enqueue(db: Db, queue: Queue, batch: QueueBatch): Promise<void> {
  await sendToQueue(queue, batch);
  const { msgs } = batch;
  const first = msgs[0];
  if (!first) return;
  const ids = JSON.stringify([...new Set(msgs.map((m) => m.message.externalObjectId))]);
  await rawStatement(
    db,
    sql`insert into ${ecommPending} (portal_id, store_id, object_type, external_id, queued_at)
        select ${first.portalId}, ${first.storeId}, ${first.objectType}, value, ${first.receivedAt} from json_each(${ids}) where true
        on conflict do nothing`,
  ).run();
}
