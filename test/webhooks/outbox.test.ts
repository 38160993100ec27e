/**
 * The outbox: a change and its pending events are committed together or not at all, a crash between the
 * write and the send (the fault seam) only delays the events until the cron tick, and the retry schedule.
 */
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { tick } from "../helpers/maintenance";
import { CLAIM_MS, drainOutbox, MAX_PROPERTY_VALUE_CHARS } from "../../src/services/webhooks/drain";
import { webhookEventRows, webhookEventStatements } from "../../src/services/webhooks/events";
import { MAX_QUEUE_DELAY_S, MAX_RETRIES, retryBaseSeconds, retryDelaySeconds } from "../../src/services/webhooks/retry";
import { call, tenant } from "../helpers/api";
import { accountD1, accountDb } from "../helpers/shards";
import { armFaults, disarmFaults, InjectedFault } from "../reliability/fault-injector";
import { deliveries, expectNothing, hookUp, subscribe, waitForEvents } from "./helpers";

afterEach(() => disarmFaults());

const outboxRows = async (portalId: number) =>
  (await (await accountD1(portalId)).prepare("select id, subscription_type, object_id, claimed_at from webhook_outbox where portal_id = ? order by id").bind(portalId).all<{
    id: number;
    subscription_type: string;
    object_id: number;
    claimed_at: number | null;
  }>()).results;

describe("the outbox", () => {
  it("a crash between the write and the send delays the event until the cron tick; it is never lost", async () => {
    const t = await tenant();
    const path = await hookUp(t);
    await subscribe(t, "contact.creation");
    let crashes = 0;
    armFaults((point) => {
      if (point === "webhook:send") {
        crashes++;
        throw new InjectedFault(point);
      }
    });
    const made = await call("POST", "/crm/v3/objects/contacts", { token: t.oauth, body: { properties: { firstname: "crash" } } });
    expect(made.status).toBe(201);
    expect(crashes).toBe(1);
    // The change and its event are both committed; the crashed drain left the event claimed.
    const [row] = await outboxRows(t.portalId);
    expect(row).toMatchObject({ subscription_type: "contact.creation", object_id: Number(made.json.id), claimed_at: expect.any(Number) });
    await expectNothing(path, 2_000);
    disarmFaults();

    // A drain within the claim's minute leaves it (the crashed drain might still be sending it) ...
    expect(await drainOutbox(await accountDb(t.portalId), env.WEBHOOK_QUEUE, Date.now())).toBe(0);
    // ... the cron tick after it sends it (its maintenance job drains the account's database).
    await tick(Date.now() + CLAIM_MS + 1_000);
    const events = await waitForEvents(path, 1);
    expect(events).toEqual([expect.objectContaining({ eventId: row!.id, objectId: Number(made.json.id), attemptNumber: 0 })]);
    expect(await outboxRows(t.portalId)).toEqual([]);
  });

  it("a write that fails writes no event (same batch): a v3 create with a taken email, a v1 batch with a conflict", async () => {
    const t = await tenant();
    const path = await hookUp(t);
    await subscribe(t, "contact.creation");
    await subscribe(t, "contact.propertyChange", "email");
    const ok = await call("POST", "/crm/v3/objects/contacts", { token: t.oauth, body: { properties: { email: "taken@example.com" } } });
    expect(ok.status).toBe(201);
    await waitForEvents(path, 2);
    const dup = await call("POST", "/crm/v3/objects/contacts", { token: t.oauth, body: { properties: { email: "taken@example.com" } } });
    expect(dup.status).toBe(409);
    const other = await call("POST", "/crm/v3/objects/contacts", { token: t.oauth, body: { properties: { email: "other@example.com" } } });
    await waitForEvents(path, 4);
    const clash = await call("PATCH", `/crm/v3/objects/contacts/${other.json.id}`, { token: t.oauth, body: { properties: { email: "taken@example.com" } } });
    expect(clash.status).toBe(409);
    // A v1 batch whose second contact takes the first one's email fails as a whole: no contact, no event.
    const batch = await call("POST", "/contacts/v1/contact/batch", {
      token: t.oauth,
      body: [
        { email: "fresh@example.com", properties: [] },
        { vid: Number(other.json.id), properties: [{ property: "email", value: "fresh@example.com" }] },
      ],
    });
    expect(batch.status).toBe(409);
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await deliveries(path)).flatMap((d) => d.events)).toHaveLength(4);
    expect(await outboxRows(t.portalId)).toEqual([]);
  });

  it("without a matching active subscription a write adds no statement at all", async () => {
    const db = await accountDb((await tenant()).portalId);
    const target = { portalId: 1, appId: 2, subscriptionId: 3, eventType: "contact.propertyChange", propertyName: "firstname" };
    const outbox = { portalId: 1, targets: [target], now: 0, source: "API" as const };
    expect(await webhookEventStatements(db, undefined, [{ kind: "deleted", objectType: "contacts", id: 1 }])).toEqual([]);
    expect(await webhookEventStatements(db, { ...outbox, targets: [] }, [{ kind: "deleted", objectType: "contacts", id: 1 }])).toEqual([]);
    // A company change does not match a contact subscription; an unchanged value is no change.
    expect(webhookEventRows(outbox, [{ kind: "created", objectType: "companies", id: 1, properties: { firstname: "x" } }])).toEqual([]);
    expect(webhookEventRows(outbox, [{ kind: "updated", objectType: "contacts", id: 1, before: { firstname: "x" }, after: { firstname: "x", lastname: "y" } }])).toEqual([]);
    expect(webhookEventRows(outbox, [{ kind: "updated", objectType: "contacts", id: 1, before: { firstname: "x" }, after: {} }])).toEqual([
      { a: 2, s: 3, t: "contact.propertyChange", o: 1, x: { propertyName: "firstname", propertyValue: "" } },
    ]);
  });
});

