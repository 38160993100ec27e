/**
 * @module Per-object last-write-wins ordering for ecommerce sync: of the messages for one externalObjectId,
 * the one with the most recent changedAt wins (docs/reference/ecomm.md "Last-write-wins rules").
 *
 * One object per shard of (account, store, store generation, object type); an `lww` table in the object's
 * SQLite holds, per externalObjectId, the (changedAt, messageId) of the winning message. The consumer sends
 * each shard all of a batch's messages for it in one RPC (naming: src/durable-objects/sync-order-client.ts).
 *
 * The decision is the first commit point of the apply path: a winner is recorded before its effect is
 * written to D1. Redelivery of the recorded winner answers "apply" again, so a message whose D1 write
 * failed is retried, and the D1 write is idempotent and guarded by the same pair, so re-applying it is safe.
 */
import { controlDb, shardBinding } from "../db/shards";
import { directoryTtlMs, shardOfAccount } from "../db/directory";
import { DurableObject } from "cloudflare:workers";

export interface OrderEntry {
  externalObjectId: string;
  /** The queue message id: unique, and the tie-breaker when changedAt is equal. */
  id: string;
  changedAt: number;
}

/** `apply`: the entry is the current winner for its object. `stale`: an older or superseded message. */
export type Verdict = "apply" | "stale";

interface Stamp {
  changedAt: number;
  id: string;
}

/** Total order of messages of one object: changedAt (the most recent wins), then message id, so ties are deterministic. */
export const isNewer = (a: Stamp, b: Stamp) => a.changedAt > b.changedAt || (a.changedAt === b.changedAt && a.id > b.id);

/**
 * The store generation an ordering object serves (its name holds the same:
 * src/durable-objects/sync-order-client.ts).
 */
export interface OrderStore {
  portalId: number;
  storeId: string;
  storeGen: string;
}

/** How often an ordering object checks that its store generation still exists. */
export const SWEEP_MS = 24 * 60 * 60 * 1000;

export class SyncOrder extends DurableObject<Env> {
  /** The lww table exists in storage (it is created on first use, so a swept object stays empty). */
  private ready = false;

  private table(): void {
    if (this.ready) return;
    this.ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS lww (external_id TEXT PRIMARY KEY, changed_at INTEGER NOT NULL, message_id TEXT NOT NULL)");
    this.ready = true;
  }

  /**
   * Remembers which store generation this object orders and arms the daily sweep. A deleted (or redefined)
   * store's objects are never named again, so without the sweep their state would be kept, and billed,
   * forever.
   */
  private track(store: OrderStore): void {
    const kv = this.ctx.storage.kv;
    if (kv.get("store")) return;
    kv.put("store", store);
    void this.ctx.storage.setAlarm(Date.now() + SWEEP_MS);
  }

  /** The sweep: everything goes once the store generation is gone from D1; otherwise check again later. */
  override async alarm(): Promise<void> {
    const store = this.ctx.storage.kv.get<OrderStore>("store");
    if (!store) return;
    // The store lives on its account's shard; an account gone from the directory has no store.
    const shard = await shardOfAccount(controlDb(this.env), store.portalId, directoryTtlMs(this.env));
    const row =
      shard === undefined
        ? null
        : await shardBinding(this.env, shard)
            .prepare("select generation from ecomm_stores where portal_id = ? and store_id = ?")
            .bind(store.portalId, store.storeId)
            .first<{ generation: string }>();
    if (row?.generation === store.storeGen) {
      await this.ctx.storage.setAlarm(Date.now() + SWEEP_MS);
      return;
    }
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.ready = false;
  }

  /**
   * Decides every entry and records the new winners. Within one call only the newest entry of an object
   * can win; the others are stale. One statement does it: the upsert moves an object's stamp only forward
   * (or rewrites it unchanged for a redelivered winner), and RETURNING lists exactly the entries that are
   * now the winners. It commits before the answer leaves the object (output gate).
   */
  decide(entries: OrderEntry[], store?: OrderStore): Verdict[] {
    this.table();
    if (store) this.track(store);
    const best = new Map<string, number>();
    entries.forEach((e, i) => {
      const at = best.get(e.externalObjectId);
      if (at === undefined || isNewer(e, entries[at]!)) best.set(e.externalObjectId, i);
    });
    const candidates = [...best.values()].map((i) => entries[i]!);
    const won = new Set(
      this.ctx.storage.sql
        .exec<{ message_id: string }>(
          `INSERT INTO lww (external_id, changed_at, message_id)
             SELECT value->>'externalObjectId', value->>'changedAt', value->>'id' FROM json_each(?) WHERE true
           ON CONFLICT (external_id) DO UPDATE SET changed_at = excluded.changed_at, message_id = excluded.message_id
             WHERE (excluded.changed_at, excluded.message_id) >= (lww.changed_at, lww.message_id)
           RETURNING message_id`,
          JSON.stringify(candidates),
        )
        .toArray()
        .map((r) => r.message_id),
    );
    // ">=": a redelivered winner (same stamp) is returned too, since its effect may not be committed yet.
    return entries.map((e, i) => (best.get(e.externalObjectId) === i && won.has(e.id) ? "apply" : "stale"));
  }

  /** The recorded winner of one object (status and tests). */
  winner(externalObjectId: string): Stamp | null {
    this.table();
    const row = this.ctx.storage.sql
      .exec<{ changed_at: number; message_id: string }>("SELECT changed_at, message_id FROM lww WHERE external_id = ?", externalObjectId)
      .toArray()[0];
    return row ? { changedAt: row.changed_at, id: row.message_id } : null;
  }
}
