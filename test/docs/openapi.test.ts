import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { RouteDef } from "../../src/http/route";
import { derivedErrorStatuses } from "../../src/http/openapi-responses";
import { allRoutes } from "../../src/routes";
import { BASE, call } from "../helpers/api";

describe("GET /openapi.json", () => {
  it("is an OpenAPI 3.1 document covering every public route, generated from the zod schemas", async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    expect(res.json.openapi).toBe("3.1.0");
    for (const r of allRoutes.filter((r) => !r.hidden)) {
      const path = r.path.replace(/:([A-Za-z_]+)/g, "{$1}");
      expect(res.json.paths[path]?.[r.method.toLowerCase()], `${r.method} ${path}`).toBeDefined();
    }
    const list = res.json.paths["/contacts/v1/lists/all/contacts/all"].get;
    expect(list.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(["count", "vidOffset", "property"]));
    const create = res.json.paths["/admin/v1/accounts"].post;
    expect(create.requestBody.content["application/json"].schema).toBeDefined();
  });

  it("lists each security requirement of an operation once (OAuth and the developer key both allow Bearer)", async () => {
    const res = await call("GET", "/openapi.json");
    for (const [path, item] of Object.entries(res.json.paths as Record<string, Record<string, { security?: unknown[] }>>)) {
      for (const [method, op] of Object.entries(item)) {
        const seen = (op.security ?? []).map((x) => JSON.stringify(x));
        expect(new Set(seen).size, `${method} ${path}`).toBe(seen.length);
      }
    }
    expect(res.json.paths["/extensions/ecomm/v2/sync/errors/app/{appId}"].get.security).toEqual([{ developerKey: [] }, { bearer: [] }]);
    expect(res.json.paths["/extensions/ecomm/v2/settings"].put.security).toEqual([{ developerKey: [] }, { bearer: [] }]);
  });

  it("documents the error envelope and the errors each operation can answer with", async () => {
    const res = await call("GET", "/openapi.json");
    const error = res.json.components.schemas.Error;
    expect(Object.keys(error.properties)).toEqual(expect.arrayContaining(["status", "message", "correlationId", "category", "errors"]));
    const ref = { $ref: "#/components/schemas/Error" };
    const statuses = (path: string, method: string) => Object.keys(res.json.paths[path][method].responses);
    // An account route with a path id and a body: input, credential, id, size, rate limit and 500.
    const patch = res.json.paths["/crm/v3/objects/{objectType}/{objectId}"].patch.responses;
    expect(Object.keys(patch)).toEqual(expect.arrayContaining(["200", "400", "401", "403", "404", "413", "429", "500"]));
    expect(patch["404"].content["application/json"].schema).toEqual(ref);
    expect(patch["429"].description).toContain("RATE_LIMITS");
    // A public route without input answers only its own statuses and a 500.
    expect(statuses("/healthz", "get").sort()).toEqual(["204", "500"]);
    // The operator API is not rate limited.
    expect(statuses("/admin/v1/accounts", "post")).not.toContain("429");
  });
});

