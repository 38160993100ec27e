import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { fnv1a, orderStub, SHARDS, shardName } from "../../src/durable-objects/sync-order-client";
import { SWEEP_MS, type SyncOrder } from "../../src/durable-objects/sync-order";
import { call, tenant, unique } from "../helpers/api";
import { BRIDGE } from "./helpers";
import { accountD1 } from "../helpers/shards";

const stub = () => orderStub(env.SYNC_ORDER, unique("order"));
const e = (externalObjectId: string, changedAt: number, id: string) => ({ externalObjectId, changedAt, id });

describe("SyncOrder: per-object last-write-wins", () => {
  it("applies newer messages and ignores older ones that arrive later (out of order)", async () => {
    const s = stub();
    expect(await s.decide([e("a", 200, "m2")])).toEqual(["apply"]);
    expect(await s.decide([e("a", 100, "m1")])).toEqual(["stale"]);
    expect(await s.decide([e("a", 300, "m3")])).toEqual(["apply"]);
    await runInDurableObject(s, (obj: SyncOrder) => {
      expect(obj.winner("a")).toEqual({ changedAt: 300, id: "m3" });
    });
  });

  it("answers apply again for a redelivered winner and stale for a redelivered loser", async () => {
    const s = stub();
    await s.decide([e("a", 100, "m1")]);
    await s.decide([e("a", 200, "m2")]);
    expect(await s.decide([e("a", 200, "m2")])).toEqual(["apply"]); // effect may not be committed yet: re-apply
    expect(await s.decide([e("a", 100, "m1")])).toEqual(["stale"]);
  });

  it("breaks ties on changedAt by message id, deterministically", async () => {
    const s = stub();
    expect(await s.decide([e("a", 100, "m-b")])).toEqual(["apply"]);
    expect(await s.decide([e("a", 100, "m-a")])).toEqual(["stale"]);
    expect(await s.decide([e("a", 100, "m-c")])).toEqual(["apply"]);
  });

  it("lets only the newest message of an object win within one call, and keeps objects apart", async () => {
    const s = stub();
    const verdicts = await s.decide([e("a", 300, "x3"), e("b", 100, "y1"), e("a", 100, "x1"), e("a", 300, "x2"), e("b", 50, "y0")]);
    expect(verdicts).toEqual(["apply", "apply", "stale", "stale", "stale"]);
    await runInDurableObject(s, (obj: SyncOrder, state) => {
      expect(obj.winner("a")).toEqual({ changedAt: 300, id: "x3" });
      expect(obj.winner("b")).toEqual({ changedAt: 100, id: "y1" });
      expect(state.storage.sql.exec("select count(*) as n from lww").one().n).toBe(2);
    });
  });

  it("shards objects by a stable hash, so one object always reaches the same shard", () => {
    expect(fnv1a("hello")).toBe(0x4f9f2cab); // FNV-1a 32-bit test vector
    const base = { v: 1 as const, id: "m", portalId: 1, appId: null, storeId: "s", storeGen: "g", objectType: "CONTACT" as const, receivedAt: 0 };
    const name = (id: string) => shardName({ ...base, message: { externalObjectId: id, action: "UPSERT", changedAt: 0 } });
    expect(name("abc")).toBe(name("abc"));
    const shards = new Set(Array.from({ length: 200 }, (_, i) => JSON.parse(name(`obj-${i}`))[4] as number));
    expect([...shards].every((s) => s >= 0 && s < SHARDS)).toBe(true);
    expect(shards.size).toBe(Math.min(SHARDS, 200));
    expect(JSON.parse(name("abc")).slice(0, 4)).toEqual([1, "s", "g", "CONTACT"]);
  });

  it("an object whose store generation is gone empties itself at its daily sweep; a live store's keeps its state", async () => {
    const t = await tenant();
    expect((await call("PUT", `${BRIDGE}/stores`, { token: t.pat, body: { id: "swept", label: "S" } })).status).toBe(200);
    const generation = (await (await accountD1(t.portalId)).prepare("select generation from ecomm_stores where portal_id = ? and store_id = 'swept'").bind(t.portalId).first<string>("generation"))!;
    const live = stub();
    const orphan = stub();
    await live.decide([e("a", 1, "m1")], { portalId: t.portalId, storeId: "swept", storeGen: generation });
    await orphan.decide([e("a", 1, "m1")], { portalId: t.portalId, storeId: "swept", storeGen: "an-older-generation" });
    for (const s of [live, orphan]) {
      const due = await runInDurableObject(s, (_o: SyncOrder, state) => state.storage.getAlarm());
      expect(due).toBeGreaterThan(Date.now() + SWEEP_MS - 60_000);
    }

    expect(await runDurableObjectAlarm(live)).toBe(true);
    await runInDurableObject(live, async (obj: SyncOrder, state) => {
      expect(obj.winner("a")).toEqual({ changedAt: 1, id: "m1" });
      expect(await state.storage.getAlarm()).toBeGreaterThan(Date.now()); // checks again tomorrow
    });

    expect(await runDurableObjectAlarm(orphan)).toBe(true);
    await runInDurableObject(orphan, async (_obj: SyncOrder, state) => {
      expect(await state.storage.getAlarm()).toBeNull();
      expect(state.storage.kv.get("store")).toBeUndefined();
      expect([...state.storage.sql.exec("select name from sqlite_master where name = 'lww'")]).toEqual([]);
    });

    // Deleting the store makes the live one an orphan too.
    expect((await call("DELETE", `${BRIDGE}/stores/swept`, { token: t.pat })).status).toBe(204);
    expect(await runDurableObjectAlarm(live)).toBe(true);
    await runInDurableObject(live, async (_obj: SyncOrder, state) => expect(await state.storage.getAlarm()).toBeNull());
    expect(await live.decide([e("a", 1, "m1")])).toEqual(["apply"]); // an emptied object still answers
  });
});
