import { describe, expect, it } from "vitest";
import { call, expectError, tenant } from "../helpers/api";

describe("smoke", () => {
  it("provisions a tenant and creates a contact", async () => {
    const t = await tenant();
    const res = await call("POST", "/crm/v3/objects/contacts", { token: t.oauth, body: { properties: { email: "a@b.co", firstname: "A" } } });
    expect(res.status, res.text).toBe(201);
    expect(res.json.properties.email).toBe("a@b.co");
  });
  it("unknown route is a 404 envelope", async () => {
    expectError(await call("GET", "/nope"), 404, "OBJECT_NOT_FOUND");
  });
});
