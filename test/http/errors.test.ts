import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { route } from "../../src/http/route";
import { buildRouter } from "../../src/router";
import { call, expectError, tenant } from "../helpers/api";

describe("one error format", () => {
  it("unknown route → 404 with X-Service-NotFound", async () => {
    const body = expectError(await call("GET", "/no/such/route"), 404, "OBJECT_NOT_FOUND");
    expect(body.message).toContain("/no/such/route");
  });

  it("wrong method → 405 with Allow", async () => {
    const res = await call("POST", "/contacts/v1/lists/all/contacts/all");
    expectError(res, 405, "METHOD_NOT_ALLOWED");
    expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });

  it("malformed JSON → 400", async () => {
    const t = await tenant();
    const res = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, raw: "{not json", headers: { "content-type": "application/json" } });
    expect(expectError(res, 400, "VALIDATION_ERROR").message).toBe("Request body is not valid JSON");
  });

  it("a body zod cannot walk (a record with a \"constructor\" key holding null) → 400, nothing written", async () => {
    const t = await tenant();
    const before = (await call("GET", "/crm/v3/objects/contacts?limit=100", { token: t.pat })).json.results.length;
    for (const [method, path] of [["POST", "/crm/v3/objects/contacts"], ["PATCH", "/crm/v3/objects/contacts/1"]] as const) {
      const res = await call(method, path, { token: t.pat, raw: '{"properties":{"firstname":"Ann","constructor":null}}', headers: { "content-type": "application/json" } });
      expect(expectError(res, 400, "VALIDATION_ERROR").message).toContain("Invalid body");
    }
    expect((await call("GET", "/crm/v3/objects/contacts?limit=100", { token: t.pat })).json.results.length).toBe(before);
  });

  it("missing body → 400", async () => {
    const t = await tenant();
    const res = await call("POST", "/crm/v3/objects/contacts", { token: t.pat });
    expect(expectError(res, 400, "VALIDATION_ERROR").message).toBe("A request body is required");
  });

  it("body over the cap → 413, nothing written", async () => {
    const t = await tenant();
    const huge = JSON.stringify({ properties: { note: "x".repeat(1024 * 1024) } });
    const res = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, raw: huge, headers: { "content-type": "application/json" } });
    expectError(res, 413, "PAYLOAD_TOO_LARGE");
    const list = await call("GET", "/crm/v3/objects/contacts", { token: t.pat });
    expect(list.json.results).toEqual([]);
  });

  it("validation errors name each field in errors[]", async () => {
    const t = await tenant();
    const res = await call("POST", "/crm/v3/objects/contacts", { token: t.pat, body: { properties: { "bad name!": "x" } } });
    const body = expectError(res, 400, "VALIDATION_ERROR");
    expect(body.errors[0]).toMatchObject({ in: "body", context: { propertyName: ["properties.bad name!"] } });
  });

  it("a 204 has no body and no JSON content type", async () => {
    const t = await tenant();
    const created = await call("POST", "/crm/v3/objects/companies", { token: t.pat, body: { properties: { name: "Acme" } } });
    const res = await call("DELETE", `/crm/v3/objects/companies/${created.json.id}`, { token: t.pat });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(res.headers.get("content-type")).toBeNull();
  });

  it("an unexpected error → generic 500 that leaks no message, stack or SQL", async () => {
    const boom = route({
      method: "GET",
      path: "/boom",
      summary: "test",
      tag: "test",
      auth: { kinds: [] },
      responses: {},
      handler: () => {
        throw new Error("SELECT secret_column FROM hidden_table");
      },
    });
    const res = await buildRouter([boom]).fetch(new Request("https://crm.test/boom"), env, createExecutionContext());
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain("secret_column");
    expect(text).not.toContain("Error:");
    const body = JSON.parse(text);
    expect(body).toMatchObject({ status: "error", category: "INTERNAL_ERROR" });
    expect(res.headers.get("x-service-correlation-id")).toBe(body.correlationId);
  });
});
