/** Test helpers of the ecommerce bridge: settings, stores, sync calls, and bounded polling of the status. */
import { expect } from "vitest";
import { call, type Tenant } from "../helpers/api";

export const BRIDGE = "/extensions/ecomm/v2";

/** Mappings that map every required property (CONTACT email, DEAL dealstage, LINE_ITEM deal and product), with a few typed extras. */
export const fullMappings = () => ({
  CONTACT: {
    properties: [
      { externalPropertyName: "customer_email", servicePropertyName: "email", dataType: "STRING" },
      { externalPropertyName: "firstname", servicePropertyName: "firstname", dataType: "STRING" },
      { externalPropertyName: "age", servicePropertyName: "age", dataType: "NUMBER" },
    ],
  },
  PRODUCT: {
    properties: [
      { externalPropertyName: "title", servicePropertyName: "name", dataType: "STRING" },
      { externalPropertyName: "price", servicePropertyName: "price", dataType: "NUMBER" },
      { externalPropertyName: "image", servicePropertyName: "ip__ecomm_bridge__image_url", dataType: "AVATAR_IMAGE" },
    ],
  },
  DEAL: {
    properties: [
      { externalPropertyName: "stage", servicePropertyName: "dealstage", dataType: "STRING" },
      { externalPropertyName: "name", servicePropertyName: "dealname", dataType: "STRING" },
      { externalPropertyName: "closed", servicePropertyName: "closedate", dataType: "DATETIME" },
    ],
  },
  LINE_ITEM: {
    properties: [
      { externalPropertyName: "qty", servicePropertyName: "quantity", dataType: "NUMBER" },
      { externalPropertyName: "deal_id", servicePropertyName: "hs_assoc__deal_id", dataType: "STRING" },
      { externalPropertyName: "product_id", servicePropertyName: "hs_assoc__product_id", dataType: "STRING" },
    ],
  },
});

export const settingsBody = (over: Record<string, unknown> = {}) => ({ enabled: true, webhookUri: null, mappings: fullMappings(), ...over });

/**
 * App-level settings (developer key) govern the app's OAuth syncs; account-level ones (the account's token)
 * govern private-app syncs, and OAuth syncs of an app that has no app-level settings.
 */
export async function appSettings(t: Tenant, over: Record<string, unknown> = {}) {
  const res = await call("PUT", `${BRIDGE}/settings?appId=${t.appId}`, { token: t.developerKey, body: settingsBody(over) });
  expect(res.status, res.text).toBe(200);
  return res.json;
}
export async function accountSettings(t: Tenant, over: Record<string, unknown> = {}) {
  const res = await call("PUT", `${BRIDGE}/settings`, { token: t.pat, body: settingsBody(over) });
  expect(res.status, res.text).toBe(200);
  return res.json;
}

export async function store(token: string, id = "shop", label = "Shop") {
  const res = await call("PUT", `${BRIDGE}/stores`, { token, body: { id, label, adminUri: "https://shop.example.com/admin" } });
  expect(res.status, res.text).toBe(200);
  return res.json;
}

export interface Msg {
  externalObjectId: string;
  action?: "UPSERT" | "DELETE";
  changedAt?: number | string;
  properties?: Record<string, unknown>;
  associations?: Record<string, string[]>;
}

export async function sync(token: string, objectType: string, messages: Msg[], storeId = "shop") {
  const res = await call("PUT", `${BRIDGE}/sync/messages`, {
    token,
    body: { storeId, objectType, messages: messages.map((m) => ({ action: "UPSERT", ...m })) },
  });
  expect(res.status, res.text).toBe(204);
  return res;
}

export const status = (token: string, objectType: string, id: string, storeId = "shop") =>
  call("GET", `${BRIDGE}/sync/status/${encodeURIComponent(storeId)}/${objectType}/${encodeURIComponent(id)}`, { token });

/**
 * Polls the status until `done` holds: the local queue delivers batches after max_batch_timeout (2 s),
 * so this waits a few seconds at most. Bounded: fails after `timeoutMs`.
 */
export async function waitForStatus(
  token: string,
  objectType: string,
  id: string,
  done: (s: any) => boolean, // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary shapes
  storeId = "shop",
  timeoutMs = 20_000,
) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await status(token, objectType, id, storeId);
    if (res.status === 200 && done(res.json)) return res.json;
    if (Date.now() > until) throw new Error(`status of ${objectType} ${id} not reached in ${timeoutMs} ms: ${res.status} ${res.text}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export const processed = (s: { lastProcessedAt: string | null }) => s.lastProcessedAt !== null;
export const errored = (s: { numErrors: number }) => s.numErrors > 0;
