/**
 * @module The operator's account lifecycle (docs/how-to/account-lifecycle.md): suspend and resume, export,
 * delete, and take back or renew credentials (private-app tokens, app secrets, users' sessions and
 * passwords). Authenticated by the ADMIN_TOKEN secret like the rest of `/admin/v1`.
 */
import type { AuthRule } from "../../http/auth";
import { json, noContent } from "../../lib/http";
import { route } from "../../http/route";
import * as creds from "../../services/accounts/credentials";
import { exportAccount } from "../../services/accounts/export";
import { startDeletion } from "../../services/shards/moves";
import { getAccount } from "../../services/shards/directory";
import { setAccountSettings } from "../../services/accounts/tenancy";
import { appParams } from "./apps";
import { accountDetail, portalParams, privateAppResponse } from "../../schemas/accounts/operator";
import * as s from "../../schemas/accounts/lifecycle";

const admin: AuthRule = { kinds: ["admin"] };
const tag = "Operator";

export const adminLifecycleRoutes = [
  route({
    method: "PATCH",
    path: "/admin/v1/accounts/:portalId",
    summary: "Suspend or resume an account (while suspended, every credential of the account gets 403), or set its time zone, currencies and type",
    tag,
    auth: admin,
    params: portalParams,
    body: s.statusBody,
    responses: {
      200: { description: "The account as it now is", schema: accountDetail },
      409: { description: "The account is being deleted" },
    },
    handler: async ({ db, params, body }) => {
      const { status, ...settings } = body;
      await setAccountSettings(db, params.portalId, settings);
      if (status !== undefined) await creds.setAccountStatus(db, params.portalId, status);
      return json(await getAccount(db, params.portalId));
    },
  }),
  route({
    method: "DELETE",
    path: "/admin/v1/accounts/:portalId",
    summary: "Delete an account and all its data; the deletion runs by itself (GET the account to follow it, until it is a 404)",
    tag,
    auth: admin,
    params: portalParams,
    responses: {
      202: { description: "The deletion has started (or was already running); the account stops answering at once", schema: s.deletionStarted },
      409: { description: "The account is moving between databases" },
    },
    handler: async ({ db, env, params, now }) => json(await startDeletion(env, db, params.portalId, now), 202),
  }),
  route({
    method: "GET",
    path: "/admin/v1/accounts/:portalId/export",
    summary:
      "Export the account's data as NDJSON (application/x-ndjson, streamed): a first line {portalId, exportedAt, format}, then one {table, row} line per row; secrets are left out",
    tag,
    auth: admin,
    params: portalParams,
    responses: {
      200: { description: "The header line, then one {table, row} line per row of every account table (the schema is one line's)", schema: s.exportLine, ndjson: true },
      409: { description: "The account is being deleted, or is moving between databases" },
    },
    handler: async ({ db, env, params, now }) =>
      new Response(await exportAccount(env, db, params.portalId, now), {
        headers: {
          "content-type": "application/x-ndjson",
          "content-disposition": `attachment; filename="account-${params.portalId}.ndjson"`,
          "cache-control": "no-store",
        },
      }),
  }),
  route({
    method: "DELETE",
    path: "/admin/v1/accounts/:portalId/private-apps/:privateAppId",
    summary: "Delete a private app: its token gets 401 from then on",
    tag,
    auth: admin,
    params: s.privateAppParams,
    responses: { 204: { description: "Deleted" } },
    handler: async ({ db, params }) => {
      await creds.deletePrivateApp(db, params.portalId, params.privateAppId);
      return noContent();
    },
  }),
  route({
    method: "POST",
    path: "/admin/v1/accounts/:portalId/private-apps/:privateAppId/rotate",
    summary: "Replace a private app's token: the new one works at once, the old one gets 401",
    tag,
    auth: admin,
    params: s.privateAppParams,
    responses: { 200: { description: "The new token", schema: privateAppResponse } },
    handler: async ({ db, params }) => json(await creds.rotatePrivateApp(db, params.portalId, params.privateAppId)),
  }),
  route({
    method: "POST",
    path: "/admin/v1/apps/:appId/rotate-secret",
    summary:
      "Rotate an app's client secret: the token endpoint accepts the previous one for graceSeconds and the new one at once; outbound request signatures use the new one from this response on",
    tag,
    auth: admin,
    params: appParams,
    body: s.rotateSecretBody,
    responses: {
      200: { description: "The new secret", schema: s.rotatedSecret },
      409: { description: "Another rotation of the same secret happened at the same instant; retry" },
    },
    handler: async ({ db, params, body, now }) => json(await creds.rotateAppSecret(db, params.appId, body.graceSeconds, now)),
  }),
  route({
    method: "DELETE",
    path: "/admin/v1/accounts/:portalId/users/:userId",
    summary: "Delete a user of an account: the user's sessions end",
    tag,
    auth: admin,
    params: s.userParams,
    responses: { 204: { description: "Deleted" } },
    handler: async ({ db, params, now }) => {
      await creds.deleteUser(db, params.portalId, params.userId, now);
      return noContent();
    },
  }),
  route({
    method: "POST",
    path: "/admin/v1/accounts/:portalId/users/:userId/password",
    summary: "Set a user's password; the user's existing sessions end",
    tag,
    auth: admin,
    params: s.userParams,
    body: s.passwordBody,
    responses: { 204: { description: "Set" } },
    handler: async ({ db, params, body }) => {
      await creds.setUserPassword(db, params.portalId, params.userId, body.password);
      return noContent();
    },
  }),
];
