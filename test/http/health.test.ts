import { describe, expect, it } from "vitest";
import { call, expectError } from "../helpers/api";

describe("GET /healthz (liveness probe; the no-op baseline of npm run bench)", () => {
  it("answers 204 with no body and no content type, without credentials", async () => {
    const res = await call("GET", "/healthz");
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(res.headers.get("content-type")).toBeNull();
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-service-correlation-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("ignores a credential, valid or not (it reads nothing)", async () => {
    const res = await call("GET", "/healthz", { token: "not-a-token" });
    expect(res.status).toBe(204);
  });

  it("other methods get the 405 envelope with Allow", async () => {
    const res = await call("POST", "/healthz", { body: {} });
    expectError(res, 405, "METHOD_NOT_ALLOWED");
    expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });

  it("is in the OpenAPI document", async () => {
    const doc = await call("GET", "/openapi.json");
    expect(doc.json.paths["/healthz"].get.responses["204"]).toBeDefined();
  });
});
