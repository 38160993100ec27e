/** How sync messages are applied (mappings, required properties, links, last-write-wins, associations, status and errors), driven through the real consumer (worker.queue). */
import { describe, expect, it } from "vitest";
import { admin, call, tenant } from "../helpers/api";
import { accountSettings, appSettings, BRIDGE, fullMappings, store } from "./helpers";
import { associations, bridgeTenant, deliver, errorRow, linkRow, qmsg, record, storeGen, type Origin } from "./queue-helpers";
import { accountD1 } from "../helpers/shards";

const serviceIdOf = async (o: Origin, type: string, ext: string) => (await linkRow(o, type, ext))!.service_id!;

describe("translation through the mappings", () => {
  it("maps and coerces properties per dataType and ignores unmapped ones", async () => {
    const { origin } = await bridgeTenant();
    await deliver([
      qmsg(origin, "CONTACT", { externalObjectId: "c1", properties: { customer_email: " Ann@Example.com ", firstname: "Ann", age: " 42 ", nope: "x" } }),
      qmsg(origin, "PRODUCT", { externalObjectId: "p1", properties: { title: "Pen", price: 1.5, image: "https://img.example.com/pen.png" } }),
      qmsg(origin, "DEAL", { externalObjectId: "d1", properties: { stage: "checkout_completed", name: "Order 1", closed: "2024-01-02T03:04:05Z" } }),
    ]);
    const c = await record(await serviceIdOf(origin, "CONTACT", "c1"));
    expect(c.properties).toEqual({ email: "Ann@Example.com", firstname: "Ann", age: "42" });
    expect(c.email).toBe("ann@example.com");
    expect((await record(await serviceIdOf(origin, "PRODUCT", "p1"))).properties).toEqual({
      name: "Pen",
      price: "1.5",
      ip__ecomm_bridge__image_url: "https://img.example.com/pen.png",
    });
    const d = await record(await serviceIdOf(origin, "DEAL", "d1"));
    expect(d.properties).toEqual({ dealstage: "checkout_completed", dealname: "Order 1", closedate: String(Date.UTC(2024, 0, 2, 3, 4, 5)), pipeline: "ecommerce" });
  });

  it("merges later properties into the record; null and empty strings clear a property", async () => {
    const { origin } = await bridgeTenant();
    await deliver([qmsg(origin, "CONTACT", { externalObjectId: "c1", changedAt: 1, properties: { customer_email: "a@example.com", firstname: "A", age: 3 } })]);
    await deliver([qmsg(origin, "CONTACT", { externalObjectId: "c1", changedAt: 2, properties: { firstname: null, age: "" } })]);
    expect((await record(await serviceIdOf(origin, "CONTACT", "c1"))).properties).toEqual({ email: "a@example.com" });
  });

  it.each([
    ["NUMBER that does not parse", "CONTACT", { customer_email: "a@example.com", age: "forty" }, "ERROR_INVALID_NUMBER_PROPERTY"],
    ["NUMBER given a boolean", "CONTACT", { customer_email: "a@example.com", age: true }, "ERROR_INVALID_NUMBER_PROPERTY"],
    ["DATETIME that does not parse", "DEAL", { stage: "processed", closed: "yesterday" }, "ERROR_INVALID_DATE_PROPERTY"],
    ["contact without email", "CONTACT", { firstname: "A" }, "MISSING_REQUIRED_PROPERTY"],
    ["contact with an invalid email", "CONTACT", { customer_email: "not-an-email" }, "INVALID_EMAIL_ADDRESS"],
    ["deal without a stage", "DEAL", { name: "x" }, "MISSING_REQUIRED_PROPERTY"],
    ["deal with a stage outside the ecommerce pipeline", "DEAL", { stage: "appointmentscheduled" }, "INVALID_DEAL_STAGE"],
    ["line item without a deal", "LINE_ITEM", { qty: 1 }, "MISSING_REQUIRED_PROPERTY"],
  ])("records a sync error for a %s", async (_, type, properties, errorType) => {
    const { origin } = await bridgeTenant();
    const res = await deliver([qmsg(origin, type as "CONTACT", { externalObjectId: "x1", changedAt: 1234, properties })]);
    expect(res.acked(0)).toBe(true);
    expect(await errorRow(origin, type, "x1")).toMatchObject({ type: errorType, status: "OPEN", changed_at: 1234, app_id: origin.appId });
    expect((await linkRow(origin, type, "x1"))?.service_id).toBeNull();
  });

  it("hubspot_owner_id mapped from the store must name a live owner of the account: another value is INVALID_ENUM_PROPERTY", async () => {
    const mappings = fullMappings();
    mappings.DEAL.properties.push({ externalPropertyName: "rep", servicePropertyName: "hubspot_owner_id", dataType: "STRING" });
    const { t, origin } = await bridgeTenant({ mappings });
    const owner = (await call("GET", "/crm/v3/owners", { token: t.pat })).json.results[0].id as string;
    const other = await tenant();
    const othersOwner = (await call("GET", "/crm/v3/owners", { token: other.pat })).json.results[0].id as string;
    await deliver([
      qmsg(origin, "DEAL", { externalObjectId: "d1", properties: { stage: "processed", name: "Mine", rep: owner } }),
      qmsg(origin, "DEAL", { externalObjectId: "d2", changedAt: 77, properties: { stage: "processed", name: "Theirs", rep: othersOwner } }),
      qmsg(origin, "DEAL", { externalObjectId: "d3", properties: { stage: "processed", name: "Nobody", rep: "12345" } }),
    ]);
    expect((await record(await serviceIdOf(origin, "DEAL", "d1"))).properties.hubspot_owner_id).toBe(owner);
    for (const ext of ["d2", "d3"]) {
      expect(await errorRow(origin, "DEAL", ext)).toMatchObject({ type: "INVALID_ENUM_PROPERTY", status: "OPEN" });
      expect((await linkRow(origin, "DEAL", ext))?.service_id).toBeNull();
    }
    expect((await errorRow(origin, "DEAL", "d2"))!.details).toContain(othersOwner);
  });

  it("a contact without email fails with MISSING_REQUIRED_PROPERTY: status lastProcessedAt null, serviceId null and the error", async () => {
    const { t, origin } = await bridgeTenant();
    await deliver([qmsg(origin, "CONTACT", { externalObjectId: "c1", changedAt: 1500, properties: { firstname: "A" } })]);
    const res = await call("GET", `${BRIDGE}/sync/status/shop/CONTACT/c1`, { token: t.oauth });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      storeId: "shop",
      objectType: "CONTACT",
      externalObjectId: "c1",
      serviceId: null,
      lastProcessedAt: null,
      numErrors: 1,
      errors: [
        {
          portalId: t.portalId,
          storeId: "shop",
          objectType: "CONTACT",
          externalObjectId: "c1",
          changedAt: "1500",
          erroredAt: expect.stringMatching(/^\d+$/),
          type: "MISSING_REQUIRED_PROPERTY",
          details: expect.stringContaining("email"),
          status: "OPEN",
        },
      ],
    });
  });

  it("an update may omit a required property the record already has", async () => {
    const { origin } = await bridgeTenant();
    await deliver([qmsg(origin, "DEAL", { externalObjectId: "d1", changedAt: 1, properties: { stage: "processed", name: "A" } })]);
    const res = await deliver([qmsg(origin, "DEAL", { externalObjectId: "d1", changedAt: 2, properties: { name: "B" } })]);
    expect(res.acked(0)).toBe(true);
    expect((await record(await serviceIdOf(origin, "DEAL", "d1"))).properties).toMatchObject({ dealstage: "processed", dealname: "B" });
    expect(await errorRow(origin, "DEAL", "d1")).toBeNull();
  });

  it("a later success resolves the object's error; the status keeps listing it but counts no open error", async () => {
    const { t, origin } = await bridgeTenant();
    await deliver([qmsg(origin, "CONTACT", { externalObjectId: "c1", changedAt: 1, properties: { customer_email: "bad" } })]);
    await deliver([qmsg(origin, "CONTACT", { externalObjectId: "c1", changedAt: 2, properties: { customer_email: "good@example.com" } })]);
    expect(await errorRow(origin, "CONTACT", "c1")).toMatchObject({ type: "INVALID_EMAIL_ADDRESS", status: "RESOLVED" });
    const res = await call("GET", `${BRIDGE}/sync/status/shop/CONTACT/c1`, { token: t.oauth });
    expect(res.json).toMatchObject({ serviceId: expect.any(Number), lastProcessedAt: expect.stringMatching(/^\d+$/), numErrors: 0 });
    expect(res.json.errors).toEqual([expect.objectContaining({ status: "RESOLVED" })]);
  });
});

