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

  it("documents the actionToken: on every shown action, and required back on every kind of posted action", async () => {
    const doc = (await call("GET", "/openapi.json")).json;
    const posted = doc.paths["/crm/v3/objects/{objectType}/{objectId}/cards/{cardId}/actions"].post;
    const variants = posted.requestBody.content["application/json"].schema.properties.action.oneOf as { properties: { type: { const: string } }; required: string[] }[];
    expect(variants.map((v) => v.properties.type.const)).toEqual(["IFRAME", "ACTION_HOOK", "CONFIRMATION_ACTION_HOOK"]);
    for (const v of variants) expect(v.required).toContain("actionToken");
    expect(Object.keys(posted.responses)).toEqual(expect.arrayContaining(["200", "400"]));
    const card = doc.paths["/crm/v3/objects/{objectType}/{objectId}/cards"].get.responses["200"].content["application/json"].schema.properties.cards.items;
    for (const shown of [card.properties.primaryAction, card.properties.settingsAction, card.properties.secondaryActions.items, card.properties.results.items.properties.actions.items]) {
      expect(shown.required).toContain("actionToken");
      expect(shown.properties.actionToken.description).toContain("Set by the service");
    }
  });
});
