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
   * can win; the others are stale. All writes happen synchronously in this one call, so they commit
   * together before the answer leaves the object (output gate).
   */
  decide(entries: OrderEntry[]): Verdict[] {
    const best = new Map<string, number>();
    entries.forEach((e, i) => {
      const at = best.get(e.externalObjectId);
      if (at === undefined || isNewer(e, entries[at]!)) best.set(e.externalObjectId, i);
    });
    const stored = new Map<string, Stamp>();
    const cursor = this.ctx.storage.sql.exec<{ external_id: string; changed_at: number; message_id: string }>(
      "SELECT external_id, changed_at, message_id FROM lww WHERE external_id IN (SELECT value FROM json_each(?))",
      JSON.stringify([...best.keys()]),
    );
    for (const row of cursor) stored.set(row.external_id, { changedAt: row.changed_at, id: row.message_id });

    const verdicts: Verdict[] = entries.map(() => "stale");
    for (const [key, i] of best) {
      const entry = entries[i]!;
      const current = stored.get(key);
      if (!current || isNewer(entry, current)) {
        this.ctx.storage.sql.exec(
          "INSERT INTO lww (external_id, changed_at, message_id) VALUES (?, ?, ?) ON CONFLICT (external_id) DO UPDATE SET changed_at = excluded.changed_at, message_id = excluded.message_id",
          key,
          entry.changedAt,
          entry.id,
        );
        verdicts[i] = "apply";
      } else if (current.id === entry.id) {
        verdicts[i] = "apply"; // redelivery of the recorded winner: its effect may not be committed yet
      }
    }
    return verdicts;
  }

  /** The recorded winner of one object (status and tests). */
  winner(externalObjectId: string): Stamp | null {
    const row = this.ctx.storage.sql
      .exec<{ changed_at: number; message_id: string }>("SELECT changed_at, message_id FROM lww WHERE external_id = ?", externalObjectId)
      .toArray()[0];
    return row ? { changedAt: row.changed_at, id: row.message_id } : null;
  }
}
