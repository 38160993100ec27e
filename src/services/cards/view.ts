/**
 * @module Viewing a record's CRM cards (docs/reference/cards.md "Viewing a record: the data fetch"): one
 * signed GET per record type to its dataFetchUri, all at once, each through the outbound SSRF guard with a
 * 5 s total limit (the real service's data-fetch timeout) and a 1 MB answer cap. A failing integrator turns
 * only its own card into `status: "ERROR"`.
 */
import type { Db } from "../../db/client";
import { controlRead } from "../../db/replica";
import { DIRECTORY_TTL_MS } from "../../db/directory";
import type { CardObjectType } from "../../db/tables/cards";
import type { users } from "../../db/tables/tenancy";
import { describeCause } from "../../lib/errors";
import { checkOutboundUrl, guardedFetch, loopbackAllowed, OutboundError, outboundResolver } from "../../lib/outbound";
import { signableQuery, signatureHeaders } from "../../lib/signature";
import { actionKey, mintActionToken, type ActionBinding } from "./action-token";
import { conflictingQueryParam, parseCardResponse, type Action, type CardBody } from "../../schemas/cards/response";
import { scopesCover, type CardTypeRow } from "./types";
import type { CrmRow } from "../crm/records";
import { type CardRecordType } from "../../schemas/cards/view";

/** The CARD_OBJECT_TYPES name of each record type whose cards can appear on CRM records. */
export const CARD_TYPE_OF: Record<CardRecordType, CardObjectType> = { contacts: "CONTACT", companies: "COMPANY", deals: "DEAL", tickets: "TICKET" };

/** The real service's data-fetch limit: "requests will timeout after five seconds". */
export const CARD_TIMEOUT_MS = 5_000;
export const CARD_MAX_BYTES = 1024 * 1024;

/**
 * The total limit for one integrator call. Workers' fetch has no separate connect timeout, so the
 * documented 3 s connect limit is covered by the 5 s total. CARD_FETCH_TIMEOUT_MS (deliberately not in
 * wrangler.toml) lowers it for tests only; it can never raise it.
 */
export function cardTimeoutMs(env: Env): number {
  const raw = Number((env as Env & { CARD_FETCH_TIMEOUT_MS?: string }).CARD_FETCH_TIMEOUT_MS);
  return Number.isInteger(raw) && raw > 0 ? Math.min(raw, CARD_TIMEOUT_MS) : CARD_TIMEOUT_MS;
}

export interface Viewer {
  portalId: number;
  user: Pick<typeof users.$inferSelect, "userId" | "email">;
  record: CrmRow;
  type: CardRecordType;
}

/**
 * `previousSecret`: the app's secret before its last rotation while its grace period lasts; action tokens
 * minted under it (a card view opened before the rotation) are still honoured then. Only ever for checking.
 */
export type InstalledCard = CardTypeRow & { clientSecret: string; previousSecret: string | null };

/**
 * The card types of the apps installed in the account `?1` that appear on records of the card object type
 * `?2`, in app and card order, each with its app's secrets and the install's scopes. Constant text: the
 * record page runs it on every view.
 */
const INSTALLED_CARDS = `select c.id, c.app_id, c.title, c.base_uris, c.data_fetch_uri, c.property_definitions, c.object_types,
    c.object_type_properties, c.created_at, c.updated_at, a.client_secret, a.previous_client_secret, a.previous_secret_expires_at, i.scopes
  from installs i join apps a on a.app_id = i.app_id join card_types c on c.app_id = i.app_id
  where i.portal_id = ?1 and exists (select 1 from json_each(c.object_types) where value = ?2)
  order by c.app_id, c.id`;
type InstalledRow = [number, number, string, string, string, string, string, string, number, number, string, string | null, number | null, string];

/**
 * The record types of every app installed in the account that appear on `type` records. An install only
 * shows cards it was granted the scope for (contacts for contact, company and deal cards, tickets for ticket
 * cards): the card receives the record's data. `now` is real time: the previous secret's grace period is the
 * app's (its developer's), not a test account's clock.
 */
