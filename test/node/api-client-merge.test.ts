/**
 * The official SDK @hubspot/api-client 14.0.1, unmodified, against the Worker: BasicApi `merge` of contacts,
 * companies, deals and tickets, and the contacts' `purge` (GDPR delete). The generated classes throw on any
 * status but the documented one (merge 200, purge 204). One merge behind two faces: a contact merged through
 * CRM v3 reads the same through the v1 profile, and a v1 merge the same through CRM v3.
 */
import { Client } from "@hubspot/api-client";
import { describe, expect, it } from "vitest";
import { http } from "./clients";
import { rejection, tenant, workerUrl, type NodeTenant } from "./helpers";

const sdk = (t: NodeTenant) => new Client({ accessToken: t.oauth, basePath: workerUrl() });

interface ApiException {
  code: number;
  body: { status: string; message: string; category: string; errors?: { message: string; context?: { propertyName?: string[] } }[] };
}

/** The v1 merge answers a bare `SUCCESS` under a JSON content type (as recorded): read as text. */
async function v1Merge(t: NodeTenant, primary: string, secondary: string) {
  const res = await fetch(`${workerUrl()}/contacts/v1/contact/merge-vids/${primary}`, {
    method: "POST",
    headers: { authorization: `Bearer ${t.pat}`, "content-type": "application/json" },
    body: JSON.stringify({ vidToMerge: Number(secondary) }),
  });
  expect([res.status, await res.text()]).toEqual([200, "SUCCESS"]);
}

/** What a merged contact shows through both faces, ids replaced by their role. */
async function bothFaces(t: NodeTenant, primary: string, secondary: string) {
  const v3 = await sdk(t).crm.contacts.basicApi.getById(primary, ["email", "firstname", "lastname", "hs_merged_object_ids"]);
  const v1 = (await http(t.pat, "GET", `/contacts/v1/contact/vid/${primary}/profile`)).body;
  const gone = await rejection<ApiException>(sdk(t).crm.contacts.basicApi.getById(secondary));
  const byOldVid = (await http(t.pat, "GET", `/contacts/v1/contact/vid/${secondary}/profile`)).body;
  return {
    v3: { email: v3.properties.email?.split("@")[1], firstname: v3.properties.firstname, lastname: v3.properties.lastname, merged: v3.properties.hs_merged_object_ids === secondary },
    v1: {
      vids: v1["merged-vids"].map((v: number) => (String(v) === primary ? "primary" : String(v) === secondary ? "secondary" : v)),
      firstname: v1.properties.firstname.value,
      lastname: v1.properties.lastname.value,
      audits: v1["merge-audits"].length,
    },
    secondaryV3: gone.code,
    secondaryV1: String(byOldVid.vid) === primary,
  };
}

describe("@hubspot/api-client 14.0.1: merge", () => {
  it("contacts: basicApi.merge answers the survivor; v3 and v1 merges read the same through both faces", async () => {
    const t = await tenant();
    const api = sdk(t).crm.contacts.basicApi;
    const make = async (props: Record<string, string>) => (await api.create({ properties: props, associations: [] })).id;
    const [p3, s3] = [await make({ email: "p3@sdk.test", firstname: "Pat" }), await make({ email: "s3@sdk.test", lastname: "Smith" })];
    const [p1, s1] = [await make({ email: "p1@sdk.test", firstname: "Pat" }), await make({ email: "s1@sdk.test", lastname: "Smith" })];

    const merged = await api.merge({ primaryObjectId: p3, objectIdToMerge: s3 });
    expect(merged.id).toBe(p3);
    expect(merged.properties).toMatchObject({ email: "p3@sdk.test", firstname: "Pat", lastname: "Smith", hs_merged_object_ids: s3 });
    expect(merged.createdAt).toBeInstanceOf(Date);
    await v1Merge(t, p1, s1);

    const viaV3 = await bothFaces(t, p3, s3);
    expect(viaV3).toEqual({
      v3: { email: "sdk.test", firstname: "Pat", lastname: "Smith", merged: true },
      v1: { vids: ["secondary", "primary"], firstname: "Pat", lastname: "Smith", audits: 1 },
      secondaryV3: 404,
      secondaryV1: true,
    });
    expect(await bothFaces(t, p1, s1)).toEqual(viaV3);
  });

  it("companies, deals and tickets: each type's basicApi.merge", async () => {
    const t = await tenant();
    const crm = sdk(t).crm;
    const cases = [
      [crm.companies.basicApi, { name: "A" }, { name: "B", domain: "b.example" }],
      [crm.deals.basicApi, { dealname: "A" }, { dealname: "B", amount: "10" }],
      [crm.tickets.basicApi, { subject: "A", hs_pipeline: "0", hs_pipeline_stage: "1" }, { subject: "B", hs_pipeline: "0", hs_pipeline_stage: "1", hs_ticket_priority: "HIGH" }],
    ] as const;
    for (const [api, a, b] of cases) {
      const primary = (await api.create({ properties: a, associations: [] })).id;
      const secondary = (await api.create({ properties: b, associations: [] })).id;
      const merged = await api.merge({ primaryObjectId: primary, objectIdToMerge: secondary });
      expect(merged.id).toBe(primary);
      expect(merged.properties.hs_merged_object_ids).toBe(secondary);
      expect((await rejection<ApiException>(api.getById(secondary))).code).toBe(404);
    }
  });

  it("a self-merge or an unknown id is an ApiException 400 naming the field", async () => {
    const t = await tenant();
    const api = sdk(t).crm.companies.basicApi;
    const id = (await api.create({ properties: { name: "solo" }, associations: [] })).id;
    const self = await rejection<ApiException>(api.merge({ primaryObjectId: id, objectIdToMerge: id }));
    expect([self.code, self.body.category, self.body.errors?.[0]?.context?.propertyName]).toEqual([400, "VALIDATION_ERROR", ["objectIdToMerge"]]);
    const unknown = await rejection<ApiException>(api.merge({ primaryObjectId: "999999999999", objectIdToMerge: id }));
    expect([unknown.code, unknown.body.errors?.[0]?.context?.propertyName]).toEqual([400, ["primaryObjectId"]]);
  });
});

describe("@hubspot/api-client 14.0.1: GDPR delete (basicApi.purge)", () => {
  it("by id and by email (idProperty email): 204, then the contact is gone, archived reads included; unknown is a 404", async () => {
    const t = await tenant();
    const api = sdk(t).crm.contacts.basicApi;
    const a = (await api.create({ properties: { email: "gdpr-a@sdk.test" }, associations: [] })).id;
    const b = (await api.create({ properties: { email: "gdpr-b@sdk.test" }, associations: [] })).id;
    await expect(api.purge({ objectId: a })).resolves.toBeUndefined();
    await expect(api.purge({ objectId: "gdpr-b@sdk.test", idProperty: "email" })).resolves.toBeUndefined();
    for (const id of [a, b]) {
      expect((await rejection<ApiException>(api.getById(id))).code).toBe(404);
      expect((await rejection<ApiException>(api.getById(id, undefined, undefined, undefined, true))).code).toBe(404);
    }
    const unknown = await rejection<ApiException>(api.purge({ objectId: a }));
    expect([unknown.code, unknown.body.category]).toEqual([404, "OBJECT_NOT_FOUND"]);
  });
});
