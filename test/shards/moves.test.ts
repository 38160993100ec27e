/**
 * Moving an account between shards: a writer keeps creating records during the move and
 * every record that got a 201 exists afterwards; a move that fails part-way leaves the account whole on
 * its source and says why; sync messages during the move land on the new shard; the fence triggers
 * refuse every write to a fenced account, in the database itself.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ACCOUNT_TABLES, CONTROL_TABLES, DERIVED_TABLES } from "../../src/db/account-tables";
import { admin, ADMIN, call, tenant } from "../helpers/api";
import { accountD1, sleep, waitForMove } from "../helpers/shards";
import { bridgeTenant, deliver, linkRow, qmsg } from "../ecomm/queue-helpers";

const count = async (d1: D1Database, table: string, portalId: number) =>
  (await d1.prepare(`select count(*) as n from ${table} where portal_id = ?`).bind(portalId).first<{ n: number }>())!.n;

describe("the move's table list", () => {
  it("names every table of the schema exactly once, as account data or control plane", async () => {
    const tables = (
      await env.DB.prepare("select name from sqlite_master where type = 'table' and name not like '\\_%' escape '\\' and name not like 'd1_%' and name not like 'sqlite_%'").all<{ name: string }>()
    )
      .results.map((t) => t.name)
      .filter((name) => !DERIVED_TABLES.some((d) => name.startsWith(`${d}_`))); // FTS5 shadow tables
    // account_fences, account_companions and id_sequences are per database (each shard's own fences, companion
    // markers and id counters);
    // ecomm_settings holds both kinds by owner.
    const known = [...ACCOUNT_TABLES.map((t) => t.name), ...CONTROL_TABLES, ...DERIVED_TABLES, "account_fences", "account_companions", "id_sequences", "sync_plan_checks"];
    expect([...tables].sort()).toEqual([...known].sort());
  });
});

describe("fence triggers", () => {
  it("refuse insert, update and delete of a fenced account's rows, and only that account's", async () => {
    const t = await tenant({ shard: "SHARD_1" });
    const other = await tenant({ shard: "SHARD_1" });
    const made = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { firstname: "f" } } });
    await env.SHARD_1.prepare("insert into account_fences (portal_id, state, created_at) values (?, 'moving', 0)").bind(t.portalId).run();
    try {
      for (const sql of [
        ["insert into crm_objects (portal_id, object_type, properties, created_at, updated_at) values (?, 'contacts', '{}', 0, 0)", t.portalId],
        ["update crm_objects set updated_at = 1 where portal_id = ?", t.portalId],
        ["delete from crm_objects where portal_id = ?", t.portalId],
      ] as const) {
        await expect(env.SHARD_1.prepare(sql[0]).bind(sql[1]).run()).rejects.toThrow(/ACCOUNT_FENCED/);
      }
      // Through the API: a retryable 503 in the error envelope, never a 500.
      const refused = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { firstname: "g" } } });
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(refused.json).toMatchObject({ status: "error", category: "SERVICE_UNAVAILABLE" });
      // Reads still work, and another account on the same shard writes as usual.
      expect((await call("GET", `/crm/v3/objects/contacts/${made.json.id}`, { token: t.pat })).status).toBe(200);
      expect((await call("POST", "/crm/v3/objects/contacts", { token: other.pat, body: { properties: { firstname: "h" } } })).status).toBe(201);
    } finally {
      await env.SHARD_1.prepare("delete from account_fences where portal_id = ?").bind(t.portalId).run();
    }
  });
});

describe("POST /admin/v1/accounts/{portalId}/move", () => {
  it("moves a busy account: every record that got a 201 exists afterwards, on the new shard only", { timeout: 90_000 }, async () => {
    const t = await tenant({ shard: "SHARD_1", rateLimit: 100_000 });
    for (let i = 0; i < 30; i++) await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { firstname: `before${i}` } } });
    const created: string[] = [];
    const refused: number[] = [];
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        const res = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { firstname: `during${i}` } } });
        if (res.status === 201) created.push(res.json.id as string);
        else {
          expect(res.status, res.text).toBe(503);
          expect(res.headers.get("retry-after")).toBeTruthy();
          refused.push(i);
        }
        await sleep(5);
      }
    })();
    const started = await call("POST", `/admin/v1/accounts/${t.portalId}/move`, { token: ADMIN, body: { shard: "SHARD_2" } });
    expect(started.status, started.text).toBe(202);
    expect(started.json.move).toMatchObject({ from: "SHARD_1", to: "SHARD_2" });
    const during = await call("GET", `/admin/v1/accounts/${t.portalId}`, { token: ADMIN });
    expect(during.json.move).toMatchObject({ from: "SHARD_1", to: "SHARD_2", state: expect.any(String) });
    const done = await waitForMove(t.portalId);
    // Keep writing a little past the switch: stale isolate entries must not write to the old shard.
    await sleep(300);
    writing = false;
    await writer;
    expect(done).toMatchObject({ portalId: t.portalId, shard: "SHARD_2" });
    expect(done.move).toBeUndefined();
    expect(created.length).toBeGreaterThan(0);
    for (const id of created) expect((await call("GET", `/crm/v3/objects/contacts/${id}`, { token: t.pat })).status).toBe(200);
    expect(await count(env.SHARD_2, "crm_objects", t.portalId)).toBe(30 + created.length);
    // The source was purged after the switch, and keeps refusing the account's writes.
    expect(await count(env.SHARD_1, "crm_objects", t.portalId)).toBe(0);
    await expect(
      env.SHARD_1.prepare("insert into crm_objects (portal_id, object_type, properties, created_at, updated_at) values (?, 'contacts', '{}', 0, 0)").bind(t.portalId).run(),
    ).rejects.toThrow(/ACCOUNT_FENCED/);
  });

  it("moves the account's custom CRM property definitions, which search keeps using", { timeout: 60_000 }, async () => {
    const t = await tenant({ shard: "SHARD_1" });
    const body = { name: "moved_score", label: "Score", type: "number", fieldType: "number", groupName: "dealinformation" };
    expect((await call("POST", "/crm/v3/properties/deals", { token: t.pat, body })).status).toBe(201);
    const deal = (await call("POST", "/crm/v3/objects/deals", { token: t.pat, body: { properties: { moved_score: "7" } } })).json.id;
    await admin("POST", `/admin/v1/accounts/${t.portalId}/move`, { shard: "SHARD_2" });
    expect(await waitForMove(t.portalId)).toMatchObject({ shard: "SHARD_2" });
    expect(await count(env.SHARD_2, "crm_properties", t.portalId)).toBe(1);
    expect(await count(env.SHARD_1, "crm_properties", t.portalId)).toBe(0);
    const filter = { propertyName: "moved_score", operator: "GT", value: "5" };
    const found = await call("POST", "/crm/v3/objects/deals/search", { token: t.pat, body: { filterGroups: [{ filters: [filter] }] } });
    expect(found.json.results.map((r: { id: string }) => r.id)).toEqual([deal]);
  });

  it("a move that fails part-way leaves the account whole on its source, and says why", { timeout: 60_000 }, async () => {
    const t = await tenant({ shard: "SHARD_1" });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { firstname: `keep${i}` } } })).json.id);
    const deal = (await call("POST", "/crm/v3/objects/deals", { token: t.pat, body: { properties: { dealname: "d" } } })).json.id;
    expect((await call("PUT", `/crm/v3/objects/deals/${deal}/associations/contacts/${ids[0]}`, { token: t.pat })).status).toBe(204);
    // A real failure on the target, no mock: a later table refuses inserts, after crm_objects was copied.
    await env.SHARD_2.exec("create trigger broken_disk before insert on crm_associations begin select raise(abort, 'disk I/O error'); end");
    try {
      await admin("POST", `/admin/v1/accounts/${t.portalId}/move`, { shard: "SHARD_2" });
      const after = await waitForMove(t.portalId);
      expect(after.shard).toBe("SHARD_1");
      expect(after.move).toMatchObject({ state: "failed", from: "SHARD_1", to: "SHARD_2", error: expect.stringMatching(/disk I\/O error/) });
    } finally {
      await env.SHARD_2.exec("drop trigger broken_disk");
    }
    // Nothing left on the target, no fence anywhere, and the account works as before.
    expect(await count(env.SHARD_2, "crm_objects", t.portalId)).toBe(0);
    expect(await count(env.SHARD_2, "account_fences", t.portalId)).toBe(0);
    expect(await count(env.SHARD_1, "account_fences", t.portalId)).toBe(0);
    expect(await count(env.SHARD_1, "crm_objects", t.portalId)).toBe(6);
    expect(await count(env.SHARD_1, "crm_associations", t.portalId)).toBe(2);
    expect((await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { firstname: "after" } } })).status).toBe(201);
    // And a second move succeeds.
    await admin("POST", `/admin/v1/accounts/${t.portalId}/move`, { shard: "SHARD_2" });
    expect((await waitForMove(t.portalId)).shard).toBe("SHARD_2");
    expect(await count(env.SHARD_2, "crm_objects", t.portalId)).toBe(7);
    expect(await count(env.SHARD_2, "crm_associations", t.portalId)).toBe(2);
  });

  it("sync messages that arrive during the move are retried and land on the new shard unchanged", { timeout: 60_000 }, async () => {
    const { t, origin } = await bridgeTenant();
    const from = (await accountD1(t.portalId)) === env.SHARD_1 ? "SHARD_1" : "SHARD_2";
    const to = from === "SHARD_1" ? "SHARD_2" : "SHARD_1";
    const msg = qmsg(origin, "PRODUCT", { externalObjectId: "p-moving", changedAt: 1000, properties: { title: "Moved" } });
    // The source is fenced, as in the first step of a move.
    const src = from === "SHARD_1" ? env.SHARD_1 : env.SHARD_2;
    await src.prepare("insert into account_fences (portal_id, state, created_at) values (?, 'moving', 0)").bind(t.portalId).run();
    const during = await deliver([msg], { report: true });
    expect(during.retried(0)).toBe(true);
    expect(during.delayOf(0)).toBeGreaterThan(0);
    await src.prepare("delete from account_fences where portal_id = ?").bind(t.portalId).run();
    await admin("POST", `/admin/v1/accounts/${t.portalId}/move`, { shard: to });
    expect((await waitForMove(t.portalId)).shard).toBe(to);
    // The redelivery is processed on the new shard.
    const again = await deliver([msg]);
    expect(again.acked(0)).toBe(true);
    const link = await linkRow(origin, "PRODUCT", "p-moving");
    expect(link).toMatchObject({ message_id: msg.id });
    const dst = to === "SHARD_1" ? env.SHARD_1 : env.SHARD_2;
    expect(await count(dst, "ecomm_links", t.portalId)).toBe(1);
    expect(await count(src, "ecomm_links", t.portalId)).toBe(0);
  });
});
