/**
 * Bad input on the engagements v1 API, table-driven: each row is a 400 in the one error envelope naming the
 * field as the v1 client wrote it (not the v3 property behind it), and writes nothing; unknown ids are 404s.
 */
import { describe, expect, it } from "vitest";
import { admin, call, expectError, tenant, type Tenant } from "../helpers/api";
import { E1, record, v1Engagement } from "./helpers";

const at = Date.UTC(2026, 10, 1);

/** Every engagement of the account as v1 lists it, to show that a refused write left nothing. */
const all = async (t: Tenant) => (await call("GET", `${E1}/paged?limit=250`, { token: t.pat })).json.results;

describe("engagements v1: bad input", () => {
  it.each<[string, unknown, string]>([
    ["no engagement object", { metadata: { body: "x" } }, "engagement"],
    ["an unknown type", { engagement: { type: "LUNCH" } }, "engagement.type"],
    ["a type v1 does not write", { engagement: { type: "COMMUNICATION" } }, "engagement.type"],
    ["a timestamp that is not epoch milliseconds", { engagement: { type: "NOTE", timestamp: "yesterday" } }, "engagement.timestamp"],
    ["an ownerId that is not a number", { engagement: { type: "NOTE", ownerId: "ada" } }, "engagement.ownerId"],
    ["a metadata field the type does not have", { engagement: { type: "NOTE" }, metadata: { bdy: "x" } }, "metadata"],
    ["a task status outside its options", { engagement: { type: "TASK" }, metadata: { subject: "x", status: "SOMEDAY" } }, "metadata.status"],
    ["a call status outside its options", { engagement: { type: "CALL" }, metadata: { status: "DONE" } }, "metadata.status"],
    ["a duration that is not a number", { engagement: { type: "CALL" }, metadata: { durationMilliseconds: "long" } }, "metadata.durationMilliseconds"],
    ["a meeting time that is not epoch milliseconds", { engagement: { type: "MEETING" }, metadata: { startTime: "10am" } }, "metadata.startTime"],
    ["an email address list that is not a list", { engagement: { type: "EMAIL" }, metadata: { to: "ada@example.com" } }, "metadata.to"],
    ["a contact id that is not a number", { engagement: { type: "NOTE" }, associations: { contactIds: ["ada"] } }, "associations.contactIds.0"],
    ["a contact that does not exist", { engagement: { type: "NOTE" }, associations: { contactIds: [999_999_999] } }, "associations.contactIds.0"],
    ["an attachment without an id", { engagement: { type: "NOTE" }, attachments: [{}] }, "attachments.0.id"],
  ])("create with %s: a 400 naming the field, nothing written", async (_what, body, field) => {
    const t = await tenant();
    const res = await call("POST", E1, { token: t.pat, body });
    const err = expectError(res, 400, "VALIDATION_ERROR");
    expect(err.errors.flatMap((e: { context: { propertyName: string[] } }) => e.context.propertyName)).toContain(field);
    expect(await all(t)).toEqual([]);
  });

  it("a metadata field's error names the field and the allowed options", async () => {
    const t = await tenant();
    const res = await call("POST", E1, { token: t.pat, body: { engagement: { type: "TASK" }, metadata: { status: "SOMEDAY", bogus: 1 } } });
    const err = expectError(res, 400, "VALIDATION_ERROR");
    expect(err.message).toContain("bogus");
    const fixed = await call("POST", E1, { token: t.pat, body: { engagement: { type: "TASK" }, metadata: { priority: "URGENT" } } });
    const detail = expectError(fixed, 400, "VALIDATION_ERROR").errors[0];
    expect(detail.context.propertyName).toEqual(["metadata.priority"]);
    expect(detail.message).toContain("metadata.priority");
    expect(detail.message).toContain("HIGH");
  });

  it.each<[string, (id: number) => unknown, string]>([
    ["a change to another activity type", () => ({ engagement: { type: "CALL" } }), "engagement.type"],
    ["a metadata field of another type", () => ({ metadata: { toNumber: "+1555" } }), "metadata"],
    ["a value outside a field's options", () => ({ metadata: { status: "DONE" } }), "metadata.status"],
    ["a timestamp that is not a number", () => ({ engagement: { timestamp: "now" } }), "engagement.timestamp"],
  ])("PATCH with %s: a 400 naming the field, the row unchanged", async (_what, body, field) => {
    const t = await tenant();
    const made = await v1Engagement(t, { engagement: { type: "TASK", timestamp: at }, metadata: { subject: "Keep", status: "NOT_STARTED" } });
    const id = made.engagement.id as number;
    const res = await call("PATCH", `${E1}/${id}`, { token: t.pat, body: body(id) });
    const err = expectError(res, 400, "VALIDATION_ERROR");
    expect(err.errors.flatMap((e: { context: { propertyName: string[] } }) => e.context.propertyName)).toContain(field);
    expect((await call("GET", `${E1}/${id}`, { token: t.pat })).json).toEqual(made);
  });

  it.each<[string, string]>([
    ["an engagement id that is not a number", `${E1}/abc`],
    ["a limit that is not a number", `${E1}/paged?limit=many`],
    ["an offset that is not a number", `${E1}/paged?offset=next`],
    ["a count that is not a number", `${E1}/recent/modified?count=x`],
    ["a since that is not epoch milliseconds", `${E1}/recent/modified?since=yesterday`],
    ["a record type engagements are not associated with", `${E1}/associated/LEAD/1/paged`],
    ["a record id that is not a number", `${E1}/associated/CONTACT/ada/paged`],
  ])("GET with %s: 400", async (_what, path) => {
    const t = await tenant();
    expectError(await call("GET", path, { token: t.pat }), 400, "VALIDATION_ERROR");
  });

  it("an unknown engagement id is a 404 for every route; an unknown record is a 404 for the association and the associated page", async () => {
    const t = await tenant();
    const ada = await record(t, "contacts", { email: "ada@example.com" });
    const note = (await v1Engagement(t, { engagement: { type: "NOTE", timestamp: at } })).engagement.id as number;
    const contactNotEngagement = ada;
    for (const id of [999_999_999, contactNotEngagement]) {
      expectError(await call("GET", `${E1}/${id}`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
      expectError(await call("PATCH", `${E1}/${id}`, { token: t.pat, body: { metadata: {} } }), 404, "OBJECT_NOT_FOUND");
      expectError(await call("DELETE", `${E1}/${id}`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
      expectError(await call("PUT", `${E1}/${id}/associations/CONTACT/${ada}`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
    }
    expectError(await call("PUT", `${E1}/${note}/associations/CONTACT/999999999`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
    expectError(await call("GET", `${E1}/associated/DEAL/999999999/paged`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
    // The contact's id is no deal.
    expectError(await call("GET", `${E1}/associated/DEAL/${ada}/paged`, { token: t.pat }), 404, "OBJECT_NOT_FOUND");
  });

  it("the contacts scopes guard every route; associating reads the record's own read scope", async () => {
    const reader = await tenant({ scopes: ["crm.objects.contacts.read"] });
    expectError(await call("POST", E1, { token: reader.pat, body: { engagement: { type: "NOTE" } } }), 403, "MISSING_SCOPES");
    expect((await call("GET", `${E1}/paged`, { token: reader.pat })).status).toBe(200);
    const writer = await tenant({ scopes: ["crm.objects.contacts.read", "crm.objects.contacts.write"] });
    const deal = await record(await allScopes(writer), "deals");
    const res = await call("POST", E1, { token: writer.pat, body: { engagement: { type: "NOTE" }, associations: { dealIds: [deal] } } });
    expectError(res, 403, "MISSING_SCOPES");
    expect(await all(writer)).toEqual([]);
  });
});

/** Another private app of the same account with every scope, to make the records the narrow one cannot. */
const allScopes = async (t: Tenant): Promise<Tenant> => ({ ...t, pat: (await admin("POST", `/admin/v1/accounts/${t.portalId}/private-apps`, { name: "all" })).token });

describe("engagements v1: methods the legacy API does not have", () => {
  it("PUT on an engagement is a 405 naming the methods it takes (the legacy API updates with PATCH)", async () => {
    const t = await tenant();
    const id = (await v1Engagement(t, { engagement: { type: "NOTE", timestamp: at } })).engagement.id as number;
    const res = await call("PUT", `${E1}/${id}`, { token: t.pat, body: { engagement: { type: "NOTE" } } });
    expectError(res, 405, "METHOD_NOT_ALLOWED");
    expect(res.headers.get("allow")).toContain("PATCH");
  });
});
