/**
 * @module The operator's teams of an account (docs/reference/accounts.md, "Teams"): only the operator makes
 * and removes them; the settings users API puts users in them and lists them.
 */
import { z } from "zod";
import type { AuthRule } from "../../http/auth";
import { json, noContent } from "../../lib/http";
import { route } from "../../http/route";
import { createTeam, deleteTeam } from "../../services/users/users";
import { portalParams } from "../../schemas/accounts/operator";

const admin: AuthRule = { kinds: ["admin"] };
const tag = "Operator";

/** Text a person reads: no control characters, no lone UTF-16 surrogates (D1 cannot store those as text). */
const readable = (s: string) => encodeURIComponentSafe(s) && ![...s].some((c) => c < " " || c === "\u007f");

/** False for a string with a lone surrogate (encodeURIComponent throws on one). */
function encodeURIComponentSafe(s: string): boolean {
  try {
    encodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
}
const teamBody = z.object({ name: z.string().trim().min(1).max(100).refine(readable, "name must be text without control characters") });
const teamResponse = z.object({ teamId: z.number().int(), name: z.string() });
const teamParams = portalParams.extend({ teamId: z.coerce.number().int().positive() });

export const adminTeamRoutes = [
  route({
    method: "POST",
    path: "/admin/v1/accounts/:portalId/teams",
    summary: "Create a team in an account; users join it through PUT /settings/v3/users/{userId}",
    tag,
    auth: admin,
    params: portalParams,
    body: teamBody,
    responses: {
      201: { description: "Created", schema: teamResponse },
      409: { description: "A team of that name exists in the account, the account has 500 teams, or it is being deleted" },
    },
    handler: async ({ db, params, body }) => json(await createTeam(db, params.portalId, body.name), 201),
  }),
  route({
    method: "DELETE",
    path: "/admin/v1/accounts/:portalId/teams/:teamId",
    summary: "Delete a team: its members leave it",
    tag,
    auth: admin,
    params: teamParams,
    responses: { 204: { description: "Deleted" }, 409: { description: "The account is being deleted" } },
    handler: async ({ db, params, now }) => {
      await deleteTeam(db, params.portalId, params.teamId, now);
      return noContent();
    },
  }),
];
