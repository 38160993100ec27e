/**
 * Ecommerce bridge requests of the recordings, replayed as recorded (traffic suite only: the main suite has
 * no recordings): hubspot3's settings mock, @hubspot/api-client's wire request, the php client's sync
 * request, the node mocks' store.
 */
import { describe, expect, it } from "vitest";
import { appSettings, BRIDGE, fullMappings, processed, status, store, waitForStatus } from "../ecomm/helpers";
import { call, expectError, tenant } from "../helpers/api";
import { recording, wireRequests, type WireRequest } from "./recordings";

const SETTINGS = `${BRIDGE}/settings`;

describe("settings: the recorded client requests", () => {
  it("the recorded hubspot3 request is refused: LINE_ITEM lacks its required mappings and the webhook is plain http", async () => {
    const rec = recording("synthetic-test-mocks/ecomm_v2__00.json");
    const t = await tenant();
    const res = await call("PUT", `${SETTINGS}?appId=${t.appId}&showProvidedMappings=false`, { token: t.developerKey, body: rec.requestBody });
    const err = expectError(res, 400, "VALIDATION_ERROR");
    expect(err.message).toContain("mappings.LINE_ITEM");
    expect(err.message).toContain("hs_assoc__deal_id, hs_assoc__product_id");
    // With the mappings completed, only the http webhook remains wrong.
    const fixed = { ...rec.requestBody, mappings: { ...rec.requestBody.mappings, LINE_ITEM: fullMappings().LINE_ITEM } };
    const again = expectError(await call("PUT", `${SETTINGS}?appId=${t.appId}`, { token: t.developerKey, body: fixed }), 400, "VALIDATION_ERROR");
    expect(again.message).toContain("webhookUri");
    const ok = await call("PUT", `${SETTINGS}?appId=${t.appId}`, { token: t.developerKey, body: { ...fixed, webhookUri: "https://webhook.example.com/x" } });
    expect(ok.status, ok.text).toBe(200);
  });

  it("the recorded @hubspot/api-client developer-key-only request is refused: enabling needs the required mappings (CONTACT email, DEAL dealstage, LINE_ITEM its deal and product)", async () => {
    const wire = wireRequests();
    const rec = wire.find((r) => r.label === "api-client(devKey only) apiRequest PUT ecomm settings") as WireRequest | undefined;
    if (!rec) throw new Error("the recorded api-client settings request is missing from clients_wire/probe_out.json");
    expect(rec.body).toEqual({ enabled: true, mappings: {} });
    const t = await tenant();
    const url = rec.url.replace(/\bappId=111\b/, `appId=${t.appId}`).replace(/\bhapikey=TEST-DEV-KEY\b/, `hapikey=${t.developerKey}`);
    expect(url).toBe(`${SETTINGS}?appId=${t.appId}&hapikey=${t.developerKey}`);
    const headers = rec.headers; // the SDK's own, content-type included; the developer key is the hapikey
    const err = expectError(await call(rec.method, url, { headers, body: rec.body }), 400, "VALIDATION_ERROR");
    const said = err.message + JSON.stringify(err.errors ?? []);
    expect(said).toContain("the required CONTACT properties email are not mapped");
    expect(said).toContain("the required DEAL properties dealstage are not mapped");
    expect(said).toContain("the required LINE_ITEM properties hs_assoc__deal_id, hs_assoc__product_id are not mapped");
    expectError(await call("GET", `${SETTINGS}?appId=${t.appId}`, { token: t.developerKey }), 404, "OBJECT_NOT_FOUND");
    // The credential and the rest of the request are fine: the same request not enabling sync is stored.
    const paused = await call(rec.method, url, { headers, body: { ...(rec.body as object), enabled: false } });
    expect(paused.status, paused.text).toBe(200);
    expect(paused.json).toEqual({ enabled: false, webhookUri: null, mappings: {} });
  });

});

describe("sync and stores: the recorded client requests", () => {
  it("answers 204 to the sync request the php client sends, and 200 to its status check from then on", async () => {
    const t = await tenant();
    await appSettings(t);
    await store(t.oauth, "ecommercebridge-test-store");
    const { assertions } = recording<{ assertions: { client: string; requestBody?: { messages: Record<string, unknown>[] }; expectStatus: number }[] }>(
      "hubspot-php-live-test-assertions/assertions.json",
    );
    const recorded = assertions.find((a) => a.client === "EcommerceBridge::sendSyncMessages")!;
    // The recorded body with its placeholder filled in, plus php's misspelled `assocations` key (ignored).
    const body = { ...recorded.requestBody!, messages: recorded.requestBody!.messages.map((m) => ({ ...m, changedAt: String(Date.now()), assocations: { CONTACT: ["1"] } })) };
    const res = await call("PUT", `${BRIDGE}/sync/messages`, { token: t.oauth, body });
    expect(res.status, res.text).toBe(recorded.expectStatus);
    expect(res.text).toBe("");
    const check = assertions.find((a) => a.client === "EcommerceBridge::checkSyncStatus")!;
    expect((await status(t.oauth, "CONTACT", "12345", "ecommercebridge-test-store")).status).toBe(check.expectStatus);
    await waitForStatus(t.oauth, "CONTACT", "12345", processed, "ecommercebridge-test-store");
  });

  it("creates the recorded store and echoes it as recorded", async () => {
    const t = await tenant();
    const rec = recording("synthetic-test-mocks/ecomm_v2__01.json");
    const put = await call("PUT", `${BRIDGE}/stores`, { token: t.oauth, body: rec.requestBody });
    expect(put.status, put.text).toBe(200);
    expect(put.json).toEqual(rec.responseBody);
  });
});
