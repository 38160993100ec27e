/**
 * @module zod schemas of `/crm/v3/owners` (docs/reference/owners.md), in the shapes @hubspot/api-client's
 * crm/owners models (PublicOwner, PublicTeam, CollectionResponsePublicOwnerForwardPaging) parse.
 */
import { z } from "zod";
import { afterCursor, booleanQuery, pagingSchema } from "../lib/paging";

export const OWNERS_PAGE_MAX = 500;

export const ownersQuery = z.object({
  email: z.string().max(254).optional().meta({ description: "Only the owner with this email (any case)" }),
  after: afterCursor,
  limit: z.coerce.number().int().min(1).max(OWNERS_PAGE_MAX).default(100),
  archived: booleanQuery("archived").default(false).meta({ description: "true: only archived owners (their users were deleted); false (default): only live ones" }),
});

export const ownerParams = z.object({
  ownerId: z.string().regex(/^\d{1,15}$/, "ownerId must be a number").transform(Number),
});

export const ownerQuery = z.object({
  idProperty: z.enum(["id", "userId"]).default("id").meta({ description: "id (default): ownerId is an owner id; userId: it is the owner's user id" }),
  archived: booleanQuery("archived").default(false).meta({ description: "true: find the owner among the archived ones; false (default): among the live ones" }),
});

export const ownerTeam = z.object({ id: z.string(), name: z.string(), primary: z.boolean() });

export const publicOwner = z.object({
  id: z.string().meta({ description: "The owner id: what hubspot_owner_id holds (never the user id)" }),
  email: z.string(),
  type: z.literal("PERSON"),
  firstName: z.string(),
  lastName: z.string(),
  userId: z.number().int().optional().meta({ description: "The user's id; left out once the user is deleted (archived owner)" }),
  userIdIncludingInactive: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  archived: z.boolean(),
  teams: z.array(ownerTeam).optional().meta({ description: "The user's teams, the primary one first; left out when none" }),
});

export const ownerPage = z.object({ results: z.array(publicOwner), paging: pagingSchema });

export type PublicOwner = z.infer<typeof publicOwner>;
