/**
 * @module Request signatures on outbound card and webhook calls (docs/how-to/verify-signatures.md), and a
 * verifier integrators can copy. v2: hex SHA-256 of secret + method + URI + body. v3: base64 HMAC-SHA256
 * keyed with the secret over method + URI + body + timestamp, rejected when older than 5 minutes.
 * We sign the exact URI we send; `signableQuery` leaves `@ : / ? ! $ ' ( ) * , ;` unescaped so the
 * documented v3 decoding step changes nothing and every verifier computes the same string.
 */
import { base64, hex, safeEqual } from "./crypto";

const enc = new TextEncoder();

export const V3_MAX_AGE_MS = 300_000;

export async function signV2(secret: string, method: string, uri: string, body = ""): Promise<string> {
  return hex(await crypto.subtle.digest("SHA-256", enc.encode(secret + method + uri + body)));
}

export async function signV3(secret: string, method: string, uri: string, body: string, timestamp: number | string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return base64(new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(method + uri + body + String(timestamp)))));
}

/**
 * The headers that go on every signed outbound request (v2 and v3 together, as the real service sends).
 * `uri` is the exact string sent. v2 signs it as is; v3 signs it after the documented decoding step
 * (`decodeForV3`), because the WHATWG URL serialiser re-encodes some characters on the wire
 * (e.g. `'` in a query becomes %27) and v3 verifiers decode them before hashing.
 */
export async function signatureHeaders(secret: string, method: string, uri: string, body: string, now: number) {
  return {
    "x-service-signature": await signV2(secret, method, uri, body),
    "x-service-signature-version": "v2",
    "x-service-signature-v3": await signV3(secret, method, decodeForV3(uri), body, now),
    "x-service-request-timestamp": String(now),
  };
}

const KEEP = /%(3A|2F|3F|40|21|24|27|28|29|2A|2C|3B)/gi;

/** Query string in the given order, percent-encoded except the characters v3 verifiers decode. */
export function signableQuery(params: [string, string][]): string {
  const e = (s: string) => encodeURIComponent(s).replace(KEEP, (m) => decodeURIComponent(m));
  return params.map(([k, v]) => `${e(k)}=${e(v)}`).join("&");
}

/**
 * v3's documented decoding step: decode `%3A %2F %3F %40 %21 %24 %27 %28 %29 %2A %2C %3B` (the `?` starting
 * the query is not encoded anyway).
 */
const decodeForV3 = (uri: string) => uri.replace(KEEP, (m) => decodeURIComponent(m));

export interface VerifyInput {
  secret: string;
  method: string;
  /** The full URI as received, including scheme, host and query in their original order. */
  uri: string;
  body?: string;
  headers: Headers | Record<string, string | undefined>;
  now?: number;
  /**
   * Accept a request that carries only the v2 signature. Off by default: v2 covers no timestamp, so a
   * captured request with its v3 headers stripped would verify forever. Turn it on only while a sender
   * that cannot sign v3 is still being served, and dedupe replays yourself.
   */
  allowV2?: boolean;
}

export type VerifyResult = { ok: true; version: "v2" | "v3" } | { ok: false; reason: string };

/**
 * For integrators: requires v3 (timestamp within 5 minutes, then constant-time comparison). The v2
 * signature is checked only when the v3 headers are absent and the caller opted in with `allowV2`; a
 * present but wrong v3 signature never falls back to v2.
 */
export async function verifySignature(input: VerifyInput): Promise<VerifyResult> {
  const get = (name: string) =>
    input.headers instanceof Headers ? (input.headers.get(name) ?? undefined) : (Object.entries(input.headers).find(([k]) => k.toLowerCase() === name)?.[1] ?? undefined);
  const body = input.body ?? "";
  const v3 = get("x-service-signature-v3");
  if (v3) {
    const ts = Number(get("x-service-request-timestamp"));
    const now = input.now ?? Date.now();
    if (!Number.isFinite(ts) || Math.abs(now - ts) > V3_MAX_AGE_MS) return { ok: false, reason: "timestamp outside the 5-minute window" };
    const expected = await signV3(input.secret, input.method, decodeForV3(input.uri), body, ts);
    return safeEqual(expected, v3) ? { ok: true, version: "v3" } : { ok: false, reason: "v3 signature mismatch" };
  }
  if (!input.allowV2) return { ok: false, reason: "no v3 signature header" };
  const v2 = get("x-service-signature");
  if (!v2) return { ok: false, reason: "no signature header" };
  const expected = await signV2(input.secret, input.method, input.uri, body);
  return safeEqual(expected, v2) ? { ok: true, version: "v2" } : { ok: false, reason: "v2 signature mismatch" };
}
