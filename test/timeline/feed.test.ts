/** The rendered record timeline `GET /crm/v3/objects/{objectType}/{objectId}/timeline`. */
import { describe, expect, it } from "vitest";
import { call, expectError, tenant } from "../helpers/api";
import { createProp, createRecord, createType, expectStored, timeline } from "./helpers";

describe("GET record timeline", () => {
  it("renders each event with its type's templates, newest first", async () => {
    const t = await tenant();
    const type = await createType(t, {
      name: "Webinar",
      headerTemplate: "Registered for **{{title}}**",
      detailTemplate: "Speaker: {{extraData.speaker}}\n\nOn {{#formatDate startsAt format=\"short\"}}{{/formatDate}}",
    });
    await createProp(t, type.id, { name: "title", label: "Title", propertyType: "String" });
    await createProp(t, type.id, { name: "startsAt", label: "Starts", propertyType: "Date" });
    const plain = await createType(t, { name: "Plain <type>" });
    const contact = await createRecord(t, "contacts", { email: "feed@example.com" });
    const iframe = { linkLabel: "Open", iframeLabel: "Webinar", iframeUri: "https://example.com/w", width: 600, height: 400 };
    await expectStored(t, { id: "old", eventTypeId: type.id, objectId: contact, timestamp: 1000, title: "Intro", startsAt: 1416325631000, extraData: { speaker: "Ann" }, timelineIFrame: iframe });
    await expectStored(t, { id: "new", eventTypeId: plain.id, objectId: contact, timestamp: 2000 });
    const res = await timeline(t, "contacts", contact);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({
      results: [
        { id: "new", eventTypeId: plain.id, eventTypeName: "Plain <type>", timestamp: 2000, headerHtml: "<p>Plain &lt;type&gt;</p>", detailHtml: "" },
        {
          id: "old",
          eventTypeId: type.id,
          eventTypeName: "Webinar",
          timestamp: 1000,
          headerHtml: "<p>Registered for <strong>Intro</strong></p>",
          detailHtml: "<p>Speaker: Ann</p>\n<p>On 11/18/14 3:47 PM</p>",
          timelineIFrame: iframe,
        },
      ],
    });
  });

  it("escapes a script in a value or in a template", async () => {
    const t = await tenant();
    const type = await createType(t, { headerTemplate: "<script>alert('t')</script>{{title}}", detailTemplate: "{{extraData.x}} [x]({{title}})" });
    await createProp(t, type.id, { name: "title", label: "Title", propertyType: "String" });
    const contact = await createRecord(t, "contacts", { email: "xss@example.com" });
    await expectStored(t, { id: "x", eventTypeId: type.id, objectId: contact, title: "javascript:alert(1)", extraData: { x: "<img src=x onerror=alert(1)>" } });
    const [entry] = (await timeline(t, "contacts", contact)).json.results;
    expect(entry.headerHtml).toBe("&lt;script&gt;alert(&#39;t&#39;)&lt;/script&gt;javascript:alert(1)");
    expect(entry.detailHtml).toBe("<p>&lt;img src=x onerror=alert(1)&gt; x</p>");
  });

  it("pages with limit and an after cursor", async () => {
    const t = await tenant();
    const type = await createType(t);
    const contact = await createRecord(t, "contacts", { email: "pages@example.com" });
    for (const [id, ts] of [["a", 10], ["b", 20], ["c", 20], ["d", 30], ["e", 5]] as const) {
      await expectStored(t, { id, eventTypeId: type.id, objectId: contact, timestamp: ts });
    }
    const seen: string[] = [];
    let query = "?limit=2";
    for (let page = 0; page < 5; page++) {
      const res = await timeline(t, "contacts", contact, query);
      expect(res.status, res.text).toBe(200);
      seen.push(...res.json.results.map((r: { id: string }) => r.id));
      if (!res.json.paging) break;
      expect(res.json.paging.next.link).toContain(`after=${encodeURIComponent(res.json.paging.next.after)}`);
      query = `?limit=2&after=${encodeURIComponent(res.json.paging.next.after)}`;
    }
    // Equal timestamps keep write order reversed (the later write is newer).
    expect(seen).toEqual(["d", "c", "b", "a", "e"]);
    const all = await timeline(t, "contacts", contact);
    expect(all.json.results).toHaveLength(5);
    expect(all.json).not.toHaveProperty("paging");
  });

  it("shows only the record's own events", async () => {
    const t = await tenant();
    const type = await createType(t);
    const companyType = await createType(t, { objectType: "COMPANY" });
    const a = await createRecord(t, "contacts", { email: "a@example.com" });
    const b = await createRecord(t, "contacts", { email: "b@example.com" });
    const company = await createRecord(t, "companies", { name: "Co" });
    await expectStored(t, { id: "a1", eventTypeId: type.id, objectId: a });
    await expectStored(t, { id: "b1", eventTypeId: type.id, objectId: b });
    await expectStored(t, { id: "c1", eventTypeId: companyType.id, objectId: company });
    expect((await timeline(t, "contacts", a)).json.results.map((r: { id: string }) => r.id)).toEqual(["a1"]);
    expect((await timeline(t, "companies", company)).json.results.map((r: { id: string }) => r.id)).toEqual(["c1"]);
    expect((await timeline(t, "deals", await createRecord(t, "deals", { dealname: "D" }))).json.results).toEqual([]);
  });

  it.each([
    ["an object type without timelines", "/crm/v3/objects/tickets/1/timeline", "objectType"],
    ["a non-numeric id", "/crm/v3/objects/contacts/abc/timeline", "objectId"],
    ["limit over 100", "/crm/v3/objects/contacts/1/timeline?limit=101", "limit"],
    ["limit 0", "/crm/v3/objects/contacts/1/timeline?limit=0", "limit"],
    ["a malformed cursor", "/crm/v3/objects/contacts/1/timeline?after=xyz", "after"],
  ])("refuses %s with 400", async (_label, path, field) => {
    const t = await tenant();
    const err = expectError(await call("GET", path, { token: t.pat }), 400, "VALIDATION_ERROR");
    expect(err.errors[0].context.propertyName).toEqual([field]);
  });

  it("answers 404 for a record that does not exist", async () => {
    const t = await tenant();
    expectError(await timeline(t, "contacts", 99999999), 404, "OBJECT_NOT_FOUND");
  });

  it("takes OAuth or private-app tokens with the read scope of the object type", async () => {
    const t = await tenant();
    const contact = await createRecord(t, "contacts", { email: "auth@example.com" });
    expect((await timeline(t, "contacts", contact, "", t.oauth)).status).toBe(200);
    expectError(await call("GET", `/crm/v3/objects/contacts/${contact}/timeline`), 401, "INVALID_AUTHENTICATION");
    expectError(await timeline(t, "contacts", contact, "", t.developerKey), 403, "FORBIDDEN");
    const dealsOnly = await tenant({ scopes: ["crm.objects.deals.read", "timeline"] });
    const err = expectError(await timeline(dealsOnly, "contacts", 1), 403, "MISSING_SCOPES");
    expect(err.errors[0].context.requiredScopes).toEqual(["crm.objects.contacts.read"]);
  });

  it("another account's record is a 404 and shows nothing", async () => {
    const a = await tenant();
    const b = await tenant();
    const type = await createType(a);
    const contact = await createRecord(a, "contacts", { email: "private@example.com" });
    await expectStored(a, { id: "secret", eventTypeId: type.id, objectId: contact });
    const res = await timeline(b, "contacts", contact);
    expectError(res, 404, "OBJECT_NOT_FOUND");
    expect(res.text).not.toContain("secret");
  });
});