export async function installedCards(db: Db, portalId: number, type: CardRecordType, now = Date.now()): Promise<InstalledCard[]> {
  const cardType = CARD_TYPE_OF[type];
  // Every record view reads this: a replica may answer, no older than the floor (src/db/replica.ts), so an
  // uninstalled app stops getting the record's data within the directory's TTL, as a revoked token does.
  const read = controlRead(db, now, DIRECTORY_TTL_MS);
  const rows = await read.db.$client.prepare(INSTALLED_CARDS).bind(portalId, cardType).raw<InstalledRow>();
  read.done();
  return rows
    .filter((r) => scopesCover(JSON.parse(r[13]) as string[], cardType))
    .map((r) => ({
      id: r[0],
      appId: r[1],
      title: r[2],
      baseUris: JSON.parse(r[3]) as string[],
      dataFetchUri: r[4],
      propertyDefinitions: JSON.parse(r[5]) as CardTypeRow["propertyDefinitions"],
      objectTypes: JSON.parse(r[6]) as CardTypeRow["objectTypes"],
      objectTypeProperties: JSON.parse(r[7]) as CardTypeRow["objectTypeProperties"],
      createdAt: r[8],
      updatedAt: r[9],
      clientSecret: r[10],
      previousSecret: (r[12] ?? 0) > now ? r[11] : null,
    }));
}

/** The record's property values as a card sees them: stored properties plus the system ones (v3 shape). */
function recordValues(record: CrmRow): Record<string, string> {
  return {
    ...record.properties,
    hs_object_id: String(record.id),
    createdate: new Date(record.createdAt).toISOString(),
    lastmodifieddate: new Date(record.updatedAt).toISOString(),
  };
}

/**
 * The data-fetch query: userId, userEmail, associatedObjectId, associatedObjectType, portalId, then each
 * requested CRM property in the configured order, left out when the record has no value.
 */
export function dataFetchParams(v: Viewer, card: CardTypeRow): [string, string][] {
  const pairs: [string, string][] = [
    ["userId", String(v.user.userId)],
    ["userEmail", v.user.email],
    ["associatedObjectId", String(v.record.id)],
    ["associatedObjectType", CARD_TYPE_OF[v.type]],
    ["portalId", String(v.portalId)],
  ];
  const values = recordValues(v.record);
  for (const name of card.objectTypeProperties[CARD_TYPE_OF[v.type]] ?? []) {
    const value = values[name];
    if (value !== undefined && value !== "") pairs.push([name, value]);
  }
  return pairs;
}

/** Who sees the card's actions, and where: what an action token is bound to (src/services/cards/action-token.ts). */
export function actionBinding(v: Viewer, card: CardTypeRow): ActionBinding {
  return { appId: card.appId, cardId: card.id, portalId: v.portalId, objectType: CARD_TYPE_OF[v.type], objectId: v.record.id, userId: v.user.userId };
}

/** Values of the named record properties that have one, in the given order. */
export function propertyValues(record: CrmRow, names: readonly string[]): [string, string][] {
  const values = recordValues(record);
  return names.flatMap((n): [string, string][] => (values[n] !== undefined && values[n] !== "" ? [[n, values[n]]] : []));
}

/**
 * The query pairs the service appends after `action`'s own uri query when `v` runs it: for a hook the
 * data-fetch parameters, then for GET and DELETE the action's property values not already among them; for
 * an IFRAME only the property values. The one definition used to build the call and to check the uri's own
 * query against it.
 */
export function appendedPairs(v: Viewer, card: CardTypeRow, action: Action): [string, string][] {
  const props = propertyValues(v.record, action.associatedObjectProperties);
  if (action.type === "IFRAME") return props;
  const params = dataFetchParams(v, card);
  if (action.httpMethod !== "GET" && action.httpMethod !== "DELETE") return params;
  const sent = new Set(params.map(([k]) => k));
  return [...params, ...props.filter(([k]) => !sent.has(k))]; // a property already sent as a data-fetch parameter is not repeated
}

/** The parameter of `action`'s uri query that contradicts what the service appends for `v`, if any. */
const queryConflict = (v: Viewer, card: CardTypeRow, action: Action) => conflictingQueryParam(action.uri, appendedPairs(v, card, action));

/**
 * `uri` with `pairs` appended after any query it already has, as the exact string that goes on the wire
 * (WHATWG-normalised, e.g. `'` becomes %27): signing anything else would break v2 verification.
 * Throws OutboundError("blocked") for a URI the guard refuses.
 */
