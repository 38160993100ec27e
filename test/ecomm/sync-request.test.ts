import { describe, expect, it } from "vitest";
import { queueBytes, type SyncQueueMessage } from "../../src/services/ecomm/sync-message";
import { chunkForSendBatch, MAX_SEND_BATCH_BYTES } from "../../src/lib/queue-limits";
import { call, expectError, tenant } from "../helpers/api";
import { accountSettings, appSettings, BRIDGE, processed, status, store, sync, waitForStatus } from "./helpers";
import { accountD1 } from "../helpers/shards";

const SYNC = `${BRIDGE}/sync/messages`;
const ok = { externalObjectId: "ok-1", action: "UPSERT", changedAt: 1, properties: { customer_email: "ok@example.com" } };
/** Four messages whose fourth (index 3) is `bad`. */
const withBad = (bad: Record<string, unknown>) => ({ storeId: "shop", objectType: "CONTACT", messages: [ok, ok, ok, { ...ok, ...bad }] });
const big = "x".repeat(65_000);

describe("PUT /sync/messages", () => {
  it("answers 204 with no body and no content type to the request the php client sends, unknown keys and all", async () => {
    const t = await tenant();
    await appSettings(t);
    await store(t.oauth, "ecommercebridge-test-store");
    // The php client's request: one CONTACT upsert, changedAt a string of milliseconds, and php's misspelled
    // `assocations` key (ignored). test/traffic/ecomm-replays.test.ts sends the recorded body itself.
    const body = {
      storeId: "ecommercebridge-test-store",
      objectType: "CONTACT",
      messages: [{ action: "UPSERT", changedAt: String(Date.now()), externalObjectId: "12345", properties: { firstname: "Jeff", lastname: "David", customer_email: "jeff@example.com" }, assocations: { CONTACT: ["1"] } }],
    };
    const res = await call("PUT", SYNC, { token: t.oauth, body });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe("");
    expect(res.headers.get("content-type")).toBeNull();
    expect(res.headers.get("sunset")).toBe("Thu, 01 Dec 2022 00:00:00 GMT");
    // php's checkSyncStatus reads the status a second after the 204 and asserts 200:
    // the consumer may not have run by then (max_batch_timeout is 2 s), so it must be 200 from the 204 on.
    expect((await status(t.oauth, "CONTACT", "12345", "ecommercebridge-test-store")).status).toBe(200);
    await waitForStatus(t.oauth, "CONTACT", "12345", processed, "ecommercebridge-test-store");
  });

  it("accepts changedAt as a numeric string and uses the receive time when it is omitted", async () => {
    const t = await tenant();
    await accountSettings(t);
    await store(t.pat);
    const before = Date.now();
    await sync(t.pat, "PRODUCT", [{ externalObjectId: "p1", changedAt: "1700000000000" }, { externalObjectId: "p2" }]);
    await waitForStatus(t.pat, "PRODUCT", "p1", processed);
    await waitForStatus(t.pat, "PRODUCT", "p2", processed);
    const rows = await (await accountD1(t.portalId)).prepare("select external_id, changed_at from ecomm_links where portal_id = ? order by external_id").bind(t.portalId).all<{ external_id: string; changed_at: number }>();
    expect(rows.results[0]).toEqual({ external_id: "p1", changed_at: 1_700_000_000_000 });
    expect(rows.results[1]!.changed_at).toBeGreaterThanOrEqual(before);
  });

  it("takes 200 messages of a few KB each (several sendBatch calls) and applies them all", async () => {
    const t = await tenant();
    await accountSettings(t);
    await store(t.pat);
    const messages = Array.from({ length: 200 }, (_, i) => ({ externalObjectId: `p-${i}`, properties: { title: `${i}-${"y".repeat(3000)}` } }));
    await sync(t.pat, "PRODUCT", messages);
    for (const i of [0, 99, 100, 199]) await waitForStatus(t.pat, "PRODUCT", `p-${i}`, processed);
  });
});

