/**
 * Snapshots and reset of a test account (docs/reference/testkit.md, "Snapshots and reset"): a restore puts
 * every row back with its id and removes what came after; a reset empties the data and keeps the people and
 * credentials; pending work from before is dropped; none of it on a STANDARD account.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { consumeWebhookBatch } from "../../src/services/webhooks/deliver";
import { WEBHOOK_MESSAGE_VERSION, type WebhookQueueMessage } from "../../src/services/webhooks/message";
import { ADMIN, BASE, call, expectError, send, tenant, unique, type Tenant } from "../helpers/api";
import { accountD1, waitForMove } from "../helpers/shards";
import { hookUp, waitFor } from "../webhooks/helpers";

const testTenant = () => tenant({ accountType: "DEVELOPER_TEST" });
const base = (t: Tenant) => `/admin/v1/accounts/${t.portalId}`;
const op = (t: Tenant, method: string, path: string, body?: unknown) => call(method, `${base(t)}${path}`, { token: ADMIN, body });
const contact = async (t: Tenant, properties: Record<string, string>) => {
  const res = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties } });
  expect(res.status, res.text).toBe(201);
  return res.json.id as string;
};
/** Every contact of the account with its properties, by id: what a restore must bring back exactly. */
const contacts = async (t: Tenant) =>
  (await call("GET", "/crm/v3/objects/contacts?limit=100&properties=email,firstname", { token: t.pat })).json.results.map((r: { id: string; properties: Record<string, string> }) => [
    r.id,
    r.properties.email,
    r.properties.firstname,
  ]);

