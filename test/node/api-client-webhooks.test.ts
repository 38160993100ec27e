/**
 * App webhooks with the unmodified @hubspot/api-client 14.0.1: its `webhooks` settings and subscriptions
 * APIs (developer key as ?hapikey=) against the running Worker, and its `Signature.isValid` accepting the
 * v3 and v1 signatures of a real delivery captured by the local receiver.
 */
import { Client, Signature } from "@hubspot/api-client";
import { describe, expect, it } from "vitest";
import { capturedRequests, eventually, integratorPath } from "./clients";
import { integratorUrl, rejection, tenant, workerUrl } from "./helpers";

describe("@hubspot/api-client 14.0.1: webhooks", () => {
  it("manages settings and subscriptions, and verifies the signatures of the delivery a contact creation causes", async () => {
    const t = await tenant();
    const client = new Client({ accessToken: t.oauth, developerApiKey: t.developerKey, basePath: workerUrl() });
    const path = integratorPath("sdk-hooks");
    const targetUrl = `${integratorUrl()}${path}?via=sdk`;

    const settings = await client.webhooks.settingsApi.configure(t.appId, { targetUrl, throttling: { maxConcurrentRequests: 10 } });
    expect(settings).toMatchObject({ targetUrl, throttling: { maxConcurrentRequests: 10 } });
    expect((await client.webhooks.settingsApi.getAll(t.appId)).targetUrl).toBe(targetUrl);

    const created = await client.webhooks.subscriptionsApi.create(t.appId, { eventType: "contact.creation", active: true } as never);
    expect(created).toMatchObject({ id: expect.any(String), eventType: "contact.creation", active: true });
    const paused = await client.webhooks.subscriptionsApi.create(t.appId, { eventType: "contact.propertyChange", propertyName: "firstname", active: false } as never);
    expect((await client.webhooks.subscriptionsApi.getAll(t.appId)).results.map((s) => s.id)).toEqual([created.id, paused.id]);
    expect((await client.webhooks.subscriptionsApi.getById(Number(paused.id), t.appId)).active).toBe(false);
    expect((await client.webhooks.subscriptionsApi.update(Number(paused.id), t.appId, { active: true })).active).toBe(true);
    const batch = await client.webhooks.subscriptionsApi.updateBatch(t.appId, { inputs: [{ id: Number(paused.id), active: false }, { id: 987654321, active: true }] });
    expect("numErrors" in batch && batch.numErrors).toBe(1);
    await client.webhooks.subscriptionsApi.archive(Number(paused.id), t.appId);
    const gone = await rejection<{ code: number }>(client.webhooks.subscriptionsApi.getById(Number(paused.id), t.appId));
    expect(gone.code).toBe(404);
    // The client's enum value for association changes is taken as it is.
    const assoc = await client.webhooks.subscriptionsApi.create(t.appId, { eventType: "contact.associationChange", active: true } as never);
    expect(assoc).toMatchObject({ eventType: "contact.associationChange", active: true });
    await client.webhooks.subscriptionsApi.archive(Number(assoc.id), t.appId);

    const contact = await client.crm.contacts.basicApi.create({ properties: { email: "hooked@example.com" }, associations: [] });
    const [req] = await eventually(async () => {
      const got = await capturedRequests(path);
      return got.length ? got : undefined;
    }, "the webhook delivery");
    expect(JSON.parse(req!.body)).toEqual([expect.objectContaining({ subscriptionType: "contact.creation", objectId: Number(contact.id), portalId: t.portalId, appId: t.appId })]);
    expect(req!.url).toBe(targetUrl);
    const common = { clientSecret: t.clientSecret, requestBody: req!.body, url: req!.url, method: "POST" };
    expect(Signature.isValid({ ...common, signatureVersion: "v3", signature: req!.headers["x-service-signature-v3"]!, timestamp: Number(req!.headers["x-service-request-timestamp"]) })).toBe(true);
    expect(req!.headers["x-service-signature-version"]).toBe("v1");
    expect(Signature.isValid({ ...common, signatureVersion: "v1", signature: req!.headers["x-service-signature"]! })).toBe(true);
    // A tampered body fails both.
    const tampered = { ...common, requestBody: req!.body.replace("contact.creation", "contact.deletion") };
    expect(Signature.isValid({ ...tampered, signatureVersion: "v1", signature: req!.headers["x-service-signature"]! })).toBe(false);
    expect(Signature.isValid({ ...tampered, signatureVersion: "v3", signature: req!.headers["x-service-signature-v3"]!, timestamp: Number(req!.headers["x-service-request-timestamp"]) })).toBe(false);

    await client.webhooks.settingsApi.clear(t.appId);
    const none = await rejection<{ code: number }>(client.webhooks.settingsApi.getAll(t.appId));
    expect(none.code).toBe(404);
  });

  it("subscribes to notes through the generic object.creation with objectTypeId, and gets their events with it", async () => {
    const t = await tenant();
    const client = new Client({ accessToken: t.oauth, developerApiKey: t.developerKey, basePath: workerUrl() });
    const path = integratorPath("sdk-generic-hooks");
    await client.webhooks.settingsApi.configure(t.appId, { targetUrl: `${integratorUrl()}${path}`, throttling: { maxConcurrentRequests: 10 } });
    // The client's own request model: eventType from its enum, objectTypeId as a string.
    const created = await client.webhooks.subscriptionsApi.create(t.appId, { eventType: "object.creation", objectTypeId: "0-46", active: true } as never);
    expect(created).toMatchObject({ eventType: "object.creation", objectTypeId: "0-46", active: true });
    expect((await client.webhooks.subscriptionsApi.getById(Number(created.id), t.appId)).objectTypeId).toBe("0-46");
    const note = await client.crm.objects.notes.basicApi.create({ properties: { hs_timestamp: new Date().toISOString(), hs_note_body: "from the client" }, associations: [] });
    const [req] = await eventually(async () => {
      const got = await capturedRequests(path);
      return got.length ? got : undefined;
    }, "the webhook delivery");
    expect(JSON.parse(req!.body)).toEqual([expect.objectContaining({ subscriptionType: "object.creation", objectTypeId: "0-46", objectId: Number(note.id), subscriptionId: Number(created.id) })]);
  });
});