describe("which settings govern a sync", () => {
  /** PRODUCT mappings that send the external `title` to a different CRM property. */
  const titleTo = (servicePropertyName: string) => ({
    mappings: { ...fullMappings(), PRODUCT: { properties: [{ externalPropertyName: "title", servicePropertyName, dataType: "STRING" }] } },
  });

  it("no settings: NO_SYNC_SETTINGS; disabled settings: SETTINGS_NOT_ENABLED", async () => {
    const t = await tenant();
    await store(t.oauth);
    const origin = { portalId: t.portalId, appId: t.appId, storeId: "shop", storeGen: await storeGen(t.portalId, "shop") };
    await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p1" }), qmsg({ ...origin, appId: null }, "PRODUCT", { externalObjectId: "p3" })]);
    expect(await errorRow(origin, "PRODUCT", "p1")).toMatchObject({
      type: "NO_SYNC_SETTINGS",
      status: "OPEN",
      details: `No ecommerce settings exist for app ${t.appId} or for this account.`,
    });
    expect(await errorRow(origin, "PRODUCT", "p3")).toMatchObject({ type: "NO_SYNC_SETTINGS", details: "No ecommerce settings exist for this account." });
    await appSettings(t, { enabled: false });
    await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p2" })]);
    expect(await errorRow(origin, "PRODUCT", "p2")).toMatchObject({
      type: "SETTINGS_NOT_ENABLED",
      status: "OPEN",
      details: `The ecommerce settings of app ${t.appId} (app-level) are not enabled; sync is paused.`,
    });
    // A private-app sync is governed by the account's settings, and the error says so.
    await accountSettings(t, { enabled: false });
    await deliver([qmsg({ ...origin, appId: null }, "PRODUCT", { externalObjectId: "p4" })]);
    expect(await errorRow(origin, "PRODUCT", "p4")).toMatchObject({
      type: "SETTINGS_NOT_ENABLED",
      details: "The ecommerce settings of this account (account-level) are not enabled; sync is paused.",
    });
  });

  it("an OAuth sync of an app without app-level settings uses the token's account's settings, like a private-app sync", async () => {
    const t = await tenant();
    await accountSettings(t); // account-level only (no appId: settings for a single account)
    await store(t.pat);
    const gen = await storeGen(t.portalId, "shop");
    const viaApp = { portalId: t.portalId, appId: t.appId, storeId: "shop", storeGen: gen };
    const viaPat = { ...viaApp, appId: null };
    await deliver([qmsg(viaApp, "PRODUCT", { externalObjectId: "p1", properties: { title: "A" } }), qmsg(viaPat, "PRODUCT", { externalObjectId: "p2", properties: { title: "B" } })]);
    expect(await errorRow(viaApp, "PRODUCT", "p1")).toBeNull();
    expect((await record(await serviceIdOf(viaApp, "PRODUCT", "p1"))).properties).toEqual({ name: "A" });
    expect((await record(await serviceIdOf(viaPat, "PRODUCT", "p2"))).properties).toEqual({ name: "B" });
  });

  it("app-level settings win over the account's for the app's OAuth syncs; the account's still govern private-app syncs", async () => {
    const t = await tenant();
    await accountSettings(t, titleTo("description"));
    await appSettings(t, titleTo("name"));
    await store(t.oauth);
    const gen = await storeGen(t.portalId, "shop");
    const viaApp = { portalId: t.portalId, appId: t.appId, storeId: "shop", storeGen: gen };
    const viaPat = { ...viaApp, appId: null };
    await deliver([qmsg(viaApp, "PRODUCT", { externalObjectId: "p1", properties: { title: "A" } }), qmsg(viaPat, "PRODUCT", { externalObjectId: "p2", properties: { title: "B" } })]);
    expect((await record(await serviceIdOf(viaApp, "PRODUCT", "p1"))).properties).toEqual({ name: "A" });
    expect((await record(await serviceIdOf(viaPat, "PRODUCT", "p2"))).properties).toEqual({ description: "B" });

    // Existence decides, not `enabled`: the app's paused settings pause its syncs, they do not fall through.
    await appSettings(t, { ...titleTo("name"), enabled: false });
    await deliver([qmsg(viaApp, "PRODUCT", { externalObjectId: "p3", properties: { title: "C" } })]);
    expect(await errorRow(viaApp, "PRODUCT", "p3")).toMatchObject({ type: "SETTINGS_NOT_ENABLED" });

    // Decided when the message is processed: once the app's settings are deleted, the account's govern.
    expect((await call("DELETE", `${BRIDGE}/settings?appId=${t.appId}`, { token: t.developerKey })).status).toBe(204);
    await deliver([qmsg(viaApp, "PRODUCT", { externalObjectId: "p3", properties: { title: "C" } })]);
    expect((await record(await serviceIdOf(viaApp, "PRODUCT", "p3"))).properties).toEqual({ description: "C" });
    expect(await errorRow(viaApp, "PRODUCT", "p3")).toMatchObject({ status: "RESOLVED" });
  });

  it("another account's account-level settings never apply, even to the same app's syncs in one batch", async () => {
    const a = await tenant();
    const b = await tenant();
    // a's app installed in b's account too; only b has settings (account-level), a has none, the app none.
    const inB = (await admin("POST", `/admin/v1/accounts/${b.portalId}/installs`, { appId: a.appId })).access_token as string;
    await accountSettings(b, titleTo("description"));
    await store(a.oauth);
    await store(inB);
    const inA = { portalId: a.portalId, appId: a.appId, storeId: "shop", storeGen: await storeGen(a.portalId, "shop") };
    const appInB = { portalId: b.portalId, appId: a.appId, storeId: "shop", storeGen: await storeGen(b.portalId, "shop") };
    await deliver([
      qmsg(inA, "PRODUCT", { externalObjectId: "p1", properties: { title: "A" } }),
      qmsg(appInB, "PRODUCT", { externalObjectId: "p1", properties: { title: "B" } }),
      qmsg({ ...inA, appId: null }, "PRODUCT", { externalObjectId: "p2", properties: { title: "A2" } }),
    ]);
    expect(await errorRow(inA, "PRODUCT", "p1")).toMatchObject({ type: "NO_SYNC_SETTINGS", status: "OPEN" });
    expect(await errorRow(inA, "PRODUCT", "p2")).toMatchObject({ type: "NO_SYNC_SETTINGS", status: "OPEN" });
    expect((await linkRow(inA, "PRODUCT", "p1"))?.service_id ?? null).toBeNull();
    expect((await record(await serviceIdOf(appInB, "PRODUCT", "p1"))).properties).toEqual({ description: "B" });
  });
});

