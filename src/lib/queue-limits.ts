/**
 * @module The platform's Queues limits, and counting a message's bytes as the queue counts them: 128 KB
 * per message including about 100 B of metadata, and at most 100 messages and 256 KB per sendBatch call
 * (1 KB = 1000 B; docs/explanation/reliability.md). Every queue of the Worker sends within them.
 */

/** Queues: 128 KB per message (1 KB = 1000 B) including about 100 B of metadata. */
export const MAX_QUEUE_MESSAGE_BYTES = 128_000;
export const QUEUE_METADATA_BYTES = 100;
/** Queues: sendBatch takes at most 100 messages and 256 KB in total. */
export const MAX_SEND_BATCH_MESSAGES = 100;
export const MAX_SEND_BATCH_BYTES = 256_000;

const encoder = new TextEncoder();
/** JSON text escapes control characters, so text without a character outside space..tilde is ASCII. */
const NOT_PRINTABLE_ASCII = /[^ -~]/;

/** UTF-8 bytes of JSON text: its length when it is ASCII (the common case), without encoding it. */
const utf8Bytes = (text: string) => (NOT_PRINTABLE_ASCII.test(text) ? encoder.encode(text).byteLength : text.length);

/** UTF-8 bytes of a value's JSON, counted without encoding it when it is ASCII. */
export const jsonBytes = (value: unknown) => utf8Bytes(JSON.stringify(value));

/**
 * Splits messages into sendBatch calls that respect both the count and the size limit. `bytes`: each
 * message's queueBytes when the caller already has them (the request path measured them to refuse a
 * message that is too large), so no message is serialised twice.
 */
export function chunkForSendBatch<T extends object>(msgs: T[], bytes: readonly number[] = msgs.map((m) => jsonBytes(m) + QUEUE_METADATA_BYTES)): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
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
