import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { abandonCheckouts, MAX_PER_RUN } from "../../src/services/ecomm/abandon";
import { tick } from "../helpers/maintenance";
import { ABANDON_AFTER_MS } from "../../src/services/ecomm/model";
import { bridgeTenant, deliver, linkRow, qmsg, record, type Origin } from "./queue-helpers";
import { SHARDS } from "../helpers/shards";
import { makeDb } from "../../src/db/client";

const DAY = ABANDON_AFTER_MS;
/** A base time per test, far from other tests' deals (which use small or current changedAt values). */
const base = () => 10 * DAY + Math.floor(Math.random() * 1e9);

async function deal(origin: Origin, ext: string, changedAt: number, stage?: string, action: "UPSERT" | "DELETE" = "UPSERT") {
  const res = await deliver([qmsg(origin, "DEAL", { externalObjectId: ext, action, changedAt, properties: stage ? { stage } : { name: "n" } })]);
  expect(res.acked(0)).toBe(true);
}
const stageOf = async (o: Origin, ext: string) => {
  const link = (await linkRow(o, "DEAL", ext))!;
  return { link, record: (await record(link.service_id!)).properties.dealstage };
};

/** The cron's sweep: every database that holds account data (the control plane and each shard), as the maintenance queue runs it. */
const sweep = async (now: number) => {
  const runs = await Promise.all([env.DB, ...SHARDS.map((s) => env[s])].map((d1) => abandonCheckouts(makeDb(d1), now)));
  return { moved: runs.reduce((n, r) => n + r.moved, 0) };
};
/** The bounded-sweep tests seed one shard directly (accounts that are not in the directory). */
const shard1 = makeDb(env.SHARD_1);

describe("checkout abandonment (24 hours in checkout_pending makes a deal checkout_abandoned)", () => {
  it("moves a deal still in checkout_pending 24 hours after the changedAt that set it, not before", async () => {
    const { origin } = await bridgeTenant();
    const t = base();
    await deal(origin, "d1", t, "checkout_pending");
    const before = (await linkRow(origin, "DEAL", "d1"))!;
    await sweep(t + DAY - 1);
    expect((await stageOf(origin, "d1")).record).toBe("checkout_pending");
    await sweep(t + DAY);
    const after = await stageOf(origin, "d1");
    expect(after.record).toBe("checkout_abandoned");
    expect(after.link).toMatchObject({ stage: "checkout_abandoned", stage_entered_at: t + DAY });
    // The sweep is not a message: the last-write-wins watermark is untouched.
    expect([after.link.changed_at, after.link.message_id]).toEqual([before.changed_at, before.message_id]);
    // Idempotent: a second run changes nothing.
    await sweep(t + 3 * DAY);
    expect((await linkRow(origin, "DEAL", "d1"))!.stage_entered_at).toBe(t + DAY);
  });

  it("runs from the cron trigger, through the maintenance queue", async () => {
    const { origin } = await bridgeTenant();
    const t = base();
    await deal(origin, "d1", t, "checkout_pending");
    const runs = await tick(t + DAY + 1);
    expect((await stageOf(origin, "d1")).record).toBe("checkout_abandoned");
    expect(runs.filter((r) => r.job === "abandonCheckouts").map((r) => r.shard).sort()).toEqual(["DB", ...SHARDS].sort());
  });

  it("measures from when the deal entered the stage: a newer message repeating the stage does not restart the clock", async () => {
    const { origin } = await bridgeTenant();
    const t = base();
    await deal(origin, "d1", t, "checkout_pending");
    await deal(origin, "d1", t + 10 * 60 * 60 * 1000, "checkout_pending");
    await deal(origin, "d1", t + 11 * 60 * 60 * 1000); // no stage in the message
    expect((await linkRow(origin, "DEAL", "d1"))!.stage_entered_at).toBe(t);
    await sweep(t + DAY);
    expect((await stageOf(origin, "d1")).record).toBe("checkout_abandoned");
  });

  it("leaves deals that a message moved on, and deleted (no longer synced) deals", async () => {
    const { origin } = await bridgeTenant();
    const t = base();
    await deal(origin, "done", t, "checkout_pending");
    await deal(origin, "done", t + 1000, "checkout_completed");
    await deal(origin, "gone", t, "checkout_pending");
    await deal(origin, "gone", t + 1000, undefined, "DELETE");
    await sweep(t + 2 * DAY);
    expect((await stageOf(origin, "done")).record).toBe("checkout_completed");
    expect((await linkRow(origin, "DEAL", "gone"))!.stage).toBeNull();
    expect((await stageOf(origin, "gone")).record).toBe("checkout_pending"); // the CRM record is kept as it was
  });

  it("a later message still wins over the sweep by last-write-wins, even one changed before the 24 hours ran out", async () => {
    const { origin } = await bridgeTenant();
    const t = base();
    await deal(origin, "late", t, "checkout_pending");
    await deal(origin, "again", t, "checkout_pending");
    await deal(origin, "untouched", t, "checkout_pending");
    await sweep(t + DAY + 5);
    // Completed an hour in, but the message arrives after the sweep: it is newer than the last applied one.
    await deal(origin, "late", t + 60 * 60 * 1000, "checkout_completed");
    expect((await stageOf(origin, "late")).record).toBe("checkout_completed");
    // Set pending again: the 24 hours restart from that message's changedAt.
    await deal(origin, "again", t + 2 * DAY, "checkout_pending");
    await sweep(t + 3 * DAY - 1);
    expect((await stageOf(origin, "again")).record).toBe("checkout_pending");
    await sweep(t + 3 * DAY);
    expect((await stageOf(origin, "again")).record).toBe("checkout_abandoned");
    // A message without a stage leaves the abandoned stage alone; an older one is ignored.
    await deal(origin, "untouched", t + 2 * DAY);
    await deal(origin, "untouched", t - 1, "checkout_completed");
    expect((await stageOf(origin, "untouched")).record).toBe("checkout_abandoned");
  });
});

