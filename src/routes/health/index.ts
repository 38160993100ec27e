/**
 * @module `GET /healthz`: a liveness probe for load balancers and uptime checks. Public, no body, no D1 or
 * Durable Object call: it answers whenever the Worker runs. It goes through the same router as every
 * route (correlation id, error envelope), which also makes it the no-op baseline of `npm run bench`.
 */
import { noContent } from "../../lib/http";
import { route } from "../../http/route";

export const healthRoutes = [
  route({
    method: "GET",
    path: "/healthz",
    summary: "Liveness probe (204, no body)",
    tag: "Meta",
    auth: { kinds: [] },
    responses: { 204: { description: "The Worker is running" } },
    handler: async () => noContent({ "cache-control": "no-store" }),
  }),
];