describe("sendBatch chunking", () => {
  const msg = (size: number, i: number): SyncQueueMessage => ({
    v: 1,
    id: `m${i}`,
    portalId: 1,
    appId: null,
    storeId: "s",
    storeGen: "g",
    objectType: "PRODUCT",
    receivedAt: 0,
    message: { externalObjectId: `e${i}`, action: "UPSERT", changedAt: 0, properties: { p: "z".repeat(size) } },
  });
  it("counts a message's bytes as the queue does: its JSON in UTF-8, plus the metadata", () => {
    const ascii = msg(10, 1);
    expect(queueBytes(ascii)).toBe(new TextEncoder().encode(JSON.stringify(ascii)).byteLength + 100);
    const accented = { ...ascii, message: { ...ascii.message, properties: { p: "Zoë ✓ 😀", q: "a\u0000\u007f" } } };
    expect(queueBytes(accented)).toBe(new TextEncoder().encode(JSON.stringify(accented)).byteLength + 100);
    expect(queueBytes(accented)).toBeGreaterThan(JSON.stringify(accented).length + 100);
  });
  it("keeps every call within 100 messages and 256 KB", () => {
    expect(chunkForSendBatch(Array.from({ length: 250 }, (_, i) => msg(10, i))).map((c) => c.length)).toEqual([100, 100, 50]);
    const chunks = chunkForSendBatch(Array.from({ length: 20 }, (_, i) => msg(60_000, i)));
    expect(chunks.length).toBeGreaterThan(4);
    for (const c of chunks) expect(c.reduce((n, m) => n + queueBytes(m), 0)).toBeLessThanOrEqual(MAX_SEND_BATCH_BYTES);
    expect(chunks.flat().map((m) => m.id)).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`));
  });
});

describe("PUT /sync/messages: bad input (the whole request is refused, nothing is queued)", () => {
  it.each([
    ["objectType unknown", { storeId: "shop", objectType: "COMPANY", messages: [ok] }, "objectType"],
    ["objectType missing", { storeId: "shop", messages: [ok] }, "objectType"],
    ["storeId missing", { objectType: "CONTACT", messages: [ok] }, "storeId"],
    ["storeId unknown", { storeId: "nope", objectType: "CONTACT", messages: [ok] }, "storeId: store nope does not exist"],
    ["messages missing", { storeId: "shop", objectType: "CONTACT" }, "messages"],
    ["messages empty", { storeId: "shop", objectType: "CONTACT", messages: [] }, "messages must hold 1 to 200 messages"],
    ["201 messages", { storeId: "shop", objectType: "CONTACT", messages: Array.from({ length: 201 }, () => ok) }, "messages must hold 1 to 200 messages"],
    ["externalObjectId missing", withBad({ externalObjectId: undefined }), "messages.3.externalObjectId"],
    ["externalObjectId empty", withBad({ externalObjectId: "" }), "messages.3.externalObjectId"],
    ["externalObjectId of 101 characters", withBad({ externalObjectId: "a".repeat(101) }), "messages.3.externalObjectId"],
    ["externalObjectId not ASCII", withBad({ externalObjectId: "café" }), "messages.3.externalObjectId"],
    ["externalObjectId with a control character", withBad({ externalObjectId: "a\nb" }), "messages.3.externalObjectId"],
    ["externalObjectId a number", withBad({ externalObjectId: 5 }), "messages.3.externalObjectId"],
    ["action unknown", withBad({ action: "MERGE" }), "messages.3.action"],
    ["action missing", withBad({ action: undefined }), "messages.3.action"],
    ["changedAt not numeric", withBad({ changedAt: "yesterday" }), "messages.3.changedAt"],
    ["changedAt negative", withBad({ changedAt: -1 }), "messages.3.changedAt"],
    ["changedAt fractional", withBad({ changedAt: 1.5 }), "messages.3.changedAt"],
    ["changedAt in exponent form", withBad({ changedAt: "1e3" }), "messages.3.changedAt"],
    ["changedAt a boolean", withBad({ changedAt: true }), "messages.3.changedAt"],
    ["a property value that is an object", withBad({ properties: { a: { b: 1 } } }), "messages.3.properties.a"],
    ["properties an array", withBad({ properties: ["a"] }), "messages.3.properties"],
    ["associations not lists", withBad({ associations: { CONTACT: "c1" } }), "messages.3.associations.CONTACT"],
    ["an association id that is not ASCII", withBad({ associations: { CONTACT: ["ü"] } }), "messages.3.associations.CONTACT.0"],
    ["a message over the queue's 128 KB", withBad({ properties: { a: big, b: big } }), "messages.3: the message is"],
  ])("400 for %s", async (_, body, expected) => {
    const t = await tenant();
    await accountSettings(t);
    await store(t.pat);
    const err = expectError(await call("PUT", SYNC, { token: t.pat, body }), 400, "VALIDATION_ERROR");
    expect(err.message).toContain(expected);
  });

  it("400 for a body that is not JSON, and 413 for one over 8 MiB", async () => {
    const t = await tenant();
    expectError(await call("PUT", SYNC, { token: t.pat, raw: "[", headers: { "content-type": "application/json" } }), 400, "VALIDATION_ERROR");
    expectError(await call("PUT", SYNC, { token: t.pat, raw: "x".repeat(8 * 1024 * 1024 + 1) }), 413, "PAYLOAD_TOO_LARGE");
  });

  it("queues nothing when one message is invalid", async () => {
    const t = await tenant();
    await accountSettings(t);
    await store(t.pat);
    const body = withBad({ externalObjectId: "" });
    body.messages[0] = { ...ok, externalObjectId: "would-be" };
    expectError(await call("PUT", SYNC, { token: t.pat, body }), 400, "VALIDATION_ERROR");
    // A later valid request is processed; the refused one's messages, queued earlier, would have been too.
    await sync(t.pat, "CONTACT", [{ externalObjectId: "probe", properties: { customer_email: "probe@example.com" } }]);
    await waitForStatus(t.pat, "CONTACT", "probe", processed);
    expectError(await status(t.pat, "CONTACT", "would-be"), 404, "OBJECT_NOT_FOUND");
  });
});

describe("PUT /sync/messages: authentication and isolation", () => {
  it("401 without a credential, 403 for a developer key or a token without integration-sync", async () => {
    const body = { storeId: "shop", objectType: "CONTACT", messages: [ok] };
    expectError(await call("PUT", SYNC, { body }), 401, "INVALID_AUTHENTICATION");
    const t = await tenant();
    expectError(await call("PUT", SYNC, { token: t.developerKey, body }), 403, "FORBIDDEN");
    const narrow = await tenant({ scopes: ["e-commerce", "crm.objects.contacts.write"] });
    expectError(await call("PUT", SYNC, { token: narrow.oauth, body }), 403, "MISSING_SCOPES");
  });

  it("another account's store id is unknown to the caller (400 on storeId), and nothing reaches account A", async () => {
    const a = await tenant();
    const b = await tenant();
    await accountSettings(a);
    await store(a.pat, "a-shop");
    const err = expectError(
      await call("PUT", SYNC, { token: b.pat, body: { storeId: "a-shop", objectType: "CONTACT", messages: [{ ...ok, externalObjectId: "intruder" }] } }),
      400,
      "VALIDATION_ERROR",
    );
    expect(err.message).toContain("storeId");
    expectError(await status(a.pat, "CONTACT", "intruder", "a-shop"), 404, "OBJECT_NOT_FOUND");
  });
});
