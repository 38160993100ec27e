/**
 * The official SDK @hubspot/api-client 14.0.1, unmodified, against the Worker: CRM v3 search, batch,
 * properties and associations v4. Its generated classes throw on any status but the documented one, so
 * each resolved call also checks the status (search 200, batch create 201, archive 204, property create
 * 201, association create 201, default 200).
 */
import { Client } from "@hubspot/api-client";
import { AssociationSpecAssociationCategoryEnum } from "@hubspot/api-client/lib/codegen/crm/associations/v4/models/AssociationSpec";
import { FilterOperatorEnum } from "@hubspot/api-client/lib/codegen/crm/contacts/models/Filter";
import { PropertyCreateFieldTypeEnum, PropertyCreateTypeEnum } from "@hubspot/api-client/lib/codegen/crm/properties/models/PropertyCreate";
import { describe, expect, it } from "vitest";
import { http } from "./clients";
import { rejection, tenant, workerUrl, type NodeTenant } from "./helpers";

const sdk = (t: NodeTenant) => new Client({ accessToken: t.oauth, basePath: workerUrl() });

interface ApiException {
  code: number;
  body: { status: string; message: string; category: string; errors?: { message: string }[] };
}

describe("@hubspot/api-client 14.0.1: CRM v3 search", () => {
  it("searches contacts with filter groups, a sort and after paging", async () => {
    const t = await tenant();
    const crm = sdk(t).crm.contacts;
    const made = await crm.batchApi.create({
      inputs: ["ann", "bob", "cy"].map((n) => ({ properties: { email: `${n}@sdk.test`, firstname: n, lastname: "Search" }, associations: [] })),
    });
    expect(made.results).toHaveLength(3);
    const req = {
      filterGroups: [{ filters: [{ propertyName: "lastname", operator: FilterOperatorEnum.Eq, value: "search" }] }],
      sorts: ["-firstname"],
      properties: ["firstname"],
      limit: 2,
      after: "0",
    };
    const first = await crm.searchApi.doSearch(req);
    expect(first.total).toBe(3);
    expect(first.results.map((r) => r.properties.firstname)).toEqual(["cy", "bob"]);
    const next = await crm.searchApi.doSearch({ ...req, after: first.paging!.next!.after });
    expect(next.results.map((r) => r.properties.firstname)).toEqual(["ann"]);
    expect(next.paging).toBeUndefined();
    const byQuery = await crm.searchApi.doSearch({ query: "bob", filterGroups: [], sorts: [], properties: [], limit: 10, after: "0" });
    expect(byQuery.results.map((r) => r.properties.email)).toEqual(["bob@sdk.test"]);
  });

  it("a bad filter is an ApiException 400 VALIDATION_ERROR naming the property", async () => {
    const t = await tenant();
    const e = await rejection<ApiException>(
      sdk(t).crm.contacts.searchApi.doSearch({ filterGroups: [{ filters: [{ propertyName: "nope", operator: FilterOperatorEnum.Eq, value: "x" }] }], sorts: [], properties: [], limit: 10, after: "0" }),
    );
    expect(e.code).toBe(400);
    expect(e.body).toMatchObject({ status: "error", category: "VALIDATION_ERROR" });
    expect(e.body.message).toContain("nope");
  });
});