describe("links and last-write-wins", () => {
  it("a new externalObjectId creates a new record; the same one updates its record", async () => {
    const { origin } = await bridgeTenant();
    await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p1", properties: { title: "A" } }), qmsg(origin, "PRODUCT", { externalObjectId: "p2", properties: { title: "B" } })]);
    const [a, b] = [await serviceIdOf(origin, "PRODUCT", "p1"), await serviceIdOf(origin, "PRODUCT", "p2")];
    expect(a).not.toBe(b);
    await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p1", properties: { title: "A2" } })]);
    expect(await serviceIdOf(origin, "PRODUCT", "p1")).toBe(a);
    expect((await record(a)).properties.name).toBe("A2");
  });

  it("out of order: an older change arriving after a newer one is ignored", async () => {
    const { origin } = await bridgeTenant();
    await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p1", changedAt: 2000, properties: { title: "new", price: 2 } })]);
    await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p1", changedAt: 1000, properties: { title: "old", price: 1 } })]);
    expect((await record(await serviceIdOf(origin, "PRODUCT", "p1"))).properties).toEqual({ name: "new", price: "2" });
    expect((await linkRow(origin, "PRODUCT", "p1"))!.changed_at).toBe(2000);
  });

  it("equal changedAt: the message received later wins (deterministic tie-break by message id)", async () => {
    const { origin } = await bridgeTenant();
    const first = qmsg(origin, "PRODUCT", { externalObjectId: "p1", changedAt: 1000, properties: { title: "first" } });
    const second = qmsg(origin, "PRODUCT", { externalObjectId: "p1", changedAt: 1000, properties: { title: "second" } });
    await deliver([second]);
    await deliver([first]);
    expect((await record(await serviceIdOf(origin, "PRODUCT", "p1"))).properties.name).toBe("second");
  });

  it("a new external contact whose email an existing contact has joins that record (email is unique)", async () => {
    const { t, origin } = await bridgeTenant();
    const existing = await call("POST", "/crm/v3/objects/contacts", { token: t.oauth, body: { properties: { email: "Same@Example.com", lastname: "Kept" } } });
    await deliver([qmsg(origin, "CONTACT", { externalObjectId: "c1", properties: { customer_email: "same@example.com", firstname: "Synced" } })]);
    expect(await serviceIdOf(origin, "CONTACT", "c1")).toBe(Number(existing.json.id));
    expect((await record(Number(existing.json.id))).properties).toMatchObject({ lastname: "Kept", firstname: "Synced" });
  });

  it("two new contacts with one email in one batch: the second waits for the first, then joins it", async () => {
    const { origin } = await bridgeTenant();
    const a = qmsg(origin, "CONTACT", { externalObjectId: "c1", properties: { customer_email: "dup@example.com" } });
    const b = qmsg(origin, "CONTACT", { externalObjectId: "c2", properties: { customer_email: "DUP@example.com" } });
    const res = await deliver([a, b]);
    expect(res.acked(0)).toBe(true);
    expect(res.retried(1)).toBe(true);
    await deliver([b], { attempts: 2 });
    expect(await serviceIdOf(origin, "CONTACT", "c2")).toBe(await serviceIdOf(origin, "CONTACT", "c1"));
  });

  it("a contact cannot take an email another contact of the account owns", async () => {
    const { origin } = await bridgeTenant();
    await deliver([
      qmsg(origin, "CONTACT", { externalObjectId: "c1", properties: { customer_email: "one@example.com" } }),
      qmsg(origin, "CONTACT", { externalObjectId: "c2", properties: { customer_email: "two@example.com" } }),
    ]);
    await deliver([qmsg(origin, "CONTACT", { externalObjectId: "c2", properties: { customer_email: "one@example.com" } })]);
    expect(await errorRow(origin, "CONTACT", "c2")).toMatchObject({ type: "INVALID_EMAIL_ADDRESS" });
    expect((await record(await serviceIdOf(origin, "CONTACT", "c2"))).email).toBe("two@example.com");
  });

  it("a record the user archived is not brought back or changed by later sync messages", async () => {
    const { t, origin } = await bridgeTenant();
    await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p1", changedAt: 1, properties: { title: "A" } })]);
    const id = await serviceIdOf(origin, "PRODUCT", "p1");
    expect((await call("DELETE", `/crm/v3/objects/products/${id}`, { token: t.oauth })).status).toBe(204);
    await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p1", changedAt: 2, properties: { title: "B" } })]);
    expect(await serviceIdOf(origin, "PRODUCT", "p1")).toBe(id);
    expect(await record(id)).toMatchObject({ archived: 1, properties: { name: "A" } });
  });
});

