/**
 * @module Snapshots and reset of a test account's data (docs/reference/testkit.md, "Snapshots and reset").
 * The data is what the export holds of the account's shard: every account table (src/db/account-tables.ts)
 * but the snapshots themselves and the webhook outbox (events not sent yet belong to the moment they were
 * made, not to the data). The account's people and credentials (users, owners, teams, installs, private apps,
 * tokens) are on the control plane and stay as they are.
 *
 * Taking a snapshot is one statement per table inside the shard (`insert … select json_array(columns)`),
 * and restoring one a single batch that empties the account's rows of every table and inserts the
 * snapshot's: nothing of the account passes through the Worker, and the restore is all or nothing. The
 * rows come back with their ids; the id counters only grow, so an id made after the snapshot is never
 * handed out again.
 *
 * What was pending ends with a restore or a reset: the outbox's unsent events go; events of changes made
 * before it are not delivered any more (`accounts.data_reset_at`, read at delivery); and every store gets a
 * new generation, so sync messages queued before are dropped, as for a store deleted and defined again.
 */
import { asc, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { shardBinding } from "../../db/shards";
import { snapshots } from "../../db/tables/testkit";
import { accounts } from "../../db/tables/tenancy";
import { ACCOUNT_TABLES, type AccountTable } from "../../db/account-tables";
import { columnsOf } from "../../durable-objects/account-mover/copy";
import { conflict, notFound } from "../../lib/errors";
import { MAX_SNAPSHOTS } from "../../schemas/testkit";
import { readMove } from "../shards/move-state";
import { companionRefused, requireTestAccount } from "./account";

/** The tables a snapshot holds: the account's data, as the export has it, less the events not yet sent. */
const DATA: AccountTable[] = ACCOUNT_TABLES.filter((t) => !t.notExported && t.name !== "webhook_outbox");
const OUTBOX = ACCOUNT_TABLES.find((t) => t.name === "webhook_outbox")!;
const bindAll = (where: string) => where.replaceAll("?", "?1");

/** The account, if the kit may change its data now: a test account, not moving between databases. */
export async function account(env: Env, control: Db, portalId: number) {
  // Two reads of the control plane at once: a restore's time is mostly round trips besides its one batch.
  const [row, move] = await Promise.all([requireTestAccount(control, portalId), readMove(control, portalId)]);
  if (move && move.state !== "failed") throw conflict(`Account ${portalId} is moving between databases; try again once the move is over`);
  // Snapshots, restores, resets and fixtures work on one database (their restore is one batch).
  if (row.companion) throw companionRefused(portalId);
  return { row, d1: shardBinding(env, row.shard) };
}

export async function listSnapshots(env: Env, control: Db, shard: (name: string | null) => Db, portalId: number) {
  const { row } = await account(env, control, portalId);
  const rows = await shard(row.shard).select().from(snapshots).where(eq(snapshots.portalId, portalId)).orderBy(asc(snapshots.createdAt)).all();
  return { results: rows.map(present) };
}

const present = (s: typeof snapshots.$inferSelect) => ({ name: s.name, createdAt: new Date(s.createdAt).toISOString(), counts: s.counts });

/** Takes a snapshot named `name`: 409 if the account has one of that name, or has MAX_SNAPSHOTS already. */
export async function createSnapshot(env: Env, control: Db, portalId: number, name: string, realNow: number) {
  const { row, d1 } = await account(env, control, portalId);
  const now = realNow + row.clockOffsetMs; // the snapshot's createdAt, by the account's clock (clock.ts)
  const existing = await d1.prepare("select name from snapshots where portal_id = ?").bind(portalId).all<{ name: string }>();
  if (existing.results.some((r) => r.name === name)) throw conflict(`Account ${portalId} already has a snapshot named ${name}; delete it first to take it again`);
  if (existing.results.length >= MAX_SNAPSHOTS) throw conflict(`Account ${portalId} has ${MAX_SNAPSHOTS} snapshots, the most it may keep; delete one first`);
  const cols = await columnsOf(d1, DATA);
  const copies = DATA.map((t, i) =>
    d1
      .prepare(`insert into snapshot_rows (portal_id, snapshot, table_name, row) select ?1, ?2, '${t.name}', json_array(${cols[i]!.join(", ")}) from ${t.name} where ${bindAll(t.where)}`)
      .bind(portalId, name),
  );
  const results = await d1.batch([...copies, d1.prepare("insert into snapshots (portal_id, name, counts, created_at) values (?, ?, '{}', ?)").bind(portalId, name, now)]);
  const counts = Object.fromEntries(DATA.map((t, i) => [t.name, results[i]!.meta.changes ?? 0]));
  await d1.prepare("update snapshots set counts = ? where portal_id = ? and name = ?").bind(JSON.stringify(counts), portalId, name).run();
  return { name, createdAt: new Date(now).toISOString(), counts };
}

export async function deleteSnapshot(env: Env, control: Db, portalId: number, name: string) {
  const { d1 } = await account(env, control, portalId);
  const [, gone] = await d1.batch([
    d1.prepare("delete from snapshot_rows where portal_id = ? and snapshot = ?").bind(portalId, name),
    d1.prepare("delete from snapshots where portal_id = ? and name = ?").bind(portalId, name),
  ]);
  if (!gone!.meta.changes) throw notFound(`Account ${portalId} has no snapshot named ${name}`);
}

/**
 * Puts the account's data back as it was at the snapshot (or, with no snapshot, as just after the account
 * was made: empty). One batch: a fence row that lets the rows back in with their ids (the move's own
 * `unlocked` fence, which also lets in ids of another database's range when the snapshot was taken before a
 * move), every table emptied of the account's rows and refilled, the outbox emptied, new store
 * generations, the fence removed, and the account's data_reset_at when the account's data shares the control
 * plane's database.
 */
export async function restore(env: Env, control: Db, portalId: number, name: string | null, realNow: number) {
  const { row, d1 } = await account(env, control, portalId);
  // By the account's clock (clock.ts), as its events' occurredAt, which data_reset_at is compared with.
  const now = realNow + row.clockOffsetMs;
  let counts: Record<string, number> = {};
  if (name !== null) {
    const snap = await d1.prepare("select counts from snapshots where portal_id = ? and name = ?").bind(portalId, name).first<{ counts: string }>();
    if (!snap) throw notFound(`Account ${portalId} has no snapshot named ${name}`);
    counts = JSON.parse(snap.counts) as Record<string, number>;
  }
  const cols = await columnsOf(d1, DATA);
  const refill = (t: AccountTable, i: number) =>
    d1
      .prepare(
        `insert into ${t.name} (${cols[i]!.join(", ")}) select ${cols[i]!.map((_, k) => `r.row ->> ${k}`).join(", ")}
         from snapshot_rows r where r.portal_id = ?1 and r.snapshot = ?2 and r.table_name = '${t.name}' order by r.rowid`,
      )
      .bind(portalId, name);
  // Events of changes before now are not delivered any more (src/services/webhooks/deliver.ts): the account's
  // data_reset_at, in the same batch when its data lives in the control plane's database, else right after.
  const resetMark = "update accounts set data_reset_at = ? where portal_id = ?";
  const sameDatabase = d1 === env.DB;
  try {
    await d1.batch([
      d1.prepare("insert into account_fences (portal_id, state, created_at, unlocked) values (?, 'incoming', ?, 1)").bind(portalId, now),
      ...[...DATA].reverse().map((t) => d1.prepare(`delete from ${t.name} where ${bindAll(t.where)}`).bind(portalId)),
      d1.prepare(`delete from ${OUTBOX.name} where ${bindAll(OUTBOX.where)}`).bind(portalId),
      ...(name !== null ? DATA.map(refill) : []),
      // Sync messages queued for a store carry its generation: a new one drops them (src/services/ecomm/plan.ts).
      d1.prepare("update ecomm_stores set generation = lower(hex(randomblob(16))) where portal_id = ?").bind(portalId),
      d1.prepare("delete from account_fences where portal_id = ?").bind(portalId),
      ...(sameDatabase ? [d1.prepare(resetMark).bind(now, portalId)] : []),
    ]);
  } catch (err) {
    // The fence row exists already: a move or a deletion holds the account.
    if (String(err).includes("UNIQUE") || String(err).includes("ACCOUNT_FENCED")) throw conflict(`Account ${portalId} is moving or being deleted; its data cannot be restored now`);
    throw err;
  }
  if (!sameDatabase) await control.update(accounts).set({ dataResetAt: now }).where(eq(accounts.portalId, portalId));
  return { name, restoredAt: new Date(now).toISOString(), counts };
}
