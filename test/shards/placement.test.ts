/**
 * Placement control (docs/explanation/scaling.md, "Placement and balancing"): an operator closes a shard to new accounts
 * and reopens it (PATCH /admin/v1/shards/{name}); the placement policy chooses among the open shards with
 * weights that favour emptier shards without sending every new account to a new, empty one.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { makeDb } from "../../src/db/client";
import { placeAccount, placementWeights, weightedChoice } from "../../src/services/shards/placement";
import { createAccount } from "../../src/services/accounts/tenancy";
import worker from "../../src/index";
import { admin, ADMIN, BASE, call, expectError, tenant, unique } from "../helpers/api";
import { seededRandom } from "../helpers/random";

const db = () => makeDb(env.DB);

/**
 * The test databases are shared with the other test files, which create accounts without naming a shard:
 * every test here leaves both shards open again, and none closes both at once (see the "every shard
 * closed" test, which uses a deployment of one shard instead).
 */
async function reopenAll() {
  for (const name of ["SHARD_1", "SHARD_2"]) await admin("PATCH", `/admin/v1/shards/${name}`, { open: true });
}
const placementRows = async () => (await env.DB.prepare("select shard, open, updated_at from shard_placement order by shard").all()).results;

const shardsNow = async () =>
  (await call("GET", "/admin/v1/shards", { token: ADMIN })).json.results as { name: string; accounts: number; open: boolean; placement: boolean }[];
const countOn = async (name: string) => (await shardsNow()).find((s) => s.name === name)!.accounts;

