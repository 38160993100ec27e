/**
 * @module Coalescing a consumer batch's first attempts (docs/reference/webhooks.md "What is sent"): the
 * outbox drain sends one message per app and commit, so a busy sync hands the webhook queue many small
 * messages of one app (a sync batch of 100 objects with 40 new ones makes one of 40 events). The consumer
 * packs the messages of one app that no attempt has been made for yet into deliveries of up to 100 events, as
 * the real service batches its POSTs: fewer POSTs for the integrator, and fewer deliveries to record
 * (deliver.ts handles them in waves). Only messages of one account are packed together: a delivery carries
 * one account's events, and its log row is stored with that account.
 *
 * A message is never split: it goes whole into one delivery, which is acked or retried with it. A message
 * already attempted (a retry, a throttled wait, a re-send) keeps its delivery log row and goes alone.
 */
import { jsonBytes } from "../../lib/queue-limits";
import { EVENT_BYTES_BUDGET } from "./drain";
import { MAX_EVENTS_PER_DELIVERY, type WebhookQueueMessage } from "./message";

export interface Packed<T> {
  delivery: WebhookQueueMessage;
  /** The queue messages whose events it carries: acked or retried together. */
  sources: T[];
}

/** Groups `items` (each with its parsed message) into deliveries within the event count and byte limits. */
export function coalesce<T>(items: { source: T; message: WebhookQueueMessage }[]): Packed<T>[] {
  const out: Packed<T>[] = [];
  const open = new Map<string, { packed: Packed<T>; bytes: number }>();
  for (const { source, message } of items) {
    if (message.deliveryId !== null || message.attempt !== 0) {
      out.push({ delivery: message, sources: [source] });
      continue;
    }
    const bytes = jsonBytes(message.events);
    const key = `${message.appId}:${message.events[0]!.portalId}`;
    const current = open.get(key);
    if (current && current.packed.delivery.events.length + message.events.length <= MAX_EVENTS_PER_DELIVERY && current.bytes + bytes <= EVENT_BYTES_BUDGET) {
      current.packed.delivery.events.push(...message.events);
      current.packed.sources.push(source);
      current.bytes += bytes;
      continue;
    }
    const packed = { delivery: { ...message, events: [...message.events] }, sources: [source] };
    out.push(packed);
    open.set(key, { packed, bytes });
  }
  return out;
}