describe("@hubspot/api-client 14.0.1: CRM v3 batch and idProperty", () => {
  it("create, read, update, upsert and archive; 207 partial reads; the 409 names the existing id", async () => {
    const t = await tenant();
    const contacts = sdk(t).crm.contacts;
    const created = await contacts.batchApi.create({ inputs: [{ properties: { email: "b1@sdk.test" }, associations: [] }, { properties: { email: "b2@sdk.test" }, associations: [] }] });
    expect(created.status).toBe("COMPLETE");
    const ids = created.results.map((r) => r.id);

    const partial = await contacts.batchApi.read({ inputs: [...ids.map((id) => ({ id })), { id: "999999999" }], properties: ["email"], propertiesWithHistory: [] });
    expect(partial.results.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect((partial as { numErrors?: number }).numErrors).toBe(1);

    const updated = await contacts.batchApi.update({ inputs: ids.map((id) => ({ id, properties: { lastname: "Batch" } })) });
    expect(updated.results.every((r) => r.properties.lastname === "Batch")).toBe(true);

    const upserted = await contacts.batchApi.upsert({
      inputs: [
        { id: "b1@sdk.test", idProperty: "email", properties: { firstname: "One" } },
        { id: "b3@sdk.test", idProperty: "email", properties: { firstname: "Three" } },
      ],
    });
    expect(upserted.results.find((r) => r.id === ids[0])?.properties.firstname).toBe("One");
    expect(upserted.results).toHaveLength(2);

    const byEmail = await contacts.basicApi.getById("b3@sdk.test", ["firstname"], undefined, undefined, false, "email");
    expect(byEmail.properties.firstname).toBe("Three");
    const patched = await contacts.basicApi.update("b3@sdk.test", { properties: { lastname: "Three" } }, "email");
    expect(patched.id).toBe(byEmail.id);

    const dup = await rejection<ApiException>(contacts.basicApi.create({ properties: { email: "B1@sdk.test" }, associations: [] }));
    expect(dup.code).toBe(409);
    expect(dup.body).toMatchObject({ category: "CONFLICT", message: `Contact already exists. Existing ID: ${ids[0]}` });
    const dupBatch = await rejection<ApiException>(contacts.batchApi.create({ inputs: [{ properties: { email: "b2@sdk.test" }, associations: [] }] }));
    expect(dupBatch.body.message.match(/Existing ID: (\d+)/)?.[1]).toBe(ids[1]);

    await expect(contacts.batchApi.archive({ inputs: ids.map((id) => ({ id })) })).resolves.toBeUndefined();
    expect((await rejection<ApiException>(contacts.basicApi.getById(ids[0]!))).code).toBe(404);
  });

  it("101 inputs are an ApiException 400 naming the limit", async () => {
    const t = await tenant();
    const e = await rejection<ApiException>(
      sdk(t).crm.companies.batchApi.create({ inputs: Array.from({ length: 101 }, (_, i) => ({ properties: { name: `c${i}` }, associations: [] })) }),
    );
    expect(e.code).toBe(400);
    expect(e.body.message).toContain("at most 100 inputs");
  });
});

describe("@hubspot/api-client 14.0.1: properties", () => {
  it("creates, lists, reads, updates and archives a property; its values show in v3 search and in v1", async () => {
    const t = await tenant();
    const client = sdk(t);
    const core = client.crm.properties.coreApi;
    const created = await core.create("contacts", {
      name: "favorite_color",
      label: "Favorite color",
      type: PropertyCreateTypeEnum.String,
      fieldType: PropertyCreateFieldTypeEnum.Text,
      groupName: "contactinformation",
    });
    expect(created).toMatchObject({ name: "favorite_color", hubspotDefined: false });
    expect((await core.getAll("contacts")).results.map((p) => p.name)).toContain("favorite_color");
    expect((await core.getByName("contacts", "favorite_color")).label).toBe("Favorite color");
    expect((await core.update("contacts", "favorite_color", { label: "Colour" })).label).toBe("Colour");

    // Written through v1, found through the v3 search; written through v3, read through v1.
    const v1 = await http(t.oauth, "POST", "/contacts/v1/contact", { properties: [{ property: "email", value: "v1@sdk.test" }, { property: "favorite_color", value: "teal" }] });
    expect(v1.status).toBe(200);
    const found = await client.crm.contacts.searchApi.doSearch({
      filterGroups: [{ filters: [{ propertyName: "favorite_color", operator: FilterOperatorEnum.Eq, value: "Teal" }] }],
      sorts: [],
      properties: ["favorite_color"],
      limit: 10,
      after: "0",
    });
    expect(found.results.map((r) => [r.id, r.properties.favorite_color])).toEqual([[String(v1.body.vid), "teal"]]);
    const v3 = await client.crm.contacts.basicApi.create({ properties: { email: "v3@sdk.test", favorite_color: "red" }, associations: [] });
    const profile = await http(t.oauth, "GET", `/contacts/v1/contact/vid/${v3.id}/profile`);
    expect(profile.body.properties.favorite_color.value).toBe("red");

    await expect(core.archive("contacts", "favorite_color")).resolves.toBeUndefined();
    expect((await rejection<ApiException>(core.getByName("contacts", "favorite_color"))).code).toBe(404);
  });
});

describe("@hubspot/api-client 14.0.1: associations v4", () => {
  it("create (201), default (200), page and archive (204) over the rows v3 reads", async () => {
    const t = await tenant();
    const client = sdk(t);
    const contact = await client.crm.contacts.basicApi.create({ properties: { email: "assoc@sdk.test" }, associations: [] });
    const one = await client.crm.companies.basicApi.create({ properties: { name: "One" }, associations: [] });
    const two = await client.crm.companies.basicApi.create({ properties: { name: "Two" }, associations: [] });
    const v4 = client.crm.associations.v4.basicApi;
    const labels = await v4.create("contacts", contact.id, "companies", one.id, [{ associationCategory: AssociationSpecAssociationCategoryEnum.HubspotDefined, associationTypeId: 279 }]);
    expect(labels).toMatchObject({ fromObjectTypeId: "0-1", toObjectTypeId: "0-2", labels: [] });
    const def = await v4.createDefault("contacts", contact.id, "companies", two.id);
    expect(def.results[0]?.associationSpec.associationTypeId).toBe(279);
    const page = await v4.getPage("contacts", contact.id, "companies", undefined, 500);
    expect(page.results.map((r) => String(r.toObjectId))).toEqual([one.id, two.id]);
    expect(page.results[0]?.associationTypes).toEqual([{ category: "HUBSPOT_DEFINED", typeId: 279, label: null }]);
    const v3 = await client.crm.contacts.basicApi.getById(contact.id, undefined, undefined, ["companies"]);
    expect(v3.associations?.companies?.results.map((r) => r.id)).toEqual([one.id, two.id]);
    await expect(v4.archive("contacts", contact.id, "companies", one.id)).resolves.toBeUndefined();
    expect((await v4.getPage("contacts", contact.id, "companies")).results.map((r) => String(r.toObjectId))).toEqual([two.id]);
  });

  it("another account's record is an ApiException 404", async () => {
    const a = await tenant();
    const b = await tenant();
    const contact = await sdk(a).crm.contacts.basicApi.create({ properties: { firstname: "a" }, associations: [] });
    const e = await rejection<ApiException>(sdk(b).crm.associations.v4.basicApi.getPage("contacts", contact.id, "companies"));
    expect(e.code).toBe(404);
  });
});
