import { describe, expect, it } from "vitest";
import { allRoutes } from "../../src/routes";
import { call } from "../helpers/api";

describe("GET /openapi.json (issue 2 §7)", () => {
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
});
