/**
 * @module The import webhook (docs/reference/ecomm.md): the service asks the integrator to start an
 * import of an account's data into a store by POSTing to the settings' webhookUri.
 *
 * Imports exist only for OAuth apps, as in the real service: the request is signed with the app's client secret
 * (X-Service-Signature v2 and v3, like card requests) and sent only when the app's settings carry a
 * webhookUri. Account-level settings (private apps) have no app secret to sign with, so they never send
 * it. It goes out through the outbound guard only (10 s, 1 MB, no redirects), and its outcome is recorded
 * in ecomm_imports; an integrator that is down never fails the request that triggered it.
 *
 * Payload (our design; the real one was never published):
 *   {"portalId":12,"appId":5,"storeId":"shop","importStartedAt":1700000000000,"trigger":"STORE_CREATED",
 *    "objectTypes":["CONTACT","PRODUCT","DEAL","LINE_ITEM"]}
 * The integrator may answer with record counts per object type, e.g. {"CONTACT":120,"DEAL":45}; they are kept.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { newId } from "../../db/id-ranges";
import { apps } from "../../db/tables/tenancy";
import { ECOMM_OBJECT_TYPES, ecommImports } from "../../db/tables/ecomm";
import { checkOutboundUrl, guardedFetch, loopbackAllowed, OutboundError, outboundResolver } from "../../lib/outbound";
import { signatureHeaders } from "../../lib/signature";
import { getSettings } from "./settings";

export const IMPORT_TIMEOUT_MS = 10_000;
export const IMPORT_MAX_BYTES = 1_000_000;

export interface ImportTrigger {
  portalId: number;
  appId: number;
  storeId: string;
  trigger: "STORE_CREATED" | "REQUESTED";
}

export type ImportRow = typeof ecommImports.$inferSelect;

/** The app's webhookUri, or null when the app has none (then no import is sent). */
export async function importWebhookUri(db: Db, appId: number): Promise<string | null> {
  return (await getSettings(db, { kind: "app", id: appId }))?.webhookUri ?? null;
}

function countsOf(text: string): Record<string, number> | null {
  try {
    const parsed: unknown = JSON.parse(text);
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return null;
    const counts = Object.fromEntries(
      Object.entries(parsed).filter(([k, v]) => (ECOMM_OBJECT_TYPES as readonly string[]).includes(k) && Number.isSafeInteger(v) && (v as number) >= 0),
    ) as Record<string, number>;
    return Object.keys(counts).length ? counts : null;
  } catch {
    return null;
  }
}

/** Sends the import request to `webhookUri` and records the outcome. Never throws for integrator failures. */
export async function sendImport(db: Db, control: Db, env: Env, t: ImportTrigger, webhookUri: string, now: number): Promise<ImportRow> {
  const body = JSON.stringify({ portalId: t.portalId, appId: t.appId, storeId: t.storeId, importStartedAt: now, trigger: t.trigger, objectTypes: ECOMM_OBJECT_TYPES });
  let outcome: ImportRow["outcome"] = "FAILED";
  let httpStatus: number | null = null;
  let detail: string | null = null;
  let counts: Record<string, number> | null = null;
  try {
    const app = await control.select({ secret: apps.clientSecret }).from(apps).where(eq(apps.appId, t.appId)).get();
    if (!app) throw new OutboundError("blocked", `app ${t.appId} no longer exists`);
    const allowLoopback = loopbackAllowed(env);
    const url = checkOutboundUrl(webhookUri, allowLoopback).toString(); // sign exactly what is sent
    // Signed in real time: the integrator checks the timestamp against its own clock (`importStartedAt` is the account's time).
    const headers = { "content-type": "application/json", ...(await signatureHeaders(app.secret, "POST", url, body, Date.now())) };
    const res = await guardedFetch({ method: "POST", url, headers, body }, { allowLoopback, resolver: outboundResolver(env), timeoutMs: IMPORT_TIMEOUT_MS, maxBytes: IMPORT_MAX_BYTES, maxRedirects: 0 });
    httpStatus = res.status;
    if (res.status >= 200 && res.status < 300) {
      outcome = "DELIVERED";
      counts = countsOf(res.text);
    } else {
      outcome = "REJECTED";
      detail = `the integrator answered ${res.status}`;
    }
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    detail = `${err.kind}: ${err.message}`;
  }
  return db
    .insert(ecommImports)
    .values({ id: newId("ecomm_imports"), portalId: t.portalId, appId: t.appId, storeId: t.storeId, importStartedAt: now, trigger: t.trigger, outcome, httpStatus, detail, counts, createdAt: now })
    .returning()
    .get();
}

export const presentImport = (row: ImportRow) => ({
  storeId: row.storeId,
  importStartedAt: row.importStartedAt,
  outcome: row.outcome,
  httpStatus: row.httpStatus,
  detail: row.detail,
  counts: row.counts,
});
