/**
 * node-hubspot (npm `hubspot` 2.3.14), unmodified, on the engagements v1 API: `engagements.create`,
 * `get` (the paged list), `getAssociated`, `update` (PATCH) and `getRecentlyModified`, with what they made
 * read back through v3 as the same activity. The client has no method to read or delete one engagement.
 */
import Hubspot from "hubspot";
import { describe, expect, it } from "vitest";
import { createContacts, http } from "./clients";
import { rejection, tenant, workerUrl } from "./helpers";

const withToken = (accessToken: string) => new Hubspot({ accessToken, baseUrl: workerUrl() });

interface Engagement {
  engagement: { id: number; portalId: number; type: string; timestamp: number; ownerId?: number; active: boolean };
  associations: { contactIds: number[]; companyIds: number[]; dealIds: number[] };
  metadata: Record<string, unknown>;
}
type Page = { results: Engagement[]; hasMore: boolean; offset: number; total?: number };

describe("node-hubspot 2.3.14: engagements", () => {
  it("create, getAssociated, get, update and getRecentlyModified work against the Worker, over the v3 activity rows", async () => {
    const t = await tenant();
    const [ada] = await createContacts(t, [{ email: "ada@example.com", firstname: "Ada" }]);
    const hs = withToken(t.oauth);

    const note = (await hs.engagements.create({
      engagement: { active: true, type: "NOTE", timestamp: 1_700_000_000_000 },
      associations: { contactIds: [ada], companyIds: [], dealIds: [], ownerIds: [] },
      metadata: { body: "Met at the conference" },
    })) as Engagement;
    expect(note.engagement).toMatchObject({ portalId: t.portalId, type: "NOTE", timestamp: 1_700_000_000_000, active: true });
    expect(note.associations.contactIds).toEqual([ada]);
    const call = (await hs.engagements.create({
      engagement: { type: "CALL", timestamp: 1_700_000_100_000 },
      associations: { contactIds: [ada] },
      metadata: { toNumber: "+15550100", status: "COMPLETED", durationMilliseconds: 60_000, body: "Booked a demo" },
    })) as Engagement;

    // The v3 face reads the same rows.
    const v3 = await http(t.oauth, "GET", `/crm/v3/objects/notes/${note.engagement.id}?properties=hs_note_body&associations=contacts`);
    expect(v3.body.properties.hs_note_body).toBe("Met at the conference");
    expect(v3.body.associations.contacts.results[0].id).toBe(String(ada));

    const associated = (await hs.engagements.getAssociated("CONTACT", ada!, { limit: 10 })) as Page;
    expect(associated.results.map((r) => r.engagement.id)).toEqual([note.engagement.id, call.engagement.id]);
    expect(associated.hasMore).toBe(false);

    const first = (await hs.engagements.get({ limit: 1 })) as Page;
    expect(first.results.map((r) => r.engagement.id)).toEqual([note.engagement.id]);
    expect(first.hasMore).toBe(true);
    const second = (await hs.engagements.get({ limit: 1, offset: first.offset })) as Page;
    expect(second.results[0]!.metadata).toEqual({ toNumber: "+15550100", status: "COMPLETED", durationMilliseconds: 60_000, body: "Booked a demo" });

    // The account's user is an owner; ownerId must name one (GET /crm/v3/owners).
    const owner = Number((await http(t.oauth, "GET", `/crm/v3/owners?email=${encodeURIComponent(t.userEmail)}`)).body.results[0].id);
    const updated = (await hs.engagements.update(String(note.engagement.id), { engagement: { ownerId: owner }, metadata: { body: "Met at the conference; follow up" } })) as Engagement;
    expect(updated.engagement.ownerId).toBe(owner);
    expect(updated.metadata.body).toBe("Met at the conference; follow up");

    const recent = (await hs.engagements.getRecentlyModified({ count: 1 })) as Page;
    expect(recent.results.map((r) => r.engagement.id)).toEqual([note.engagement.id]);
    expect(recent).toMatchObject({ hasMore: true, offset: 1, total: 2 });
  });

  it("a bad create rejects with a StatusCodeError carrying the 400 that names the field", async () => {
    const t = await tenant();
    const err = await rejection<{ statusCode: number; error: { category: string; errors: { context: { propertyName: string[] } }[] } }>(
      withToken(t.oauth).engagements.create({ engagement: { type: "TASK" }, metadata: { status: "SOMEDAY" } }),
    );
    expect(err.statusCode).toBe(400);
    expect(err.error.category).toBe("VALIDATION_ERROR");
    expect(err.error.errors[0]!.context.propertyName).toEqual(["metadata.status"]);
  });

  it("getCallDispositions reads /calling/v1/dispositions, which the Worker does not serve (404)", async () => {
    const t = await tenant();
    const err = await rejection<{ statusCode: number }>(withToken(t.oauth).engagements.getCallDispositions());
    expect(err.statusCode).toBe(404);
  });
});
