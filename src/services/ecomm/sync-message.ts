/**
 * @module The sync queue's message schemas (versioned). A queue message carries sync messages and
 * everything the consumer needs to apply them later, without the original request:
 * - v1, one sync message (still consumed: a deploy may find them queued, and tests write them);
 * - v2, a pack: the sync messages of one request, up to PACK_MAX_MESSAGES and one queue message's bytes,
 *   their shared fields written once. PUT /sync/messages sends packs.
 *
 * v1 example:
 * {"v":1,"id":"001700000000000-3f0c…-007","portalId":12,"appId":5,"storeId":"shop","storeGen":"9b1e…",
 *  "objectType":"CONTACT","receivedAt":1700000000000,
 *  "message":{"externalObjectId":"c-1","action":"UPSERT","changedAt":1699999999000,"properties":{"mail":"a@b.co"}}}
 */
import { z } from "zod";
import { ECOMM_OBJECT_TYPES } from "../../db/tables/ecomm";
import { jsonBytes, MAX_QUEUE_MESSAGE_BYTES, QUEUE_METADATA_BYTES } from "../../lib/queue-limits";

export const SYNC_MESSAGE_VERSION = 1;
export const SYNC_PACK_VERSION = 2;

/**
 * Sync messages per pack. A consumer batch is planned and committed 100 sync messages at a time
 * (consumer.ts), so a full pack is one such step.
 */
export const PACK_MAX_MESSAGES = 100;

/**
 * What a pack adds to the JSON of its messages at most: its version and the list around them. A v1
 * message's own version and id, which its share of a pack leaves out, make up for the rest.
 */
export const PACK_OVERHEAD_BYTES = 32;

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

/** v2: the sync messages of one request, with what they share written once. */
export const syncQueuePack = syncQueueMessage.omit({ v: true, id: true, message: true }).extend({
  v: z.literal(SYNC_PACK_VERSION),
  messages: z.array(syncQueueMessage.pick({ id: true, message: true })).min(1).max(PACK_MAX_MESSAGES),
});
export type SyncQueuePack = z.infer<typeof syncQueuePack>;

/** The sync messages a queue message carries (v1 or v2), or null when it is neither. */
export function syncMessagesOf(body: unknown): SyncQueueMessage[] | null {
  if (typeof body === "object" && body !== null && (body as { v?: unknown }).v === SYNC_PACK_VERSION) {
    const pack = syncQueuePack.safeParse(body);
    if (!pack.success) return null;
    const { messages, v: _v, ...shared } = pack.data;
    return messages.map(({ id, message }) => ({ v: SYNC_MESSAGE_VERSION, id, ...shared, message }));
  }
  const one = syncQueueMessage.safeParse(body);
  return one.success ? [one.data] : null;
}

/**
 * Message ids sort by receive time, then by request, then by position in the request, so that among
 * messages with the same changedAt the one received last wins (a re-sent change is never shadowed by the
 * copy that failed earlier).
 */
export const messageId = (receivedAt: number, requestId: string, index: number) =>
  `${String(receivedAt).padStart(15, "0")}-${requestId}-${String(index).padStart(3, "0")}`;

/** The bytes the queue counts for a message sent with contentType "json". */
export const queueBytes = (msg: SyncQueueMessage) => jsonBytes(msg) + QUEUE_METADATA_BYTES;

/**
 * Packs a request's sync messages (they share account, app, store, type and receive time): consecutive
 * messages go into one pack while it holds at most PACK_MAX_MESSAGES and their queueBytes, plus
 * PACK_OVERHEAD_BYTES, add up to at most one queue message. A message's queueBytes counts the shared fields
 * and the metadata again, so a pack's real size stays below that sum, returned as each pack's bytes.
 */
export function packMessages(msgs: readonly SyncQueueMessage[], bytes: readonly number[] = msgs.map(queueBytes)): { packs: SyncQueuePack[]; bytes: number[] } {
  const packs: SyncQueuePack[] = [];
  const sizes: number[] = [];
  let current: SyncQueueMessage[] = [];
  let total = PACK_OVERHEAD_BYTES;
  const close = () => {
    const { v: _v, id: _id, message: _m, ...shared } = current[0]!;
    packs.push({ v: SYNC_PACK_VERSION, ...shared, messages: current.map((m) => ({ id: m.id, message: m.message })) });
    sizes.push(total);
  };
  for (const [i, msg] of msgs.entries()) {
    const size = bytes[i]!;
    if (current.length && (current.length >= PACK_MAX_MESSAGES || total + size > MAX_QUEUE_MESSAGE_BYTES)) {
      close();
      current = [];
      total = PACK_OVERHEAD_BYTES;
    }
    current.push(msg);
    total += size;
  }
  if (current.length) close();
  return { packs, bytes: sizes };
}
