/**
 * Another account's engagements: B's credentials cannot read, list, change, delete or associate A's
 * engagement, nor tie B's engagements to A's records; every refusal leaves A's engagement as it was.
 * (The generated suite in test/reliability/ covers every route again with every credential kind.)
 */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant } from "../helpers/api";
import { E1, record, v1Engagement } from "./helpers";

describe("engagements v1: accounts apart", () => {
  it("B cannot read, change, delete or associate A's engagement, nor associate to A's records", async () => {
    const a = await tenant();
    const b = await tenant();
    const aContact = await record(a, "contacts", { email: "ada@example.com" });
    const bContact = await record(b, "contacts", { email: "bob@example.com" });
    const made = await v1Engagement(a, { engagement: { type: "NOTE", timestamp: 1 }, associations: { contactIds: [aContact] }, metadata: { body: "A's secret note" } });
    const id = made.engagement.id as number;
    const bNote = (await v1Engagement(b, { engagement: { type: "NOTE", timestamp: 1 } })).engagement.id as number;

    for (const token of [b.pat, b.oauth]) {
      expectError(await call("GET", `${E1}/${id}`, { token }), 404, "OBJECT_NOT_FOUND");
      expectError(await call("PATCH", `${E1}/${id}`, { token, body: { metadata: { body: "B was here" } } }), 404, "OBJECT_NOT_FOUND");
      expectError(await call("DELETE", `${E1}/${id}`, { token }), 404, "OBJECT_NOT_FOUND");
      expectError(await call("PUT", `${E1}/${id}/associations/CONTACT/${bContact}`, { token }), 404, "OBJECT_NOT_FOUND");
      expectError(await call("DELETE", `${E1}/${id}/associations/CONTACT/${aContact}`, { token }), 404, "OBJECT_NOT_FOUND");
      // B's own engagement with A's contact: A's contact is not B's.
      expectError(await call("PUT", `${E1}/${bNote}/associations/CONTACT/${aContact}`, { token }), 404, "OBJECT_NOT_FOUND");
      expectError(await call("GET", `${E1}/associated/CONTACT/${aContact}/paged`, { token }), 404, "OBJECT_NOT_FOUND");
      const create = await call("POST", E1, { token, body: { engagement: { type: "NOTE" }, associations: { contactIds: [aContact] } } });
      expect(expectError(create, 400, "VALIDATION_ERROR").errors[0].context.propertyName).toEqual(["associations.contactIds.0"]);
      const pages = [await call("GET", `${E1}/paged`, { token }), await call("GET", `${E1}/recent/modified`, { token })];
      for (const page of pages) {
        expect(page.json.results.map((r: { engagement: { id: number } }) => r.engagement.id)).toEqual([bNote]);
        expect(page.text).not.toContain("secret");
      }
    }
    // A's engagement is as it was, and B's note has no association.
    expect((await call("GET", `${E1}/${id}`, { token: a.pat })).json).toEqual(made);
    expect((await call("GET", `${E1}/${bNote}`, { token: b.pat })).json.associations.contactIds).toEqual([]);
  });
});
