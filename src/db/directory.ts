/**
 * @module The account directory: which shard holds an account, for the paths whose caller
 * does not carry it (operator, developer keys, public pages, queue messages). Account credentials and
 * sessions carry the shard in the principal instead (src/http/auth.ts), so the hot path reads nothing here.
 *
 * Entries live in isolate memory for the credential-cache TTL, counted from the state they were read from
 * (a read replica may answer, no older than the isolate's floor: src/db/replica.ts), so a move's drain
 * outlasts them. A stale entry is harmless for writes: the fence triggers on the old shard refuse them
 * (ACCOUNT_FENCED), and `forgetDirectory` then drops it.
 */
import { and, eq, inArray, ne, sql } from "drizzle-orm";
import type { Db } from "./client";
import { accounts } from "./tables/tenancy";
import { cacheTtlMs, forgetCredentials } from "../lib/credential-cache";
import { controlRead } from "./replica";

/** Where an account lives, and the clock it keeps (docs/reference/testkit.md "Clock"). */
export interface Placement {
  shard: string | null;
  /** How far the account's clock runs ahead of real time, in ms: 0 unless it is a test account whose clock was moved. */
  clockOffsetMs: number;
}

interface Entry extends Placement {
  /** When the placement was known current; a clock that reads earlier than this stepped back. */
  since: number;
  freshUntil: number;
}

/**
 * A column for a statement that reads `accounts` anyway: the account's clock offset in ms, 0 unless it is a
 * test account whose clock was moved. The quirks row is probed (by primary key) only for a test account, so
 * a STANDARD account's read costs nothing more, and a row left from when it was a test account is ignored.
 */
export const CLOCK_OFFSET_SQL = `(case when "accounts"."account_type" in ('DEVELOPER_TEST', 'SANDBOX')
  then coalesce((select q.clock_offset_ms from account_quirks q where q.portal_id = "accounts"."portal_id"), 0) else 0 end)`;
export const clockOffsetColumn = sql<number>`${sql.raw(CLOCK_OFFSET_SQL)}`.mapWith(Number);

/** How long an isolate trusts a directory entry at most (the deletion waits it out, src/durable-objects/account-mover/delete.ts). */
export const DIRECTORY_TTL_MS = 10_000;

/**
 * How long an isolate trusts a directory entry in this deployment: never longer than the credential cache.
 * A move's drain waits out the credential cache's TTL (src/durable-objects/account-mover/run.ts) before the
 * source is purged, so an entry naming the source must expire by then too; with the cache off ("0"),
 * nothing is kept here either.
 */
export function directoryTtlMs(env: Pick<Env, "CREDENTIAL_CACHE_SECONDS">): number {
  return Math.min(DIRECTORY_TTL_MS, cacheTtlMs(env));
}
const MAX_ENTRIES = 10_000;
const entries = new Map<number, Entry>();

/** Within its TTL, and not from the clock's future (a clock that stepped back would keep it long). */
const fresh = (e: Entry, now: number) => e.since <= now && now < e.freshUntil;

/** Kept until `since` (when the read state was known current, src/db/replica.ts) + the TTL. */
function remember(portalId: number, place: Placement, since: number, ttlMs: number) {
  if (ttlMs <= 0) return;
  if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
  entries.set(portalId, { shard: place.shard, clockOffsetMs: place.clockOffsetMs, since, freshUntil: since + ttlMs });
}

/**
 * The account's shard (null = control plane); undefined when the account does not exist or is being
 * deleted (its public pages are gone and its queued messages are dropped from then on).
 */
export async function shardOfAccount(control: Db, portalId: number, ttlMs: number, now = Date.now()): Promise<string | null | undefined> {
  const hit = entries.get(portalId);
  if (hit && fresh(hit, now)) return hit.shard;
  // The clock rides along (every entry carries it, see placementsOf), at no cost for a STANDARD account.
  // A replica may answer, no older than the floor (src/db/replica.ts): a move reaches the entry within the TTL.
  const read = controlRead(control, now, ttlMs);
  const row = await read.db
    .select({ shard: accounts.shard, clockOffsetMs: clockOffsetColumn })
    .from(accounts)
    .where(and(eq(accounts.portalId, portalId), ne(accounts.status, "deleting")))
    .get();
  read.done();
  if (!row) return undefined;
  remember(portalId, row, read.since, ttlMs);
  return row.shard;
}

/**
 * Shards and clocks of many accounts in one control-plane read (the queue consumers' batch), or none when this
 * isolate knows them all; unknown and deleting ids are left out. The clock is read in the same statement, so
 * a consumer that stamps what it writes by each account's clock pays nothing for it.
 */
export async function placementsOf(control: Db, portalIds: number[], ttlMs: number, now = Date.now()): Promise<Map<number, Placement>> {
  const out = new Map<number, Placement>();
  const missing: number[] = [];
  for (const id of new Set(portalIds)) {
    const hit = entries.get(id);
    if (hit && fresh(hit, now)) out.set(id, { shard: hit.shard, clockOffsetMs: hit.clockOffsetMs });
    else missing.push(id);
  }
  // 90 ids per statement keeps well inside D1's 100 bound parameters.
  for (let i = 0; i < missing.length; i += 90) {
    const read = controlRead(control, now, ttlMs);
    const rows = await read.db
      .select({ portalId: accounts.portalId, shard: accounts.shard, clockOffsetMs: clockOffsetColumn })
      .from(accounts)
      .where(and(inArray(accounts.portalId, missing.slice(i, i + 90)), ne(accounts.status, "deleting")))
      .all();
    read.done();
    for (const r of rows) {
      const place = { shard: r.shard, clockOffsetMs: r.clockOffsetMs };
      out.set(r.portalId, place);
      remember(r.portalId, place, read.since, ttlMs);
    }
  }
  return out;
}

/** Shards of many accounts (placementsOf without the clocks). */
export async function shardsOfAccounts(control: Db, portalIds: number[], ttlMs: number, now = Date.now()): Promise<Map<number, string | null>> {
  return new Map([...(await placementsOf(control, portalIds, ttlMs, now))].map(([id, p]) => [id, p.shard]));
}

/**
 * After a write was refused by a fence (the account moved or is moving), or an account's clock or type
 * changed: drop what this isolate believes about accounts, in the directory and in the credential cache, so
 * the next read takes it afresh.
 */
export function forgetDirectory(): void {
  entries.clear();
  forgetCredentials();
}

/** A D1 error raised by the fence triggers (migrations/0008_fences.sql), wherever it is wrapped. */
export function isFenceError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    if (e instanceof Error && e.message.includes("ACCOUNT_FENCED")) return true;
    e = e instanceof Error ? e.cause : undefined;
  }
  return false;
}
