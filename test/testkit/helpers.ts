/** Helpers of the test kit's webhook tests: a test account's app pointed at the local receiver, and the receiver's own signature check. */
import { expect } from "vitest";
import { ADMIN, call, tenant, type Tenant } from "../helpers/api";
import { integratorUrl } from "../helpers/integrator";
import { hookUp, type Delivered } from "../webhooks/helpers";

/** A DEVELOPER_TEST account with its app's webhooks pointed at a fresh path of the local (loopback) receiver. */
export async function hookedTestTenant(opts: { max?: number } = {}): Promise<{ t: Tenant; path: string }> {
  const t = await tenant({ accountType: "DEVELOPER_TEST" });
  const path = await hookUp(t, opts);
  return { t, path };
}

export const testEvent = (t: Tenant, body: Record<string, unknown>) => call("POST", `/admin/v1/apps/${t.appId}/webhooks/test-events`, { token: ADMIN, body: { portalId: t.portalId, ...body } });
export const hold = (t: Tenant, held: boolean) => call("PATCH", `/admin/v1/apps/${t.appId}/webhooks`, { token: ADMIN, body: { held } });

const hex = (b: ArrayBuffer) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, "0")).join("");
const b64 = (b: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(b)));

/**
 * What a receiver does with a POST, written here from the documented rules (not the service's code): v1 is
 * hex SHA-256 of secret + body; v3 base64 HMAC-SHA256, keyed with the secret, of POST + URL + body + timestamp.
 */
export async function expectSigned(d: Delivered, secret: string, path: string) {
  const enc = new TextEncoder();
  expect(d.headers["x-service-signature-version"]).toBe("v1");
  expect(d.headers["x-service-signature"]).toBe(hex(await crypto.subtle.digest("SHA-256", enc.encode(secret + d.body))));
  const timestamp = d.headers["x-service-request-timestamp"]!;
  expect(Math.abs(Date.now() - Number(timestamp))).toBeLessThan(5 * 60_000);
  const key = await crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const v3 = b64(await crypto.subtle.sign("HMAC", key, enc.encode(`POST${integratorUrl()}${path}${d.body}${timestamp}`)));
  expect(d.headers["x-service-signature-v3"]).toBe(v3);
}

/** `d1` with every statement it prepares recorded in `seen` (the kit's tests count what a call reads). */
export function recordingD1(d1: D1Database): { db: D1Database; seen: string[] } {
  const seen: string[] = [];
  // Statements prepared in a D1 session (the control plane's replica reads) are recorded as well.
  const recording = <T extends object>(inner: T): T =>
    new Proxy(inner, {
      get(target, prop) {
        if (prop === "prepare") return (sql: string) => (seen.push(sql), (target as unknown as D1Database).prepare(sql));
        if (prop === "withSession") return (constraint?: string) => recording((target as unknown as D1Database).withSession(constraint));
        const v = Reflect.get(target, prop);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
  return { db: recording(d1), seen };
}
