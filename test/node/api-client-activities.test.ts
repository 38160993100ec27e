/**
 * The official SDK @hubspot/api-client 14.0.1, unmodified, against the Worker: activities (notes, tasks,
 * calls, meetings, emails, communications, postal mail) and leads through `client.crm.objects.<type>`:
 * basic, batch and search, and their associations through v4. Each resolved call has also passed the
 * client's own check of the documented status.
 */
import { Client } from "@hubspot/api-client";
import { AssociationSpecAssociationCategoryEnum } from "@hubspot/api-client/lib/codegen/crm/associations/v4/models/AssociationSpec";
import { describe, expect, it } from "vitest";
import { rejection, tenant, workerUrl } from "./helpers";

const HUBSPOT_DEFINED = AssociationSpecAssociationCategoryEnum.HubspotDefined;
const at = "2026-11-02T09:30:00.000Z";

/** Each activity's client accessor, its API type name, a property of its own and its → contact type id. */
const ACTIVITIES = [
  ["notes", "notes", "hs_note_body", 202],
  ["tasks", "tasks", "hs_task_subject", 204],
  ["calls", "calls", "hs_call_title", 194],
  ["meetings", "meetings", "hs_meeting_title", 200],
  ["emails", "emails", "hs_email_subject", 198],
  ["communications", "communications", "hs_communication_body", 82],
  ["postalMail", "postal_mail", "hs_postal_mail_body", 454],
] as const;

interface ApiException {
  code: number;
  body: { category: string; errors?: { context?: { propertyName?: string[] } }[] };
}

describe("@hubspot/api-client 14.0.1: activities", () => {
  it.each(ACTIVITIES)("%s: create on a contact, read, page, search, update, batch and archive", async (accessor, type, own, toContact) => {
    const t = await tenant();
    const client = new Client({ accessToken: t.oauth, basePath: workerUrl() });
    const ada = await client.crm.contacts.basicApi.create({ properties: { email: `ada-${type}@sdk.test` }, associations: [] });
    const api = client.crm.objects[accessor];
    const made = await api.basicApi.create({
      properties: { hs_timestamp: at, [own]: `First ${type}` },
      associations: [{ to: { id: ada.id }, types: [{ associationCategory: HUBSPOT_DEFINED, associationTypeId: toContact }] }],
    });
    const read = await api.basicApi.getById(made.id, [own, "hs_timestamp"], undefined, ["contacts"]);
    expect(read.properties[own]).toBe(`First ${type}`);
    expect(read.properties.hs_timestamp).toBe(at);
    expect(read.associations?.contacts?.results.map((r) => r.id)).toEqual([ada.id]);

    const updated = await api.basicApi.update(made.id, { properties: { [own]: `Changed ${type}` } });
    expect(updated.properties[own]).toBe(`Changed ${type}`);

    const batch = await api.batchApi.create({ inputs: [1, 2].map((n) => ({ properties: { hs_timestamp: at, [own]: `Batch ${n}` }, associations: [] })) });
    expect(batch.results).toHaveLength(2);
    const batchRead = await api.batchApi.read({ inputs: batch.results.map((r) => ({ id: r.id })), properties: [own], propertiesWithHistory: [] });
    expect(batchRead.results.map((r) => r.properties[own]).sort()).toEqual(["Batch 1", "Batch 2"]);
    await api.batchApi.update({ inputs: batch.results.map((r) => ({ id: r.id, properties: { [own]: "Batch again" } })) });

    const page = await api.basicApi.getPage(10, undefined, [own]);
    expect(page.results.map((r) => r.properties[own]).sort()).toEqual(["Batch again", "Batch again", `Changed ${type}`]);
    const found = await api.searchApi.doSearch({ query: "changed", filterGroups: [], sorts: [], properties: [own], limit: 10, after: "0" });
    expect(found.results.map((r) => r.id)).toEqual([made.id]);

    const fromContact = await client.crm.associations.v4.basicApi.getPage("contacts", ada.id, type);
    expect(fromContact.results.map((r) => String(r.toObjectId))).toEqual([made.id]);

    await api.batchApi.archive({ inputs: batch.results.map((r) => ({ id: r.id })) });
    await api.basicApi.archive(made.id);
    expect((await api.basicApi.getPage(10)).results).toEqual([]);
  });

  it("an unknown task status is an ApiException 400 naming the field", async () => {
    const t = await tenant();
    const client = new Client({ accessToken: t.oauth, basePath: workerUrl() });
    const e = await rejection<ApiException>(client.crm.objects.tasks.basicApi.create({ properties: { hs_timestamp: at, hs_task_status: "SOMEDAY" }, associations: [] }));
    expect(e.code).toBe(400);
    expect(e.body.category).toBe("VALIDATION_ERROR");
    expect(e.body.errors?.[0]?.context?.propertyName).toEqual(["properties.hs_task_status"]);
  });

  it("a lead on its contact (608), read back through the leads API and from the contact through v4", async () => {
    const t = await tenant();
    const client = new Client({ accessToken: t.oauth, basePath: workerUrl() });
    const ada = await client.crm.contacts.basicApi.create({ properties: { email: "lead@sdk.test" }, associations: [] });
    const lead = await client.crm.objects.leads.basicApi.create({
      properties: { hs_lead_name: "Ada's renewal", hs_lead_label: "WARM" },
      associations: [{ to: { id: ada.id }, types: [{ associationCategory: HUBSPOT_DEFINED, associationTypeId: 608 }] }],
    });
    const read = await client.crm.objects.leads.basicApi.getById(lead.id, ["hs_lead_name", "hs_lead_label"]);
    expect(read.properties).toMatchObject({ hs_lead_name: "Ada's renewal", hs_lead_label: "WARM" });
    const fromContact = await client.crm.associations.v4.basicApi.getPage("0-1", ada.id, "0-136");
    expect(fromContact.results.map((r) => [String(r.toObjectId), r.associationTypes.map((a) => a.typeId)])).toEqual([[lead.id, [607]]]);
  });
});
