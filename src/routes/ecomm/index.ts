/**
 * @module The ecommerce bridge `/extensions/ecomm/v2` (docs/reference/ecomm.md). Retired in the real
 * service (no new developers from 14 July 2022, sunset on 1 December 2022) but kept working: every
 * response, errors included, carries Deprecation and Sunset.
 */
import type { z } from "zod";
import type { AuthRule } from "../../http/auth";
import { installOf, portalOf } from "../../http/auth";
import { requireOwnApp } from "../../lib/principal";
import { badRequest, notFound } from "../../lib/errors";
import { json, noContent } from "../../lib/http";
import { loopbackAllowed } from "../../lib/outbound";
import { route, type RouteDef } from "../../http/route";
import { buildQueueMessages, enqueue } from "../../services/ecomm/enqueue";
import { importWebhookUri, presentImport, sendImport } from "../../services/ecomm/import-webhook";
import { importEnd, importPage } from "../../services/ecomm/imports";
import { SUNSET_HEADERS } from "../../services/ecomm/model";
import { deleteSettings, presentSettings, putSettings, requireSettings, settingsDb, settingsOwnerFor } from "../../services/ecomm/settings";
import { listAppErrors } from "../../services/ecomm/app-errors";
import { listErrors, syncStatus } from "../../services/ecomm/status";
import { deleteStore, listStores, presentStore, requireStore, upsertStore } from "../../services/ecomm/stores";
import * as s from "../../schemas/ecomm";
import { syncQueueFor } from "../../services/ecomm/sync-queues";
import type { Principal } from "../../lib/principal";

const BASE = "/extensions/ecomm/v2";

/** The account's shard, which account credentials carry. */
const shardOf = (p: Principal) => ("shard" in p ? p.shard : null);
const account: AuthRule = { kinds: ["oauth", "private_app"], scopes: ["integration-sync"] };
/** Settings are app-level (developer key + appId) or account-level (the account's token, no appId). */
const settingsAuth: AuthRule = { kinds: ["developer", "oauth", "private_app"], scopes: ["integration-sync"] };
/** Only an install knows both an app and an account (the real `/sync/errors` takes an OAuth token). */
const install: AuthRule = { kinds: ["oauth"], scopes: ["integration-sync"] };
/**
 * `/sync/errors/app/{appId}`: the API's authentication rules say app errors were "originally defined with a
 * developer key in `hapikey`; current use is a private app token or OAuth", and the endpoint's own
 * documentation still describes the developer key, so both are accepted. The developer key sees every error
 * of its app; an install's OAuth token only its own account's (`installOf`, as on `/sync/errors`), so an
 * app's token for one customer never reads another customer's errors. Scope `integration-sync`, as on the
 * rest of the bridge (the real service's scope for the bridge; `e-commerce` covers products and line items,
 * not the bridge). Private-app tokens stay refused (403): a private app belongs to one account and has no
 * link to a developer app id, so nothing ties it to the `{appId}` of the path.
 */
const appOrInstall: AuthRule = { kinds: ["developer", ...install.kinds], scopes: install.scopes };

/** A bridge route: the common tag and the sunset headers (the bridge is sunset in the real service). */
function bridge<PS extends z.ZodType, QS extends z.ZodType, BS extends z.ZodType>(
  def: Omit<RouteDef<PS, QS, BS>, "tag" | "responseHeaders">,
): RouteDef {
  return route<PS, QS, BS>({ ...def, tag: "Ecommerce bridge (sunset)", responseHeaders: SUNSET_HEADERS });
}

/** 200 messages of up to 128 KB each could exceed any sane body; 8 MiB covers real batches. */
const SYNC_MAX_BODY = 8 * 1024 * 1024;

