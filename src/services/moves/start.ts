/**
 * @module `POST /admin/v1/accounts/{portalId}/move` (issue 16 §2): checks the request, records the move in
 * the control plane and hands it to the account's AccountMover Durable Object, which runs it by itself.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { CONTROL_SHARD } from "../../db/shards";
import { accountMoves } from "../../db/tables/shards";
import { accounts } from "../../db/tables/tenancy";
import { conflict, notFound } from "../../lib/errors";
import { requireShardName } from "../shard-directory";
import { presentMove } from "./state";

export async function startMove(env: Env, db: Db, portalId: number, target: string, now: number) {
  requireShardName(env, target);
  const account = await db.select().from(accounts).where(eq(accounts.portalId, portalId)).get();
  if (!account) throw notFound(`Account ${portalId} not found`);
  const source = account.shard ?? CONTROL_SHARD;
  if (source === target) throw conflict(`Account ${portalId} is already on ${target}`);
  const running = await db.select().from(accountMoves).where(eq(accountMoves.portalId, portalId)).get();
  if (running && running.phase !== "done" && running.phase !== "failed") {
    throw conflict(`Account ${portalId} is already moving from ${running.source} to ${running.target}`);
  }
  const row = { portalId, source, target, phase: "fencing" as const, copied: {}, error: null, startedAt: now, updatedAt: now };
  await db.insert(accountMoves).values(row).onConflictDoUpdate({ target: accountMoves.portalId, set: row });
  const mover = env.ACCOUNT_MOVER.get(env.ACCOUNT_MOVER.idFromName(String(portalId)));
  if (!(await mover.start({ portalId, source, target }))) throw conflict(`Account ${portalId} is already moving`);
  return { portalId, shard: source, move: presentMove(row) };
}
