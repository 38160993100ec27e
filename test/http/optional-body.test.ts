/**
 * A JSON body whose every field is optional or has a default may be left out: the route reads it as `{}`,
 * and /openapi.json marks its request body as not required. Other routes still answer 400 "A request body
 * is required" to an empty body.
 */
import { describe, expect, it } from "vitest";
import { bodyOptional } from "../../src/http/route";
import { allRoutes } from "../../src/routes";
import { admin, ADMIN, call, expectError, tenant } from "../helpers/api";

describe("a request body whose fields all have defaults", () => {
  it("may be left out on exactly the routes whose schema takes an empty object, as /openapi.json says", async () => {
    const optional = allRoutes.filter(bodyOptional).map((r) => `${r.method} ${r.path}`);
    expect(optional).toContain("POST /admin/v1/apps/:appId/rotate-secret");
    const doc = (await call("GET", "/openapi.json")).json;
    expect(doc.paths["/admin/v1/apps/{appId}/rotate-secret"].post.requestBody.required).toBe(false);
    for (const r of allRoutes.filter((x) => x.body)) {
      const path = r.path.replace(/:([A-Za-z_]+)/g, "{$1}");
      const op = doc.paths[path]?.[r.method.toLowerCase()];
      if (!op) continue; // a route left out of the document (the web app's pages)
      expect(op.requestBody.required, `${r.method} ${r.path}`).toBe(!optional.includes(`${r.method} ${r.path}`));
    }
  });

  it("rotate-secret with no body rotates with the default grace of a day", async () => {
    const app = await admin("POST", "/admin/v1/apps", { name: "rotating", redirectUris: ["https://app.example.com/callback"] });
    const before = Date.now();
    const res = await call("POST", `/admin/v1/apps/${app.appId}/rotate-secret`, { token: ADMIN });
    expect(res.status, res.text).toBe(200);
    expect(res.json.clientSecret).not.toBe(app.clientSecret);
    const expires = res.json.previousSecretExpiresAt;
    const grace = (typeof expires === "number" ? expires : Date.parse(expires)) - before;
    expect(grace).toBeGreaterThanOrEqual(86_400_000 - 5_000);
    expect(grace).toBeLessThanOrEqual(86_400_000 + 5_000);
  });

  it("is still required where a field is", async () => {
    const t = await tenant();
    const res = await call("POST", `/admin/v1/accounts/${t.portalId}/users`, { token: ADMIN });
    const err = expectError(res, 400, "VALIDATION_ERROR");
    expect(err.message).toBe("A request body is required");
  });
});
