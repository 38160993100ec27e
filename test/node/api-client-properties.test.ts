/**
 * The official SDK @hubspot/api-client 14.0.1, unmodified, against the Worker: property batches
 * (crm.properties.batchApi), property group updates (groupsApi.update), unique properties and batch upsert by
 * one (crm.*.batchApi.upsert) on several types (docs/reference/crm.md "Unique properties"). Its generated
 * classes throw on any status but the documented ones, so each resolved call also checks the status.
 */
import { Client } from "@hubspot/api-client";
import { describe, expect, it } from "vitest";
import { rejection, tenant, workerUrl, type NodeTenant } from "./helpers";

const sdk = (t: NodeTenant) => new Client({ accessToken: t.oauth, basePath: workerUrl() });

interface ApiException {
  code: number;
  body: { status: string; message: string; category: string; errors?: { message: string; context?: { propertyName?: string[]; existingId?: string[] } }[] };
}

const text = (name: string, groupName: string, hasUniqueValue = false) => ({ name, label: name, type: "string" as never, fieldType: "text" as never, groupName, hasUniqueValue });

describe("@hubspot/api-client 14.0.1: CRM properties", () => {
  it("batchApi: create (201), read (200 and 207) and archive (204)", async () => {
    const t = await tenant();
    const api = sdk(t).crm.properties.batchApi;
    const made = await api.create("companies", { inputs: [text("sdk_a", "companyinformation"), text("sdk_b", "companyinformation")] });
    expect(made.status).toBe("COMPLETE");
    expect(made.results.map((p) => p.name).sort()).toEqual(["sdk_a", "sdk_b"]);
    expect(made.completedAt).toBeInstanceOf(Date);
    const read = await api.read("companies", { archived: false, inputs: [{ name: "sdk_a" }, { name: "name" }] });
    expect(read.results.map((p) => p.name)).toEqual(["sdk_a", "name"]);
    const partial = await api.read("companies", { archived: false, inputs: [{ name: "sdk_a" }, { name: "nope" }] });
    expect(partial.results).toHaveLength(1);
    await api.archive("companies", { inputs: [{ name: "sdk_a" }, { name: "sdk_b" }] });
    expect((await rejection<ApiException>(sdk(t).crm.properties.coreApi.getByName("companies", "sdk_a"))).code).toBe(404);
  });

  it("groupsApi.update changes a custom group's label and display order", async () => {
    const t = await tenant();
    const api = sdk(t).crm.properties.groupsApi;
    await api.create("contacts", { name: "sdk_group", label: "SDK", displayOrder: 1 });
    const updated = await api.update("contacts", "sdk_group", { label: "Renamed", displayOrder: 4 });
    expect(updated).toMatchObject({ name: "sdk_group", label: "Renamed", displayOrder: 4, archived: false });
    const builtIn = await rejection<ApiException>(api.update("contacts", "contactinformation", { label: "No" }));
    expect(builtIn.code).toBe(400);
  });

  it("upserts by a unique property on deals, tickets and contacts; a duplicate is a 400 naming the holder", async () => {
    const t = await tenant();
    const client = sdk(t);
    await client.crm.properties.coreApi.create("deals", text("ext_ref", "dealinformation", true));
    const first = await client.crm.deals.batchApi.upsert({ inputs: [{ idProperty: "ext_ref", id: "D-1", properties: { dealname: "One" } }] });
    expect(first.results[0]!.properties.ext_ref).toBe("D-1");
    expect(first.results[0]!._new).toBe(true);
    const second = await client.crm.deals.batchApi.upsert({ inputs: [{ idProperty: "ext_ref", id: "D-1", properties: { dealname: "Uno" } }] });
    expect(second.results[0]).toMatchObject({ id: first.results[0]!.id, _new: false });

    const dup = await rejection<ApiException>(client.crm.deals.basicApi.create({ properties: { dealname: "Two", ext_ref: "D-1" }, associations: [] }));
    expect(dup.code).toBe(400);
    expect(dup.body.category).toBe("VALIDATION_ERROR");
    expect(dup.body.errors![0]!.context!.existingId).toEqual([first.results[0]!.id]);

    await client.crm.properties.coreApi.create("tickets", text("ext_ref", "ticketinformation", true));
    const ticket = await client.crm.tickets.batchApi.upsert({ inputs: [{ idProperty: "ext_ref", id: "T-1", properties: { subject: "S", hs_pipeline: "0", hs_pipeline_stage: "1" } }] });
    expect(ticket.results[0]!._new).toBe(true);

    const email = `sdk-${Date.now()}@example.com`;
    const contact = await client.crm.contacts.batchApi.upsert({ inputs: [{ idProperty: "email", id: email, properties: { firstname: "A" } }] });
    expect(contact.results[0]!._new).toBe(true);
  });
});