describe("checkout abandonment: bounded, indexed, safe when runs overlap", () => {
  /** Pending deal links entered at `at` (no CRM record needed to exercise the sweep's bounds). */
  async function seedPending(n: number, at: number) {
    const portalId = 2_000_000_000 + Math.floor(Math.random() * 1e8);
    const rows = Array.from({ length: n }, (_, i) => ({ e: `bulk-${i}` }));
    await env.SHARD_1.prepare(
      `insert into ecomm_links (id, portal_id, store_id, object_type, external_id, service_id, changed_at, message_id, deleted, processed_at, stage, stage_entered_at, updated_at)
       select (select seq from id_sequences where name = 'ecomm_links') + j.key + 1, ?1, 'bulk', 'DEAL', j.value->>'e', null, ?2, 'm', 0, ?2, 'checkout_pending', ?2, ?2 from json_each(?3) j`,
    )
      .bind(portalId, at, JSON.stringify(rows))
      .run();
    const pending = async () =>
      (await env.SHARD_1.prepare("select count(*) as n from ecomm_links where portal_id = ? and stage = 'checkout_pending'").bind(portalId).first<{ n: number }>())!.n;
    return { portalId, pending };
  }

  it("moves at most MAX_PER_RUN deals per run, oldest first; the next runs take the rest", async () => {
    // Entered at time 0: only these rows are due when now = 24 h.
    const { pending } = await seedPending(MAX_PER_RUN + 5, 0);
    expect(await abandonCheckouts(shard1, DAY)).toEqual({ moved: MAX_PER_RUN });
    expect(await pending()).toBe(5);
    expect(await abandonCheckouts(shard1, DAY)).toEqual({ moved: 5 });
    expect(await abandonCheckouts(shard1, DAY)).toEqual({ moved: 0 });
  });

  it("two overlapping runs move each deal exactly once", async () => {
    const at = -DAY; // due only for these rows at now = 0
    const { portalId, pending } = await seedPending(40, at);
    const runs = await Promise.all([abandonCheckouts(shard1, 0), abandonCheckouts(shard1, 0)]);
    expect(runs[0]!.moved + runs[1]!.moved).toBe(40);
    expect(await pending()).toBe(0);
    const { results } = await env.SHARD_1.prepare("select distinct stage_entered_at as at from ecomm_links where portal_id = ?").bind(portalId).all<{ at: number }>();
    expect(results).toEqual([{ at: at + DAY }]);
  });

  it("finds due deals through the (stage, stage_entered_at) index", async () => {
    const { results } = await env.DB.prepare(
      "explain query plan select id from ecomm_links where stage = 'checkout_pending' and stage_entered_at <= 0 order by stage_entered_at, id limit 1000",
    ).all<{ detail: string }>();
    expect(results.map((r) => r.detail).join("\n")).toMatch(/USING (COVERING )?INDEX ecomm_links_stage/);
  });
});