describe("snapshots", () => {
  it("a restore brings every row back with its id, and what came after is gone; ids made after are never handed out again", async () => {
    const t = await testTenant();
    const ada = await contact(t, { email: `${unique("ada")}@example.com`, firstname: "Ada" });
    const acme = (await call("POST", "/crm/v3/objects/companies", { token: t.pat, body: { properties: { name: "Acme" } } })).json.id as string;
    expect((await call("PUT", `/crm/v4/objects/contacts/${ada}/associations/default/companies/${acme}`, { token: t.pat })).status).toBe(200);
    const before = await contacts(t);
    const made = await op(t, "POST", "/snapshots", { name: "seeded" });
    expect(made.status, made.text).toBe(201);
    expect(made.json).toMatchObject({ name: "seeded", createdAt: expect.stringMatching(/^\d{4}-/) });
    expect(made.json.counts).toMatchObject({ crm_objects: 2, crm_associations: 2 });

    // After the snapshot: a change, a new contact, a deletion.
    await call("PATCH", `/crm/v3/objects/contacts/${ada}`, { token: t.pat, body: { properties: { firstname: "Changed" } } });
    const later = await contact(t, { email: `${unique("later")}@example.com`, firstname: "Later" });
    expect((await call("DELETE", `/crm/v3/objects/companies/${acme}`, { token: t.pat })).status).toBe(204);

    const restored = await op(t, "POST", "/snapshots/seeded/restore");
    expect(restored.status, restored.text).toBe(200);
    expect(restored.json).toMatchObject({ name: "seeded", counts: made.json.counts });
    expect(await contacts(t)).toEqual(before);
    expectError(await call("GET", `/crm/v3/objects/contacts/${later}`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
    expect((await call("GET", `/crm/v3/objects/companies/${acme}`, { token: t.pat })).json.properties.name).toBe("Acme");
    const assoc = await call("GET", `/crm/v4/objects/contacts/${ada}/associations/companies`, { token: t.pat });
    expect(assoc.json.results.map((r: { toObjectId: number | string }) => String(r.toObjectId))).toEqual([acme]);
    // The search index follows the rows: the restored name is found, the undone one is not.
    const search = async (q: string) => (await call("POST", "/crm/v3/objects/contacts/search", { token: t.pat, body: { query: q } })).json.total as number;
    expect(await search("Ada")).toBe(1);
    expect(await search("Later")).toBe(0);
    const next = await contact(t, { email: `${unique("next")}@example.com` });
    expect(Number(next)).toBeGreaterThan(Number(later));
    // Restoring twice gives the same account.
    await op(t, "POST", "/snapshots/seeded/restore");
    expect(await contacts(t)).toEqual(before);
  });

  it("a snapshot taken before a move restores after it, on the new database, ids included", { timeout: 60_000 }, async () => {
    const t = await tenant({ accountType: "DEVELOPER_TEST", shard: "SHARD_1" });
    const ada = await contact(t, { email: `${unique("moved")}@example.com`, firstname: "Ada" });
    await op(t, "POST", "/snapshots", { name: "before-move" });
    await contact(t, { email: `${unique("gone")}@example.com` });
    expect((await op(t, "POST", "/move", { shard: "SHARD_2" })).status).toBe(202);
    expect(await waitForMove(t.portalId)).toMatchObject({ shard: "SHARD_2" });
    const restored = await op(t, "POST", "/snapshots/before-move/restore");
    expect(restored.status, restored.text).toBe(200);
    expect((await contacts(t)).map((c: string[]) => c[0])).toEqual([ada]);
  });

  it("lists and deletes snapshots; a name is taken once", async () => {
    const t = await testTenant();
    await op(t, "POST", "/snapshots", { name: "a" });
    await op(t, "POST", "/snapshots", { name: "b.2" });
    expectError(await op(t, "POST", "/snapshots", { name: "a" }), 409, "CONFLICT");
    expect((await op(t, "GET", "/snapshots")).json.results.map((s: { name: string }) => s.name)).toEqual(["a", "b.2"]);
    expect((await op(t, "DELETE", "/snapshots/a")).status).toBe(204);
    expectError(await op(t, "DELETE", "/snapshots/a"), 404, "OBJECT_NOT_FOUND");
    expectError(await op(t, "POST", "/snapshots/a/restore"), 404, "OBJECT_NOT_FOUND");
    expect((await op(t, "GET", "/snapshots")).json.results.map((s: { name: string }) => s.name)).toEqual(["b.2"]);
    const rows = await (await accountD1(t.portalId)).prepare("select count(*) as n from snapshot_rows where portal_id = ? and snapshot = 'a'").bind(t.portalId).first<number>("n");
    expect(rows).toBe(0);
  });

  it("a snapshot is the account's own: another account's snapshots are not seen, and its restore leaves others alone", async () => {
    const a = await testTenant();
    const b = await testTenant();
    await contact(b, { email: `${unique("b")}@example.com` });
    await op(a, "POST", "/snapshots", { name: "empty" });
    expect((await op(b, "GET", "/snapshots")).json.results).toEqual([]);
    expectError(await op(b, "POST", "/snapshots/empty/restore"), 404, "OBJECT_NOT_FOUND");
    await op(a, "POST", "/snapshots/empty/restore");
    expect(await contacts(b)).toHaveLength(1);
  });

  it("the export leaves the snapshots out", async () => {
    const t = await testTenant();
    await contact(t, { email: `${unique("x")}@example.com` });
    await op(t, "POST", "/snapshots", { name: "kept" });
    const exported = await (await send(new Request(`${BASE}${base(t)}/export`, { headers: { authorization: `Bearer ${ADMIN}` } }))).text();
    const tables = new Set(exported.trim().split("\n").slice(1).map((l) => (JSON.parse(l) as { table: string }).table));
    expect(tables.has("crm_objects")).toBe(true);
    expect(tables.has("snapshots") || tables.has("snapshot_rows")).toBe(false);
  });
});

describe("reset", () => {
  it("empties the data as just after the account was made; users, tokens and snapshots stay", async () => {
    const t = await testTenant();
    await contact(t, { email: `${unique("r")}@example.com` });
    await call("PATCH", "/crm/v3/pipelines/deals/default", { token: t.pat, body: { label: "Renamed" } });
    await op(t, "POST", "/snapshots", { name: "full" });
    const reset = await op(t, "POST", "/reset");
    expect(reset.status, reset.text).toBe(200);
    expect(reset.json).toMatchObject({ name: null, counts: {} });
    expect(await contacts(t)).toEqual([]);
    expect((await call("GET", "/crm/v3/pipelines/deals/default", { token: t.pat })).json.label).toBe("Sales Pipeline");
    expect((await call("GET", "/crm/v3/owners", { token: t.oauth })).status).toBe(200);
    expect((await op(t, "GET", "/snapshots")).json.results.map((s: { name: string }) => s.name)).toEqual(["full"]);
    await op(t, "POST", "/snapshots/full/restore");
    expect(await contacts(t)).toHaveLength(1);
  });

  it("webhook events of changes made before a reset are not delivered after it; later ones are", async () => {
    const t = await testTenant();
    const path = await hookUp(t);
    const event = (occurredAt: number, id: number) => ({ eventId: id, subscriptionId: 1, portalId: t.portalId, appId: t.appId, occurredAt, subscriptionType: "contact.creation", objectId: id, changeSource: "API" });
    const old = event(Date.now() - 1_000, 7_100_000_000 + Math.floor(Math.random() * 1e6));
    await op(t, "POST", "/reset");
    const fresh = event(Date.now() + 1, old.eventId + 1);
    const body: WebhookQueueMessage = { v: WEBHOOK_MESSAGE_VERSION, appId: t.appId, deliveryId: null, attempt: 0, events: [old, fresh] };
    const batch = { queue: "crm-edge-webhooks", messages: [{ id: "m", body, attempts: 1, timestamp: new Date(), ack() {}, retry() {} }], ackAll() {}, retryAll() {} };
    await consumeWebhookBatch(batch as unknown as MessageBatch<unknown>, env);
    const got = await waitFor(path, (d) => d.length >= 1);
    expect(got.flatMap((d) => d.events.map((e) => e.eventId))).toEqual([fresh.eventId]);
  });

  it("a store's queued sync messages are dropped: the store has a new generation", async () => {
    const t = await testTenant();
    await call("PUT", "/extensions/ecomm/v2/stores", { token: t.pat, body: { id: "shop", label: "Shop", adminUri: "https://shop.example.com/admin" } });
    await op(t, "POST", "/snapshots", { name: "with-store" });
    const gen = async () => (await accountD1(t.portalId)).prepare("select generation from ecomm_stores where portal_id = ? and store_id = 'shop'").bind(t.portalId).first<string>("generation");
    const first = await gen();
    await op(t, "POST", "/snapshots/with-store/restore");
    const second = await gen();
    expect(second).toBeTruthy();
    expect(second).not.toBe(first);
  });
});

describe("only on test accounts", () => {
  it.each([
    ["POST", "/snapshots", { name: "x" }],
    ["GET", "/snapshots", undefined],
    ["DELETE", "/snapshots/x", undefined],
    ["POST", "/snapshots/x/restore", undefined],
    ["POST", "/reset", undefined],
  ])("%s %s on a STANDARD account is a 409 naming accountType, and changes nothing", async (method, path, body) => {
    const t = await tenant();
    await contact(t, { email: `${unique("s")}@example.com` });
    expect(expectError(await op(t, method, path, body), 409, "CONFLICT").message).toContain("accountType STANDARD");
    expect(await contacts(t)).toHaveLength(1);
  });

  it.each([
    ["an empty name", { name: "" }, "name"],
    ["a name with a slash", { name: "a/b" }, "name"],
    ["a name of 65 characters", { name: "x".repeat(65) }, "name"],
    ["an unknown field", { name: "ok", keep: true }, ""],
  ])("%s is a 400 naming the field", async (_n, body, field) => {
    const t = await testTenant();
    const res = expectError(await op(t, "POST", "/snapshots", body), 400, "VALIDATION_ERROR");
    expect(JSON.stringify(res)).toContain(field);
    expect((await op(t, "GET", "/snapshots")).json.results).toEqual([]);
  });
});
