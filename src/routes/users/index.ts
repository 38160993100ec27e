/**
 * @module `/settings/v3/users` (docs/reference/users.md): the account's users, teams and roles. The users
 * are the operator API's and web sign-in's own rows; teams are the operator's; roles are a fixed list.
 * The literal paths (`roles`, `teams`) come before `/:userId`.
 */
import type { AuthRule } from "../../http/auth";
import { portalOf } from "../../http/auth";
import { json, noContent } from "../../lib/http";
import { pageBody } from "../../lib/paging";
import { route } from "../../http/route";
import * as users from "../../services/users/users";
import * as s from "../../schemas/users";

const kinds = ["oauth", "private_app"] as const;
const read: AuthRule = { kinds: [...kinds], scopes: ["settings.users.read"] };
const write: AuthRule = { kinds: [...kinds], scopes: ["settings.users.write"] };
const teamsRead: AuthRule = { kinds: [...kinds], scopes: ["settings.users.teams.read"] };
const tag = "Settings users";
const base = "/settings/v3/users";

export const userRoutes = [
  route({
    method: "GET",
    path: `${base}/roles`,
    summary: "The roles a user can have: a fixed list, the same in every account",
    tag,
    auth: read,
    responses: { 200: { description: "The roles", schema: s.rolesAnswer } },
    handler: () => json({ results: s.ROLES }),
  }),
  route({
    method: "GET",
    path: `${base}/teams`,
    summary: "The account's teams with their members (userIds: primary members; secondaryUserIds: the others)",
    tag,
    auth: teamsRead,
    responses: { 200: { description: "The teams", schema: s.teamsAnswer } },
    handler: async ({ control, principal }) => json({ results: await users.listTeams(control, portalOf(principal)) }),
  }),
  route({
    method: "GET",
    path: base,
    summary: "List the account's users, paged by user id",
    tag,
    auth: read,
    query: s.usersQuery,
    responses: { 200: { description: "A page of users", schema: s.userPage } },
    handler: async ({ control, principal, query, url }) => {
      const page = await users.listUsers(control, portalOf(principal), query);
      return json(pageBody(page.results, page.next, url));
    },
  }),
  route({
    method: "POST",
    path: base,
    summary: "Add a user to the account (it becomes an owner too); it signs in once the operator sets its password",
    tag,
    auth: write,
    body: s.provisionBody,
    responses: {
      201: { description: "The user", schema: s.publicUser },
      409: { description: "A user with that email exists in the account, or the account is being deleted" },
    },
    handler: async ({ control, principal, body }) => json(await users.provisionUser(control, portalOf(principal), body), 201),
  }),
  route({
    method: "GET",
    path: `${base}/:userId`,
    summary: "Read a user by id, or by email with idProperty=EMAIL",
    tag,
    auth: read,
    params: s.userParams,
    query: s.userIdQuery,
    responses: { 200: { description: "The user", schema: s.publicUser } },
    handler: async ({ control, principal, params, query }) => json(await users.getUser(control, portalOf(principal), params.userId, query.idProperty)),
  }),
  route({
    method: "PUT",
    path: `${base}/:userId`,
    summary: "Change a user's names, role and teams; its owner shows them at once",
    tag,
    auth: write,
    params: s.userParams,
    query: s.userIdQuery,
    body: s.updateBody,
    responses: { 200: { description: "The user", schema: s.publicUser } },
    handler: async ({ control, principal, params, query, body, now }) =>
      json(await users.updateUser(control, portalOf(principal), params.userId, query.idProperty, body, now)),
  }),
  route({
    method: "DELETE",
    path: `${base}/:userId`,
    summary: "Remove a user: its sessions end and its owner is archived (records keep naming it)",
    tag,
    auth: write,
    params: s.userParams,
    query: s.userIdQuery,
    responses: { 204: { description: "Removed" } },
    handler: async ({ control, principal, params, query, now }) => {
      await users.removeUser(control, portalOf(principal), params.userId, query.idProperty, now);
      return noContent();
    },
  }),
];
