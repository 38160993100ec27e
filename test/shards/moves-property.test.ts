/**
 * Property test of moves (src/services/shards/moves.ts, src/durable-objects/account-mover/,
 * src/db/id-ranges.ts): random sequences of writes and moves over three shards and the control plane, with
 * writes also landing in the middle of moves. After every run:
 *   - every new id on a database lies in that database's range;
 *   - no id is held by two databases;
 *   - every move succeeds (the account ends on its target);
 *   - every acknowledged write (a 201) is present, on the account's shard;
 *   - no account has rows on two databases.
 * The moves run through the mover's own step function (moveStep, as the AccountMover object runs it) with
 * the credential cache off, which is what the mover's drain phase waits for; so a run takes milliseconds.
 * A third shard: vitest.config.ts binds TEST_SHARD_3, which this file alone hands to the Worker as SHARD_3.
 * Seed from FUZZ_SEED (printed); at least 200 runs.
 */
import { applyD1Migrations, createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { ID_TABLES, inRange, seedStatements } from "../../src/db/id-ranges";
import worker from "../../src/index";
import { moveStep, type Progress } from "../../src/durable-objects/account-mover/run";
import { ACCOUNT_TABLES } from "../../src/db/account-tables";
import { ADMIN, BASE } from "../helpers/api";

const RUNS = Number(env.FUZZ_RUNS || 200);
const SEED = Number(env.FUZZ_SEED || Date.now() % 2_147_483_647);
console.log(`moves property: ${RUNS} runs, seed ${SEED} (rerun with FUZZ_SEED=${SEED})`);

const DATABASES = ["DB", "SHARD_1", "SHARD_2", "SHARD_3"] as const;
const SHARDS = DATABASES.slice(1);
/** The Worker's environment in this file: a third shard, and no credential cache (see the module comment). */
const world = { ...env, SHARD_3: env.TEST_SHARD_3, CREDENTIAL_CACHE_SECONDS: "0" } as Env;
const d1 = (name: string) => (world as unknown as Record<string, D1Database>)[name]!;

async function request(method: string, path: string, token: string, body?: unknown) {
  const ctx = createExecutionContext();
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const req = new Request(`${BASE}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const res = await worker.fetch(req as Request<unknown, IncomingRequestCfProperties>, world, ctx);
  await waitOnExecutionContext(ctx);
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

interface Account {
  portalId: number;
  pat: string;
  shard: string;
  /** Ids of acknowledged (201) writes. */
  written: number[];
}

/** An account on `database`; "DB" is an account from before sharding (created on a shard, then pointed at DB before it holds anything). */
async function newAccount(database: string): Promise<Account> {
  const made = await request("POST", "/admin/v1/accounts", ADMIN, { name: "p", shard: database === "DB" ? "SHARD_1" : database, rateLimit: 100_000 });
  expect(made.status).toBe(201);
  const portalId = made.json.portalId as number;
  if (database === "DB") await env.DB.prepare("update accounts set shard = null where portal_id = ?").bind(portalId).run();
  const pa = await request("POST", `/admin/v1/accounts/${portalId}/private-apps`, ADMIN, { name: "pa" });
  return { portalId, pat: pa.json.token as string, shard: database, written: [] };
}

/** A write; acknowledged ones are remembered and their ids checked against the account's database at the time. */
async function write(a: Account, moving: boolean) {
  const res = await request("POST", "/crm/v3/objects/contacts", a.pat, { properties: { firstname: "w" } });
  if (moving && res.status === 503) return; // refused while fenced: not acknowledged, and retryable
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  const id = Number(res.json.id);
  const where = (await env.DB.prepare("select coalesce(shard, 'DB') as s from accounts where portal_id = ?").bind(a.portalId).first<{ s: string }>())!.s;
  expect(inRange(where, id), `new id ${id} of account ${a.portalId} on ${where}`).toBe(true);
  a.written.push(id);
}

/** Moves `a` to `target` with the mover's steps, writing (to `a` and `other`) after step `writeAt`. */
async function move(a: Account, target: string, writeAt: number, other: Account | undefined) {
  let p: Progress | undefined = { portalId: a.portalId, source: a.shard, target, phase: "fencing", table: 0, after: 0, copied: {} };
  for (let step = 0; p; step++) {
    if (step === writeAt) {
      await write(a, true);
      if (other) await write(other, false);
    }
    p = await moveStep(world, p, async () => undefined);
  }
  const dir = await env.DB.prepare("select coalesce(shard, 'DB') as s from accounts where portal_id = ?").bind(a.portalId).first<{ s: string }>();
  expect(dir!.s).toBe(target);
  a.shard = target;
}

const idQueries = Object.entries(ID_TABLES).map(([table, col]) => `select '${table}' as t, ${col} as id, portal_id as p from ${table}`);
const portalTables = ACCOUNT_TABLES.filter((t) => t.where === "portal_id = ?").map((t) => t.name);

/** The invariants over every database after a run: one batch per database. */
async function check(accounts: Account[]) {
  const list = accounts.map((a) => a.portalId).join(", ");
  const seen = new Map<string, string>();
  const contacts = new Map<number, number[]>();
  for (const name of DATABASES) {
    const db = d1(name);
    const res = await db.batch([
      ...idQueries.map((q) => db.prepare(q)),
      ...portalTables.map((t) => db.prepare(`select distinct portal_id as p from ${t} where portal_id in (${list})`)),
    ]);
    const ids = res.slice(0, idQueries.length).flatMap((r) => r.results as { t: string; id: number; p: number }[]);
    const owners = res.slice(idQueries.length).flatMap((r) => r.results as { p: number }[]);
    // No id on two databases, in any id table.
    for (const { t, id, p } of ids) {
      const key = `${t} ${id}`;
      expect(seen.get(key), `${key} on ${name} and ${seen.get(key)}`).toBeUndefined();
      seen.set(key, name);
      if (t === "crm_objects" && name === accounts.find((a) => a.portalId === p)?.shard) contacts.set(p, [...(contacts.get(p) ?? []), id]);
    }
    // No account has rows on a database other than its own.
    for (const { p } of owners) expect(accounts.find((a) => a.portalId === p)!.shard, `account ${p} has rows on ${name}`).toBe(name);
  }
  // Every acknowledged write is present, on the account's database.
  for (const a of accounts) expect((contacts.get(a.portalId) ?? []).sort((x, y) => x - y)).toEqual([...a.written].sort((x, y) => x - y));
}

const op = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("write" as const), account: fc.nat(7) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("move" as const), account: fc.nat(7), to: fc.nat(2), writeAt: fc.nat(30) }), weight: 1 },
);
/** Small runs keep the file fast (a move is some thirty D1 round trips); the history grows over all runs. */
const ops = fc.array(op, { minLength: 1, maxLength: 3 });

describe("moves over three shards and the control plane", () => {
  /** Two accounts on each database, for every run: histories of moves accumulate over the runs. */
  const accounts: Account[] = [];

  beforeAll(async () => {
    await applyD1Migrations(env.TEST_SHARD_3, env.TEST_MIGRATIONS);
    await env.TEST_SHARD_3.batch(seedStatements("SHARD_3").map((s) => env.TEST_SHARD_3.prepare(s)));
    for (const where of [...DATABASES, ...DATABASES]) {
      const a = await newAccount(where);
      await write(a, false);
      accounts.push(a);
    }
  });

  it(`keep ids in range and unique, and every write, over ${RUNS} random runs`, { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(ops, async (run) => {
        for (const o of run) {
          const a = accounts[o.account]!;
          if (o.kind === "write") await write(a, false);
          else {
            const targets = SHARDS.filter((s) => s !== a.shard);
            await move(a, targets[o.to % targets.length]!, o.writeAt, accounts[(o.account + 1 + o.to) % accounts.length]);
          }
        }
        await check(accounts);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  });
});
