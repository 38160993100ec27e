/**
 * @module `GET /openapi.json`: an OpenAPI 3.1 document generated from the route table's zod schemas.
 * This module depends on the table (routes/index.ts), never the reverse; its own route joins the table
 * where the Worker is wired (src/router.ts `servedRoutes`). zod-openapi was chosen over chanfana because
 * chanfana wants to own routing and the handler classes; zod-openapi only reads schemas, so the route
 * table stays the single description.
 */
import { z } from "zod";
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from "zod-openapi";
import type { RouteDef } from "../../http/route";
import { DEFAULT_MAX_BODY, json } from "../../lib/http";
import { bodyOptional, route } from "../../http/route";
import { allRoutes } from "../index";
import { errorEnvelope, operationResponses } from "../../http/openapi-responses";

/** Where the document says the API is when it is not served by a deployment (npm run dev, README). */
export const LOCAL_SERVER = "http://localhost:8787";

const DESCRIPTION = [
  "Every error is the `Error` envelope below (its `category` is the machine-readable code); each operation lists the statuses it can answer.",
  "A method a path does not offer answers 405 METHOD_NOT_ALLOWED with an `Allow` header, and an unknown path 404,",
  "both in the same envelope. The first server is the origin this document was fetched from: one deployment",
  "serves many hosts.",
].join(" ");

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
      responses: operationResponses(r),
    };
    if (r.body) {
      const type = r.bodyFormat === "form" ? "application/x-www-form-urlencoded" : "application/json";
      // The size limit over which the body is refused with 413 (src/lib/http.ts readBody).
      op.requestBody = { required: !bodyOptional(r), content: { [type]: { schema: r.body } }, "x-max-body-bytes": r.maxBodyBytes ?? DEFAULT_MAX_BODY };
    }
    const item = (paths[path] ??= {});
    (item as Record<string, unknown>)[r.method.toLowerCase()] = op;
  }
  return createDocument({
    openapi: "3.1.0",
    info: { title: "crm-edge: CRM integration API", version: "1.0.0", description: DESCRIPTION },
    servers: [{ url: LOCAL_SERVER, description: "npm run dev" }],
    components: {
      schemas: { Error: errorEnvelope },
      responses: {
        MethodNotAllowed: {
          description: "The path exists but not with this method (METHOD_NOT_ALLOWED, Allow header)",
          content: { "application/json": { schema: errorEnvelope } },
        },
      },
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "OAuth access token or private app token" },
        developerKey: { type: "apiKey", in: "query", name: "hapikey", description: "Developer API key (app setup endpoints only)" },
        adminToken: { type: "http", scheme: "bearer", description: "Operator ADMIN_TOKEN" },
      },
    },
    paths,
  });
}

let cached: ReturnType<typeof buildDocument> | undefined;

/** The document with the request's own origin as its first server: one deployment serves many hosts. */
export function withServers(doc: ReturnType<typeof buildDocument>, origin: string) {
  const servers = [{ url: origin, description: "This deployment" }, ...(origin === LOCAL_SERVER ? [] : (doc.servers ?? []))];
  return { ...doc, servers };
}

export const openapiRoutes = [
  route({
    method: "GET",
    path: "/openapi.json",
    summary: "This document",
    tag: "Meta",
    auth: { kinds: [] },
    responses: { 200: { description: "OpenAPI 3.1 document", schema: z.record(z.string(), z.unknown()) } },
    handler: ({ url }) => {
      cached ??= buildDocument([...allRoutes, ...openapiRoutes]);
      return json(withServers(cached, url.origin));
    },
  }),
];
