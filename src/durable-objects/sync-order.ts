/**
 * @module Per-object last-write-wins ordering for ecommerce sync (spec 2.4 rule 2; issue 3).
 *
 * One object per shard of (account, store, store generation, object type); an `lww` table in the object's
 * SQLite holds, per externalObjectId, the (changedAt, messageId) of the winning message. The consumer sends
 * each shard all of a batch's messages for it in one RPC (see sync-order-client.ts for the naming).
 *
 * The decision is the first commit point of the apply path: a winner is recorded before its effect is
 * written to D1. Redelivery of the recorded winner answers "apply" again, so a message whose D1 write
 * failed is retried, and the D1 write is idempotent and guarded by the same pair, so re-applying it is safe.
 */
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

/** Total order of messages of one object: changedAt, then message id (deterministic, spec 2.4 rule 2). */
export const isNewer = (a: Stamp, b: Stamp) => a.changedAt > b.changedAt || (a.changedAt === b.changedAt && a.id > b.id);

export class SyncOrder extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS lww (external_id TEXT PRIMARY KEY, changed_at INTEGER NOT NULL, message_id TEXT NOT NULL)",
    );
  }

  /**
   * Decides every entry and records the new winners. Within one call only the newest entry of an object
   * can win; the others are stale. One statement does it: the upsert moves an object's stamp only forward
   * (or rewrites it unchanged for a redelivered winner), and RETURNING lists exactly the entries that are
   * now the winners. It commits before the answer leaves the object (output gate).
   */
  decide(entries: OrderEntry[]): Verdict[] {
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
    const row = this.ctx.storage.sql
      .exec<{ changed_at: number; message_id: string }>("SELECT changed_at, message_id FROM lww WHERE external_id = ?", externalObjectId)
      .toArray()[0];
    return row ? { changedAt: row.changed_at, id: row.message_id } : null;
  }
}
