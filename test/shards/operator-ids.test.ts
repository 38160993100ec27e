/**
 * Canonical operator ids: every `/admin/v1` route takes an account (or app) id as decimal digits with no
 * sign, no leading zero and no exponent, so `0x1`, `1e0`, `01` and `1.0` are refused instead of naming
 * account 1; and the account listing refuses an unknown shard filter as create and move do.
 */
import { describe, expect, it } from "vitest";
import { allRoutes } from "../../src/routes";
import { admin, ADMIN, call, expectError, unique } from "../helpers/api";

const NON_CANONICAL = ["0x1", "1e0", "01", "1.0", "+1", "-1", "0", "1%20", "%201", "1_0", "０１"];
const idRoutes = allRoutes.filter((r) => r.path.startsWith("/admin/v1/") && /:(portalId|appId)\b/.test(r.path));

describe("operator ids", () => {
  it("covers every operator route with an id in its path", () => {
    expect(idRoutes.length).toBeGreaterThanOrEqual(8);
  });

  it.each(idRoutes.map((r) => [r.method, r.path] as const))("%s %s refuses non-canonical ids with a 400 naming the field", async (method, path) => {
    const made = await admin("POST", "/admin/v1/accounts", { name: unique(), shard: "SHARD_1" });
    const app = await admin("POST", "/admin/v1/apps", { name: unique(), redirectUris: ["https://app.example.com/cb"] });
    const ids: Record<string, string> = { portalId: String(made.portalId), appId: String(app.appId) };
    for (const field of ["portalId", "appId"].filter((f) => path.includes(`:${f}`))) {
      for (const bad of NON_CANONICAL) {
        const url = path.replace(/:(\w+)/g, (_, name: string) => (name === field ? bad : ids[name]!));
        const res = await call(method, url, { token: ADMIN, body: method === "GET" || method === "DELETE" ? undefined : {} });
        expectError(res, 400, "VALIDATION_ERROR");
        expect(res.text, `${method} ${url}`).toContain(field);
      }
    }
  });

  it("reads and writes with the canonical id as before", async () => {
    const made = await admin("POST", "/admin/v1/accounts", { name: unique(), shard: "SHARD_1" });
    expect((await call("GET", `/admin/v1/accounts/${made.portalId}`, { token: ADMIN })).status).toBe(200);
    expect((await call("GET", `/admin/v1/accounts/${made.portalId}/usage`, { token: ADMIN })).status).toBe(200);
    expect((await call("POST", `/admin/v1/accounts/${made.portalId}/users`, { token: ADMIN, body: { email: `${unique()}@example.com` } })).status).toBe(201);
  });
});

describe("GET /admin/v1/accounts?shard=", () => {
  it.each([
    ["shard=SHARD_9", 400],
    ["shard=shard_1", 400],
    ["shard=SHARD_1", 200],
    ["shard=DB", 200],
    ["after=01", 400],
    ["after=1e3", 400],
    ["after=0", 200],
  ])("?%s answers %i", async (query, status) => {
    const res = await call("GET", `/admin/v1/accounts?${query}`, { token: ADMIN });
    if (status === 400) {
      expectError(res, 400, "VALIDATION_ERROR");
      expect(res.text).toContain(query.split("=")[0]!);
    } else expect(res.status).toBe(200);
  });
});