describe("DELETE", () => {
  it("stops syncing the externalObjectId and keeps the CRM record; an older UPSERT is then ignored", async () => {
    const { origin } = await bridgeTenant();
    await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p1", changedAt: 1000, properties: { title: "A" } })]);
    const id = await serviceIdOf(origin, "PRODUCT", "p1");
    await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p1", action: "DELETE", changedAt: 2000 })]);
    expect(await linkRow(origin, "PRODUCT", "p1")).toMatchObject({ deleted: 1, service_id: id, changed_at: 2000 });
    expect(await record(id)).toMatchObject({ archived: 0, properties: { name: "A" } });
    await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p1", changedAt: 1500, properties: { title: "late" } })]);
    expect((await record(id)).properties.name).toBe("A");
  });

  it("a DELETE older than the last applied UPSERT is ignored; a newer UPSERT resumes syncing the same record", async () => {
    const { origin } = await bridgeTenant();
    await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p1", changedAt: 3000, properties: { title: "A" } })]);
    await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p1", action: "DELETE", changedAt: 2000 })]);
    expect((await linkRow(origin, "PRODUCT", "p1"))!.deleted).toBe(0);
    await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p1", action: "DELETE", changedAt: 4000 })]);
    const id = await serviceIdOf(origin, "PRODUCT", "p1");
    await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p1", changedAt: 5000, properties: { title: "back" } })]);
    expect(await linkRow(origin, "PRODUCT", "p1")).toMatchObject({ deleted: 0, service_id: id });
    expect((await record(id)).properties.name).toBe("back");
  });
});

