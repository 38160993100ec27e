/**
 * @module The small client of the SyncOrder Durable Object: hides how object names are formed and
 * sends one RPC per shard per consumer batch.
 *
 * Naming: [portalId, storeId, storeGen, objectType, fnv1a(externalObjectId) % SHARDS]. Each object holds an
 * LWW row per externalObjectId, so one RPC carries every message of a batch that falls in it (a 100-message
 * batch of one store and type costs SHARDS requests at most, not up to 100). The store generation in the
 * name gives a store that is deleted and defined again fresh ordering state.
 *
 * SHARDS is 1: the D1 database, a single writer, saturates long before one ordering object does (one RPC
 * decides a whole batch in about a millisecond), and every extra shard is an extra billed request per batch
 * (platform §1.3) and, measured locally, slower. Raise it only if one store's ordering object becomes hot.
 * Changing it re-homes objects to other shards: that only weakens the pre-filter for messages in flight,
 * because every D1 write is guarded by the same (changedAt, message id) watermark (commit.ts).
 */
import type { SyncQueueMessage } from "../queue/messages";
import type { OrderEntry, SyncOrder, Verdict } from "./sync-order";

export const SHARDS = 1;

/** 32-bit FNV-1a: stable across isolates and releases (the shard of an object must never move). */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export const shardName = (m: SyncQueueMessage) =>
  JSON.stringify([m.portalId, m.storeId, m.storeGen, m.objectType, fnv1a(m.message.externalObjectId) % SHARDS]);

export const orderStub = (ns: DurableObjectNamespace<SyncOrder>, name: string) => ns.get(ns.idFromName(name));

/** A verdict per message id; a message whose shard could not be reached gets an Error (retry it). */
export async function decideAll(
  ns: DurableObjectNamespace<SyncOrder>,
  msgs: SyncQueueMessage[],
): Promise<Map<string, Verdict | Error>> {
  const groups = new Map<string, SyncQueueMessage[]>();
  for (const m of msgs) {
    const name = shardName(m);
    const group = groups.get(name);
    if (group) group.push(m);
    else groups.set(name, [m]);
  }
  const out = new Map<string, Verdict | Error>();
  await Promise.all(
    [...groups].map(async ([name, group]) => {
      const entries: OrderEntry[] = group.map((m) => ({ externalObjectId: m.message.externalObjectId, id: m.id, changedAt: m.message.changedAt }));
      try {
        const { portalId, storeId, storeGen } = group[0]!;
        const verdicts = await orderStub(ns, name).decide(entries, { portalId, storeId, storeGen });
        group.forEach((m, i) => out.set(m.id, verdicts[i] ?? new Error("no verdict")));
      } catch (err) {
        const error = err instanceof Error ? err : new Error(String(err));
        for (const m of group) out.set(m.id, error);
      }
    }),
  );
  return out;
}