describe("GET /openapi.json describes the whole contract", () => {
  type Doc = { paths: Record<string, Record<string, { parameters?: { name: string; schema?: object }[]; requestBody?: { content: Record<string, { schema: { required?: string[] } }> }; responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }> }>>; components: { schemas: Record<string, { required?: string[]; properties?: Record<string, unknown> }> }; servers: { url: string }[] };
  const get = async () => (await call("GET", "/openapi.json")).json as Doc;

  it("defines the error envelope once and refers each operation's error statuses to it", async () => {
    const doc = await get();
    expect(doc.components.schemas.Error?.required).toEqual(expect.arrayContaining(["status", "message", "correlationId", "category"]));
    const read = doc.paths["/crm/v3/objects/{objectType}/{objectId}"]!.get!;
    expect(Object.keys(read.responses).sort()).toEqual(["200", "400", "401", "403", "404", "429", "500"]);
    expect(read.responses["404"]!.content!["application/json"]!.schema.$ref).toBe("#/components/schemas/Error");
    // An object type may be an account's custom type, so an unknown one is a 404 (a malformed one a 400); a body
    // brings 413; a duplicate contact email is the route's own 409.
    expect(Object.keys(doc.paths["/crm/v3/objects/{objectType}"]!.post!.responses).sort()).toEqual(["201", "400", "401", "403", "404", "409", "413", "429", "500"]);
    // An enum path parameter is a 400 when wrong, never a 404 (the pipelines' object type).
    expect(Object.keys(doc.paths["/crm/v3/pipelines/{objectType}"]!.get!.responses)).not.toContain("404");
    // The operator token: nothing to refuse with 403, not rate limited.
    expect(Object.keys(doc.paths["/admin/v1/accounts"]!.post!.responses).sort()).toEqual(["201", "400", "401", "413", "500"]);
    // A route's own error status without a schema is the envelope too.
    expect(doc.paths["/content/api/v2/topics"]!.post!.responses["409"]!.content!["application/json"]!.schema.$ref).toBe("#/components/schemas/Error");
  });

  it("gives the OAuth token, introspection and token-error responses a schema", async () => {
    const doc = await get();
    const token = doc.paths["/oauth/v1/token"]!.post!.responses;
    expect(token["200"]!.content!["application/json"]!.schema.$ref).toBe("#/components/schemas/OAuthTokens");
    expect(token["400"]!.content!["application/json"]!.schema.$ref).toBe("#/components/schemas/OAuthError");
    expect(doc.components.schemas.OAuthError?.required).toEqual(expect.arrayContaining(["error", "error_description"]));
    expect(doc.paths["/oauth/v1/access-tokens/{token}"]!.get!.responses["200"]!.content!["application/json"]!.schema.$ref).toBe("#/components/schemas/AccessTokenInfo");
    expect(doc.paths["/oauth/v1/refresh-tokens/{token}"]!.get!.responses["200"]!.content!["application/json"]!.schema.$ref).toBe("#/components/schemas/RefreshTokenInfo");
  });

  it.each([
    ["/crm/v3/objects/{objectType}", ["properties", "propertiesWithHistory", "archived", "associations", "limit", "after"]],
    ["/crm/v3/objects/{objectType}/{objectId}", ["properties", "propertiesWithHistory", "archived", "associations"]],
    ["/contacts/v1/lists/all/contacts/all", ["propertyMode", "formSubmissionMode", "showListMemberships"]],
    ["/extensions/ecomm/v2/settings", ["appId", "showProvidedMappings"]],
  ])("declares the query parameters %s accepts", async (path, names) => {
    const params = (await get()).paths[path]!.get!.parameters!;
    expect(params.map((p) => p.name)).toEqual(expect.arrayContaining(names));
    for (const p of params) expect(Object.keys(p.schema ?? {}), `${path} ${p.name}`).not.toEqual([]);
  });

  it("requires of a blog post body only what the server requires", async () => {
    const doc = await get();
    const body = (path: string, method: "post" | "put") => doc.paths[path]![method]!.requestBody!.content["application/json"]!.schema;
    expect(body("/content/api/v2/blog-posts", "post").required).toEqual(["name"]);
    expect(body("/content/api/v2/blog-posts/{id}", "put").required ?? []).toEqual([]);
  });

  it("names the request's origin as its first server, then the local default", async () => {
    expect((await get()).servers.map((s) => s.url)).toEqual([new URL(BASE).origin, "http://localhost:8787"]);
  });

  it("documents the sign-in and consent pages", async () => {
    const paths = (await get()).paths;
    expect(Object.keys(paths["/oauth/authorize"] ?? {}).sort()).toEqual(["get", "post"]);
    expect(Object.keys(paths["/login"] ?? {}).sort()).toEqual(["get", "post"]);
    expect(Object.keys(paths["/logout"] ?? {})).toEqual(["post"]);
    expect(Object.keys(paths["/login"]!.get!.responses["200"]!.content!)).toEqual(["text/html"]);
  });
});

describe("error statuses derived from a route definition", () => {
  const def = (over: Partial<RouteDef>) =>
    ({ method: "POST", path: "/x", summary: "x", tag: "X", auth: { kinds: [] }, responses: { 200: { description: "ok" } }, handler: () => new Response(), ...over }) as RouteDef;
  it.each([
    ["public, nothing to validate", def({ method: "GET" }), [500]],
    ["OAuth with an id and a body", def({ auth: { kinds: ["oauth"] }, path: "/x/:id", params: z.object({ id: z.string() }), body: z.object({}) }), [400, 401, 403, 404, 413, 429, 500]],
    ["developer key with a query", def({ auth: { kinds: ["developer"] }, query: z.object({ q: z.string() }) }), [400, 401, 403, 500]],
    ["operator token with an enum path parameter", def({ auth: { kinds: ["admin"] }, path: "/x/:t", params: z.object({ t: z.enum(["a", "b"]) }) }), [400, 401, 500]],
  ])("%s", (_label, r, statuses) => {
    expect(derivedErrorStatuses(r).sort()).toEqual(statuses);
  });
});
