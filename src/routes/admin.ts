/** @module The operator API `/admin/v1/...` (issue 2 §4), authenticated by the ADMIN_TOKEN secret. */
import type { AuthRule } from "../lib/auth";
import { json, noContent } from "../lib/http";
import { route } from "../lib/route";
import * as tenancy from "../services/tenancy";
import * as s from "./admin.schemas";

const admin: AuthRule = { kinds: ["admin"] };
const tag = "Operator";

export const adminRoutes = [
  route({
    method: "POST",
    path: "/admin/v1/accounts",
    summary: "Create an account (portal)",
    tag,
    auth: admin,
    body: s.createAccountBody,
    responses: { 201: { description: "Created", schema: s.accountResponse } },
    handler: async ({ db, body }) => json(await tenancy.createAccount(db, body), 201),
  }),
  route({
    method: "POST",
    path: "/admin/v1/apps",
    summary: "Create a developer app with OAuth credentials and a developer key",
    tag,
    auth: admin,
    body: s.createAppBody,
    responses: { 201: { description: "Created", schema: s.appResponse } },
    handler: async ({ db, body }) => json(await tenancy.createApp(db, body), 201),
  }),
  route({
    method: "POST",
    path: "/admin/v1/accounts/:portalId/private-apps",
    summary: "Create a private app and its token",
    tag,
    auth: admin,
    params: s.portalParams,
    body: s.createPrivateAppBody,
    responses: { 201: { description: "Created", schema: s.privateAppResponse } },
    handler: async ({ db, params, body }) => {
      const { token } = await tenancy.createPrivateApp(db, params.portalId, body);
      return json({ token }, 201);
    },
  }),
  route({
    method: "POST",
    path: "/admin/v1/accounts/:portalId/installs",
    summary: "Install an app into an account (what completing OAuth consent gives)",
    tag,
    auth: admin,
    params: s.portalParams,
    body: s.createInstallBody,
    responses: { 201: { description: "Installed", schema: s.tokenResponse } },
    handler: async ({ db, params, body, now }) =>
      json(await tenancy.installApp(db, params.portalId, body.appId, body.scopes, null, now), 201),
  }),
  route({
    method: "DELETE",
    path: "/admin/v1/accounts/:portalId/installs/:appId",
    summary: "Uninstall an app: revokes its tokens and deletes what it created",
    tag,
    auth: admin,
    params: s.installParams,
    responses: { 204: { description: "Uninstalled" } },
    handler: async ({ db, params, now }) => {
      await tenancy.uninstallApp(db, params.portalId, params.appId, now);
      return noContent();
    },
  }),
  route({
    method: "POST",
    path: "/admin/v1/accounts/:portalId/users",
    summary: "Create a user of an account",
    tag,
    auth: admin,
    params: s.portalParams,
    body: s.createUserBody,
    responses: { 201: { description: "Created", schema: s.userResponse } },
    handler: async ({ db, params, body }) => json(await tenancy.createUser(db, params.portalId, body), 201),
  }),
];
