/**
 * What one consumer batch costs D1 (docs/explanation/scaling.md "Rows read per synced message"): at most 10 rows read
 * per synced message, for new objects and for updates, contacts and products alike, in two round trips on
 * the account's database (the plan's read, the commit). Counted by the bench's counting client, which speaks
 * D1's wire protocol to the same local database, so every figure is D1's own `meta`.
 */
import { createMessageBatch, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { consumeSyncBatch } from "../../src/services/ecomm/consumer";
import { countingD1 } from "../helpers/counting-d1";
import { linkRow, qmsg, bridgeTenantOn, type Origin } from "./queue-helpers";

const SHARD = "SHARD_1";

async function consume(bodies: unknown[]) {
  const shard = countingD1(env[SHARD]);
  const control = countingD1(env.DB);
  const batch = createMessageBatch(
    "crm-edge-sync",
    bodies.map((body, i) => ({ id: `rows-${crypto.randomUUID()}-${i}`, timestamp: new Date(), attempts: 1, body })),
  );
  const settled = await consumeSyncBatch(batch, { ...env, [SHARD]: shard, DB: control } as Env);
  expect(settled.map((s) => s.action)).toEqual(bodies.map(() => "ack"));
  expect(settled.every((s) => s.reason.startsWith("applied"))).toBe(true);
  return { shard: shard.counts, control: control.counts };
}

const products = (origin: Origin, round: string) =>
  Array.from({ length: 100 }, (_, i) => qmsg(origin, "PRODUCT", { externalObjectId: `p-${i}`, properties: { title: `${round} ${i}`, price: i } }));
const contacts = (origin: Origin, round: string) =>
  Array.from({ length: 100 }, (_, i) => qmsg(origin, "CONTACT", { externalObjectId: `c-${i}`, properties: { customer_email: `c${i}@rows.example.com`, firstname: `${round}${i}` } }));

describe("D1 rows read per synced message (batches of 100)", () => {
  it.each([
    ["products", products],
    ["contacts", contacts],
  ] as const)("%s: new objects, then updates of them, read at most 10 rows per message in two round trips", async (_name, make) => {
    const { origin } = await bridgeTenantOn(SHARD);
    const fresh = await consume(make(origin, "first"));
    const updates = await consume(make(origin, "second"));
    for (const c of [fresh, updates]) {
      expect(c.shard.roundTrips).toBe(2);
      expect(c.shard.rowsRead / 100, JSON.stringify(c.shard.log.map((l) => [l.rowsRead, l.sql.slice(0, 60)]))).toBeLessThanOrEqual(10);
    }
    // The control plane: the account's shard, the app's settings, the webhook targets; a few rows per batch.
    expect(fresh.control.roundTrips).toBeLessThanOrEqual(3);
    expect(fresh.control.rowsRead).toBeLessThanOrEqual(10);
    // The writes happened: every object has its record, with the update's values.
    const [type, ext, property] = make === products ? (["PRODUCT", "p-7", "name"] as const) : (["CONTACT", "c-7", "firstname"] as const);
    const link = await linkRow(origin, type, ext);
    const record = await env[SHARD].prepare("select properties from crm_objects where id = ?").bind(link!.service_id).first<{ properties: string }>();
    expect(JSON.parse(record!.properties)[property]).toBe(make === products ? "second 7" : "second7");
  });
});
