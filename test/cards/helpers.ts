/** Shared set-up for the CRM card tests: record types on the local integrator, records to view them on. */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { expect } from "vitest";
import worker from "../../src/index";
import { verifySignature } from "../../src/lib/signature";
import { actionKey, mintActionToken } from "../../src/services/cards/action-token";
import { actionSchema } from "../../src/schemas/cards/response";
import { CARD_TYPE_OF } from "../../src/services/cards/view";
import { type CardRecordType } from "../../src/schemas/cards/view";
import { BASE, call, type Tenant } from "../helpers/api";
import { integratorPath, integratorUrl, received, script } from "../helpers/integrator";
import type { Recorded } from "../integrator/types";

export const TYPES = "/extensions/sales-objects/v1/object-types";

/** A record-type body whose dataFetchUri and base URI are unique paths on the local integrator. */
export function cardBody(t: Tenant, overrides: Record<string, unknown> = {}) {
  const fetchPath = integratorPath("fetch");
  const actionBase = integratorPath("actions");
  return {
    body: {
      applicationId: t.appId,
      baseUris: [`${integratorUrl()}${actionBase}`],
      dataFetchUri: `${integratorUrl()}${fetchPath}`,
      title: "Tickets",
      propertyDefinitions: [],
      associatedHubSpotObjectTypes: ["CONTACT"],
      associatedHubSpotObjectTypeProperties: {},
      ...overrides,
    },
    fetchPath,
    actionBase,
  };
}

/** Creates a record type with the app's developer key; returns its id and integrator paths. */
export async function defineCard(t: Tenant, overrides: Record<string, unknown> = {}) {
  const c = cardBody(t, overrides);
  const res = await call("POST", TYPES, { token: t.developerKey, body: c.body });
  expect(res.status, res.text).toBe(200);
  return { ...c, id: res.json.id as number };
}

export async function createRecord(t: Tenant, type: string, properties: Record<string, string> = {}) {
  const res = await call("POST", `/crm/v3/objects/${type}`, { token: t.oauth, body: { properties } });
  expect(res.status, res.text).toBe(201);
  return Number(res.json.id);
}

export const viewPath = (type: string, id: number, userId: number) => `/crm/v3/objects/${type}/${id}/cards?userId=${userId}`;

/** The one request the integrator got on `path`, its signature checked (v3, and v2 separately with `allowV2`). */
export async function signedRequest(path: string, secret: string): Promise<Recorded> {
  const all = await received(path);
  expect(all).toHaveLength(1);
  const req = all[0]!;
  const base = { secret, method: req.method, uri: req.url, body: req.body };
  expect(await verifySignature({ ...base, headers: req.headers })).toEqual({ ok: true, version: "v3" });
  const v2only = { "x-service-signature": req.headers["x-service-signature"] };
  expect(await verifySignature({ ...base, headers: v2only })).toEqual({ ok: false, reason: "no v3 signature header" }); // v3 is required by default
  expect(await verifySignature({ ...base, headers: v2only, allowV2: true })).toEqual({ ok: true, version: "v2" });
  expect(req.headers["x-service-signature-version"]).toBe("v2");
  return req;
}

/** Query pairs in the order they were sent. */
export const queryPairs = (url: string) => [...new URL(url).searchParams.entries()];

/**
 * Calls the Worker's fetch handler directly with some environment values changed (the outbound timeout or
 * the loopback flag), which SELF cannot do.
 */
export async function callWithEnv(overrides: Record<string, string>, method: string, path: string, opts: { token?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const request = new Request(`${BASE}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const ctx = createExecutionContext();
  const res = await worker.fetch(request as Parameters<typeof worker.fetch>[0], { ...env, ...overrides } as Env, ctx);
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : undefined };
}

type Json = Record<string, unknown>;

/**
 * Actions as the card view offers them (the normal flow): the card's data fetch is scripted to answer
 * `actions` as its secondary actions, the record is viewed through the API as `viewer`, and the actions
 * come back with their actionTokens, in order. Labels and confirmation texts the test left out are filled
 * in (the view requires them); every action must survive the view's checks.
 */
export async function offered(
  t: Tenant,
  card: { id: number; fetchPath: string },
  record: number,
  actions: Json[],
  viewer: { type?: CardRecordType; token?: string; userId?: number } = {},
): Promise<Json[]> {
  const shown = actions.map((a) => ({ label: "Go", ...(a.type === "CONFIRMATION_ACTION_HOOK" ? { confirmationMessage: "Sure?" } : {}), ...a }));
  await script(card.fetchPath, { body: JSON.stringify({ results: [], secondaryActions: shown }) });
  const res = await call("GET", viewPath(viewer.type ?? "contacts", record, viewer.userId ?? t.userId), { token: viewer.token ?? t.oauth });
  expect(res.status, res.text).toBe(200);
  const view = res.json.cards.find((c: { cardId: number }) => c.cardId === card.id);
  expect(view?.status, JSON.stringify(view)).toBe("OK");
  expect(view.warnings, "an offered action was dropped").toBeUndefined();
  expect(view.secondaryActions).toHaveLength(actions.length);
  for (const a of view.secondaryActions) expect(a.actionToken).toMatch(/^v1\.\d+\.[\w-]{43}$/);
  return view.secondaryActions as Json[];
}

/**
 * A token minted directly with the app's client secret, as the view would mint it for `action` (normalised
 * by the same schema) at `now`: for actions no view can show (outside the baseUris, unreachable data
 * fetch) and for tokens minted in the past.
 */
export async function minted(
  t: Tenant,
  cardId: number,
  record: number,
  action: Json,
  bind: { type?: CardRecordType; userId?: number; portalId?: number; appId?: number; now?: number; secret?: string } = {},
): Promise<Json> {
  const parsed = actionSchema(false).parse(action);
  const binding = {
    appId: bind.appId ?? t.appId,
    cardId,
    portalId: bind.portalId ?? t.portalId,
    objectType: CARD_TYPE_OF[bind.type ?? "contacts"],
    objectId: record,
    userId: bind.userId ?? t.userId,
  };
  const actionToken = await mintActionToken(await actionKey(bind.secret ?? t.clientSecret), binding, parsed, bind.now ?? Date.now());
  return { ...action, actionToken };
}