export function outboundUrl(uri: string, pairs: [string, string][], allowLoopback: boolean): string {
  const url = checkOutboundUrl(uri, allowLoopback);
  if (pairs.length === 0) return new URL(`${url.origin}${url.pathname}${url.search}`).toString();
  const joiner = url.search ? `${url.search}&` : "?";
  return new URL(`${url.origin}${url.pathname}${joiner}${signableQuery(pairs)}`).toString();
}

/** A readable reason for an outbound failure, shown on the card or returned by an action. */
export function outboundReason(err: unknown, timeoutMs: number): string {
  if (!(err instanceof OutboundError)) return "The integrator could not be called";
  switch (err.kind) {
    case "blocked":
      return `The integrator URL was refused: ${err.message}`;
    case "timeout":
      return `The integrator did not answer within ${timeoutMs} ms`;
    case "too_large":
      return `The integrator's response is larger than ${CARD_MAX_BYTES} bytes`;
    case "redirect":
      return `The integrator answered with a redirect that is not followed: ${err.message}`;
    case "network":
      return "The integrator could not be reached";
  }
}

export type CardView = {
  cardId: number;
  appId: number;
  title: string;
  status: "OK" | "ERROR";
  error?: string;
} & Partial<CardBody> & { results: CardBody["results"] };

/**
 * The card's actions, each with the token that lets this viewer run it on this record (only actions the
 * integrator offered can run: docs/reference/cards.md "Action tokens"). Every place an action appears gets
 * one: item actions, the primary, secondary and settings actions.
 */
async function offerActions(body: CardBody, v: Viewer, card: InstalledCard, now: number): Promise<CardBody> {
  const key = await actionKey(card.clientSecret);
  const binding = actionBinding(v, card);
  const offer = async (a: Action): Promise<Action> => ({ ...a, actionToken: await mintActionToken(key, binding, a, now) });
  const out: CardBody = { ...body, results: await Promise.all(body.results.map(async (item) => ({ ...item, actions: await Promise.all(item.actions.map(offer)) }))) };
  if (body.primaryAction) out.primaryAction = await offer(body.primaryAction);
  if (body.settingsAction) out.settingsAction = await offer(body.settingsAction);
  if (body.secondaryActions) out.secondaryActions = await Promise.all(body.secondaryActions.map(offer));
  return out;
}

/** One card's data fetch (the record page loads each card on its own); never rejects. */
export async function fetchCard(v: Viewer, card: InstalledCard, env: Env, now: number): Promise<CardView> {
  const head = { cardId: card.id, appId: card.appId, title: card.title };
  const timeoutMs = cardTimeoutMs(env);
  const failed = (error: string): CardView => ({ ...head, status: "ERROR", error, results: [] });
  try {
    const url = outboundUrl(card.dataFetchUri, dataFetchParams(v, card), loopbackAllowed(env));
    // Signed in real time, never a test account's clock: the integrator checks the v3 timestamp against its own clock.
    const headers = await signatureHeaders(card.clientSecret, "GET", url, "", Date.now());
    const res = await guardedFetch(
      { method: "GET", url, headers: { ...headers, accept: "application/json" } },
      { allowLoopback: loopbackAllowed(env), resolver: outboundResolver(env), timeoutMs, maxBytes: CARD_MAX_BYTES },
    );
    if (res.status < 200 || res.status > 299) return failed(`The integrator answered HTTP ${res.status}`);
    const parsed = parseCardResponse(res.text, { ...card, queryConflict: (a) => queryConflict(v, card, a) });
    return parsed.ok ? { ...head, status: "OK", ...(await offerActions(parsed.body, v, card, now)) } : failed(parsed.error);
  } catch (err) {
    if (!(err instanceof OutboundError)) console.error(`card ${card.id}: unexpected failure: ${describeCause(err)}`);
    return failed(outboundReason(err, timeoutMs));
  }
}

/** Every card for the record, fetched in parallel; never rejects (each card carries its own outcome). */
export async function viewCards(db: Db, env: Env, v: Viewer, now: number): Promise<CardView[]> {
  const cards = await installedCards(db, v.portalId, v.type);
  return Promise.all(cards.map((card) => fetchCard(v, card, env, now)));
}
