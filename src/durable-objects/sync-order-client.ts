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
 * (every call to a Durable Object is billed as a request) and, measured locally, slower. Raise it only if
 * one store's ordering object becomes hot. Changing it re-homes objects to other shards: that only weakens
 * the pre-filter for messages in flight, because every D1 write is guarded by the same (changedAt, message
 * id) watermark (src/services/ecomm/commit.ts).
 */
import type { OrderEntry, SyncOrder, Verdict } from "./sync-order";

/** What the client reads of a sync queue message (the ecommerce family's message format has more). */
export interface OrderedMessage {
  id: string;
  portalId: number;
  storeId: string;
  storeGen: string;
  objectType: string;
  message: { externalObjectId: string; changedAt: number };
}

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

export const shardName = <M extends OrderedMessage>(m: M) =>
  JSON.stringify([m.portalId, m.storeId, m.storeGen, m.objectType, fnv1a(m.message.externalObjectId) % SHARDS]);

export const orderStub = (ns: DurableObjectNamespace<SyncOrder>, name: string) => ns.get(ns.idFromName(name));

/** A verdict per message id; a message whose shard could not be reached gets an Error (retry it). */
export async function decideAll<M extends OrderedMessage>(
  ns: DurableObjectNamespace<SyncOrder>,
  msgs: M[],
): Promise<Map<string, Verdict | Error>> {
  const groups = new Map<string, M[]>();
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
