/** `POST /crm/v3/objects/contacts/gdpr-delete`: the contact is gone for good, with what names it; the events; the errors. */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, call, expectError, send, tenant, type Tenant } from "../helpers/api";
import { make } from "./helpers";
import { profileOf } from "../contacts-v1/helpers";
import { L, memberIds, newList } from "../lists/helpers";
import { eventsOf, hookUp, subscribe, waitFor, waitForEvents } from "../webhooks/helpers";
import { consumeWebhookBatch } from "../../src/services/webhooks/deliver";
import type { WebhookQueueMessage } from "../../src/services/webhooks/message";

const purge = (t: Tenant, body: unknown) => call("POST", "/crm/v3/objects/contacts/gdpr-delete", { token: t.pat, body });
const shardOf = (t: Tenant) => (env as unknown as Record<string, D1Database>)[t.shard]!;

describe("POST /crm/v3/objects/contacts/gdpr-delete", () => {
  it("deletes the contact for good: no read finds it, archived or not; links and list memberships go, the records at the other end stay", async () => {
    const t = await tenant();
    const contact = await make(t, "contacts", { email: "forget.me@example.com", firstname: "Gone" });
    const company = await make(t, "companies", { name: "Acme" });
    const note = await make(t, "notes", { hs_timestamp: "2026-01-01T00:00:00Z", hs_note_body: "met" });
    expect((await call("PUT", `/crm/v3/objects/contacts/${contact}/associations/companies/${company}`, { token: t.pat })).status).toBeLessThan(300);
    expect((await call("PUT", `/crm/v3/objects/notes/${note}/associations/contacts/${contact}`, { token: t.pat })).status).toBeLessThan(300);
    const list = await newList(t, {});
    expect((await call("PUT", `${L}/${list.listId}/memberships/add`, { token: t.pat, body: [contact] })).status).toBe(200);

    const res = await purge(t, { objectId: contact });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe("");

    expectError(await call("GET", `/crm/v3/objects/contacts/${contact}`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("GET", `/crm/v3/objects/contacts/${contact}?archived=true`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
    expect((await call("GET", "/crm/v3/objects/contacts?archived=true", { token: t.pat })).json.results).toEqual([]);
    expect((await profileOf(t, Number(contact))).status).toBe(404);
    expect(await memberIds(t, list.listId)).toEqual([]);
    // The company and the note stay, without the link.
    for (const path of [`companies/${company}`, `notes/${note}`]) {
      const other = await call("GET", `/crm/v3/objects/${path}?associations=contacts`, { token: t.pat });
      expect([other.status, other.json.associations?.contacts?.results ?? []]).toEqual([200, []]);
    }
    // Nothing of it is stored any more.
    const left = await shardOf(t)
      .prepare("select (select count(*) from crm_objects where id = ?1) + (select count(*) from crm_associations where from_id = ?1 or to_id = ?1) + (select count(*) from list_memberships where record_id = ?1) as n")
      .bind(Number(contact))
      .first<number>("n");
    expect(left).toBe(0);
    // Gone: a second delete is the 404; the email is free for a new contact.
    expectError(await purge(t, { objectId: contact }), 404, "OBJECT_NOT_FOUND");
    expect((await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { email: "forget.me@example.com" } } })).status).toBe(201);
  });

  it("by email (idProperty email); an archived contact too; the contacts merged into it go with it", async () => {
    const t = await tenant();
    const primary = await make(t, "contacts", { email: "p@example.com" });
    const merged = await make(t, "contacts", { email: "m@example.com" });
    expect((await call("POST", "/crm/v3/objects/contacts/merge", { token: t.pat, body: { primaryObjectId: primary, objectIdToMerge: merged } })).status).toBe(200);
    expect((await purge(t, { objectId: "P@example.com", idProperty: "email" })).status).toBe(204);
    for (const id of [primary, merged]) expect((await profileOf(t, Number(id))).status).toBe(404);
    const count = await shardOf(t).prepare("select count(*) as n from crm_objects where id in (?, ?)").bind(Number(primary), Number(merged)).first<number>("n");
    expect(count).toBe(0);
    expect(await shardOf(t).prepare("select count(*) as n from contact_merges where portal_id = ?").bind(t.portalId).first<number>("n")).toBe(0);

    const archived = await make(t, "contacts", { email: "a@example.com" });
    expect((await call("DELETE", `/crm/v3/objects/contacts/${archived}`, { token: t.pat })).status).toBe(204);
    expect((await purge(t, { objectId: archived })).status).toBe(204);
    expectError(await call("GET", `/crm/v3/objects/contacts/${archived}?archived=true`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
  });

  it("sends contact.deletion and contact.privacyDeletion, and the delivery log forgets the events that named the contact", async () => {
    const t = await tenant();
    const path = await hookUp(t);
    const subs = { deletion: Number(await subscribe(t, "contact.deletion")), privacy: Number(await subscribe(t, "contact.privacyDeletion")) };
    const contact = Number(await make(t, "contacts", { firstname: "Ann" }));
    const other = Number(await make(t, "contacts", { firstname: "Bob" }));
    // A retried delivery in the log naming it and another contact, and one naming only it.
    const base = 8_000_000_000 + Math.floor(Math.random() * 1e8) * 10;
    const ev = (k: number, objectId: number) => ({ eventId: base + k, subscriptionId: 1, portalId: t.portalId, appId: t.appId, occurredAt: Date.now(), subscriptionType: "contact.creation", objectId, changeSource: "API" });
    // The account's delivery log is on its database (an account table), its ids from that database's counter.
    const log = shardOf(t);
    const insert = log.prepare(
      "insert into webhook_deliveries (id, app_id, portal_id, events, event_count, status, attempts, created_at, updated_at) values ((select seq + 1 from id_sequences where name = 'webhook_deliveries'), ?, ?, ?, ?, 'retrying', 1, 1, 1) returning id",
    );
    const mixed = (await insert.bind(t.appId, t.portalId, JSON.stringify([ev(1, contact), ev(2, other)]), 2).first<number>("id"))!;
    const only = (await insert.bind(t.appId, t.portalId, JSON.stringify([ev(3, contact)]), 1).first<number>("id"))!;
    await log.prepare("insert into webhook_attempts (delivery_id, portal_id, attempt_number, status_code, duration_ms, at) values (?, ?, 0, 500, 1, 1)").bind(only, t.portalId).run();

    expect((await purge(t, { objectId: String(contact) })).status).toBe(204);
    const events = await waitForEvents(path, 2);
    const shape = { portalId: t.portalId, appId: t.appId, objectId: contact, changeSource: "API", attemptNumber: 0 };
    expect(events.map((e) => e.subscriptionType)).toEqual(["contact.deletion", "contact.privacyDeletion"]);
    expect(events).toEqual([expect.objectContaining({ ...shape, subscriptionId: subs.deletion }), expect.objectContaining({ ...shape, subscriptionId: subs.privacy })]);

    const row = await log.prepare("select events, event_count from webhook_deliveries where id = ?").bind(mixed).first<{ events: string; event_count: number }>();
    expect([JSON.parse(row!.events).map((e: { objectId: number }) => e.objectId), row!.event_count]).toEqual([[other], 1]);
    expect(await log.prepare("select count(*) as n from webhook_deliveries where id = ?").bind(only).first<number>("n")).toBe(0);
    expect(await log.prepare("select count(*) as n from webhook_attempts where delivery_id = ?").bind(only).first<number>("n")).toBe(0);

    // The retries already queued for those deliveries send only what the log still holds.
    const retry = (deliveryId: number, list: ReturnType<typeof ev>[]): WebhookQueueMessage => ({ v: 1, appId: t.appId, portalId: t.portalId, deliveryId, attempt: 1, events: list });
    const messages = [retry(mixed, [ev(1, contact), ev(2, other)]), retry(only, [ev(3, contact)])].map((body, i) => ({ id: `r${i}`, body, attempts: 1, timestamp: new Date(), ack() {}, retry() {} }));
    await consumeWebhookBatch({ queue: "crm-edge-webhooks", messages, ackAll() {}, retryAll() {} } as unknown as MessageBatch<unknown>, env);
    const sent = eventsOf(await waitFor(path, (d) => eventsOf(d).length >= 3)).filter((e) => Math.abs((e.eventId as number) - base) < 10);
    expect(sent.map((e) => [e.eventId, e.objectId, e.attemptNumber])).toEqual([[base + 2, other, 1]]);
  });

  it("errors: unknown or another account's contact 404; a bad body 400 naming the field; nothing is deleted", async () => {
    const t = await tenant();
    const other = await tenant();
    const foreign = await make(other, "contacts", { email: "theirs@example.com" });
    const company = await make(t, "companies", { name: "not a contact" });
    expectError(await purge(t, { objectId: "999999999999" }), 404, "OBJECT_NOT_FOUND");
    expectError(await purge(t, { objectId: foreign }), 404, "OBJECT_NOT_FOUND");
    expectError(await purge(t, { objectId: "theirs@example.com", idProperty: "email" }), 404, "OBJECT_NOT_FOUND");
    expectError(await purge(t, { objectId: company }), 404, "OBJECT_NOT_FOUND");
    const bad: [unknown, string][] = [
      [{}, "objectId"],
      [{ objectId: "abc" }, "objectId"],
      [{ objectId: "" }, "objectId"],
      [{ objectId: { id: 1 } }, "objectId"],
      [{ objectId: "1", idProperty: "firstname" }, "idProperty"],
    ];
    for (const [body, field] of bad) expect(JSON.stringify(expectError(await purge(t, body), 400, "VALIDATION_ERROR")), JSON.stringify(body)).toContain(field);
    const raw = await send(new Request(`${BASE}/crm/v3/objects/contacts/gdpr-delete`, { method: "POST", headers: { authorization: `Bearer ${t.pat}`, "content-type": "application/json" }, body: "{" }));
    expect(raw.status).toBe(400);
    expect((await call("GET", `/crm/v3/objects/contacts/${foreign}`, { token: other.pat })).status).toBe(200);
    expect((await call("GET", `/crm/v3/objects/companies/${company}`, { token: t.pat })).status).toBe(200);
  });
});
