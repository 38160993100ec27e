/**
 * @module Action tokens: proof that the integrator offered an action (docs/reference/cards.md "Action tokens").
 *
 * The actions endpoint runs an action object the caller posts back, and the service signs the call with
 * the app's secret. Without a check, any caller could make the service sign a method, path and query of
 * its choosing under the card's baseUris, for example a `portalId` of another account. So every action the
 * service shows (card view API and record page) carries an `actionToken`: an HMAC-SHA256 over the action
 * fields that shape the call and over who may run it where, and the endpoint runs only an action whose
 * token verifies for the current caller and record.
 *
 * Stateless by design: nothing is stored per data fetch; the key is derived from the app's client secret
 * with domain separation, so it differs from the signing key of the outbound v3 signature, rotates with
 * the secret, and a token of one app never verifies for another. The integrator knows its secret and could
 * mint tokens, but only for calls to itself, which it could equally offer in its data-fetch answer.
 *
 * Bound: app, card (record type), account, record type and id, user, and the call itself (type, method,
 * uri, associatedObjectProperties, and for an IFRAME its size). Not bound: label and confirmation texts,
 * which change nothing in the call. Tokens expire after ACTION_TOKEN_TTL_MS, so an action the integrator
 * has stopped offering cannot be run from an old card view for long.
 */
import type { CardObjectType } from "../../db/tables/cards";
import { base64url, fromBase64url } from "../../lib/crypto";
import type { Action } from "../../schemas/cards/response";
import { ACTION_TOKEN_TTL_MS } from "../../schemas/cards/view";

/** Domain-separation label of the key derivation and of the signed string; a new format changes it. */
const CONTEXT = "crm-edge card action v1";
const PREFIX = "v1";

const CLOCK_LEEWAY_MS = 60_000;

const enc = new TextEncoder();

/** Who may run an action, and where: every field comes from the server side (session, token, path). */
export interface ActionBinding {
  appId: number;
  cardId: number;
  portalId: number;
  objectType: CardObjectType;
  objectId: number;
  userId: number;
}

/** The token key of an app: HMAC-SHA256(clientSecret, CONTEXT), used as an HMAC-SHA256 key. */
export async function actionKey(clientSecret: string): Promise<CryptoKey> {
  const root = await crypto.subtle.importKey("raw", enc.encode(clientSecret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const derived = await crypto.subtle.sign("HMAC", root, enc.encode(CONTEXT));
  return crypto.subtle.importKey("raw", derived, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
}

/**
 * The signed string: a JSON array in a fixed order. JSON escapes every string, so no two different
 * inputs serialise alike (no field can absorb a separator of the next one).
 */
function canonical(b: ActionBinding, a: Action, expiresAt: number): Uint8Array {
  const iframe = a.type === "IFRAME";
  return enc.encode(
    JSON.stringify([
      CONTEXT,
      b.appId,
      b.cardId,
      b.portalId,
      b.objectType,
      b.objectId,
      b.userId,
      expiresAt,
      a.type,
      iframe ? null : a.httpMethod,
      a.uri,
      a.associatedObjectProperties,
      iframe ? a.width : null,
      iframe ? a.height : null,
    ]),
  );
}

/** `v1.<expiresAt ms>.<base64url HMAC>` for `action` shown to `binding` at `now`. */
export async function mintActionToken(key: CryptoKey, binding: ActionBinding, action: Action, now: number): Promise<string> {
  const expiresAt = now + ACTION_TOKEN_TTL_MS;
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, canonical(binding, action, expiresAt)));
  return `${PREFIX}.${expiresAt}.${base64url(mac)}`;
}

export type TokenCheck = "valid" | "expired" | "invalid";

const TOKEN = /^v1\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/;

/**
 * Whether `token` was minted by this service for exactly this action, binding and key. The MAC is checked
 * first, with crypto.subtle.verify (constant time), so "expired" is only ever said of a genuine token.
 */
export async function checkActionToken(key: CryptoKey, binding: ActionBinding, action: Action, token: string, now: number): Promise<TokenCheck> {
  const m = TOKEN.exec(token);
  if (!m) return "invalid";
  const expiresAt = Number(m[1]);
  const mac = fromBase64url(m[2]!);
  if (!(await crypto.subtle.verify("HMAC", key, mac, canonical(binding, action, expiresAt)))) return "invalid";
  // Never minted by this service at this time (a minute's leeway for clocks of different machines).
  if (expiresAt - now > ACTION_TOKEN_TTL_MS + CLOCK_LEEWAY_MS) return "invalid";
  return now < expiresAt ? "valid" : "expired";
}
