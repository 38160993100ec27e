/**
 * The batch write's own guard (commit.ts, commit-direct.ts): whatever order concurrent consumer invocations
 * commit in, a link only moves forward and a record is patched only by the message that holds its link. Here
 * planned updates are committed directly, as a consumer whose ordering decision was overtaken would commit them.
 */
import { createMessageBatch, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { consumeSyncBatch } from "../../src/services/ecomm/consumer";
import { commitEffects } from "../../src/services/ecomm/commit";
import { realTime } from "../../src/services/ecomm/batch-time";
import { upsertEffect, type Effect } from "../../src/services/ecomm/plan";
import { accountDb } from "../helpers/shards";
import { bridgeTenant, linkRow, qmsg, record, type Origin } from "./queue-helpers";

async function consume(bodies: unknown[]) {
  const batch = createMessageBatch("crm-edge-sync", bodies.map((body, i) => ({ id: `g-${crypto.randomUUID()}-${i}`, timestamp: new Date(), attempts: 1, body })));
  const settled = await consumeSyncBatch(batch, env as Env);
  expect(settled.every((s) => s.reason.startsWith("applied"))).toBe(true);
}

/** An update of `ext` as planning makes it, from the link as it is now. */
async function plannedUpdate(origin: Origin, ext: string, changedAt: number, name: string): Promise<Effect> {
  const link = await linkRow(origin, "PRODUCT", ext);
  const id = (await (await accountDb(origin.portalId)).$client.prepare("select id from ecomm_links where portal_id = ? and external_id = ?").bind(origin.portalId, ext).first<{ id: number }>())!.id;
  const msg = qmsg(origin, "PRODUCT", { externalObjectId: ext, changedAt, properties: { title: name } });
  return upsertEffect(msg, { name }, { id, serviceId: link!.service_id, messageId: link!.message_id, changedAt: link!.changed_at, deleted: link!.deleted === 1 }, true);
}

describe("the batch write's guard on updates", () => {
  it("an update planned before a newer one committed changes neither the link nor the record; newer ones in the same batch apply", async () => {
    const { origin } = await bridgeTenant();
    await consume(["a", "b", "c"].map((ext) => qmsg(origin, "PRODUCT", { externalObjectId: ext, changedAt: 100, properties: { title: `${ext} 100` } })));
    // Planned from the links at 100: two updates at 200, and one at 150 for "b".
    const late = await plannedUpdate(origin, "b", 150, "b 150");
    const a = await plannedUpdate(origin, "a", 200, "a 200");
    const b = await plannedUpdate(origin, "b", 200, "b 200");
    const db = await accountDb(origin.portalId);
    await commitEffects(db, [a, b], realTime(1_000));
    // The older decision commits last, in a batch with a newer update of another object.
    const c = await plannedUpdate(origin, "c", 300, "c 300");
    await commitEffects(db, [late, c], realTime(2_000));
    const linkB = await linkRow(origin, "PRODUCT", "b");
    expect(linkB).toMatchObject({ changed_at: 200, message_id: b.msg.id, processed_at: 1_000 });
    expect((await record(linkB!.service_id!)).properties.name).toBe("b 200");
    const linkA = await linkRow(origin, "PRODUCT", "a");
    expect((await record(linkA!.service_id!)).properties.name).toBe("a 200");
    const linkC = await linkRow(origin, "PRODUCT", "c");
    expect(linkC).toMatchObject({ changed_at: 300, message_id: c.msg.id, processed_at: 2_000 });
    expect((await record(linkC!.service_id!)).properties.name).toBe("c 300");
    // Committing the same batch again (a redelivery after a lost ack) changes nothing.
    await commitEffects(db, [a, b], realTime(3_000));
    expect(await linkRow(origin, "PRODUCT", "b")).toMatchObject({ processed_at: 1_000 });
  });
});
