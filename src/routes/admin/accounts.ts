/** @module The operator API `/admin/v1/...`, authenticated by the ADMIN_TOKEN secret. */
import type { AuthRule } from "../../http/auth";
import { json, noContent } from "../../lib/http";
import { route } from "../../http/route";
import { CONTROL_SHARD } from "../../db/shards";
import { startCompanionMove, startMove } from "../../services/shards/moves";
import { getAccount, listAccounts, listShards, requireShardName } from "../../services/shards/directory";
import { setShardOpen } from "../../services/shards/placement";
import * as tenancy from "../../services/accounts/tenancy";
import * as s from "../../schemas/accounts/operator";

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
    handler: async ({ db, env, body }) => {
      if (body.shard !== undefined) requireShardName(env, body.shard);
      return json(await tenancy.createAccount(env, db, body), 201);
    },
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
      return json(await tenancy.createPrivateApp(db, params.portalId, body), 201);
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
    handler: async ({ db, env, params, now }) => {
      await tenancy.uninstallApp(env, db, params.portalId, params.appId, now);
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
  route({
    method: "GET",
    path: "/admin/v1/shards",
    summary: "The shard databases with their account counts, sizes, load, availability, whether they take new accounts and, on request, an id check",
    tag,
    auth: admin,
    query: s.shardsQuery,
    responses: { 200: { description: "Shards", schema: s.shardList } },
    handler: async ({ db, env, query }) => json(await listShards(env, db, query.check === "ids")),
  }),
  route({
    method: "PATCH",
    path: "/admin/v1/shards/:name",
    summary: "Close a shard to new accounts, or reopen it; the accounts already on it stay and keep working",
    tag,
    auth: admin,
    params: s.shardParams,
    body: s.shardPatchBody,
    responses: { 200: { description: "The shard's placement state", schema: s.shardPlacementState } },
    handler: async ({ db, env, params, body, now }) => json(await setShardOpen(env, db, params.name, body.open, now)),
  }),
  route({
    method: "GET",
    path: "/admin/v1/accounts",
    summary: "List accounts with their shard, paged by portalId",
    tag,
    auth: admin,
    query: s.accountsQuery,
    responses: { 200: { description: "A page of accounts", schema: s.accountList } },
    handler: async ({ db, env, query }) => {
      if (query.shard !== undefined && query.shard !== CONTROL_SHARD) requireShardName(env, query.shard, "query");
      return json(await listAccounts(db, query));
    },
  }),
  route({
    method: "GET",
    path: "/admin/v1/accounts/:portalId",
    summary: "An account with its shard, and the state of its move while one runs",
    tag,
    auth: admin,
    params: s.portalParams,
    responses: { 200: { description: "The account", schema: s.accountDetail } },
    handler: async ({ db, params }) => json(await getAccount(db, params.portalId)),
  }),
  route({
    method: "POST",
    path: "/admin/v1/accounts/:portalId/move",
    summary: "Move an account to another shard; the move runs by itself (GET the account to follow it)",
    tag,
    auth: admin,
    params: s.portalParams,
    body: s.moveBody,
    responses: {
      202: { description: "The move has started", schema: s.moveStarted },
      409: { description: "The account is already on that shard, the shard holds its companion tables, or a move of it is running" },
    },
    handler: async ({ db, env, params, body, now }) => json(await startMove(env, db, params.portalId, body.shard, now), 202),
  }),
  route({
    method: "POST",
    path: "/admin/v1/accounts/:portalId/companion",
    summary:
      "Place the account's timeline events on a companion shard beside its shard (or move them to another one); runs by itself like a move (GET the account to follow it)",
    tag,
    auth: admin,
    params: s.portalParams,
    body: s.moveBody,
    responses: {
      202: { description: "The companion move has started", schema: s.moveStarted },
      409: { description: "The companion tables are already there, the shard is the account's own, or a move of it is running" },
    },
    handler: async ({ db, env, params, body, now }) => json(await startCompanionMove(env, db, params.portalId, body.shard, now), 202),
  }),
];
