/**
 * `GET /admin/v1/accounts/{portalId}/usage`: an account's usage from the service's own data,
 * built through the public API (records, a store and its sync, a timeline event, blog posts), operator only.
 */
import { describe, expect, it, vi } from "vitest";
import { ADMIN, admin, call, expectError, tenant } from "../helpers/api";
import { accountSettings, store, sync, waitForStatus, processed } from "../ecomm/helpers";
import { bridgeTenant, deliver, qmsg } from "../ecomm/queue-helpers";
import { createPost, publish } from "../blog/helpers";
import { createType, createRecord, expectStored } from "../timeline/helpers";

const usage = (portalId: number | string, token: string = ADMIN) => call("GET", `/admin/v1/accounts/${portalId}/usage`, { token });

describe("GET /admin/v1/accounts/:portalId/usage", () => {
  it("a new account: zero everywhere, and its rate-limit policy", async () => {
    const t = await tenant();
    const res = await usage(t.portalId);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({
      portalId: t.portalId,
      name: expect.any(String),
      records: { contacts: 0, companies: 0, deals: 0, products: 0, line_items: 0, tickets: 0, notes: 0, tasks: 0, calls: 0, meetings: 0, emails: 0, communications: 0, postal_mail: 0, leads: 0 },
      stores: 0,
      syncMessages: { pending: 0, errored: 0, resolvedErrors: 0 },
      timelineEvents: 0,
      webhookDeliveries: 0,
      blogPosts: { total: 0, published: 0, scheduled: 0, drafts: 0 },
      rateLimit: { policyName: "TEN_SECONDLY_ROLLING", intervalMilliseconds: 10_000, maxRequests: 110, isDefault: true, appliesTo: expect.any(String) },
    });
    const custom = await tenant({ rateLimit: 25 });
    expect((await usage(custom.portalId)).json.rateLimit).toMatchObject({ maxRequests: 25, isDefault: false });
  });

  it("counts what the account holds, and nothing of another account", async () => {
    const { t, origin } = await bridgeTenant();
    const other = await tenant();
    await createRecord(other, "contacts", { firstname: "Not A's" });

    const contact = await createRecord(t, "contacts", { firstname: "Ada" });
    await createRecord(t, "contacts", { firstname: "Grace" });
    await createRecord(t, "companies", { name: "Acme" });
    const gone = await createRecord(t, "deals", { dealname: "Archived" });
    expect((await call("DELETE", `/crm/v3/objects/deals/${gone}`, { token: t.pat })).status).toBe(204);
    // Through the consumer: a product applied, a contact with an unmapped property recorded as a sync error.
    await deliver([
      qmsg(origin, "PRODUCT", { externalObjectId: "p-1", properties: { title: "Mug" } }),
      qmsg(origin, "CONTACT", { externalObjectId: "c-1", properties: { email: "x@example.com" } }),
    ]);
    const type = await createType(t);
    await expectStored(t, { id: "e-1", eventTypeId: type.id, objectId: contact });
    await expectStored(t, { id: "e-2", eventTypeId: type.id, objectId: contact });
    const post = await createPost(t);
    await createPost(t);
    await publish(t, post.id);

    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const res = await usage(t.portalId);
    // Bounded, as the request's log line shows: the directory row on the control plane, then seven counts in one D1 batch on the account's shard.
    const line = log.mock.calls.map(([l]) => JSON.parse(String(l))).find((l) => l.correlationId === res.headers.get("x-service-correlation-id"));
    log.mockRestore();
    expect(line.d1Statements).toBe(8);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      records: { contacts: 2, companies: 1, deals: 0, products: 1, line_items: 0, tickets: 0, notes: 0, tasks: 0, calls: 0, meetings: 0, emails: 0, communications: 0, postal_mail: 0, leads: 0 },
      stores: 1,
      syncMessages: { pending: 0, errored: 1, resolvedErrors: 0 },
      timelineEvents: 2,
      webhookDeliveries: 0,
      blogPosts: { total: 2, drafts: 1 },
    });
    expect(res.json.blogPosts.published + res.json.blogPosts.scheduled).toBe(1);
    expect((await usage(other.portalId)).json.records.contacts).toBe(1);
  });

  it("counts accepted sync messages as pending until the consumer processes them", async () => {
    const t = await tenant();
    await accountSettings(t);
    await store(t.pat);
    await sync(t.pat, "PRODUCT", [{ externalObjectId: "queued-1", properties: { title: "A" } }, { externalObjectId: "queued-2", properties: { title: "B" } }]);
    // The local queue waits up to max_batch_timeout (2 s) for a fuller batch: this read comes first.
    expect((await usage(t.portalId)).json.syncMessages.pending).toBe(2);
    await waitForStatus(t.pat, "PRODUCT", "queued-1", processed);
    await waitForStatus(t.pat, "PRODUCT", "queued-2", processed);
    expect((await usage(t.portalId)).json).toMatchObject({ syncMessages: { pending: 0 }, records: { products: 2 } });
  });

  it("operator only: 401 without the admin token or with an account's own credentials", async () => {
    const t = await tenant();
    expectError(await call("GET", `/admin/v1/accounts/${t.portalId}/usage`), 401, "INVALID_AUTHENTICATION");
    for (const token of [t.pat, t.oauth, t.developerKey, "not-the-admin-token"]) expectError(await usage(t.portalId, token), 401, "INVALID_AUTHENTICATION");
  });

  it("404 for an unknown account", async () => {
    const acct = await admin("POST", "/admin/v1/accounts", { name: "probe" });
    expectError(await usage(acct.portalId + 1_000_000), 404, "OBJECT_NOT_FOUND");
  });

  it.each([
    ["not a number", "abc"],
    ["negative", "-1"],
    ["a fraction", "1.5"],
    ["too many digits", "1234567890123456"],
    ["hex", "0x10"],
  ])("400 in the error envelope for a portalId that is %s", async (_name, portalId) => {
    const body = expectError(await usage(portalId), 400, "VALIDATION_ERROR");
    expect(body.errors[0].context.propertyName).toEqual(expect.anything());
  });
});
