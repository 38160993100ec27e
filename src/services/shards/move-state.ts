/** @module The move state an operator sees: the control plane's account_moves row. */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { accountMoves } from "../../db/tables/shards";

export type MoveRow = typeof accountMoves.$inferSelect;

export interface MoveState {
  kind?: "companion";
  from: string;
  to: string;
  state: MoveRow["phase"];
  copied: Record<string, number>;
  error?: string;
  startedAt: number;
  updatedAt: number;
}

export const presentMove = (m: MoveRow): MoveState => ({
  ...(m.kind === "companion" ? { kind: "companion" as const } : {}),
  from: m.source,
  to: m.target,
  state: m.phase,
  copied: m.copied,
  ...(m.error ? { error: m.error } : {}),
  startedAt: m.startedAt,
  updatedAt: m.updatedAt,
});

/** The account's move while one runs or after one failed; null once the latest move is done. */
export async function readMove(db: Db, portalId: number): Promise<MoveState | null> {
  const row = await db.select().from(accountMoves).where(eq(accountMoves.portalId, portalId)).get();
  return row && row.phase !== "done" ? presentMove(row) : null;
}
