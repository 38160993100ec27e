/**
 * @module `GET /admin/v1/accounts/{portalId}/usage`: an account's usage from the service's own
 * data, for operators (ADMIN_TOKEN). Traffic figures (requests, errors, latency) are in Workers Analytics
 * Engine instead: docs/reference/operations.md.
 */
import { z } from "zod";
import { OBJECT_TYPES } from "../../db/tables/crm";
import type { AuthRule } from "../../http/auth";
import { json } from "../../lib/http";
import { route } from "../../http/route";
import { accountUsage } from "../../services/accounts/usage";
import { portalParams } from "../../schemas/accounts/operator";

const admin: AuthRule = { kinds: ["admin"] };

const counts = <K extends string>(keys: readonly K[]) => z.object(Object.fromEntries(keys.map((k) => [k, z.number().int()])) as Record<K, z.ZodNumber>);
const usageResponse = z.object({
  portalId: z.number().int(),
  name: z.string(),
  records: counts(OBJECT_TYPES).meta({ description: "Live (not archived) records per object type" }),
  stores: z.number().int(),
  syncMessages: counts(["pending", "errored", "resolvedErrors"]).meta({
    description: "pending: accepted objects not processed yet; errored: objects whose latest sync error is open",
  }),
  timelineEvents: z.number().int(),
  /** Webhook deliveries of the account's events in its delivery log (docs/reference/webhooks.md "The delivery log"). */
  webhookDeliveries: z.number().int(),
  blogPosts: counts(["total", "published", "scheduled", "drafts"]),
  rateLimit: z.object({
    policyName: z.string(),
    intervalMilliseconds: z.number().int(),
    maxRequests: z.number().int(),
    isDefault: z.boolean(),
    appliesTo: z.string(),
  }),
});

export const adminUsageRoutes = [
  route({
    method: "GET",
    path: "/admin/v1/accounts/:portalId/usage",
    summary: "An account's records, stores, sync backlog and errors, timeline events, blog posts and rate limit",
    tag: "Operator",
    auth: admin,
    params: portalParams,
    responses: { 200: { description: "The account's usage", schema: usageResponse }, 404: { description: "No such account" } },
    handler: async ({ control, openShard, params }) => json(await accountUsage(control, openShard, params.portalId)),
  }),
];
