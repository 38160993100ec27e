/**
 * @module `POST /admin/v1/accounts/{portalId}/move` (docs/explanation/scaling.md "Moves") and
 * `DELETE /admin/v1/accounts/{portalId}` (docs/how-to/account-lifecycle.md): check the request, record the
 * job in the control plane and hand it to the account's AccountMover Durable Object, which runs it by itself.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { CONTROL_SHARD } from "../../db/shards";
import { accountMoves } from "../../db/tables/shards";
import { accounts, type DeletionState } from "../../db/tables/tenancy";
import { forgetDirectory } from "../../db/directory";
import { conflict, notFound } from "../../lib/errors";
import { requireShardName } from "./directory";
import { presentMove } from "./move-state";

export async function startMove(env: Env, db: Db, portalId: number, target: string, now: number) {
  requireShardName(env, target);
  const account = await db.select().from(accounts).where(eq(accounts.portalId, portalId)).get();
  if (!account) throw notFound(`Account ${portalId} not found`);
  if (account.status === "deleting") throw conflict(`Account ${portalId} is being deleted`);
  const source = account.shard ?? CONTROL_SHARD;
  if (source === target) throw conflict(`Account ${portalId} is already on ${target}`);
  // The move clears the target of the account's rows first: on its companion shard that would be its events.
  if (account.companion === target) throw conflict(`${target} holds account ${portalId}'s companion tables; an account's shard and its companion shard are two databases`);
  await refuseWhileMoving(db, portalId, "is already moving");
  const row = { portalId, kind: "home" as const, source, target, phase: "fencing" as const, copied: {}, error: null, startedAt: now, updatedAt: now };
  await db.insert(accountMoves).values(row).onConflictDoUpdate({ target: accountMoves.portalId, set: row });
  if (!(await moverOf(env, portalId).start({ portalId, source, target, kind: "home", companion: account.companion }))) throw conflict(`Account ${portalId} is already moving`);
  return { portalId, shard: source, ...(account.companion ? { companion: account.companion } : {}), move: presentMove(row) };
}

/**
 * `POST /admin/v1/accounts/{portalId}/companion {"shard"}` (docs/explanation/scaling.md "Accounts larger than
 * one database"): places the account's companion tables (COMPANION_TABLES) on `target`, from its shard the
 * first time, from its companion shard after that. The AccountMover runs it as a move of those tables only:
 * the same fences, copy, verification, switch, drain and purge.
 */
export async function startCompanionMove(env: Env, db: Db, portalId: number, target: string, now: number) {
  requireShardName(env, target);
  const account = await db.select().from(accounts).where(eq(accounts.portalId, portalId)).get();
  if (!account) throw notFound(`Account ${portalId} not found`);
  if (account.status === "deleting") throw conflict(`Account ${portalId} is being deleted`);
  const home = account.shard ?? CONTROL_SHARD;
  const source = account.companion ?? home;
  if (source === target) throw conflict(`Account ${portalId}'s companion tables are already on ${target}`);
  // Bringing them back would need the home shard to take rows while it serves the account: not offered.
  if (target === home) throw conflict(`${target} is account ${portalId}'s shard; a companion shard is another database`);
  await refuseWhileMoving(db, portalId, "is already moving");
  const row = { portalId, kind: "companion" as const, source, target, phase: "fencing" as const, copied: {}, error: null, startedAt: now, updatedAt: now };
  await db.insert(accountMoves).values(row).onConflictDoUpdate({ target: accountMoves.portalId, set: row });
  if (!(await moverOf(env, portalId).start({ portalId, source, target, kind: "companion", home }))) throw conflict(`Account ${portalId} is already moving`);
  return { portalId, shard: home, ...(account.companion ? { companion: account.companion } : {}), move: presentMove(row) };
}

const moverOf = (env: Env, portalId: number) => env.ACCOUNT_MOVER.get(env.ACCOUNT_MOVER.idFromName(String(portalId)));

async function refuseWhileMoving(db: Db, portalId: number, what: string) {
  const running = await db.select().from(accountMoves).where(eq(accountMoves.portalId, portalId)).get();
  if (running && running.phase !== "done" && running.phase !== "failed") {
    throw conflict(`Account ${portalId} ${what} from ${running.source} to ${running.target}`);
  }
}

/**
 * Marks the account `deleting` (from here it stops answering: this isolate forgets what it cached at once,
 * other isolates within the cache TTL, which the job waits out before it purges) and starts the deletion
 * job. Repeating the request while the deletion runs answers the same and makes sure the job runs.
 */
export async function startDeletion(env: Env, db: Db, portalId: number, now: number) {
  const account = await db.select().from(accounts).where(eq(accounts.portalId, portalId)).get();
  if (!account) throw notFound(`Account ${portalId} not found`);
  if (account.status !== "deleting") await refuseWhileMoving(db, portalId, "cannot be deleted while it moves");
  const deletion: DeletionState = account.deletion ?? { state: "marking", deleted: {}, startedAt: now, updatedAt: now };
  await db.update(accounts).set({ status: "deleting", deletion }).where(eq(accounts.portalId, portalId));
  forgetDirectory();
  if (!(await moverOf(env, portalId).startDeletion(portalId, deletion.startedAt))) {
    // A move started in between: the account goes back to how it was.
    await db.update(accounts).set({ status: account.status, deletion: account.deletion }).where(eq(accounts.portalId, portalId));
    throw conflict(`Account ${portalId} is moving; delete it once the move is over`);
  }
  return { portalId, deletion };
}
