/**
 * @module Running a card action (spec 2.11, 4.6, 7.1). Hooks are called by the service, signed, with the
 * data-fetch query parameters plus the action's record properties (query string for GET and DELETE, JSON
 * body otherwise); the reply's JSON `message` is handed back. IFRAME actions are never called here: the
 * caller gets the unsigned iframe URL with the property values appended.
 */
import { badRequest, describeCause } from "../lib/errors";
import { guardedFetch, loopbackAllowed, OutboundError } from "../lib/outbound";
import { signableQuery, signatureHeaders } from "../lib/signature";
import { underBaseUris, type Action } from "./card-response";
import { CARD_MAX_BYTES, cardTimeoutMs, dataFetchParams, outboundReason, outboundUrl, propertyValues, type InstalledCard, type Viewer } from "./cards";

const MAX_MESSAGE = 2000;

export type ActionOutcome =
  | { ok: boolean; integratorStatus: number | null; message: string | null }
  | { ok: true; iframeUrl: string; width: number; height: number };

/** `uri` with pairs appended after its own query (unsigned: iframe URLs are opened by the browser). */
function appendQuery(uri: string, pairs: [string, string][]): string {
  const url = new URL(uri);
  url.hash = "";
  if (pairs.length === 0) return url.toString();
  return new URL(`${url.origin}${url.pathname}${url.search ? `${url.search}&` : "?"}${signableQuery(pairs)}`).toString();
}

/**
 * spec 7.1: a 2xx reply shows success and 4xx/5xx an error, whatever the body; the JSON `message` of the
 * reply is shown for both when there is one (spec 4.6: the service "tries to parse" the reply). A body
 * that is not JSON therefore changes nothing for a 2xx (no message), and is explained for an error.
 */
function outcomeOf(status: number, text: string): ActionOutcome {
  const ok = status >= 200 && status <= 299;
  let message: string | null = null;
  if (text.trim() !== "") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      if (ok) return { ok, integratorStatus: status, message: null };
      return { ok, integratorStatus: status, message: `The integrator's reply (HTTP ${status}) is not valid JSON` };
    }
    const m = (parsed as { message?: unknown } | null)?.message;
    if (typeof m === "string") message = m.slice(0, MAX_MESSAGE);
  }
  if (!ok && message === null) message = `The integrator answered HTTP ${status}`;
  return { ok, integratorStatus: status, message };
}

export async function runAction(v: Viewer, card: InstalledCard, action: Action, env: Env, now: number): Promise<ActionOutcome> {
  // spec 2.9: every action URI must lie under one of the record type's baseUris; otherwise nothing is called.
  if (!underBaseUris(action.uri, card.baseUris)) {
    throw badRequest("The action's uri is not under the card's baseUris", {
      errors: [{ message: "action.uri: is not under the card's baseUris", code: "NOT_UNDER_BASE_URIS", in: "body", context: { propertyName: ["action.uri"] } }],
    });
  }
  const props = propertyValues(v.record, action.associatedObjectProperties);

  if (action.type === "IFRAME") {
    // spec 4.6: no signature; the integrator verifies the iframe by its own means.
    return { ok: true, iframeUrl: appendQuery(action.uri, props), width: action.width, height: action.height };
  }

  const method = action.httpMethod;
  const params = dataFetchParams(v, card);
  const sent = new Set(params.map(([k]) => k));
  const extra = props.filter(([k]) => !sent.has(k)); // a property already sent as a data-fetch parameter is not repeated
  const inQuery = method === "GET" || method === "DELETE";
  const timeoutMs = cardTimeoutMs(env);
  try {
    const url = outboundUrl(action.uri, inQuery ? [...params, ...extra] : params, loopbackAllowed(env));
    const body = inQuery ? "" : JSON.stringify(Object.fromEntries(props));
    const headers: Record<string, string> = { ...(await signatureHeaders(card.clientSecret, method, url, body, now)), accept: "application/json" };
    if (!inQuery) headers["content-type"] = "application/json";
    const res = await guardedFetch(
      { method, url, headers, body: inQuery ? undefined : body },
      { allowLoopback: loopbackAllowed(env), timeoutMs, maxBytes: CARD_MAX_BYTES },
    );
    return outcomeOf(res.status, res.text);
  } catch (err) {
    if (!(err instanceof OutboundError)) console.error(`card ${card.id}: unexpected action failure: ${describeCause(err)}`);
    return { ok: false, integratorStatus: null, message: outboundReason(err, timeoutMs) };
  }
}