describe("associations", () => {
  it("deal -> contacts: many; unknown contacts are ignored without error; a later list replaces the old one", async () => {
    const { origin } = await bridgeTenant();
    await deliver([
      qmsg(origin, "CONTACT", { externalObjectId: "c1", properties: { customer_email: "c1@example.com" } }),
      qmsg(origin, "CONTACT", { externalObjectId: "c2", properties: { customer_email: "c2@example.com" } }),
    ]);
    const [c1, c2] = [await serviceIdOf(origin, "CONTACT", "c1"), await serviceIdOf(origin, "CONTACT", "c2")];
    await deliver([qmsg(origin, "DEAL", { externalObjectId: "d1", changedAt: 1, properties: { stage: "processed" }, associations: { CONTACT: ["c1", "c2", "ghost"] } })]);
    const d1 = await serviceIdOf(origin, "DEAL", "d1");
    expect(await errorRow(origin, "DEAL", "d1")).toBeNull();
    expect(await associations(origin.portalId, d1)).toEqual([`contacts:${c1}`, `contacts:${c2}`].sort());
    expect(await associations(origin.portalId, c1)).toEqual([`deals:${d1}`]);

    await deliver([qmsg(origin, "DEAL", { externalObjectId: "d1", changedAt: 2, associations: { CONTACT: ["c2"] } })]);
    expect(await associations(origin.portalId, d1)).toEqual([`contacts:${c2}`]);
    expect(await associations(origin.portalId, c1)).toEqual([]);
  });

  it("line item -> deal and product from the v1 hs_assoc__ properties; moving it to another deal replaces the old link", async () => {
    const { origin } = await bridgeTenant();
    await deliver([
      qmsg(origin, "PRODUCT", { externalObjectId: "p1" }),
      qmsg(origin, "DEAL", { externalObjectId: "d1", properties: { stage: "processed" } }),
      qmsg(origin, "DEAL", { externalObjectId: "d2", properties: { stage: "processed" } }),
    ]);
    await deliver([qmsg(origin, "LINE_ITEM", { externalObjectId: "li1", changedAt: 1, properties: { qty: 1, deal_id: "d1", product_id: "p1" } })]);
    const [li, d1, d2, p1] = await Promise.all([
      serviceIdOf(origin, "LINE_ITEM", "li1"),
      serviceIdOf(origin, "DEAL", "d1"),
      serviceIdOf(origin, "DEAL", "d2"),
      serviceIdOf(origin, "PRODUCT", "p1"),
    ]);
    expect(await associations(origin.portalId, li)).toEqual([`deals:${d1}`, `products:${p1}`]);
    expect((await record(li)).properties).toEqual({ quantity: "1" }); // hs_assoc__ properties are not stored
    await deliver([qmsg(origin, "LINE_ITEM", { externalObjectId: "li1", changedAt: 2, associations: { DEAL: ["d2"] } })]);
    expect(await associations(origin.portalId, li)).toEqual([`deals:${d2}`, `products:${p1}`]);
    expect(await associations(origin.portalId, d1)).toEqual([]);
  });

  it("a line item names exactly one deal", async () => {
    const { origin } = await bridgeTenant();
    await deliver([qmsg(origin, "LINE_ITEM", { externalObjectId: "li1", associations: { DEAL: ["d1", "d2"], PRODUCT: ["p1"] } })]);
    expect(await errorRow(origin, "LINE_ITEM", "li1")).toMatchObject({ type: "INVALID_ASSOCIATION" });
  });
});

describe("stores and sync state", () => {
  it("deleting a store removes its sync state and keeps the CRM records", async () => {
    const { t, origin } = await bridgeTenant();
    await deliver([qmsg(origin, "PRODUCT", { externalObjectId: "p1", properties: { title: "A" } })]);
    const id = await serviceIdOf(origin, "PRODUCT", "p1");
    expect((await call("DELETE", `${BRIDGE}/stores/shop`, { token: t.oauth })).status).toBe(204);
    expect(await linkRow(origin, "PRODUCT", "p1")).toBeNull();
    expect((await record(id)).archived).toBe(0);
    const { n } = (await (await accountD1(t.portalId)).prepare("select count(*) as n from ecomm_links where portal_id = ?").bind(t.portalId).first<{ n: number }>())!;
    expect(n).toBe(0);
  });
});
