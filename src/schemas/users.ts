/**
 * @module zod schemas of `/settings/v3/users` (docs/reference/users.md), in the shapes @hubspot/api-client's
 * settings/users models (PublicUser, UserProvisionRequest, PublicUserUpdate, PublicTeam, PublicPermissionSet)
 * send and parse.
 */
import { z } from "zod";
import { afterCursor, pagingSchema } from "../lib/paging";

/**
 * The built-in roles. crm-edge keeps no per-user permissions (a user's credential is what it may do), so a
 * role is a label an integration can read and set; the list is fixed and the same in every account.
 */
export const ROLES = [
  { id: "100001", name: "Admin", requiresBillingWrite: true },
  { id: "100002", name: "Sales", requiresBillingWrite: false },
  { id: "100003", name: "Service", requiresBillingWrite: false },
  { id: "100004", name: "Marketing", requiresBillingWrite: false },
  { id: "100005", name: "View only", requiresBillingWrite: false },
] as const;
export const ROLE_IDS = ROLES.map((r) => r.id) as [string, ...string[]];

export const USERS_PAGE_MAX = 100;
/** Names as the owners API answers them; the real service allows about this much. */
const name = z.string().max(100);
const teamId = z.string().regex(/^\d{1,15}$/, "a team id is a number: one of GET /settings/v3/users/teams").transform(Number);
const roleId = z.enum(ROLE_IDS, { error: `roleId must be one of ${ROLE_IDS.join(", ")} (GET /settings/v3/users/roles)` });

export const usersQuery = z.object({
  limit: z.coerce.number().int().min(1).max(USERS_PAGE_MAX).default(100),
  after: afterCursor,
});

/** A user id, or an email with idProperty=EMAIL; percent-decoded (an email's `@` comes encoded). */
export const userParams = z.object({
  userId: z
    .string()
    .min(1)
    .max(800)
    .transform((raw, ctx) => {
      try {
        return decodeURIComponent(raw);
      } catch {
        ctx.addIssue({ code: "custom", message: "userId is not a valid percent-encoded string" });
        return z.NEVER;
      }
    })
    .pipe(z.string().max(254)),
});
export const userIdQuery = z.object({
  idProperty: z.enum(["USER_ID", "EMAIL"]).default("USER_ID").meta({ description: "USER_ID (default): userId is the user's id; EMAIL: it is the user's email" }),
});

export const provisionBody = z.object({
  email: z.email().max(254),
  firstName: name.optional(),
  lastName: name.optional(),
  roleId: roleId.optional(),
  primaryTeamId: teamId.optional(),
  secondaryTeamIds: z.array(teamId).max(100).optional(),
  sendWelcomeEmail: z.boolean().optional().meta({ description: "Accepted; no welcome mail is sent (the operator sets the password)" }),
});

export const updateBody = z.object({
  firstName: name.optional(),
  lastName: name.optional(),
  roleId: roleId.optional(),
  primaryTeamId: teamId.optional(),
  secondaryTeamIds: z.array(teamId).max(100).optional(),
});

export const publicUser = z.object({
  id: z.string(),
  email: z.string(),
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  roleId: z.string().optional(),
  roleIds: z.array(z.string()),
  primaryTeamId: z.string().optional(),
  secondaryTeamIds: z.array(z.string()),
  superAdmin: z.boolean().meta({ description: "true for the Admin role" }),
});
export const userPage = z.object({ results: z.array(publicUser), paging: pagingSchema });

export const rolesAnswer = z.object({ results: z.array(z.object({ id: z.string(), name: z.string(), requiresBillingWrite: z.boolean() })) });
export const teamsAnswer = z.object({
  results: z.array(z.object({ id: z.string(), name: z.string(), userIds: z.array(z.string()), secondaryUserIds: z.array(z.string()) })),
});

export type PublicUser = z.infer<typeof publicUser>;
export type ProvisionInput = z.output<typeof provisionBody>;
export type UpdateInput = z.output<typeof updateBody>;
