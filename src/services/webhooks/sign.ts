/**
 * @module Signature headers of a webhook POST (docs/reference/webhooks.md "Signatures"), keyed with the app's client
 * secret: v3 (base64 HMAC-SHA256 of method + URL + body + timestamp, with the timestamp header) and,
 * beside it, the legacy v1 the real webhooks send (hex SHA-256 of secret + body).
 */
import { sha256Hex } from "../../lib/crypto";
import { signV3 } from "../../lib/signature";

/** `url` is the exact URL the POST goes to. */
export async function webhookSignatureHeaders(secret: string, url: string, body: string, timestamp: number): Promise<Record<string, string>> {
  return {
    "x-service-signature-v3": await signV3(secret, "POST", url, body, timestamp),
    "x-service-request-timestamp": String(timestamp),
    "x-service-signature": await sha256Hex(secret + body),
    "x-service-signature-version": "v1",
  };
}
