/**
 * @module Running a card action (docs/reference/cards.md "Actions"). Only an action the integrator offered
 * runs: it must lie under the card's baseUris, give no query parameter the service sets another value, and
 * carry the actionToken the card view attached for this viewer and record
 * (src/services/cards/action-token.ts); otherwise nothing is called.
 * Hooks are called by the service, signed, with the data-fetch query parameters plus the action's record
 * properties (query string for GET and DELETE, JSON body otherwise); the reply's JSON `message` is handed
 * back. IFRAME actions are never called here: the caller gets the unsigned iframe URL with the property
 * values appended.
 */
import { badRequest, describeCause, type ApiError } from "../../lib/errors";
import { guardedFetch, loopbackAllowed, OutboundError, outboundResolver } from "../../lib/outbound";
import { signableQuery, signatureHeaders } from "../../lib/signature";
import { actionKey, checkActionToken } from "./action-token";
import { conflictingQueryParam, underBaseUris, type PostedAction } from "../../schemas/cards/response";
import { actionBinding, appendedPairs, CARD_MAX_BYTES, cardTimeoutMs, outboundReason, outboundUrl, propertyValues, type InstalledCard, type Viewer } from "./view";

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
 * A 2xx reply shows success and 4xx/5xx an error, whatever the body; the JSON `message` of the reply is
 * shown for both when there is one (the service only "tries to parse" the reply as JSON). A body
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

/** Why an action is not run; each maps to one 400 below. */
type Refusal = { kind: "not_under_base_uris" } | { kind: "conflicting_query_parameter"; name: string } | { kind: "not_offered" } | { kind: "token_expired" };

/**
 * Whether the service may run `action` for this viewer: null when it may. Checked before anything is
 * called; the token is checked last, so the cheaper rules name their own reason.
 */
async function refusalOf(v: Viewer, card: InstalledCard, action: PostedAction, appended: [string, string][], now: number): Promise<Refusal | null> {
  // Every action URI must lie under one of the record type's baseUris (checked again here: they
  // may have been narrowed since the card was shown).
  if (!underBaseUris(action.uri, card.baseUris)) return { kind: "not_under_base_uris" };
  // Defence in depth: the service's own parameters come after the uri's query, and the integrator must
  // not read a first `portalId` (or userId, ...) other than the one the service sends.
  const clash = conflictingQueryParam(action.uri, appended);
  if (clash !== undefined) return { kind: "conflicting_query_parameter", name: clash };
  let verdict = await checkActionToken(await actionKey(card.clientSecret), actionBinding(v, card), action, action.actionToken, now);
  if (verdict === "invalid" && card.previousSecret !== null) {
    // Offered before the app's secret was rotated, within the rotation's grace period (docs/how-to/account-lifecycle.md).
    verdict = await checkActionToken(await actionKey(card.previousSecret), actionBinding(v, card), action, action.actionToken, now);
  }
  switch (verdict) {
    case "valid":
      return null;
    case "expired":
      return { kind: "token_expired" };
    case "invalid":
      return { kind: "not_offered" };
  }
}

/** The 400 of a refusal, in the API's error envelope, pointing at the field to blame. */
function refusalError(r: Refusal): ApiError {
  const fail = (message: string, code: string, field: string, context: Record<string, unknown> = {}) =>
    badRequest(message, { errors: [{ message: `${field}: ${message}`, code, in: "body", context: { propertyName: [field], ...context } }] });
  switch (r.kind) {
    case "not_under_base_uris":
      return fail("The action's uri is not under the card's baseUris", "NOT_UNDER_BASE_URIS", "action.uri");
    case "conflicting_query_parameter":
      return fail(
        `The action's uri gives the query parameter ${r.name} another value than the service sends for this user and record`,
        "CONFLICTING_QUERY_PARAMETER",
        "action.uri",
        { parameter: r.name },
      );
    case "not_offered":
      return fail(
        "This action was not offered by the card for this record and user: run an action exactly as the card view returned it, with its actionToken",
        "ACTION_NOT_OFFERED",
        "action.actionToken",
      );
    case "token_expired":
      return fail("This action's token has expired: view the card again and run the action it returns", "ACTION_TOKEN_EXPIRED", "action.actionToken");
  }
}

export async function runAction(v: Viewer, card: InstalledCard, action: PostedAction, env: Env, now: number): Promise<ActionOutcome> {
  const appended = appendedPairs(v, card, action); // what goes after the uri's own query, checked and then sent
  const refusal = await refusalOf(v, card, action, appended, now);
  if (refusal) throw refusalError(refusal);

  if (action.type === "IFRAME") {
    // Iframes carry no signature; the integrator verifies the iframe by its own means.
    return { ok: true, iframeUrl: appendQuery(action.uri, appended), width: action.width, height: action.height };
  }

  const method = action.httpMethod;
  const props = propertyValues(v.record, action.associatedObjectProperties);
  const inQuery = method === "GET" || method === "DELETE";
  const timeoutMs = cardTimeoutMs(env);
  try {
    const url = outboundUrl(action.uri, appended, loopbackAllowed(env));
    const body = inQuery ? "" : JSON.stringify(Object.fromEntries(props));
    // Signed in real time (the integrator checks the timestamp against its own clock); `now`, the account's
    // time, is what the action token was minted and is checked by.
    const headers: Record<string, string> = { ...(await signatureHeaders(card.clientSecret, method, url, body, Date.now())), accept: "application/json" };
    if (!inQuery) headers["content-type"] = "application/json";
    const res = await guardedFetch(
      { method, url, headers, body: inQuery ? undefined : body },
      { allowLoopback: loopbackAllowed(env), resolver: outboundResolver(env), timeoutMs, maxBytes: CARD_MAX_BYTES },
    );
    return outcomeOf(res.status, res.text);
  } catch (err) {
    if (!(err instanceof OutboundError)) console.error(`card ${card.id}: unexpected action failure: ${describeCause(err)}`);
    return { ok: false, integratorStatus: null, message: outboundReason(err, timeoutMs) };
  }
}
