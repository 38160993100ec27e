/**
 * @module `GET /openapi.json`: an OpenAPI 3.1 document generated from the route table's zod schemas
 * (issue 2 §7). zod-openapi was chosen over chanfana because chanfana wants to own routing and the
 * handler classes; zod-openapi only reads schemas, so the route table stays the single description.
 */
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from "zod-openapi";
import type { RouteDef } from "../lib/route";
import { json } from "../lib/http";
import { route } from "../lib/route";

const SECURITY: Record<string, Record<string, string[]>[]> = {
  oauth: [{ bearer: [] }],
  private_app: [{ bearer: [] }],
  developer: [{ developerKey: [] }, { bearer: [] }],
  admin: [{ adminToken: [] }],
};

/** The route's security requirements, each once: OAuth and the developer key both allow a Bearer token. */
function security(r: RouteDef): Record<string, string[]>[] {
  const all = r.auth.kinds.flatMap((k) => SECURITY[k] ?? []);
  return all.filter((req, i) => all.findIndex((o) => JSON.stringify(o) === JSON.stringify(req)) === i);
}

export function buildDocument(routes: RouteDef[]) {
  const paths: ZodOpenApiPathsObject = {};
  for (const r of routes) {
    if (r.hidden) continue;
    const path = r.path.replace(/:([A-Za-z_]+)/g, "{$1}");
    const op: ZodOpenApiOperationObject = {
      summary: r.summary,
      tags: [r.tag],
      operationId: `${r.method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? "").toUpperCase())}`,
      security: security(r),
      requestParams: {
        ...(r.params ? { path: r.params as never } : {}),
        ...(r.query ? { query: r.query as never } : {}),
      },
      responses: Object.fromEntries(
        Object.entries(r.responses).map(([status, doc]) => [
          status,
          doc.schema ? { description: doc.description, content: { "application/json": { schema: doc.schema } } } : { description: doc.description },
        ]),
      ),
    };
    if (r.body) {
      const type = r.bodyFormat === "form" ? "application/x-www-form-urlencoded" : "application/json";
      op.requestBody = { required: true, content: { [type]: { schema: r.body } } };
    }
    const item = (paths[path] ??= {});
    (item as Record<string, unknown>)[r.method.toLowerCase()] = op;
  }
  return createDocument({
    openapi: "3.1.0",
    info: { title: "crm-edge: CRM integration API", version: "1.0.0" },
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "OAuth access token or private app token" },
        developerKey: { type: "apiKey", in: "query", name: "hapikey", description: "Developer API key (app setup endpoints only)" },
        adminToken: { type: "http", scheme: "bearer", description: "Operator ADMIN_TOKEN" },
      },
    },
    paths,
  });
}

let cached: unknown;

export const openapiRoutes = [
  route({
    method: "GET",
    path: "/openapi.json",
    summary: "This document",
    tag: "Meta",
    auth: { kinds: [] },
    responses: { 200: { description: "OpenAPI 3.1 document" } },
    handler: async () => {
      // Imported lazily: the route table imports this module, so a static import would be circular.
      const { allRoutes } = await import("./index");
      cached ??= buildDocument(allRoutes);
      return json(cached);
    },
  }),
];