export const ecommRoutes = [
  bridge({
    method: "PUT",
    path: `${BASE}/settings`,
    summary: "Create or replace ecommerce settings (app-level with ?appId= and the developer key, or account-level)",
    auth: settingsAuth,
    query: s.settingsQuery,
    body: s.settingsBody,
    responses: { 200: { description: "The stored settings", schema: s.settingsResponse } },
    handler: async ({ db, control, env, principal, query, body, now }) => {
      const owner = settingsOwnerFor(principal, query.appId, true);
      return json(presentSettings(await putSettings(settingsDb(owner, db, control), owner, body, loopbackAllowed(env), now)));
    },
  }),
  bridge({
    method: "GET",
    path: `${BASE}/settings`,
    summary: "Read ecommerce settings",
    auth: settingsAuth,
    query: s.settingsQuery,
    responses: { 200: { description: "The settings", schema: s.settingsResponse } },
    handler: async ({ db, control, principal, query }) => {
      const owner = settingsOwnerFor(principal, query.appId, false);
      return json(presentSettings(await requireSettings(settingsDb(owner, db, control), owner)));
    },
  }),
  bridge({
    method: "DELETE",
    path: `${BASE}/settings`,
    summary: "Delete ecommerce settings (syncs then fail with NO_SYNC_SETTINGS)",
    auth: settingsAuth,
    query: s.settingsQuery,
    responses: { 204: { description: "Deleted" } },
    handler: async ({ db, control, principal, query }) => {
      const owner = settingsOwnerFor(principal, query.appId, true);
      await deleteSettings(settingsDb(owner, db, control), owner);
      return noContent();
    },
  }),
  bridge({
    method: "PUT",
    path: `${BASE}/stores`,
    summary: "Create or update a store; the account's first store sets up the ecommerce pipeline",
    auth: account,
    body: s.storeBody,
    responses: { 200: { description: "The stored store", schema: s.storeResponse } },
    handler: async ({ db, control, env, exec, principal, body, now }) => {
      const portalId = portalOf(principal);
      const appId = principal.kind === "oauth" ? principal.appId : null;
      const { store, created } = await upsertStore(db, portalId, appId, body, now);
      if (created && appId !== null) {
        const uri = await importWebhookUri(control, appId);
        if (uri) {
          // Not awaited: the integrator's answer (up to 10 s) must not delay or fail the store's creation.
          const sent = sendImport(db, control, env, { portalId, appId, storeId: store.storeId, trigger: "STORE_CREATED" }, uri, now);
          exec.waitUntil(sent.catch((err: unknown) => console.error(`import webhook for store ${store.storeId} failed: ${String(err)}`)));
        }
      }
      return json(presentStore(store));
    },
  }),
  bridge({
    method: "GET",
    path: `${BASE}/stores`,
    summary: "List the account's stores",
    auth: account,
    responses: { 200: { description: "The stores", schema: s.storeListResponse } },
    handler: async ({ db, principal }) => json({ results: (await listStores(db, portalOf(principal))).map(presentStore) }),
  }),
  bridge({
    method: "GET",
    path: `${BASE}/stores/:storeId`,
    summary: "Read a store",
    auth: account,
    params: s.storeParams,
    responses: { 200: { description: "The store", schema: s.storeResponse } },
    handler: async ({ db, principal, params }) => json(presentStore(await requireStore(db, portalOf(principal), params.storeId))),
  }),
  bridge({
    method: "DELETE",
    path: `${BASE}/stores/:storeId`,
    summary: "Delete a store and its sync state (the CRM records stay)",
    auth: account,
    params: s.storeParams,
    responses: { 204: { description: "Deleted" } },
    handler: async ({ db, principal, params }) => {
      await deleteStore(db, portalOf(principal), params.storeId);
      return noContent();
    },
  }),
  bridge({
    method: "POST",
    path: `${BASE}/stores/:storeId/import`,
    summary: "Ask the integrator to import the store's data (sends the signed import webhook; OAuth apps only)",
    auth: install,
    params: s.storeParams,
    responses: { 200: { description: "The outcome of the webhook call", schema: s.importResponse } },
    handler: async ({ db, control, env, principal, params, now }) => {
      const { portalId, appId } = installOf(principal);
      const store = await requireStore(db, portalId, params.storeId);
      const uri = await importWebhookUri(control, appId);
      if (!uri) throw badRequest(`App ${appId} has no webhookUri in its ecommerce settings`);
      const row = await sendImport(db, control, env, { portalId, appId, storeId: store.storeId, trigger: "REQUESTED" }, uri, now);
      return json(presentImport(row));
    },
  }),
  bridge({
    method: "POST",
    path: `${BASE}/imports/page`,
    summary: "One page of an import the app was asked for: queued like sync messages (204; OAuth apps only)",
    auth: install,
    body: s.importPageBody,
    maxBodyBytes: SYNC_MAX_BODY,
    responses: { 204: { description: "Queued" } },
    handler: async ({ db, env, principal, body, now, correlationId }) => {
      await importPage(db, syncQueueFor(env, shardOf(principal)), installOf(principal), body, correlationId, now);
      return noContent();
    },
  }),
  bridge({
    method: "POST",
    path: `${BASE}/imports/end`,
    summary: "The end of one object type of an import, with the integrator's page and item counts (204; OAuth apps only)",
    auth: install,
    body: s.importEndBody,
    responses: { 204: { description: "Recorded" } },
    handler: async ({ db, principal, body, now }) => {
      await importEnd(db, installOf(principal), body, now);
      return noContent();
    },
  }),
  bridge({
    method: "PUT",
    path: `${BASE}/sync/messages`,
    summary: "Queue up to 200 sync messages of one object type for a store (204: queued, not applied)",
    auth: account,
    body: s.syncBody,
    maxBodyBytes: SYNC_MAX_BODY,
    responses: { 204: { description: "Queued" } },
    handler: async ({ db, env, principal, body, now, correlationId }) => {
      const batch = await buildQueueMessages(db, {
        portalId: portalOf(principal),
        appId: principal.kind === "oauth" ? principal.appId : null,
        requestId: correlationId,
        receivedAt: now,
        body,
      });
      // The queue of the account's shard group (sync-queues.ts).
      await enqueue(db, syncQueueFor(env, shardOf(principal)), batch);
      return noContent();
    },
  }),
  bridge({
    method: "GET",
    path: `${BASE}/sync/status/:storeId/:objectType/:externalObjectId`,
    summary: "Sync status of one external object",
    auth: account,
    params: s.statusParams,
    responses: { 200: { description: "The status", schema: s.statusResponse } },
    handler: async ({ db, principal, params }) =>
      json(await syncStatus(db, portalOf(principal), params.storeId, params.objectType, params.externalObjectId)),
  }),
  bridge({
    method: "GET",
    path: `${BASE}/sync/errors`,
    summary: "Sync errors of the token's app in the token's account, newest first (OAuth only)",
    auth: install,
    query: s.errorsQuery,
    responses: { 200: { description: "A page of errors", schema: s.errorsListResponse } },
    handler: async ({ db, principal, query, url }) => json(await listErrors(db, installOf(principal), query, url)),
  }),
  bridge({
    method: "GET",
    path: `${BASE}/sync/errors/portal`,
    summary: "Sync errors of the caller's account, newest first",
    auth: account,
    query: s.errorsQuery,
    responses: { 200: { description: "A page of errors", schema: s.errorsListResponse } },
    handler: async ({ db, principal, query, url }) => json(await listErrors(db, { portalId: portalOf(principal) }, query, url)),
  }),
  bridge({
    method: "GET",
    path: `${BASE}/sync/errors/portal/:portalId`,
    summary: "Sync errors of an account (the caller's own), newest first",
    auth: account,
    params: s.portalParams,
    query: s.errorsQuery,
    responses: { 200: { description: "A page of errors", schema: s.errorsListResponse } },
    handler: async ({ db, principal, params, query, url }) => {
      if (params.portalId !== portalOf(principal)) throw notFound(`Account ${params.portalId} not found`);
      return json(await listErrors(db, { portalId: params.portalId }, query, url));
    },
  }),
  bridge({
    method: "GET",
    path: `${BASE}/sync/errors/app/:appId`,
    summary:
      "Sync errors of syncs governed by the app's settings, newest first: all of them with the app's developer key, the token's account's with an OAuth token of the app",
    auth: appOrInstall,
    params: s.appParams,
    query: s.appErrorsQuery,
    responses: { 200: { description: "A page of errors", schema: s.errorsListResponse } },
    handler: async ({ db, control, env, principal, params, query, url }) => {
      requireOwnApp(principal, params.appId);
      // The developer key sees every install's errors: the shards of the app's installs, a window of them
      // per request.
      if (principal.kind === "developer") return json(await listAppErrors(env, control, params.appId, query, url));
      return json(await listErrors(db, installOf(principal), query, url));
    },
  }),
];
