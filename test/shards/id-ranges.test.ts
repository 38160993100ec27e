/**
 * Ids stay in their database's range after any move (src/db/id-ranges.ts): the reproduction of two shards
 * handing out the same ids after a move, the database's own refusal of an id outside its range, and the
 * operator's id check (GET /admin/v1/shards?check=ids) on a deployment where ids already collided.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ID_RANGE } from "../../src/db/id-ranges";
import { admin, ADMIN, call, unique } from "../helpers/api";
import { waitForMove } from "../helpers/shards";

const inRange = (shard: number, id: number) => id > shard * ID_RANGE && id < (shard + 1) * ID_RANGE;

/** An account on `shard` and a private-app token for it. */
async function account(name: string, shard: string) {
  const acct = await admin("POST", "/admin/v1/accounts", { name, shard });
  const pa = await admin("POST", `/admin/v1/accounts/${acct.portalId}/private-apps`, { name: "pa" });
  return { portalId: acct.portalId as number, pat: pa.token as string };
}

const contact = async (pat: string) => {
  const res = await call("POST", "/crm/v3/objects/contacts", { token: pat, body: { properties: { firstname: unique() } } });
  expect(res.status, res.text).toBe(201);
  return Number(res.json.id);
};

const move = async (portalId: number, shard: string) => {
  expect((await call("POST", `/admin/v1/accounts/${portalId}/move`, { token: ADMIN, body: { shard } })).status).toBe(202);
  return waitForMove(portalId);
};

describe("ids after a move", () => {
  it("a shard keeps handing out ids of its own range after rows of a higher range arrive, and the move back succeeds", { timeout: 120_000 }, async () => {
    const x = await account("X", "SHARD_1");
    const y = await account("Y", "SHARD_2");
    const z = await account("Z", "SHARD_2");
    const [xId, yId, zId] = [await contact(x.pat), await contact(y.pat), await contact(z.pat)];
    expect([inRange(1, xId), inRange(2, yId), inRange(2, zId)]).toEqual([true, true, true]);

    expect(await move(y.portalId, "SHARD_1")).toMatchObject({ shard: "SHARD_1" });
    const next = await contact(x.pat);
    expect(inRange(1, next), `X's new id ${next}`).toBe(true);
    expect(next).toBeGreaterThan(xId);
    // Z's id is not handed out again on SHARD_1.
    expect((await env.SHARD_1.prepare("select count(*) as n from crm_objects where id = ?").bind(zId).first<{ n: number }>())!.n).toBe(0);

    const back = await move(x.portalId, "SHARD_2");
    expect(back.move, JSON.stringify(back.move)).toBeUndefined();
    expect(back.shard).toBe("SHARD_2");
    const read = await call("GET", `/crm/v3/objects/contacts/${next}`, { token: x.pat });
    expect(read.status).toBe(200);
  });
});

describe("the id-range triggers", () => {
  it("refuse a row outside the database's range, except from the mover copying an account in", async () => {
    const x = await account(unique(), "SHARD_1");
    const sql = "insert into crm_objects (id, portal_id, object_type, properties, guid, created_at, updated_at) values (?, ?, 'contacts', '{}', hex(randomblob(16)), 0, 0)";
    const foreign = 2 * ID_RANGE + 900_000_001;
    await expect(env.SHARD_1.prepare(sql).bind(foreign, x.portalId).run()).rejects.toThrow(/ID_OUT_OF_RANGE/);
    await expect(env.SHARD_1.prepare(sql).bind(7, x.portalId).run()).rejects.toThrow(/ID_OUT_OF_RANGE/);
    // As the mover (fence unlocked, one batch): the row comes in and the counter stays in the range.
    await env.SHARD_1.batch([
      env.SHARD_1.prepare("insert into account_fences (portal_id, state, created_at, unlocked) values (?, 'incoming', 0, 1)").bind(x.portalId),
      env.SHARD_1.prepare(sql).bind(foreign, x.portalId),
      env.SHARD_1.prepare("delete from account_fences where portal_id = ?").bind(x.portalId),
    ]);
    const seq = await env.SHARD_1.prepare("select seq from id_sequences where name = 'crm_objects'").first<{ seq: number }>();
    expect(inRange(1, seq!.seq)).toBe(true);
    expect(inRange(1, await contact(x.pat))).toBe(true);
  });
});