describe("the retry schedule", () => {
  it("retry n waits base × 2^(n−1) within ±25 % jitter; the production base spreads 10 retries over about a day", () => {
    expect(MAX_RETRIES).toBe(10);
    expect(retryBaseSeconds({})).toBe(84);
    expect(retryBaseSeconds({ WEBHOOK_RETRY_BASE_SECONDS: "0" })).toBe(0);
    expect(retryBaseSeconds({ WEBHOOK_RETRY_BASE_SECONDS: "nonsense" })).toBe(84);
    for (let n = 1; n <= MAX_RETRIES; n++) {
      const nominal = 84 * 2 ** (n - 1);
      expect(retryDelaySeconds(84, n, () => 0.5)).toBe(Math.min(MAX_QUEUE_DELAY_S, nominal));
      expect(retryDelaySeconds(84, n, () => 0)).toBe(Math.round(nominal * 0.75));
      expect(retryDelaySeconds(84, n, () => 0.999)).toBeLessThanOrEqual(Math.min(MAX_QUEUE_DELAY_S, Math.round(nominal * 1.25)));
    }
    const total = Array.from({ length: MAX_RETRIES }, (_, i) => retryDelaySeconds(84, i + 1, () => 0.5)).reduce((a, b) => a + b, 0);
    expect(total / 3600).toBeGreaterThan(23);
    expect(total / 3600).toBeLessThan(25);
    expect(retryDelaySeconds(0, 7)).toBe(0);
  });
});

describe("a huge property value", () => {
  it("is cut in its event, so the event fits a queue message and the outbox keeps draining", async () => {
    const t = await tenant();
    const path = await hookUp(t);
    await subscribe(t, "contact.propertyChange", "notes");
    // 65,000 characters (the API allows 65,536), 130 KB in UTF-8: more than a whole queue message.
    const huge = "é".repeat(65_000);
    const made = await call("POST", "/crm/v3/objects/contacts", { token: t.oauth, body: { properties: { notes: huge } } });
    expect(made.status).toBe(201);
    const [event] = await waitForEvents(path, 1);
    expect(event).toMatchObject({ objectId: Number(made.json.id), propertyName: "notes", propertyValue: huge.slice(0, MAX_PROPERTY_VALUE_CHARS) });
    expect(await outboxRows(t.portalId)).toEqual([]);
  });
});

describe("many subscriptions on one write", () => {
  it("a v3 create matching 25 subscriptions writes its 25 events in the same batch (several insert statements)", async () => {
    const t = await tenant();
    const path = await hookUp(t);
    const names = Array.from({ length: 24 }, (_, i) => `p${i}`);
    await subscribe(t, "company.creation");
    for (const n of names) await subscribe(t, "company.propertyChange", n);
    const made = await call("POST", "/crm/v3/objects/companies", { token: t.oauth, body: { properties: Object.fromEntries(names.map((n) => [n, `v-${n}`])) } });
    expect(made.status, made.text).toBe(201);
    const events = await waitForEvents(path, 25);
    expect(events.every((e) => e.objectId === Number(made.json.id))).toBe(true);
    expect(events.filter((e) => e.subscriptionType === "company.propertyChange").map((e) => e.propertyValue).sort()).toEqual(names.map((n) => `v-${n}`).sort());
  });
});
