/**
 * @module Test access to an account's own database: account tables live on the account's shard,
 * so a test that checks rows reads them there, never through `env.DB` (the control plane).
 */
import { env } from "cloudflare:test";
import { makeDb } from "../../src/db/client";
import { shardBinding } from "../../src/db/shards";
import { ADMIN, call } from "./api";

/** The raw D1 binding of the account's shard, read from the directory (accounts.shard). */
export async function accountD1(portalId: number): Promise<D1Database> {
  const row = await env.DB.prepare("select shard from accounts where portal_id = ?").bind(portalId).first<{ shard: string | null }>();
  if (!row) throw new Error(`account ${portalId} is not in the directory`);
  return shardBinding(env, row.shard);
}

/** The drizzle handle of the account's shard. */
export async function accountDb(portalId: number) {
  return makeDb(await accountD1(portalId));
}

/** Every shard binding of the test configuration (wrangler.toml declares SHARD_1 and SHARD_2). */
export const SHARDS = ["SHARD_1", "SHARD_2"] as const;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls the operator API until the account's move is over (no `move`, or a failed one). */
export async function waitForMove(portalId: number, timeoutMs = 45_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await call("GET", `/admin/v1/accounts/${portalId}`, { token: ADMIN });
    if (!res.json.move || res.json.move.state === "failed") return res.json;
    if (Date.now() > until) throw new Error(`move did not finish: ${JSON.stringify(res.json.move)}`);
    await sleep(200);
  }
}