describe("GET /admin/v1/shards?check=ids", () => {
  it("reports rows outside a shard's range, ids held by two shards and counters behind", async () => {
    const x = await account(unique(), "SHARD_1");
    const z = await account(unique(), "SHARD_2");
    const zId = await contact(z.pat);
    // What versions without id counters left behind (docs/how-to/recover-ids-held-twice.md): SHARD_1 handed out Z's id, and one above SHARD_2's counter.
    const ahead = zId + 1_000;
    await env.SHARD_1.batch([
      env.SHARD_1.prepare("insert into account_fences (portal_id, state, created_at, unlocked) values (?, 'incoming', 0, 1)").bind(x.portalId),
      ...[zId, ahead].map((id) =>
        env.SHARD_1.prepare("insert into crm_objects (id, portal_id, object_type, properties, guid, created_at, updated_at) values (?, ?, 'contacts', '{}', hex(randomblob(16)), 0, 0)").bind(id, x.portalId),
      ),
      env.SHARD_1.prepare("delete from account_fences where portal_id = ?").bind(x.portalId),
    ]);
    const plain = await call("GET", "/admin/v1/shards", { token: ADMIN });
    expect(plain.json.results[0].ids).toBeUndefined();

    const res = await call("GET", "/admin/v1/shards?check=ids", { token: ADMIN });
    expect(res.status).toBe(200);
    const byName = Object.fromEntries(res.json.results.map((r: { name: string }) => [r.name, r]));
    expect(byName.SHARD_1.ids.outsideRange).toBeGreaterThanOrEqual(2);
    expect(byName.SHARD_1.ids.examples).toContainEqual({ table: "crm_objects", id: zId, alsoOn: ["SHARD_2"] });
    expect(byName.SHARD_2.ids.examples).toContainEqual({ table: "crm_objects", id: zId, alsoOn: ["SHARD_1"] });
    const behind = byName.SHARD_2.ids.countersBehind.find((c: { table: string }) => c.table === "crm_objects");
    expect(behind.highest).toBeGreaterThanOrEqual(ahead);
    expect(behind.counter).toBeLessThan(ahead);
    expect(byName.DB.ids).toMatchObject({ heldTwice: 0 });

    expect((await call("GET", "/admin/v1/shards?check=all", { token: ADMIN })).status).toBe(400);

    // The recovery of docs/how-to/recover-ids-held-twice.md: the wrongly handed-out copy gets a new id of its own range.
    const renumber = [
      "update id_sequences set seq = seq + 1 where name = 'crm_objects'",
      ...[
        ["crm_associations", "from_id"],
        ["crm_associations", "to_id"],
        ["contact_merges", "canonical_vid"],
        ["contact_merges", "merged_vid"],
        ["timeline_events", "object_id"],
        ["timeline_utks", "contact_id"],
        ["ecomm_links", "service_id"],
        ["crm_objects", "id"],
      ].map(([t, c]) => `update ${t} set ${c} = (select seq from id_sequences where name = 'crm_objects') where ${c} = ${zId}`),
    ];
    await env.SHARD_1.batch(renumber.map((q) => env.SHARD_1.prepare(q)));
    const after = await call("GET", "/admin/v1/shards?check=ids", { token: ADMIN });
    const shard1 = after.json.results.find((r: { name: string }) => r.name === "SHARD_1");
    expect(shard1.ids.examples.map((e: { id: number }) => e.id)).not.toContain(zId);
    const seq = (await env.SHARD_1.prepare("select seq from id_sequences where name = 'crm_objects'").first<{ seq: number }>())!.seq;
    expect(inRange(1, seq)).toBe(true);
    expect((await call("GET", `/crm/v3/objects/contacts/${seq}`, { token: x.pat })).status).toBe(200);
  });
});
