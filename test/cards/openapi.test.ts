import { describe, expect, it } from "vitest";
import { call } from "../helpers/api";

describe("OpenAPI document", () => {
  it("describes the CRM card endpoints", async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.json.paths)).toEqual(
      expect.arrayContaining([
        "/extensions/sales-objects/v1/object-types",
        "/extensions/sales-objects/v1/object-types/{objectTypeId}",
        "/crm/v3/objects/{objectType}/{objectId}/cards",
        "/crm/v3/objects/{objectType}/{objectId}/cards/{cardId}/actions",
        "/admin/v1/apps/{appId}",
      ]),
    );
  });
});
