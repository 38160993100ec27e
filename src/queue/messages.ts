/**
 * @module The sync queue's message schema (versioned). One queue message carries one sync message and
 * everything the consumer needs to apply it without the original request (spec 4.2 rule 1).
 *
 * v1 example:
 * {"v":1,"id":"001700000000000-3f0c…-007","portalId":12,"appId":5,"storeId":"shop","storeGen":"9b1e…",
 *  "objectType":"CONTACT","receivedAt":1700000000000,
 *  "message":{"externalObjectId":"c-1","action":"UPSERT","changedAt":1699999999000,"properties":{"mail":"a@b.co"}}}
 */
import { z } from "zod";
import { ECOMM_OBJECT_TYPES } from "../db/tables/ecomm";

export const SYNC_MESSAGE_VERSION = 1;

/** Queues: 128 KB per message (1 KB = 1000 B) including about 100 B of metadata (platform §1.2). */
export const MAX_QUEUE_MESSAGE_BYTES = 128_000;
export const QUEUE_METADATA_BYTES = 100;
/** Queues: sendBatch takes at most 100 messages and 256 KB in total. */
export const MAX_SEND_BATCH_MESSAGES = 100;
export const MAX_SEND_BATCH_BYTES = 256_000;

export const syncQueueMessage = z.object({
  v: z.literal(SYNC_MESSAGE_VERSION),
  /** Unique, and sorts by receive time: the last-write-wins tie-breaker when changedAt is equal. */
  id: z.string().min(1).max(200),
  portalId: z.number().int(),
  /**
   * The OAuth app that sent the message: its settings govern it, or the account's when the app has none
   * (decided when it is processed, services/ecomm/settings.ts). Null (private app): the account's settings.
   */
  appId: z.number().int().nullable(),
  storeId: z.string(),
  storeGen: z.string(),
  objectType: z.enum(ECOMM_OBJECT_TYPES),
  receivedAt: z.number(),
  message: z.object({
    externalObjectId: z.string(),
    action: z.enum(["UPSERT", "DELETE"]),
    changedAt: z.number(),
    properties: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
    associations: z.record(z.string(), z.array(z.string())).optional(),
  }),
});
export type SyncQueueMessage = z.infer<typeof syncQueueMessage>;

/**
 * Message ids sort by receive time, then by request, then by position in the request, so that among
 * messages with the same changedAt the one received last wins (a re-sent change is never shadowed by the
 * copy that failed earlier).
 */
export const messageId = (receivedAt: number, requestId: string, index: number) =>
  `${String(receivedAt).padStart(15, "0")}-${requestId}-${String(index).padStart(3, "0")}`;

const encoder = new TextEncoder();
/** JSON text escapes control characters, so text without a character outside space..tilde is ASCII. */
const NOT_PRINTABLE_ASCII = /[^ -~]/;

/** UTF-8 bytes of JSON text: its length when it is ASCII (the common case), without encoding it. */
const utf8Bytes = (text: string) => (NOT_PRINTABLE_ASCII.test(text) ? encoder.encode(text).byteLength : text.length);

/** The bytes the queue counts for a message sent with contentType "json". */
export const queueBytes = (msg: SyncQueueMessage) => utf8Bytes(JSON.stringify(msg)) + QUEUE_METADATA_BYTES;

/**
 * Splits messages into sendBatch calls that respect both the count and the size limit. `bytes`: each
 * message's queueBytes when the caller already has them (the request path measured them to refuse a
 * message that is too large), so no message is serialised twice.
 */
export function chunkForSendBatch(msgs: SyncQueueMessage[], bytes: readonly number[] = msgs.map(queueBytes)): SyncQueueMessage[][] {
  const chunks: SyncQueueMessage[][] = [];
  let current: SyncQueueMessage[] = [];
  let total = 0;
  for (const [i, msg] of msgs.entries()) {
    const size = bytes[i]!;
    if (current.length && (current.length >= MAX_SEND_BATCH_MESSAGES || total + size > MAX_SEND_BATCH_BYTES)) {
      chunks.push(current);
      current = [];
      total = 0;
    }
    current.push(msg);
    total += size;
  }
  if (current.length) chunks.push(current);
  return chunks;
}
