/**
 * The official SDK @hubspot/api-client 14.0.1, unmodified, against the Worker: a custom object type's records
 * associated through the schema's association definitions (v4 default single and batch, a label made on the
 * pair and its labelled PUT, v4 and v3 reads from both sides), and records named by a unique property
 * (`idProperty`) on the single-record reads and updates. The generated classes throw on any status but the documented one.
 */
import { Client } from "@hubspot/api-client";
import { AssociationSpecAssociationCategoryEnum } from "@hubspot/api-client/lib/codegen/crm/associations/v4/models/AssociationSpec";
import { describe, expect, it } from "vitest";
import { tenant, workerUrl, type NodeTenant } from "./helpers";

const sdk = (t: NodeTenant) => new Client({ accessToken: t.oauth, basePath: workerUrl() });

describe("@hubspot/api-client 14.0.1: custom object associations", () => {
  it("default and labelled associations of a custom record to a contact, read from both sides in v4 and v3", async () => {
    const t = await tenant();
    const client = sdk(t);
    const schema = await client.crm.schemas.coreApi.create({
      name: "car",
      labels: { singular: "Car", plural: "Cars" },
      primaryDisplayProperty: "model",
      requiredProperties: ["model"],
      properties: [{ name: "model", label: "Model", type: "string", fieldType: "text" } as never],
      associatedObjects: ["CONTACT"],
    });
    const type = schema.objectTypeId!;
    const forward = Number(schema.associations[0]!.id);
    const car = await client.crm.objects.basicApi.create(type, { properties: { model: "Model T" }, associations: [] });
    const spare = await client.crm.objects.basicApi.create(type, { properties: { model: "Beetle" }, associations: [] });
    const ada = await client.crm.contacts.basicApi.create({ properties: { email: "ada@sdk.test" }, associations: [] });

    const made = await client.crm.associations.v4.basicApi.createDefault(type, car.id, "contacts", ada.id);
    expect(made.results[0]!.associationSpec).toEqual({ associationCategory: "USER_DEFINED", associationTypeId: forward });
    const page = await client.crm.associations.v4.basicApi.getPage(type, car.id, "contacts");
    // toObjectId is a number on the wire, as the real service sends it (the model declares a string).
    expect(page.results.map((r) => [String(r.toObjectId), r.associationTypes])).toEqual([[ada.id, [{ category: "USER_DEFINED", typeId: forward, label: null }]]]);

    const batch = await client.crm.associations.v4.batchApi.createDefault("contacts", type, { inputs: [{ _from: { id: ada.id }, to: { id: spare.id } }] });
    expect(batch.results[0]!.associationSpec.associationCategory).toBe("USER_DEFINED");

    const label = await client.crm.associations.v4.schema.definitionsApi.create(type, "contacts", { name: "driver", label: "Driver" });
    const driver = label.results[0]!.typeId;
    const labelled = await client.crm.associations.v4.basicApi.create(type, car.id, "contacts", ada.id, [{ associationCategory: AssociationSpecAssociationCategoryEnum.UserDefined, associationTypeId: driver }]);
    expect(labelled.labels).toEqual(["Driver"]);

    const back = await client.crm.associations.v4.basicApi.getPage("contacts", ada.id, type);
    expect(back.results.map((r) => [String(r.toObjectId), r.associationTypes.map((x) => [x.category, x.label])])).toEqual([
      [car.id, [["USER_DEFINED", null], ["USER_DEFINED", "Driver"]]],
      [spare.id, [["USER_DEFINED", null]]],
    ]);
    const v3 = await client.crm.objects.basicApi.getById(type, car.id, ["model"], undefined, ["contacts"]);
    expect(v3.associations?.contacts?.results.map((r) => r.id)).toEqual([ada.id]);
    const v3back = await client.crm.contacts.basicApi.getById(ada.id, undefined, undefined, [type]);
    expect(Object.values(v3back.associations ?? {})[0]?.results.map((r) => r.id).sort()).toEqual([car.id, spare.id].sort());
  });

  it("getById and update name a record by a unique property", async () => {
    const t = await tenant();
    const client = sdk(t);
    await client.crm.properties.coreApi.create("companies", { name: "ext_id", label: "Ext", type: "string" as never, fieldType: "text" as never, groupName: "companyinformation", hasUniqueValue: true });
    const made = await client.crm.companies.basicApi.create({ properties: { name: "Acme", ext_id: "AC-1" }, associations: [] });
    expect((await client.crm.companies.basicApi.getById("AC-1", ["name"], undefined, undefined, false, "ext_id")).id).toBe(made.id);
    expect((await client.crm.companies.basicApi.update("AC-1", { properties: { name: "Acme 2" } }, "ext_id")).properties.name).toBe("Acme 2");
    await expect(client.crm.companies.basicApi.getById("AC-2", undefined, undefined, undefined, false, "ext_id")).rejects.toMatchObject({ code: 404 });
    await expect(client.crm.companies.basicApi.getById("Acme 2", undefined, undefined, undefined, false, "name")).rejects.toMatchObject({ code: 400 });
  });
});
