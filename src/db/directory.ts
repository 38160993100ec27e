/**
 * @module The account directory: which shard holds an account, for the paths whose caller
 * does not carry it (operator, developer keys, public pages, queue messages). Account credentials and
 * sessions carry the shard in the principal instead (src/http/auth.ts), so the hot path reads nothing here.
 *
 * Entries live in isolate memory for the credential-cache TTL. A stale entry is harmless for writes: the
 * fence triggers on the old shard refuse them (ACCOUNT_FENCED), and `forgetDirectory` then drops it.
 */
import { and, eq, inArray, ne } from "drizzle-orm";
import type { Db } from "./client";
import { accounts } from "./tables/tenancy";
import { forgetCredentials } from "../lib/credential-cache";

interface Entry {
  shard: string | null;
  freshUntil: number;
}

/** How long an isolate trusts a directory entry (the deletion waits it out, src/durable-objects/account-mover/delete.ts). */
export const DIRECTORY_TTL_MS = 10_000;
const DEFAULT_TTL_MS = DIRECTORY_TTL_MS;
const MAX_ENTRIES = 10_000;
const entries = new Map<number, Entry>();

function remember(portalId: number, shard: string | null, now: number, ttlMs: number) {
  if (ttlMs <= 0) return;
  if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
  entries.set(portalId, { shard, freshUntil: now + ttlMs });
}

/**
 * The account's shard (null = control plane); undefined when the account does not exist or is being
 * deleted (its public pages are gone and its queued messages are dropped from then on).
 */
export async function shardOfAccount(control: Db, portalId: number, now = Date.now(), ttlMs = DEFAULT_TTL_MS): Promise<string | null | undefined> {
  const hit = entries.get(portalId);
  if (hit && now < hit.freshUntil) return hit.shard;
  const row = await control
    .select({ shard: accounts.shard })
    .from(accounts)
    .where(and(eq(accounts.portalId, portalId), ne(accounts.status, "deleting")))
    .get();
  if (!row) return undefined;
  remember(portalId, row.shard, now, ttlMs);
  return row.shard;
}

/** Shards of many accounts in one control-plane read (the queue consumer's batch); unknown and deleting ids are left out. */
export async function shardsOfAccounts(control: Db, portalIds: number[], now = Date.now(), ttlMs = DEFAULT_TTL_MS): Promise<Map<number, string | null>> {
  const out = new Map<number, string | null>();
  const missing: number[] = [];
  for (const id of new Set(portalIds)) {
    const hit = entries.get(id);
    if (hit && now < hit.freshUntil) out.set(id, hit.shard);
    else missing.push(id);
  }
  // 90 ids per statement keeps well inside D1's 100 bound parameters.
  for (let i = 0; i < missing.length; i += 90) {
    const rows = await control
      .select({ portalId: accounts.portalId, shard: accounts.shard })
      .from(accounts)
      .where(and(inArray(accounts.portalId, missing.slice(i, i + 90)), ne(accounts.status, "deleting")))
      .all();
    for (const r of rows) {
      out.set(r.portalId, r.shard);
      remember(r.portalId, r.shard, now, ttlMs);
    }
  }
  return out;
}

/**
 * After a write was refused by a fence (the account moved or is moving): drop what this isolate believes
 * about where accounts live, in the directory and in the credential cache, so the retry reads it afresh.
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