describe("PATCH /admin/v1/shards/{name}", () => {
  it("closes a shard to new accounts: placement skips it, a named placement and its accounts still work; reopening restores it", async () => {
    const before = await tenant({ shard: "SHARD_2" });
    try {
      const closed = await call("PATCH", "/admin/v1/shards/SHARD_2", { token: ADMIN, body: { open: false } });
      expect(closed.status).toBe(200);
      expect(closed.json).toEqual({ name: "SHARD_2", open: false, accounts: await countOn("SHARD_2"), updatedAt: expect.any(Number) });
      expect((await shardsNow()).find((s) => s.name === "SHARD_2")).toMatchObject({ open: false, placement: false });
      expect((await shardsNow()).find((s) => s.name === "SHARD_1")).toMatchObject({ open: true, placement: true });

      for (let i = 0; i < 8; i++) expect((await admin("POST", "/admin/v1/accounts", { name: unique() })).shard).toBe("SHARD_1");
      // Even the random draw that would pick the last shard lands on an open one.
      expect(await placeAccount(env, db(), () => 0.999999)).toBe("SHARD_1");
      // The operator may still name a closed shard, and its accounts keep working.
      expect((await admin("POST", "/admin/v1/accounts", { name: unique(), shard: "SHARD_2" })).shard).toBe("SHARD_2");
      expect((await call("POST", "/crm/v3/objects/contacts", { token: before.pat, body: { properties: { firstname: "still here" } } })).status).toBe(201);

      const reopened = await call("PATCH", "/admin/v1/shards/SHARD_2", { token: ADMIN, body: { open: true } });
      expect(reopened.status).toBe(200);
      expect(reopened.json).toMatchObject({ name: "SHARD_2", open: true });
      expect((await shardsNow()).find((s) => s.name === "SHARD_2")).toMatchObject({ open: true, placement: true });
      expect(await placeAccount(env, db(), () => 0.999999)).toBe("SHARD_2");
      expect(await placeAccount(env, db(), () => 0)).toBe("SHARD_1");
    } finally {
      await reopenAll();
    }
  });

  it("with every shard closed, an unnamed placement is a 409 and a named one still works", async () => {
    // A deployment whose only shard is SHARD_1: closing it closes every shard, without closing both of the
    // shared test databases' shards to the other test files.
    const oneShard = { ...env, SHARD_2: undefined } as unknown as Env;
    const post = async (body: unknown) => {
      const ctx = createExecutionContext();
      const res = await worker.fetch(
        new Request(`${BASE}/admin/v1/accounts`, { method: "POST", headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" }, body: JSON.stringify(body) }) as Request<unknown, IncomingRequestCfProperties>,
        oneShard,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return { status: res.status, json: (await res.json()) as { shard?: string; message?: string; category?: string } };
    };
    expect((await post({ name: unique() })).json.shard).toBe("SHARD_1");
    await admin("PATCH", "/admin/v1/shards/SHARD_1", { open: false });
    try {
      const refused = await post({ name: unique() });
      expect(refused.status).toBe(409);
      expect(refused.json).toMatchObject({ category: "CONFLICT", message: expect.stringContaining("closed") });
      await expect(placeAccount(oneShard, db())).rejects.toThrow(/closed/);
      const named = await post({ name: unique(), shard: "SHARD_1" });
      expect([named.status, named.json.shard]).toEqual([201, "SHARD_1"]);
    } finally {
      await reopenAll();
    }
  });

  it("closing twice and reopening an open shard are no-ops that answer the state", async () => {
    try {
      for (const open of [true, true, false, false]) {
        const res = await call("PATCH", "/admin/v1/shards/SHARD_1", { token: ADMIN, body: { open } });
        expect(res.status).toBe(200);
        expect(res.json.open).toBe(open);
      }
    } finally {
      await reopenAll();
    }
    const rows = await env.DB.prepare("select count(*) as n from shard_placement where shard = 'SHARD_1'").first<{ n: number }>();
    expect(rows!.n).toBe(1);
  });

  it.each([
    ["an unknown shard", "SHARD_9", { open: false }, 404, "OBJECT_NOT_FOUND"],
    ["the control plane", "DB", { open: true }, 404, "OBJECT_NOT_FOUND"],
    ["no open", "SHARD_1", {}, 400, "VALIDATION_ERROR"],
    ["open as a string", "SHARD_1", { open: "false" }, 400, "VALIDATION_ERROR"],
    ["open as a number", "SHARD_1", { open: 0 }, 400, "VALIDATION_ERROR"],
    ["an unknown field", "SHARD_1", { open: false, weight: 2 }, 400, "VALIDATION_ERROR"],
    ["a name over 64 characters", "S".repeat(65), { open: false }, 400, "VALIDATION_ERROR"],
  ])("refuses %s", async (_what, name, body, status, category) => {
    const before = await placementRows();
    expectError(await call("PATCH", `/admin/v1/shards/${name}`, { token: ADMIN, body }), status, category);
    expect(await placementRows()).toEqual(before);
  });

  it("is for the operator only: an account's tokens and a developer key get 401 and change nothing", async () => {
    const t = await tenant();
    const before = await placementRows();
    for (const token of [t.pat, t.oauth, t.developerKey, "wrong"]) {
      const res = await call("PATCH", "/admin/v1/shards/SHARD_1", { token, body: { open: false } });
      expect(res.status).toBe(401);
    }
    expect(await placementRows()).toEqual(before);
  });

  it("answers other methods with 405", async () => {
    expect((await call("DELETE", "/admin/v1/shards/SHARD_1", { token: ADMIN })).status).toBe(405);
  });
});

describe("the placement policy", () => {
  it("weighs equal shards equally, and an emptier shard more, by its room below the fullest plus the average", () => {
    expect(placementWeights([5, 5, 5])).toEqual([5, 5, 5]);
    expect(placementWeights([0, 0])).toEqual([1, 1]);
    expect(placementWeights([1000, 0])).toEqual([500, 1500]);
    // Ten full shards and a new, empty one: the new shard takes about 17 % of new accounts, not all of them.
    const w = placementWeights([...Array(10).fill(1000), 0]);
    const share = w.at(-1)! / w.reduce((a, b) => a + b, 0);
    expect(share).toBeGreaterThan(1 / 11);
    expect(share).toBeLessThan(2 / 11);
  });

  it("chooses in proportion to the weights", () => {
    expect([0, 0.24, 0.25, 0.99].map((r) => weightedChoice([1, 3], r))).toEqual([0, 0, 1, 1]);
    expect(weightedChoice([0, 2], 0)).toBe(1);
  });

  it("a new, empty shard fills gradually beside a full one: it gets most new accounts, not every one", async () => {
    // SHARD_1 is the full shard, SHARD_2 stands for the one just added: SHARD_1 holds at least 40 accounts more,
    // and at least four times what SHARD_2 holds (other test files may have placed accounts on both), so that
    // SHARD_2's weight is clearly the larger one whatever the totals are.
    const d = db();
    // Counted once per round and filled in parallel: late in a run the other files have placed hundreds of
    // accounts on SHARD_2, and the gap is four times that.
    for (;;) {
      const [full, fresh] = [await countOn("SHARD_1"), await countOn("SHARD_2")];
      const missing = Math.max(40, 4 * fresh) - (full - fresh);
      if (missing <= 0) break;
      for (let i = 0; i < missing; i += 20) {
        const n = Math.min(20, missing - i);
        await Promise.all(Array.from({ length: n }, () => createAccount(env, d, { name: unique(), shard: "SHARD_1" })));
      }
    }
    const random = seededRandom(29);
    const placed: string[] = [];
    for (let i = 0; i < 40; i++) {
      const shard = (await placeAccount(env, d, random))!;
      await createAccount(env, d, { name: unique(), shard });
      placed.push(shard);
    }
    const onNew = placed.filter((s) => s === "SHARD_2").length;
    expect(onNew).toBeGreaterThan(20); // favoured while it is emptier
    expect(onNew).toBeLessThan(40); // never every one: the full shard kept getting some
    expect(placed.slice(0, 10)).toContain("SHARD_1"); // from the start, not only once they are even
  });
});
