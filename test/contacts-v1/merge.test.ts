/** `POST /contacts/v1/contact/merge-vids/{vid}`: what moves, what both records show, the 400s. */
import { describe, expect, it } from "vitest";
import { BASE, call, expectError, send, tenant, type Tenant } from "../helpers/api";
import { createRecord, createType, putEvent, timeline } from "../timeline/helpers";
import { profileOf, V1, v1Create, v1Props } from "./helpers";

/**
 * The merge answers the recorded bare `SUCCESS` under a JSON content type, which `call` would try to parse
 * as JSON: this reads the text, and parses only error bodies.
 */
async function merge(t: Tenant, primary: number, secondary: number | string) {
  const res = await send(
    new Request(`${BASE}${V1}/merge-vids/${primary}`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.pat}`, "content-type": "application/json" },
      body: JSON.stringify({ vidToMerge: secondary }),
    }),
  );
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: res.status === 200 ? undefined : JSON.parse(text) };
}

describe("POST /contacts/v1/contact/merge-vids/{vid}", () => {
  it("moves properties, identities, timeline events, visitor tokens and associations to the primary", async () => {
    const t = await tenant();
    const primary = await v1Create(t, { email: "primary@example.com", firstname: "Hugh" });
    const secondary = await v1Create(t, { email: "secondary@example.com", firstname: "Wolverine", company: "X-Men" });
    const company = await createRecord(t, "companies", { name: "Acme" });
    expect((await call("PUT", `/crm/v3/objects/contacts/${secondary}/associations/companies/${company}`, { token: t.pat })).status).toBeLessThan(300);
    const type = await createType(t, { headerTemplate: "Webinar {{title}}" });
    expect((await putEvent(t, { id: "ev-1", eventTypeId: type.id, objectId: secondary })).status).toBe(204);
    await call("POST", "/tracking/v1/identify", { token: t.pat, body: { utk: "utk-secondary", email: "secondary@example.com" } });

    const res = await merge(t, primary, secondary);
    expect(res.status).toBe(200);
    expect(res.text).toBe("SUCCESS");
    expect(res.headers.get("content-type")).toBe("application/json;charset=utf-8");

    const p = (await profileOf(t, primary)).json;
    expect(p["merged-vids"]).toEqual([secondary, primary]);
    // The secondary was modified later, so its values win (docs/reference/contacts-v1.md "Merge"); the email stays the primary's.
    expect([p.properties.email.value, p.properties.firstname.value, p.properties.company.value]).toEqual(["primary@example.com", "Wolverine", "X-Men"]);
    expect(p["identity-profiles"].map((i: { vid: number }) => i.vid)).toEqual([primary, secondary]);
    expect(p["identity-profiles"][0].identities).toContainEqual(expect.objectContaining({ type: "EMAIL", value: "secondary@example.com", "is-secondary": true }));
    expect(p["merge-audits"]).toEqual([
      expect.objectContaining({ "canonical-vid": primary, "vid-to-merge": secondary, "num-properties-moved": 2, "first-name": "Wolverine", merged_from_email: expect.objectContaining({ value: "secondary@example.com", "source-vids": [secondary] }), merged_to_email: expect.objectContaining({ value: "primary@example.com" }) }),
    ]);

    // The merged-away vid, its email and its visitor token all answer the survivor.
    for (const path of [`${V1}/vid/${secondary}/profile`, `${V1}/email/secondary@example.com/profile`, `${V1}/utk/utk-secondary/profile`]) {
      const r = await call("GET", path, { token: t.pat });
      expect([path, r.status, r.json.vid]).toEqual([path, 200, primary]);
    }
    const batch = await call("GET", `${V1}/vids/batch?vid=${secondary}`, { token: t.pat });
    expect(Object.keys(batch.json)).toEqual([String(primary)]);
    // Timeline and associations moved.
    expect((await timeline(t, "contacts", primary)).json.results).toHaveLength(1);
    const v3 = await call("GET", `/crm/v3/objects/contacts/${primary}?associations=companies`, { token: t.pat });
    expect(JSON.stringify(v3.json.associations)).toContain(String(company));
    // Merged-away contacts are gone from v3 and the v1 list (docs/reference/contacts-v1.md "Merge").
    expect((await call("GET", `/crm/v3/objects/contacts/${secondary}`, { token: t.pat })).status).toBe(404);
    const list = await call("GET", "/contacts/v1/lists/all/contacts/all", { token: t.pat });
    expect(list.json.contacts.map((c: { vid: number }) => c.vid)).toEqual([primary]);
    expect(list.json.contacts[0]["merged-vids"]).toEqual([secondary, primary]);
    // Updating by the merged-away vid updates the survivor; createOrUpdate by its email too.
    expect((await call("POST", `${V1}/vid/${secondary}/profile`, { token: t.pat, body: v1Props({ lastname: "Logan" }) })).status).toBe(204);
    const cu = await call("POST", `${V1}/createOrUpdate/email/secondary@example.com`, { token: t.pat, body: v1Props({ city: "Alberta" }) });
    expect(cu.json).toEqual({ vid: primary, isNew: false });
    expect((await profileOf(t, primary)).json.properties.lastname.value).toBe("Logan");
    // Creating a contact with the merged-away email is the 409 naming the survivor.
    expect((await call("POST", V1, { token: t.pat, body: v1Props({ email: "secondary@example.com" }) })).json.identityProfile.vid).toBe(primary);
  });

  it("a chain of merges resolves to the last survivor, which lists every merged vid", async () => {
    const t = await tenant();
    const a = await v1Create(t, { email: "a@example.com" });
    const b = await v1Create(t, { email: "b@example.com" });
    const c = await v1Create(t, { email: "c@example.com" });
    expect((await merge(t, b, a)).status).toBe(200);
    expect((await merge(t, c, b)).status).toBe(200);
    const res = await profileOf(t, a);
    expect(res.json.vid).toBe(c);
    expect(res.json["merged-vids"]).toEqual([a, b, c]);
    expect((await call("GET", `${V1}/email/a@example.com/profile`, { token: t.pat })).json.vid).toBe(c);
  });

  it("the all-contacts list pages by vid and gives each contact on the page its own merges", async () => {
    const t = await tenant();
    const vids: number[] = [];
    for (const name of ["a", "b", "c", "d", "e", "f"]) vids.push(await v1Create(t, { email: `${name}@example.com` }));
    const [va, vb, vc, vd, ve, vf] = vids as [number, number, number, number, number, number];
    expect((await merge(t, va, vb)).status).toBe(200); // a keeps b
    expect((await merge(t, va, ve)).status).toBe(200); // and e: two merges on one contact
    expect((await merge(t, vc, vd)).status).toBe(200); // c keeps d; f has none
    const page = async (query: string) => (await call("GET", `/contacts/v1/lists/all/contacts/all?${query}`, { token: t.pat })).json;
    const entries = (j: { contacts: { vid: number; "merged-vids": number[] }[] }) => j.contacts.map((x) => [x.vid, x["merged-vids"]]);
    const first = await page("count=1");
    expect(entries(first)).toEqual([[va, [vb, ve, va]]]);
    expect([first["has-more"], first["vid-offset"]]).toEqual([true, va]);
    const rest = await page(`count=2&vidOffset=${va}`);
    expect(entries(rest)).toEqual([[vc, [vd, vc]], [vf, []]]);
    expect([rest["has-more"], rest["vid-offset"]]).toEqual([false, vf]);
    expect(entries(await page("count=3"))).toEqual([[va, [vb, ve, va]], [vc, [vd, vc]], [vf, []]]);
  });

  it("self-merge, an already merged contact, an unknown or another account's contact are the recorded 400s", async () => {
    const t = await tenant();
    const other = await tenant();
    const a = await v1Create(t, { email: "a@example.com" });
    const b = await v1Create(t, { email: "b@example.com" });
    const foreign = await v1Create(other, { email: "f@example.com" });
    expect((await merge(t, a, b)).status).toBe(200);
    const toMerge = "vid to merge is not a valid contact or is already in the process of being merged";
    const canonical = "canonical vid is not a valid contact or is already in the process of being merged";
    for (const [primary, secondary, message] of [
      [a, a, toMerge],
      [a, b, toMerge],
      [a, 1, toMerge],
      [a, foreign, toMerge],
      [b, a, canonical],
      [foreign, a, canonical],
    ] as const) {
      const body = expectError(await merge(t, primary, secondary), 400, "VALIDATION_ERROR");
      expect(body.message).toBe(message);
    }
    expect((await profileOf(other, foreign)).json["merged-vids"]).toEqual([]);
  });

  it.each([
    [{}, "vidToMerge"],
    [{ vidToMerge: "abc" }, "vidToMerge"],
    [{ vidToMerge: -1 }, "vidToMerge"],
  ])("body %j → 400 naming %s", async (body, field) => {
    const t = await tenant();
    const a = await v1Create(t, { email: "a@example.com" });
    const err = expectError(await call("POST", `${V1}/merge-vids/${a}`, { token: t.pat, body }), 400, "VALIDATION_ERROR");
    expect(err.message).toContain(field);
  });
});
